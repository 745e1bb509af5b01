//! A `book.toml` the tool must refuse: `mdbook-snippets test` exits 2 before anything runs, and
//! says why on stderr in one message naming the key (checked whole, as a snapshot).

use expect_test::Expect;

use super::book::book;

/// Verifies a book whose `book.toml` is `book_toml`, and whose one chapter has a Rust snippet
/// and a `python` one (a snippet only if `book_toml` declares the language) that would each leave
/// a file behind if they ran: the exit code must be 2, no snippet may have run, and stderr (the
/// book's directory as `[ROOT]`) must be `expected`.
#[track_caller]
pub(crate) fn check_bad_config(book_toml: &str, expected: Expect) {
    let markers = tempfile::tempdir().unwrap();
    let (rust, python) = (markers.path().join("rust"), markers.path().join("python"));
    let chapter = format!(
        "# A\n\n```rust\nstd::fs::write({:?}, \"\").unwrap();\n```\n\n\
         ```python\nopen({:?}, \"w\")\n```\n",
        rust.display().to_string(),
        python.display().to_string(),
    );
    let book = book(&[("book.toml", book_toml), ("src/a.md", &chapter)]);
    let output = book.test(&["--quiet"]);
    output.code(2);
    assert!(
        !rust.exists() && !python.exists(),
        "a snippet ran\n{output}"
    );
    expected.assert_eq(&output.stderr());
}
