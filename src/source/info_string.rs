//! The info string of a fenced block (```` ```rust,should_panic,revision=both ````): whether the
//! block is a snippet, an expected-output block or neither, and the snippet's [`Attributes`].
//! Tokens are separated by commas or whitespace, as rustdoc does. What becomes of a word the
//! verifier does not know is an [`UnknownAttributes`](crate::config::UnknownAttributes) policy,
//! which `book.toml` sets.

use crate::snippet::{ACTED_ON, Attributes, LanguageSyntax, SnippetLanguage, UnknownWord};

/// What a fenced block is, judged by its info string.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum BlockKind {
    /// A Rust snippet: rustdoc would test it (no info string, `rust`, or an attribute of
    /// rustdoc's before any other word).
    Snippet,
    /// A snippet of a language the book declares: the first token is its name.
    Language(SnippetLanguage),
    /// An expected-output block: one of the tokens is `output` (e.g. `text,output`).
    ExpectedOutput,
    /// Anything else (`toml`, `console`, `text`): not ours.
    Other,
}

/// Attributes of rustdoc and mdBook that change nothing here (the playground and its editor).
const IGNORED: &[&str] = &[
    "editable",
    "noplayground",
    "noplaypen",
    "mdbook-runnable",
    "allow_fail",
];

pub(super) fn tokens(info: &str) -> impl Iterator<Item = &str> {
    info.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|token| !token.is_empty())
}

/// What the block with this info string is, in a book that declares `languages`. A block is
/// Rust when rustdoc would test it (see [`is_rust`]): no info string at all, `rust`, or one of
/// rustdoc's attributes before any word of another tool's.
pub(super) fn block_kind(info: &str, languages: &[LanguageSyntax]) -> BlockKind {
    let mut tokens = tokens(info);
    match tokens.next() {
        Some(first) if let Some(language) = languages.iter().find(|l| l.name == first) => {
            let own = tokens.find_map(|token| token.strip_prefix("hidelines="));
            BlockKind::Language(SnippetLanguage {
                name: language.name.clone(),
                hidden: own.unwrap_or(&language.hidden).to_owned(),
                hidden_in_info: own.is_some(),
            })
        }
        Some(first) if first != "rust" && (first == "output" || tokens.any(|t| t == "output")) => {
            BlockKind::ExpectedOutput
        }
        _ if is_rust(info) => BlockKind::Snippet,
        _ => BlockKind::Other,
    }
}

/// Whether rustdoc tests a block with this info string, by its rule: a word it does not know
/// (`text`, `toml`, `editable`) makes the block another language's unless `rust` is there, or
/// one of its attributes came before that word (`no_run,text` is Rust, `text,no_run` is not);
/// edition words count for neither. So a block with no info string is Rust.
pub(super) fn is_rust(info: &str) -> bool {
    let (mut seen_rust, mut seen_other) = (false, false);
    for token in tokens(info) {
        match token {
            "rust" => seen_rust = true,
            "should_panic" | "no_run" | "ignore" => seen_rust = !seen_other,
            ignore if ignore.starts_with("ignore-") => seen_rust = !seen_other,
            "test_harness" | "compile_fail" | "standalone_crate" => {
                seen_rust = !seen_other || seen_rust;
            }
            code if is_error_code(code) => seen_rust = !seen_other || seen_rust,
            edition if edition.starts_with("edition") => {}
            _ => seen_other = true,
        }
    }
    !seen_other || seen_rust
}

