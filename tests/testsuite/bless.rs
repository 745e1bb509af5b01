//! The overwrite mode: `mdbook-snippets test --bless` (or `SNAPSHOTS=overwrite`) rewrites the
//! expected-output blocks that did not match, and nothing else.

use std::time::Duration;

use crate::support;

const CHAPTER: &str = "# Bless\r\n\r\n```rust\r\nprintln!(\"new\");\r\nprintln!();\r\nprintln!(\"lines\");\r\n```\r\n\r\n```text,output\r\nold\r\n```\r\n\r\n- Matching, wildcards kept:\r\n\r\n  ```rust\r\n  println!(\"value: 42\");\r\n  ```\r\n  ```output\r\n  value: [..]\r\n  ```\r\n- Mismatch in a list:\r\n\r\n  ```rust\r\n  println!(\"listed\");\r\n  ```\r\n  ```output\r\n  stale\r\n  ```\r\n\r\nNo expected block, none added:\r\n\r\n```rust\r\nprintln!(\"unasked\");\r\n```\r\n";

const BLESSED: &str = "# Bless\r\n\r\n```rust\r\nprintln!(\"new\");\r\nprintln!();\r\nprintln!(\"lines\");\r\n```\r\n\r\n```text,output\r\nnew\r\n\r\nlines\r\n```\r\n\r\n- Matching, wildcards kept:\r\n\r\n  ```rust\r\n  println!(\"value: 42\");\r\n  ```\r\n  ```output\r\n  value: [..]\r\n  ```\r\n- Mismatch in a list:\r\n\r\n  ```rust\r\n  println!(\"listed\");\r\n  ```\r\n  ```output\r\n  listed\r\n  ```\r\n\r\nNo expected block, none added:\r\n\r\n```rust\r\nprintln!(\"unasked\");\r\n```\r\n";

fn book() -> support::Book {
    support::book(&[
        ("src/SUMMARY.md", "# Summary\n\n- [Bless](bless.md)\n"),
        ("src/bless.md", CHAPTER),
    ])
}

fn chapter(book: &support::Book) -> String {
    std::fs::read_to_string(book.path().join("src/bless.md")).unwrap()
}

#[test]
fn bless_rewrites_only_mismatched_expected_blocks() {
    let book = book();
    let output = book.test(&[]);
    output.code(1).stdout_contains("2 passed, 2 failed");
    assert_eq!(
        chapter(&book),
        CHAPTER,
        "a plain run never writes a source file"
    );

    let output = book.test(&["--bless"]);
    output.stderr_contains("blessed the expected output in src/bless.md");
    assert_eq!(chapter(&book), BLESSED, "{output}");

    book.test(&[]).code(0).stdout_contains("4 passed, 0 failed");
}

#[test]
fn snapshots_overwrite_is_the_same_as_bless() {
    let book = book();
    let mut command = book.test_command(&[]);
    command.env("SNAPSHOTS", "overwrite");
    let output = book.run(command);
    assert_eq!(chapter(&book), BLESSED, "{output}");
}

#[test]
fn a_snippet_that_does_not_compile_is_not_blessed() {
    let book = support::book(&[
        ("src/SUMMARY.md", "# Summary\n\n- [Broken](broken.md)\n"),
        (
            "src/broken.md",
            "```rust\nlet x: u32 = \"no\";\n```\n\n```output\nkept\n```\n",
        ),
    ]);
    book.test(&["--bless"]).code(1);
    assert_eq!(
        std::fs::read_to_string(book.path().join("src/broken.md")).unwrap(),
        "```rust\nlet x: u32 = \"no\";\n```\n\n```output\nkept\n```\n"
    );
}

/// The chapter edited while the run is under way (between the run reading it and blessing):
/// the block at the line where the mismatched expected block was is now a hand-written one,
/// and `--bless` must not overwrite it, nor anything else.
#[test]
fn a_chapter_edited_during_the_run_is_not_blessed() {
    let written = "# Bless\n\n```sh\necho new\n```\n\n```text,output\nold\n```\n\n\
                   ```sh\n# Waits (at most 20 s) until the test has edited the chapter.\n\
                   i=0; while [ ! -e \"$BLESS_GO\" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done\n\
                   echo waited\n```\n";
    let book = support::sh_book("pass-env = [\"BLESS_GO\"]", written);
    let go = book.path().join("go");
    let mut command = book.test_command(&["--bless", "--no-cache"]);
    command.env("BLESS_GO", &go);
    let mut run = book.start(command);
    // The first snippet's verdict: the run has read the chapter.
    run.wait_for_stderr("test src/a.md:3 ... FAILED", Duration::from_secs(60));
    // A section added at the top: a hand-written block now starts on line 7, where the
    // expected block's fence was.
    let edited = written.replace(
        "# Bless\n\n",
        "# Bless\n\nIntro.\n\nMore.\n\n```text\nhand-written\n```\n\n",
    );
    book.write("src/a.md", &edited);
    std::fs::write(&go, "").unwrap();
    let output = run.finish(Duration::from_secs(60));
    output.code(1);
    assert_eq!(
        support::read(&book.path().join("src/a.md")),
        edited,
        "{output}"
    );
    output.stderr_contains(
        "warning: src/a.md:7: not blessed: the chapter changed during the run, and this \
         block is no longer the text that ran",
    );
}
