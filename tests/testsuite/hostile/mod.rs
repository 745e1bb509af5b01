//! A hostile or careless book, environment or user against the verifier (issues 16 and 26),
//! one module per concern: `detached` (snippets whose processes detach, fork and exit in a
//! loop, drop every mark of their run; signals to the verifier), `escapes` (a snippet reading
//! the verifier's environment through `/proc`, writing the book, the cache, anything but its
//! own directory and the book's `writable` paths), `limits` (timeouts, a symlink cycle, full
//! disks, secrets in the environment). Process checks ask the OS (`/proc`) whether anything is
//! left, under each containment (`support::containment`). Most books here use a `sh` language,
//! so no cargo build.

mod detached;
mod escapes;
mod limits;
mod side_doors;

use crate::support::{Book, book};

/// `book.toml` declaring `sh` snippets (`command = ["sh", "{file}"]`), plus `extra` lines in
/// `[preprocessor.snippets]`.
fn sh_book_toml(extra: &str) -> String {
    format!(
        "[book]\ntitle = \"hostile\"\n\n[preprocessor.snippets]\n{extra}\n\
         [preprocessor.snippets.languages.sh]\ncommand = [\"sh\", \"{{file}}\"]\nextension = \"sh\"\n"
    )
}

/// A book of one chapter, `src/a.md`, with `sh` snippets.
fn sh_book(extra: &str, chapter: &str) -> Book {
    book(&[
        ("book.toml", &sh_book_toml(extra)),
        ("src/SUMMARY.md", "- [A](a.md)\n"),
        ("src/a.md", chapter),
    ])
}

/// `writable = ["DIR"]`: where a test's snippets write their pid files.
fn writable(dir: &std::path::Path) -> String {
    format!("writable = [{:?}]\n", dir.display().to_string())
}