/// Parses a snippet's info string. Bare words we do not know are kept in
/// [`Attributes::unknown`] (the caller ignores, warns or fails, as the book asks), each with the
/// attribute it resembles; `key=value` tokens we do not own go to the harness. `Err` only for a
/// value of ours that is malformed (`timeout=x`).
pub(super) fn parse_attributes(info: &str) -> Result<Attributes, String> {
    let mut attributes = Attributes::default();
    let mut codes = Vec::new();
    for token in tokens(info) {
        match token {
            "rust" => {}
            "ignore" => attributes.ignore = true,
            "no_run" => attributes.no_run = true,
            "should_panic" => attributes.should_panic = true,
            "test_harness" => attributes.test_harness = true,
            "standalone_crate" => attributes.standalone_crate = true,
            target if let Some(fragment) = target.strip_prefix("ignore-") => {
                attributes.ignore |= host_matches(fragment);
            }
            "compile_fail" => {
                attributes.compile_fail.get_or_insert_with(Vec::new);
            }
            code if is_error_code(code) => codes.push(code),
            "edition2015" | "edition2018" | "edition2021" | "edition2024" => {
                attributes.edition = Some(token["edition".len()..].to_owned());
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
                    "hidelines" => attributes.hidelines = Some(value.to_owned()),
                    // The verifier's own claim (see `mutants`), not the harness's.
                    "kills" if value.is_empty() => {
                        return Err("`kills` needs the name of a mutant, found nothing".to_owned());
                    }
                    "kills" if !attributes.kills.iter().any(|name| name == value) => {
                        attributes.kills.push(value.to_owned());
                    }
                    "kills" => {}
                    _ => attributes.harness.push(key_value.to_owned()),
                }
            }
            unknown => attributes.unknown.push(UnknownWord {
                word: unknown.to_owned(),
                resembles: resembles(unknown),
            }),
        }
    }
    // rustdoc takes error codes in any order; without `compile_fail` they do nothing, which is
    // most likely a forgotten `compile_fail`.
    match &mut attributes.compile_fail {
        Some(wanted) => wanted.extend(codes.into_iter().map(str::to_owned)),
        None => attributes
            .unknown
            .extend(codes.into_iter().map(|code| UnknownWord {
                word: code.to_owned(),
                resembles: Some("compile_fail"),
            })),
    }
    Ok(attributes)
}

/// The attribute `word` is a likely typo of: the same once case, `-` and `_` are set aside
/// (`Should-Panic`, `shouldpanic`), or within a small edit distance (`shold_panic`,
/// `edition2O21`, `no_rnu`).
fn resembles(word: &str) -> Option<&'static str> {
    let squash = |text: &str| -> String {
        text.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let squashed = squash(word);
    if let Some(attribute) = ACTED_ON
        .iter()
        .find(|attribute| squash(attribute) == squashed)
    {
        return Some(attribute);
    }
    let word = word.to_lowercase();
    let limit = if word.chars().count() >= 6 { 2 } else { 1 };
    ACTED_ON
        .iter()
        .map(|attribute| (edit_distance(&word, attribute), *attribute))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, attribute)| attribute)
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbours each cost one.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

/// Merges the book's default attributes under a snippet's own: a snippet's value for a key wins
/// (every value of that key is the snippet's, so `expect_violation` can repeat).
pub(crate) fn merge_harness_attributes(defaults: &[String], own: &[String]) -> Vec<String> {
    let key = |attribute: &str| attribute.split('=').next().unwrap_or_default().to_owned();
    let own_keys: Vec<String> = own.iter().map(|attribute| key(attribute)).collect();
    defaults
        .iter()
        .filter(|attribute| !own_keys.contains(&key(attribute)))
        .chain(own)
        .cloned()
        .collect()
}

/// Parses the info string of a snippet of a declared language (`python,ignore,revision=2`):
/// the same words as for Rust, minus those that only mean something to rustc.
pub(super) fn parse_language_attributes(info: &str) -> Result<Attributes, String> {
    let rest: Vec<&str> = tokens(info).skip(1).collect();
    let attributes = parse_attributes(&format!("rust,{}", rest.join(",")))?;
    let rust_only = [
        ("should_panic", attributes.should_panic),
        ("test_harness", attributes.test_harness),
        ("compile_fail", attributes.compile_fail.is_some()),
        ("editionNNNN", attributes.edition.is_some()),
    ];
    match rust_only.iter().find(|(_, set)| *set) {
        Some((word, _)) => Err(format!(
            "`{word}` applies to Rust snippets only, not to `{}`",
            tokens(info).next().unwrap_or_default()
        )),
        None => Ok(attributes),
    }
}

/// rustdoc's `ignore-TARGET`: whether the host's target triple contains `fragment`
/// (`ignore-windows`, `ignore-x86_64`, `ignore-musl`), the triple being put together from what
/// this build of the tool knows of its platform.
fn host_matches(fragment: &str) -> bool {
    use std::env::consts::{ARCH, FAMILY, OS};
    let vendor = match OS {
        "macos" | "ios" => "apple",
        "windows" => "pc",
        _ => "unknown",
    };
    let environment = if cfg!(target_env = "gnu") {
        "gnu"
    } else if cfg!(target_env = "musl") {
        "musl"
    } else if cfg!(target_env = "msvc") {
        "msvc"
    } else {
        ""
    };
    let os = if OS == "macos" { "darwin" } else { OS };
    !fragment.is_empty()
        && format!("{ARCH}-{vendor}-{os}-{environment} {FAMILY}").contains(fragment)
}

fn is_error_code(token: &str) -> bool {
    token.len() == 5 && token.starts_with('E') && token[1..].chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
#[path = "info_string_tests.rs"]
mod tests;
