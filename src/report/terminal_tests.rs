use std::path::PathBuf;
use std::time::Duration;

use expect_test::expect;

use super::*;
use crate::report::github::github_annotations;
use crate::report::junit::junit;
use crate::snippet::{ChapterFailure, SourceSpan};

fn span(line: usize, column: usize) -> SourceSpan {
    SourceSpan {
        path: PathBuf::from("src/ch1.md"),
        line,
        column,
    }
}

fn sample() -> Report {
    let result = |id: &str, line, outcome| SnippetResult {
        id: id.to_owned(),
        span: span(line, 1),
        outcome,
        stdout: String::new(),
        stderr: String::new(),
        artifacts: Vec::new(),
        elapsed: None,
    };
    Report {
        snippets: Vec::new(),
        results: vec![
            result("src_ch1_md_1", 3, Outcome::Passed),
            result(
                "src_ch1_md_2",
                7,
                Outcome::Failed(Failure {
                    kind: FailureKind::Compile,
                    span: span(8, 9),
                    message:
                        "error[E0425]: cannot find value `y` in this scope\n --> src/ch1.md:8:9"
                            .to_owned(),
                }),
            ),
            result("src_ch1_md_3", 11, Outcome::Skipped),
        ],
        chapter_failures: Vec::new(),
        mutants: None,
        duration: Duration::from_millis(1500),
    }
}

