//! The overwrite mode: `mdbook-snippets test --bless` (or `SNAPSHOTS=overwrite`) rewrites the
//! expected-output blocks that did not match, and nothing else.

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
