//! The info string of a fenced block (```` ```rust,should_panic,revision=both ````): whether the
//! block is a snippet, an expected-output block or neither, and the snippet's [`Attributes`].
//! Tokens are separated by commas or whitespace, as rustdoc does.

use crate::snippet::Attributes;

/// What a fenced block is, judged by its info string.
#[derive(Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// A Rust snippet: the first token is `rust`.
    Snippet,
    /// An expected-output block: one of the tokens is `output` (e.g. `text,output`).
    ExpectedOutput,
    /// Anything else (`toml`, `console`, no language at all): not ours.
    Other,
}

/// Attributes of rustdoc and mdBook that change nothing here (the playground and its editor).
const IGNORED: &[&str] = &[
    "editable",
    "noplayground",
    "noplaypen",
    "mdbook-runnable",
    "test_harness",
    "allow_fail",
];

pub fn tokens(info: &str) -> impl Iterator<Item = &str> {
    info.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|token| !token.is_empty())
}

pub fn block_kind(info: &str) -> BlockKind {
    let mut tokens = tokens(info);
    match tokens.next() {
        Some("rust") => BlockKind::Snippet,
        Some(first) if first == "output" || tokens.any(|token| token == "output") => {
            BlockKind::ExpectedOutput
        }
        _ => BlockKind::Other,
    }
}

/// Parses a snippet's info string. Bare words we do not know are an error (a typo such as
/// `should_pnic` must not silently turn a check off); `key=value` tokens we do not own go to the
/// harness.
pub fn parse_attributes(info: &str) -> Result<Attributes, String> {
    let mut attributes = Attributes::default();
    for token in tokens(info).skip(1) {
        match token {
            "ignore" => attributes.ignore = true,
            "no_run" => attributes.no_run = true,
            "should_panic" => attributes.should_panic = true,
            "compile_fail" => {
                attributes.compile_fail.get_or_insert_with(Vec::new);
            }
            code if is_error_code(code) => match &mut attributes.compile_fail {
                Some(codes) => codes.push(code.to_owned()),
                None => return Err(format!("error code `{code}` without `compile_fail`")),
            },
            edition if edition.starts_with("edition") => {
                let year = &edition["edition".len()..];
                crate::config::check_edition(year).map_err(|error| error.to_string())?;
                attributes.edition = Some(year.to_owned());
            }
            ignored if IGNORED.contains(&ignored) => {}
            key_value if key_value.contains('=') => {
                let (key, value) = key_value.split_once('=').expect("checked above");
                match key {
                    "timeout" => match value.parse::<u64>() {
                        Ok(seconds) if seconds > 0 => attributes.timeout_secs = Some(seconds),
                        _ => return Err(format!("`timeout` needs whole seconds, found `{value}`")),
                    },
                    // mdBook's prefix for hidden lines in other languages; Rust uses `# `.
                    "hidelines" => {}
                    _ => attributes.harness.push(key_value.to_owned()),
                }
            }
            unknown => {
                return Err(format!(
                    "unknown attribute `{unknown}` (known: ignore, no_run, should_panic, \
                     compile_fail, editionNNNN, timeout=N, or key=value for the harness)"
                ));
            }
        }
    }
    Ok(attributes)
}

/// Merges the book's default attributes under a snippet's own: a snippet's value for a key wins
/// (every value of that key is the snippet's, so `expect_violation` can repeat).
pub fn merge_harness_attributes(defaults: &[String], own: &[String]) -> Vec<String> {
    let key = |attribute: &str| attribute.split('=').next().unwrap_or_default().to_owned();
    let own_keys: Vec<String> = own.iter().map(|attribute| key(attribute)).collect();
    defaults
        .iter()
        .filter(|attribute| !own_keys.contains(&key(attribute)))
        .chain(own)
        .cloned()
        .collect()
}

fn is_error_code(token: &str) -> bool {
    token.len() == 5 && token.starts_with('E') && token[1..].chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    fn check(info: &str, expect: Expect) {
        let actual = match block_kind(info) {
            BlockKind::Snippet => format!("{:?}", parse_attributes(info)),
            other => format!("{other:?}"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn kinds() {
        check("", expect!["Other"]);
        check("toml", expect!["Other"]);
        check("text,output", expect!["ExpectedOutput"]);
        check("output", expect!["ExpectedOutput"]);
        check(
            "rust",
            expect![[
                r#"Ok(Attributes { ignore: false, no_run: false, should_panic: false, compile_fail: None, edition: None, timeout_secs: None, harness: [] })"#
            ]],
        );
    }

    #[test]
    fn rustdoc_attributes() {
        check(
            "rust,compile_fail,E0425 edition2018",
            expect![[
                r#"Ok(Attributes { ignore: false, no_run: false, should_panic: false, compile_fail: Some(["E0425"]), edition: Some("2018"), timeout_secs: None, harness: [] })"#
            ]],
        );
        check(
            "rust,should_panic,no_run,ignore,editable",
            expect![[
                r#"Ok(Attributes { ignore: true, no_run: true, should_panic: true, compile_fail: None, edition: None, timeout_secs: None, harness: [] })"#
            ]],
        );
    }

    #[test]
    fn harness_attributes_and_timeout() {
        check(
            "rust,revision=both,expect_violation=reused-id,timeout=3",
            expect![[
                r#"Ok(Attributes { ignore: false, no_run: false, should_panic: false, compile_fail: None, edition: None, timeout_secs: Some(3), harness: ["revision=both", "expect_violation=reused-id"] })"#
            ]],
        );
    }

    #[test]
    fn mistakes_are_errors() {
        check(
            "rust,should_pnic",
            expect![[
                r#"Err("unknown attribute `should_pnic` (known: ignore, no_run, should_panic, compile_fail, editionNNNN, timeout=N, or key=value for the harness)")"#
            ]],
        );
        check(
            "rust,E0425",
            expect![[r#"Err("error code `E0425` without `compile_fail`")"#]],
        );
        check(
            "rust,timeout=x",
            expect![[r#"Err("`timeout` needs whole seconds, found `x`")"#]],
        );
        check(
            "rust,edition2020",
            expect![[r#"Err("unknown edition `2020` (expected 2015, 2018, 2021 or 2024)")"#]],
        );
    }

    #[test]
    fn snippet_value_wins_over_default() {
        let defaults = vec!["revision=2025-11-25".to_owned(), "trace=on".to_owned()];
        let own = vec!["revision=both".to_owned()];
        expect![[r#"["trace=on", "revision=both"]"#]]
            .assert_eq(&format!("{:?}", merge_harness_attributes(&defaults, &own)));
    }
}
