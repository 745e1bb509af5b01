//! Expected output against actual stdout, with snapbox's wildcards: `[..]` inside a line matches
//! any text on that line, and a line that is just `...` matches any number of lines (none
//! included). Trailing whitespace on each line and trailing blank lines do not count, so the
//! Markdown block need not reproduce them.

/// `Ok(())` when `actual` matches `expected`, else a line diff fit to print (`-` expected,
/// `+` actual).
pub fn compare(expected: &str, actual: &str) -> Result<(), String> {
    let expected_lines = normalized_lines(expected);
    let actual_lines = normalized_lines(actual);
    if matches_lines(&expected_lines, &actual_lines) {
        Ok(())
    } else {
        Err(diff(&expected_lines, &actual_lines))
    }
}

fn normalized_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    while lines.last().is_some_and(|line| line.is_empty()) {
        lines.pop();
    }
    lines
}

fn matches_lines(expected: &[&str], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((&"...", rest)) => (0..=actual.len()).any(|skip| matches_lines(rest, &actual[skip..])),
        Some((line, rest)) => actual.split_first().is_some_and(|(first, others)| {
            matches_line(line, first) && matches_lines(rest, others)
        }),
    }
}

/// `[..]` matches any run of characters within the line.
fn matches_line(pattern: &str, line: &str) -> bool {
    let mut pieces = pattern.split("[..]");
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else {
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(index) => rest = &rest[index + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// A plain longest-common-subsequence diff; outputs are short.
fn diff(expected: &[&str], actual: &[&str]) -> String {
    let (n, m) = (expected.len(), actual.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if matches_line(expected[i], actual[j]) {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = String::from("output differs from the expected block (-expected +actual):\n");
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && matches_line(expected[i], actual[j]) {
            out.push_str(&format!("  {}\n", actual[j]));
            (i, j) = (i + 1, j + 1);
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!("+ {}\n", actual[j]));
            j += 1;
        } else {
            out.push_str(&format!("- {}\n", expected[i]));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::compare;

    fn check(expected: &str, actual: &str, expect: Expect) {
        let outcome = match compare(expected, actual) {
            Ok(()) => "match\n".to_owned(),
            Err(diff) => diff,
        };
        expect.assert_eq(&outcome);
    }

    #[test]
    fn exact_and_trailing_whitespace() {
        check("a\nb\n", "a  \nb\n\n\n", expect!["match\n"]);
        check("", "", expect!["match\n"]);
    }

    #[test]
    fn inline_wildcard() {
        check(
            "took [..] ms, id [..]!",
            "took 12 ms, id 7!",
            expect!["match\n"],
        );
        check("[..]", "anything", expect!["match\n"]);
        check("a[..]b", "ab", expect!["match\n"]);
        check(
            "took [..] ms",
            "took 12 s",
            expect![[r#"
                output differs from the expected block (-expected +actual):
                + took 12 s
                - took [..] ms
            "#]],
        );
    }

    #[test]
    fn line_wildcard() {
        check(
            "first\n...\nlast\n",
            "first\n1\n2\nlast\n",
            expect!["match\n"],
        );
        check("first\n...\nlast\n", "first\nlast\n", expect!["match\n"]);
        check("...\n", "x\ny\n", expect!["match\n"]);
    }

    #[test]
    fn diff_shows_missing_and_extra_lines() {
        check(
            "one\ntwo\nthree\n",
            "one\n2\nthree\nfour\n",
            expect![[r#"
                output differs from the expected block (-expected +actual):
                  one
                + 2
                - two
                  three
                + four
            "#]],
        );
    }
}
