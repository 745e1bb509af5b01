use std::path::Path;
use std::time::Duration;

use expect_test::expect;

use super::*;
use crate::source::extract::extract;

fn located(markdown: &str) -> Located {
    let snippet = extract(Path::new("src/ch.md"), markdown, &[])
        .unwrap()
        .remove(0);
    let line = snippet.span.line;
    Located::new(snippet, line, None)
}

#[test]
fn compile_error_positions_and_gutter_become_markdown() {
    let located = located(&format!(
        "{}```rust\n# let hidden = 1;\nlet x: u32 = \"no\";\n```\n",
        "\n".repeat(8)
    ));
    let rendered = "error[E0308]: mismatched types\n --> src/e2021/s.rs:5:14\n  |\n5 | let x: u32 = \"no\";\n  |        ---   ^^^^ expected `u32`\n";
    let record = Record::DidNotCompile {
        codes: vec!["E0308".to_owned()],
        message: rendered.to_owned(),
    };
    let result = judge(&located, &record, Path::new("src/e2021/s.rs"));
    let Outcome::Failed(failure) = result.outcome else {
        panic!("a compile error fails");
    };
    assert_eq!((failure.span.line, failure.span.column), (11, 14));
    expect![[r#"
            error[E0308]: mismatched types
              --> src/ch.md:11:14
               |
            11 | let x: u32 = "no";
               |        ---   ^^^^ expected `u32`
        "#]]
    .assert_eq(&failure.message);
}

#[test]
fn panic_thread_ids_are_dropped() {
    let stderr = "\nthread 'main' (48213) panicked at src/e2021/s.rs:4:1:\nboom\n\
                      thread '<unnamed>' (7) panicked at x.rs:1:1:\nthread 'it's' (no) panicked\n";
    expect![[r#"

            thread 'main' panicked at src/e2021/s.rs:4:1:
            boom
            thread '<unnamed>' panicked at x.rs:1:1:
            thread 'it's' (no) panicked
        "#]]
    .assert_eq(&without_thread_ids(stderr));
}

#[test]
fn hidden_lines_shift_columns_back() {
    let located = located("```rust\n# let hidden = missing;\n```\n");
    let (text, span) = remap("at src/e/s.rs:4:14:", Path::new("src/e/s.rs"), &located);
    assert_eq!(text, "at src/ch.md:2:16:");
    assert_eq!(span.map(|span| span.line), Some(2));
}

/// The verdict on one run of the snippet in `markdown` (its first block): `passed`, or the
/// failure's kind and first line.
fn verdict(markdown: &str, exit: Exit, stdout: &str, stderr: &str) -> String {
    let record = Record::Ran(RunRecord {
        exit,
        stdout: stdout.to_owned(),
        stderr: stderr.to_owned(),
        artifacts: Vec::new(),
        artifact_failure: None,
        elapsed: None,
    });
    match judge(&located(markdown), &record, Path::new("src/e2021/s.rs")).outcome {
        Outcome::Passed => "passed".to_owned(),
        Outcome::Skipped => "skipped".to_owned(),
        Outcome::Failed(failure) => format!(
            "{:?}: {}",
            failure.kind,
            failure.message.lines().next().unwrap_or_default()
        ),
    }
}

#[test]
fn exits_are_judged_by_the_attributes_and_only_then_the_output() {
    let plain = "```rust\nprintln!(\"hi\");\n```\n```text,output\nhi\n```\n";
    let panics = "```rust,should_panic\npanic!(\"x\");\n```\n```text,output\nhi\n```\n";
    let panic_stderr = "thread 'main' (9) panicked at src/e2021/s.rs:4:1:\nx\n";
    let table = [
        verdict(plain, Exit::Code(0), "hi\n", ""),
        verdict(plain, Exit::Code(0), "ho\n", ""),
        verdict(plain, Exit::Code(101), "hi\n", panic_stderr),
        verdict(plain, Exit::Code(3), "hi\n", ""),
        verdict(plain, Exit::Signal(9), "hi\n", ""),
        verdict(plain, Exit::TimedOut(Duration::from_secs(2)), "hi\n", ""),
        verdict(plain, Exit::OutputLimit(10), "hi\n", ""),
        verdict(panics, Exit::Code(101), "hi\n", panic_stderr),
        // A panicking snippet's output is still compared with its expected block.
        verdict(panics, Exit::Code(101), "ho\n", panic_stderr),
        verdict(panics, Exit::Code(0), "hi\n", ""),
        // As under rustdoc, any failed process satisfies `should_panic`.
        verdict(panics, Exit::Code(1), "hi\n", ""),
        verdict(panics, Exit::Signal(6), "hi\n", ""),
    ];
    expect![[r#"
            passed
            OutputMismatch: output differs from the expected block (-expected +actual):
            Run: panicked: x
            Run: exited with code 3
            Run: killed by signal 9
            Timeout: timed out after 2 s; the process group was killed
            Run: printed more than 10 bytes on stdout or stderr; stopped
            passed
            OutputMismatch: output differs from the expected block (-expected +actual):
            Run: exited successfully, but the snippet is marked `should_panic`
            passed
            passed
        "#]]
    .assert_eq(&(table.join("\n") + "\n"));
}

/// A failure says which limit it most likely hit; a panic's note says how to get a backtrace.
#[test]
fn a_failure_names_the_limit_or_the_backtrace_key() {
    assert!(limit_hint("", Some(25)).contains("`file-size-limit`"));
    assert!(limit_hint("File size limit exceeded\n", None).contains("`file-size-limit`"));
    assert!(
        limit_hint("memory allocation of 8 bytes failed\n", Some(6)).contains("`memory-limit`")
    );
    assert!(
        limit_hint(
            "sh: 1: Cannot fork: Resource temporarily unavailable\n",
            None
        )
        .contains("`process-limit`")
    );
    assert!(limit_hint("echo: No space left on device\n", None).contains("`scratch-limit`"));
    let record = Record::Ran(RunRecord {
        exit: Exit::Code(101),
        stdout: String::new(),
        stderr: "thread 'main' panicked at src/main.rs:1:1:\nx\nnote: run with `RUST_BACKTRACE=1` \
                 environment variable to display a backtrace\n"
            .to_owned(),
        artifacts: Vec::new(),
        artifact_failure: None,
        elapsed: None,
    });
    let located = located("```rust\nfn main() {}\n```\n");
    let Outcome::Failed(failure) = judge(&located, &record, Path::new("src/e2021/s.rs")).outcome
    else {
        panic!("a panic passed");
    };
    assert!(
        failure
            .message
            .contains("display a backtrace (here: `backtrace = true` in [preprocessor.snippets])"),
        "{}",
        failure.message
    );
    assert_eq!(limit_hint("plain failure\n", Some(9)), "");
}
