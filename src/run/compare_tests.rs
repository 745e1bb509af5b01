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
            - took [..] ms
            + took 12 s
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
                - two
                + 2
                  three
                + four
            "#]],
    );
}

/// `count` numbered lines of about 10 bytes each, `line 0` up.
fn numbered(count: usize, mut line: impl FnMut(usize) -> String) -> String {
    (0..count).map(|index| line(index) + "\n").collect()
}

#[test]
fn megabyte_outputs_match_and_diff_in_linear_memory() {
    // About 1 MiB each side: an O(n*m) table would need 10^10 cells.
    let count = 100_000;
    let expected = numbered(count, |index| format!("line {index}"));
    assert!(expected.len() > 1_000_000);
    assert_eq!(compare(&expected, &expected), Ok(()));
    let elided = format!("line 0\n...\nline {}\n", count - 1);
    assert_eq!(compare(&elided, &expected), Ok(()));

    let actual = numbered(count, |index| match index {
        50_000 => "line fifty thousand".to_owned(),
        _ => format!("line {index}"),
    });
    let diff = compare(&expected, &actual).unwrap_err();
    let changes: Vec<&str> = diff
        .lines()
        .filter(|line| line.starts_with(['+', '-']))
        .collect();
    assert_eq!(changes, ["- line 50000", "+ line fifty thousand"]);

    // Nothing in common: the diff is cut short and says how much it left out.
    let other = numbered(count, |index| format!("other {index}"));
    let diff = compare(&expected, &other).unwrap_err();
    assert_eq!(diff.lines().count(), 1 + 200 + 1, "{}", &diff[..200]);
    assert!(
        diff.ends_with(&format!(
            "({} more changed lines not shown)\n",
            2 * count - 200
        )),
        "{}",
        &diff[diff.len() - 200..]
    );
}

/// The issue's case: 400,000 lines of output against `...` and 1,000 lines (and against a
/// `...` on each side, and near misses). The work is bounded by the size: a few steps per
/// actual line. Repeated lines are the worst case of backtracking, which took 400,000 x
/// 1,000 steps (about a minute) for them.
#[test]
fn line_wildcards_take_linear_steps() {
    let count = 400_000;
    for output in [
        numbered(count, |_| "tick".to_owned()),
        numbered(count, |index| format!("line {index}")),
    ] {
        let actual = super::normalized_lines(&output);
        let tail: String = actual[count - 1_000..]
            .iter()
            .map(|line| format!("{line}\n"))
            .collect();
        let check_steps = |expected: &str, matches: bool| {
            let expected = super::normalized_lines(expected);
            let mut steps = 0;
            assert_eq!(
                super::matches_lines_counting(&expected, &actual, &mut steps),
                matches
            );
            assert!(steps <= 20 * count, "{steps} steps for {count} lines");
        };
        check_steps(&format!("...\n{tail}"), true);
        check_steps(&format!("...\n{tail}...\n"), true);
        check_steps(&format!("{}\n...\n{tail}...\n", actual[0]), true);
        // The last line differs: every place for the segment is a near miss.
        let near_miss = format!("{}x\n", &tail[..tail.len() - 1]);
        check_steps(&format!("...\n{near_miss}...\n"), false);
        check_steps(&format!("...\n{near_miss}"), false);
        // A `[..]` line in the segment costs a test per actual line.
        let wildcards = tail.replacen(actual[count - 500], "[..]", 1);
        check_steps(&format!("...\n{wildcards}...\n"), true);
        check_steps(&format!("...\n{wildcards}...\nnot there\n"), false);
    }
}

#[test]
fn line_wildcards_backtrack() {
    check("...\nb\n...\nd\n", "b\nx\nb\nd\n", expect!["match\n"]);
    check("a\n...\nb\n", "a\nb\nc\nb\n", expect!["match\n"]);
    check("...\n...\nb\n...\n", "a\nb\nc\n", expect!["match\n"]);
    check(
        "a\n...\na\n",
        "a\n",
        expect![[r#"
                output differs from the expected block (-expected +actual):
                  a
                - ...
                - a
            "#]],
    );
    check(
        "x[..]\n...\nb[..]\nc\n...\n",
        "x1\nb1\nb2\nc\nd\n",
        expect!["match\n"],
    );
    check(
        "a\n...\nb\n",
        "a\nb\nc\n",
        expect![[r#"
                output differs from the expected block (-expected +actual):
                  a
                - ...
                  b
                + c
            "#]],
    );
}
