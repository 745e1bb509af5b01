//! The mdBook preprocessor protocol, driven as mdBook drives it: the `[ctx, book]` JSON a book
//! gives the preprocessor, a run of `mdbook-snippets` on it (from the book's root), and the book
//! it prints back.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::{Book, BookItem, Chapter};
use mdbook_preprocessor::config::Config;

use super::files::snippets_target_dir;
use super::output::Output;

/// The book as mdBook hands it to a preprocessor after `links`: every chapter of SUMMARY.md,
/// read from `src/` (the fixtures' includes are expanded the way `links` does, by hand below).
pub(crate) fn book_input(root: &Path, renderer: &str) -> (PreprocessorContext, Book) {
    let config = Config::from_disk(root.join("book.toml")).unwrap();
    let ctx = PreprocessorContext::new(root.to_path_buf(), config, renderer.to_owned());
    let summary = std::fs::read_to_string(root.join("src/SUMMARY.md")).unwrap();
    let mut book = Book::new();
    for line in summary.lines() {
        let Some((name, rest)) = line
            .strip_prefix("- [")
            .and_then(|line| line.split_once("]("))
        else {
            continue;
        };
        let path = PathBuf::from(rest.trim_end_matches(')'));
        let content = std::fs::read_to_string(root.join("src").join(&path)).unwrap();
        book.push_item(BookItem::Chapter(Chapter::new(
            name,
            expand_includes(root, &content),
            path,
            Vec::new(),
        )));
    }
    (ctx, book)
}

/// What mdBook writes to the preprocessor's stdin for the book at `root`: `[ctx, book]`.
pub(crate) fn input_json(root: &Path, renderer: &str) -> Vec<u8> {
    let (ctx, book) = book_input(root, renderer);
    serde_json::to_vec(&(&ctx, &book)).unwrap()
}

/// Just enough of mdBook's `{{#include ../FILE}}` for the fixtures (whole files).
fn expand_includes(root: &Path, content: &str) -> String {
    let mut expanded = String::new();
    let mut rest = content;
    while let Some(start) = rest.find("{{#include ../") {
        let end = start + rest[start..].find("}}").unwrap();
        let file = &rest[start + "{{#include ../".len()..end];
        expanded.push_str(&rest[..start]);
        let included = std::fs::read_to_string(root.join(file)).unwrap();
        expanded.push_str(included.strip_suffix('\n').unwrap_or(&included));
        rest = &rest[end + 2..];
    }
    expanded.push_str(rest);
    expanded
}

/// The preprocessor as mdBook starts it (`mdbook-snippets` with no subcommand, from `root`,
/// stdin piped), with `env` added; for a test that must signal it, spawn it itself.
pub(crate) fn command(root: &Path, env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"));
    command
        .current_dir(root)
        .env("CARGO_TARGET_DIR", snippets_target_dir())
        .envs(env.iter().copied())
        .stdin(Stdio::piped());
    command
}

/// Runs the preprocessor on `input`, from `root` (as mdBook does), with `env` added.
pub(crate) fn run_preprocessor(root: &Path, input: &[u8], env: &[(&str, &str)]) -> Output {
    let mut command = command(root, env);
    let description = format!("{command:?} < {} bytes of [ctx, book]", input.len());
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("starting {description}: {error}"));
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    Output::of(description, root, &output)
}

/// Runs the preprocessor on the book at `root` for `renderer`; returns the input book, the
/// output, and the parsed output book (`None` when stdout is not a book).
pub(crate) fn preprocess(root: &Path, renderer: &str) -> (Book, Output, Option<Book>) {
    let (ctx, book) = book_input(root, renderer);
    let input = serde_json::to_vec(&(&ctx, &book)).unwrap();
    let output = run_preprocessor(root, &input, &[]);
    let rendered = serde_json::from_str(&output.stdout).ok();
    (book, output, rendered)
}

/// The book at `root` as the preprocessor renders it for `html` (with `env` added), which must
/// succeed; returns the input book and the rendered one.
pub(crate) fn rendered(root: &Path, env: &[(&str, &str)]) -> (Book, Book) {
    let (ctx, input) = book_input(root, "html");
    let json = serde_json::to_vec(&(&ctx, &input)).unwrap();
    let output = run_preprocessor(root, &json, env);
    assert!(output.success(), "{output}");
    let rendered = serde_json::from_str(&output.stdout)
        .unwrap_or_else(|error| panic!("stdout is not a book: {error}\n{output}"));
    (input, rendered)
}

/// The chapter called `name`, which must be there.
pub(crate) fn chapter<'a>(book: &'a Book, name: &str) -> &'a Chapter {
    book.chapters()
        .find(|chapter| chapter.name == name)
        .unwrap_or_else(|| panic!("no chapter {name}"))
}
