//! Books the tool cannot verify: each is exit code 2 with one message that names the place.

use crate::support::{book, harness_dir, write_bytes};

#[test]
fn malformed_book_toml() {
    let book = book(&[("book.toml", "[book\ntitle = 1\n"), ("src/a.md", "# A\n")]);
    let output = book.test(&[]);
    output.code(2);
    output.stderr_contains("book.toml");
    output.stderr_contains("malformed book.toml");
}

#[test]
fn unknown_key_is_named() {
    let book = book(&[
        ("book.toml", "[preprocessor.snippets]\ntimeuot = 3\n"),
        ("src/a.md", "# A\n"),
    ]);
    book.test(&[])
        .code(2)
        .stderr_contains("unknown key `timeuot` in [preprocessor.snippets]");
}

#[test]
fn non_utf8_chapter() {
    let book = book(&[("src/SUMMARY.md", "- [Bad](bad.md)\n")]);
    write_bytes(book.path(), "src/bad.md", b"# Bad \xff\xfe\n");
    book.test(&[])
        .code(2)
        .stderr_contains("bad.md is not UTF-8");
}

#[test]
fn unterminated_fence() {
    let book = book(&[(
        "src/a.md",
        "# A\n\n```rust\nfn main() {}\n\nThe rest of the chapter.\n",
    )]);
    book.test(&[])
        .code(2)
        .stderr_contains("src/a.md:3:1: unterminated code fence: no closing ``` line");
}

#[test]
fn missing_harness() {
    let book = book(&[
        (
            "book.toml",
            "[preprocessor.snippets]\nharness = \"no-such-crate\"\n",
        ),
        ("src/a.md", "```rust\nprintln!(\"hi\");\n```\n"),
    ]);
    book.test(&[])
        .code(2)
        .stderr_contains("harness crate not found");
}

#[test]
fn missing_include() {
    let book = book(&[("src/a.md", "```rust\n{{#include nothing.rs}}\n```\n")]);
    book.test(&[])
        .code(2)
        .stderr_contains("src/a.md:2: {{#include nothing.rs}}");
}

#[test]
fn harness_path_is_resolved_from_the_book_root() {
    // Sanity check for the fixture the harness tests use: the path exists.
    assert!(harness_dir().join("Cargo.toml").is_file());
}
