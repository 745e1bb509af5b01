//! `mdbook-snippets test` on the fixture books: what passes, what fails and how it is reported,
//! and the exit codes.

use expect_test::expect;

use crate::support::{fixture, junit};

#[test]
fn passing_book_passes() {
    let book = fixture("passing");
    let output = book.test(&["--quiet"]);
    output.code(0);
    expect![[r#"
        finished in [TIME]
        8 passed, 0 failed, 1 skipped
    "#]]
    .assert_eq(&output.stdout());
}

#[test]
fn failing_book_reports_each_failure_at_its_markdown_line() {
    let book = fixture("failing");
    let output = book.test(&["--quiet", "--junit", "report.xml"]);
    output.code(1);
    let stdout = output.stdout();
    // The summary: every kind of failure, each at the place to fix.
    let failures = stdout
        .split("failures:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no failures section\n{output}"));
    expect![[r#"
            src/broken.md:3 (does not compile, src_broken_md_1, error at line 5)
            src/broken.md:8 (failed at run time, src_broken_md_2, error at line 11)
            src/broken.md:14 (output differs, src_broken_md_3, error at line 18)
            src/broken.md:22 (compile_fail mismatch, src_broken_md_4)
            src/broken.md:26 (does not compile, src_broken_md_5, error at listings/bad.rs:2)

        finished in [TIME]
        1 passed, 5 failed
    "#]]
    .assert_eq(failures);
    // The compile error is shown on the Markdown line, at the column of the missing name.
    output.stdout_contains("5 | let total = fine + missing;\n  |                    ^^^^^^^");
    output.stdout_contains("cannot find value `missing` in this scope");
    output.stdout_contains("panicked: boom at run time");
    output.stdout_contains("- expected line\n");
    output.stdout_contains(
        "  help: if the new output is right, `mdbook-snippets test --bless` writes it into the \
         expected block\n",
    );
    output.stdout_contains("compiled, but the snippet is marked `compile_fail`");
    output.stdout_contains("mismatched types");

    let report = junit::read(&book, "report.xml");
    assert!(
        report.contains(
            r#"<testsuite name="mdbook-snippets" tests="6" skipped="0" errors="0" failures="5""#
        ),
        "{report}"
    );
    assert!(
        junit::cases(&report)
            .iter()
            .any(|case| case.name == "src/broken.md:30"),
        "{report}"
    );
}

#[test]
fn github_annotations_name_file_and_line() {
    let book = fixture("failing");
    let output = book.test(&[
        "--quiet",
        "--format",
        "github",
        "--filter",
        "src_broken_md_1",
    ]);
    output.code(1);
    output.stdout_contains(
        "::error file=src/broken.md,line=5,col=20,title=snippet does not compile::",
    );
}

#[test]
fn filter_skips_the_other_snippets() {
    let book = fixture("failing");
    let output = book.test(&["--quiet", "--filter", "src_broken_md_6"]);
    output.code(0);
    output.stdout_contains("1 passed, 0 failed, 5 skipped\n");
}

#[test]
fn progress_lines_go_to_stderr() {
    let book = fixture("failing");
    let output = book.test(&["--filter", "src/broken.md:30"]);
    output.code(0);
    output.stderr_contains("test src/broken.md:30 ... ok\n");
}

/// `mdbook-snippets test | head`: the reader is gone before the report is written. The report
/// ends quietly (no panic, no "Broken pipe" message, not exit 101), the JUnit file is still
/// written, and the exit code is still the verdict.
#[test]
fn a_closed_stdout_ends_the_report_quietly() {
    let book = fixture("failing");
    let mut command = book.test_command(&["--quiet", "--junit", "report.xml"]);
    book.isolate(&mut command, &book.target_dir())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("starting mdbook-snippets");
    // Close the read end now: the report is written only after every snippet ran.
    drop(child.stdout.take());
    let output = child
        .wait_with_output()
        .expect("waiting for mdbook-snippets");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{command:?}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.to_lowercase().contains("broken pipe"), "{stderr}");
    let report = junit::read(&book, "report.xml");
    assert!(report.contains("failures=\"5\""), "{report}");
}