#[test]
fn human_report_with_markdown_excerpt() {
    let book = tempfile::tempdir().unwrap();
    std::fs::create_dir(book.path().join("src")).unwrap();
    std::fs::write(
        book.path().join("src/ch1.md"),
        "# One\n\n```rust\nlet x = 1;\n```\n\n```rust\nlet z = y + x;\n```\n",
    )
    .unwrap();
    expect![[r#"
        error: snippet src_ch1_md_2 does not compile
         --> src/ch1.md:8:9
          |
        6 |
        7 | ```rust
        8 | let z = y + x;
          |         ^^^^^^ error[E0425]: cannot find value `y` in this scope
        9 | ```
          |
           --> src/ch1.md:8:9

        failures:
            src/ch1.md:7 (does not compile, src_ch1_md_2, error at line 8)

        finished in 1.50s
        1 passed, 1 failed, 1 skipped
    "#]]
    .assert_eq(&human(&sample(), book.path()));
}

#[test]
fn github_and_junit() {
    expect![[r#"
        ::error file=src/ch1.md,line=8,col=9,title=snippet does not compile::error[E0425]: cannot find value `y` in this scope%0A --> src/ch1.md:8:9
    "#]]
    .assert_eq(&github_annotations(&sample(), Path::new("")));
    expect![[r#"
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="mdbook-snippets" tests="3" skipped="1" failures="1" errors="0" time="1.500">
            <testsuite name="mdbook-snippets" tests="3" skipped="1" errors="0" failures="1" time="1.500">
                <testcase name="src/ch1.md:3" classname="src/ch1.md"/>
                <testcase name="src/ch1.md:7" classname="src/ch1.md">
                    <failure message="does not compile">error[E0425]: cannot find value `y` in this scope
         --&gt; src/ch1.md:8:9</failure>
                </testcase>
                <testcase name="src/ch1.md:11" classname="src/ch1.md">
                    <skipped/>
                </testcase>
            </testsuite>
        </testsuites>
    "#]]
    .assert_eq(&junit(&sample()).unwrap());
}

#[test]
fn junit_gives_a_run_in_this_verification_its_time_and_a_cached_verdict_none() {
    let mut report = with_mutants();
    report.results[0].elapsed = Some(std::time::Duration::from_millis(250));
    report.mutants.as_mut().unwrap()[1].elapsed = Some(std::time::Duration::from_millis(1500));
    let junit = junit(&report).unwrap();
    let case = |name: &str| {
        let start = junit
            .find(&format!("<testcase name=\"{name}\""))
            .expect("the case");
        junit[start..].split('>').next().unwrap().to_owned()
    };
    assert!(case("src/ch1.md:3").contains(r#"time="0.250""#), "{junit}");
    assert!(
        !case("src/ch1.md:3 mutant wrong-answer").contains("time="),
        "{junit}"
    );
    assert!(
        case("src/ch1.md:3 mutant cancel-ignored").contains(r#"time="1.500""#),
        "{junit}"
    );
}

#[test]
fn summary_names_skipped_only_when_some_were() {
    let mut report = sample();
    expect!["1 passed, 1 failed, 1 skipped"].assert_eq(&summary(&report));
    report.results.pop();
    expect!["1 passed, 1 failed"].assert_eq(&summary(&report));
    report.results.clear();
    expect!["0 passed, 0 failed"].assert_eq(&summary(&report));
}

#[test]
fn a_chapter_that_failed_is_one_failure_with_its_excerpt() {
    let book = tempfile::tempdir().unwrap();
    std::fs::create_dir(book.path().join("src")).unwrap();
    std::fs::write(book.path().join("src/bad.md"), b"# Bad\n\nsome \xff text\n").unwrap();
    let mut report = sample();
    report.results.truncate(1);
    report.chapter_failures.push(ChapterFailure {
        chapter_path: PathBuf::from("src/bad.md"),
        span: SourceSpan {
            path: PathBuf::from("src/bad.md"),
            line: 3,
            column: 6,
        },
        message: "src/bad.md is not UTF-8 (invalid byte at offset 12)".to_owned(),
    });
    expect![[r#"
        error: chapter src/bad.md not verified
         --> src/bad.md:3:6
          |
        1 | # Bad
        2 |
        3 | some � text
          |      ^^^^^^ src/bad.md is not UTF-8 (invalid byte at offset 12)
          none of this chapter's snippets ran

        failures:
            src/bad.md:3 (chapter not verified)

        finished in 1.50s
        1 passed, 1 failed
    "#]]
    .assert_eq(&human(&report, book.path()));
    expect![[r#"
        ::error file=src/bad.md,line=3,col=6,title=chapter not verified::src/bad.md is not UTF-8 (invalid byte at offset 12)
    "#]].assert_eq(&github_annotations(&report, Path::new("")));
    expect![[r#"
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="mdbook-snippets" tests="2" skipped="0" failures="1" errors="0" time="1.500">
            <testsuite name="mdbook-snippets" tests="2" skipped="0" errors="0" failures="1" time="1.500">
                <testcase name="src/ch1.md:3" classname="src/ch1.md"/>
                <testcase name="src/bad.md:3" classname="src/bad.md">
                    <failure message="chapter not verified">src/bad.md is not UTF-8 (invalid byte at offset 12)</failure>
                </testcase>
            </testsuite>
        </testsuites>
    "#]].assert_eq(&junit(&report).unwrap());
}

#[test]
fn a_run_time_failure_says_its_headline_once() {
    let book = tempfile::tempdir().unwrap();
    std::fs::create_dir(book.path().join("src")).unwrap();
    std::fs::write(
        book.path().join("src/ch1.md"),
        "```rust\nlet v: Vec<u8> = Vec::new();\nv[0];\n```\n",
    )
    .unwrap();
    let mut report = sample();
    report.results = vec![SnippetResult {
        id: "src_ch1_md_1".to_owned(),
        span: span(1, 1),
        outcome: Outcome::Failed(Failure {
            kind: FailureKind::Run,
            span: span(3, 1),
            message: "panicked: index out of bounds\nstderr:\nthread 'main' panicked at src/ch1.md:3:1:\nindex out of bounds".to_owned(),
        }),
        stdout: String::new(),
        stderr: String::new(),
        artifacts: Vec::new(),
        elapsed: None,
    }];
    let human = human(&report, book.path());
    expect![[r#"
        error: snippet src_ch1_md_1 failed at run time
         --> src/ch1.md:3:1
          |
        1 | ```rust
        2 | let v: Vec<u8> = Vec::new();
        3 | v[0];
          | ^^^^^ panicked: index out of bounds
        4 | ```
          |
          stderr:
          thread 'main' panicked at src/ch1.md:3:1:
          index out of bounds

        failures:
            src/ch1.md:1 (failed at run time, src_ch1_md_1, error at line 3)

        finished in 1.50s
        0 passed, 1 failed
    "#]]
    .assert_eq(&human);
    assert_eq!(human.matches("panicked: index out of bounds").count(), 1);
}

#[test]
fn junit_escapes_markup_and_shows_control_characters_escaped() {
    let mut report = sample();
    report.results.truncate(1);
    report.results[0].stdout = "\x1b[31mred\x1b[0m <b>&</b> \x01bell\n".to_owned();
    expect![[r#"
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="mdbook-snippets" tests="1" skipped="0" failures="0" errors="0" time="1.500">
            <testsuite name="mdbook-snippets" tests="1" skipped="0" errors="0" failures="0" time="1.500">
                <testcase name="src/ch1.md:3" classname="src/ch1.md">
                    <system-out>\u{1b}[31mred\u{1b}[0m &lt;b&gt;&amp;&lt;/b&gt; \u{1}bell
        </system-out>
                </testcase>
            </testsuite>
        </testsuites>
    "#]]
    .assert_eq(&junit(&report).unwrap());
}

/// The sample with its first snippet (line 3) claiming two mutants: one killed, one survived.
fn with_mutants() -> Report {
    use crate::snippet::{MutantResult, Verdict};
    let mutant = |name: &str, verdict| MutantResult {
        snippet_id: "src_ch1_md_1".to_owned(),
        span: span(3, 1),
        name: name.to_owned(),
        verdict,
        stdout: "42\n".to_owned(),
        elapsed: None,
    };
    let mut report = sample();
    report.results.truncate(1);
    report.mutants = Some(vec![
        mutant(
            "wrong-answer",
            Verdict::Killed(Failure {
                kind: FailureKind::OutputMismatch,
                span: span(7, 1),
                message: "output differs from the expected block".to_owned(),
            }),
        ),
        mutant(
            "cancel-ignored",
            Verdict::Survived("nothing noticed".to_owned()),
        ),
    ]);
    report
}

#[test]
fn a_survived_mutant_is_a_failure_at_its_snippet_and_counted_before_the_summary() {
    let book = tempfile::tempdir().unwrap();
    std::fs::create_dir(book.path().join("src")).unwrap();
    std::fs::write(
        book.path().join("src/ch1.md"),
        "# One\n\n```rust,kills=wrong-answer,kills=cancel-ignored\nprintln!(\"42\");\n```\n",
    )
    .unwrap();
    let report = with_mutants();
    expect![[r#"
        error: snippet src_ch1_md_1 mutant cancel-ignored survived
         --> src/ch1.md:3:1
          |
        1 | # One
        2 |
        3 | ```rust,kills=wrong-answer,kills=cancel-ignored
          | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ mutant cancel-ignored survived
        4 | println!("42");
        5 | ```
          |
          nothing noticed

        failures:
            src/ch1.md:3 (mutant cancel-ignored survived, src_ch1_md_1)

        finished in 1.50s
        mutants: 1 killed, 1 survived
        1 passed, 1 failed
    "#]]
    .assert_eq(&human(&report, book.path()));
    expect![[r#"
        ::error file=src/ch1.md,line=3,col=1,title=mutant cancel-ignored survived::nothing noticed
    "#]]
    .assert_eq(&github_annotations(&report, Path::new("")));
    expect![[r#"
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="mdbook-snippets" tests="3" skipped="0" failures="1" errors="0" time="1.500">
            <testsuite name="mdbook-snippets" tests="3" skipped="0" errors="0" failures="1" time="1.500">
                <testcase name="src/ch1.md:3" classname="src/ch1.md"/>
                <testcase name="src/ch1.md:3 mutant wrong-answer" classname="src/ch1.md">
                    <system-out>killed: output differs
        output differs from the expected block</system-out>
                </testcase>
                <testcase name="src/ch1.md:3 mutant cancel-ignored" classname="src/ch1.md">
                    <failure message="mutant survived">nothing noticed</failure>
                    <system-out>42
        </system-out>
                </testcase>
            </testsuite>
        </testsuites>
    "#]].assert_eq(&junit(&report).unwrap());
}

#[test]
fn without_mutants_there_is_no_mutants_line() {
    let mut report = with_mutants();
    report.mutants = None;
    let text = human(&report, Path::new("/nonexistent"));
    assert!(!text.contains("mutant"), "{text}");
    assert!(text.ends_with("1 passed, 0 failed\n"), "{text}");
    // Under `--mutants`, a book with no `kills=` says so.
    report.mutants = Some(Vec::new());
    let text = human(&report, Path::new("/nonexistent"));
    assert!(
        text.ends_with("mutants: 0 killed, 0 survived\n1 passed, 0 failed\n"),
        "{text}"
    );
}

/// What a snippet printed cannot drive the terminal (or the workflow log, or a JUnit viewer):
/// `ESC[8m` (concealed text) and a carriage return are shown escaped in every format, so the
/// text after them stays visible.
#[test]
fn control_characters_from_snippets_are_shown_escaped() {
    let mut report = sample();
    let hidden = "panicked: fine\x1b[8m SECRET \x1b[0m\rall good \u{202e}txt.exe\u{9b}31m";
    report.results[1] = SnippetResult {
        id: "src_ch1_md_2".to_owned(),
        span: span(7, 1),
        outcome: Outcome::Failed(Failure {
            kind: FailureKind::Run,
            span: span(7, 1),
            message: format!("{hidden}\nstderr:\n{hidden}"),
        }),
        stdout: "out\x1b[2J\n".to_owned(),
        stderr: String::new(),
        artifacts: Vec::new(),
        elapsed: None,
    };
    let escaped = r"fine\u{1b}[8m SECRET \u{1b}[0m\rall good \u{202e}txt.exe\u{9b}31m";
    let book = tempfile::tempdir().unwrap();
    std::fs::create_dir(book.path().join("src")).unwrap();
    std::fs::write(
        book.path().join("src/ch1.md"),
        "# One\n\n```rust\n```\n\n```rust\n```\n",
    )
    .unwrap();
    let terminal = human(&report, book.path());
    assert!(
        !terminal.contains(['\x1b', '\r', '\u{202e}', '\u{9b}']),
        "{terminal:?}"
    );
    assert_eq!(terminal.matches(escaped).count(), 2, "{terminal}");
    let annotations = github_annotations(&report, Path::new(""));
    assert!(!annotations.contains(['\x1b', '\r']), "{annotations:?}");
    assert!(annotations.contains(escaped), "{annotations}");
    let xml = junit(&report).unwrap();
    assert!(!xml.contains('\x1b'), "{xml:?}");
    assert!(xml.contains(escaped), "{xml}");
    assert!(xml.contains(r"out\u{1b}[2J"), "{xml}");
    // Newlines and tabs are text, not escapes.
    assert_eq!(escape_controls("a\tb\nc"), "a\tb\nc");
}
