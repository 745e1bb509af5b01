//! What a template's run shows, checked against `runs/NAME.txt`, the file `book/templates.md`
//! includes under the template's code, so the page shows what the run showed. Line by line;
//! `[..]` in the file stands for any text within a line (a count that depends on timing).
//! `SNAPSHOTS=overwrite` writes the run into the file, keeping the lines that matched.

use std::path::PathBuf;

use crate::support::{read, repo};

fn runs_file(name: &str) -> PathBuf {
    repo()
        .join("tests/testsuite/templates/runs")
        .join(format!("{name}.txt"))
}

/// Whether `actual` is `expected`, where each `[..]` of `expected` matches any text.
fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("[..]").collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return expected == actual;
    }
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    if !actual.ends_with(last) {
        return false;
    }
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Asserts that `shown` is what `runs/NAME.txt` says the run shows.
#[track_caller]
pub(super) fn check_shown(name: &str, shown: &str) {
    let path = runs_file(name);
    let expected = if path.exists() {
        read(&path)
    } else {
        String::new()
    };
    let expected_lines: Vec<&str> = expected.lines().collect();
    let actual_lines: Vec<&str> = shown.lines().collect();
    let matches = expected_lines.len() == actual_lines.len()
        && expected_lines
            .iter()
            .zip(&actual_lines)
            .all(|(expected, actual)| line_matches(expected, actual));
    if matches {
        return;
    }
    if std::env::var("SNAPSHOTS").as_deref() == Ok("overwrite") {
        let kept: Vec<&str> = if expected_lines.len() == actual_lines.len() {
            expected_lines
                .iter()
                .zip(&actual_lines)
                .map(|(expected, actual)| {
                    if line_matches(expected, actual) {
                        *expected
                    } else {
                        *actual
                    }
                })
                .collect()
        } else {
            actual_lines
        };
        std::fs::write(&path, kept.join("\n") + "\n")
            .unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
        return;
    }
    panic!(
        "the run of {name} shows something else than {} (which the book shows); \
         `SNAPSHOTS=overwrite` rewrites it\n--- expected\n{expected}--- shown\n{shown}",
        path.display()
    );
}

#[test]
fn a_wildcard_matches_any_text_within_a_line() {
    assert!(line_matches(
        "stopped before chunk [..]",
        "stopped before chunk 2"
    ));
    assert!(line_matches("a [..] c [..] e", "a b c d e"));
    assert!(line_matches("exact", "exact"));
    assert!(!line_matches("exact", "exact!"));
    assert!(!line_matches(
        "stopped before chunk [..]",
        "started chunk 2"
    ));
    assert!(!line_matches("a [..] c", "a b d"));
    assert!(!line_matches("ab[..]ba", "aba"));
}
