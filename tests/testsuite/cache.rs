//! An unchanged book is verified again from the cache, without cargo; a change to a snippet
//! (or its expected block) is seen.

use crate::support::book;

const CHAPTER: &str = "```rust\nprintln!(\"cached\");\n```\n\n```text,output\ncached\n```\n\n```rust\nlet x: u32 = \"no\";\n```\n";

#[test]
fn unchanged_book_does_not_invoke_cargo() {
    let book = book(&[("src/a.md", CHAPTER)]);
    let first = book.test(&[]);
    first.code(1).stderr_contains("building 2 snippet(s)");
    let started = std::time::Instant::now();
    let second = book.test(&[]);
    second.code(1);
    assert!(
        !second.stderr.contains("building"),
        "cargo ran again\n{second}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(first.stdout(), second.stdout());

    // The expected block is judged afresh: no rebuild, but a different verdict.
    book.write(
        "src/a.md",
        &CHAPTER.replace("cached\n```\n\n```rust", "stale\n```\n\n```rust"),
    );
    let third = book.test(&[]);
    assert!(
        !third.stderr.contains("building"),
        "cargo ran again\n{third}"
    );
    third.code(1).stdout_contains("0 passed, 2 failed");

    // A changed snippet is built again; --no-cache rebuilds everything.
    book.write(
        "src/a.md",
        &CHAPTER.replace("println!(\"cached\")", "println!(\"{}\", \"cached\")"),
    );
    book.test(&[])
        .code(1)
        .stderr_contains("building 1 snippet(s)");
    book.test(&["--no-cache"])
        .code(1)
        .stderr_contains("building 2 snippet(s)");
}
