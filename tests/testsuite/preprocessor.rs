//! The mdBook preprocessor protocol, driven as mdBook drives it: `supports RENDERER`, and
//! `[ctx, book]` JSON on stdin -> the book JSON on stdout, nothing else on stdout.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use expect_test::expect;
use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::{Book, BookItem, Chapter};
use mdbook_preprocessor::config::Config;

use crate::support;

/// A copy of the fixture book `tests/testsuite/fixtures/NAME` in a directory of its own.
pub(crate) fn fixture_book(name: &str) -> support::Book {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/testsuite/fixtures")
        .join(name);
    let book = support::book(&[]);
    copy_dir(&source, book.path());
    book
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The command and its output, for assertion messages.
pub(crate) fn describe(command: &str, output: &Output) -> String {
    format!(
        "command: {command}\nstatus: {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

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

/// Runs the preprocessor on `input`, from `root` (as mdBook does).
pub(crate) fn run_preprocessor(root: &Path, input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"))
        .current_dir(root)
        .env("CARGO_TARGET_DIR", support::snippets_target_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    output
}

/// Runs the preprocessor on a fixture book; returns the input book, the output, and the parsed
/// output book (`None` when stdout is not a book).
pub(crate) fn preprocess(root: &Path, renderer: &str) -> (Book, Output, Option<Book>) {
    let (ctx, book) = book_input(root, renderer);
    let input = serde_json::to_vec(&(&ctx, &book)).unwrap();
    let output = run_preprocessor(root, &input);
    let rendered = serde_json::from_slice(&output.stdout).ok();
    (book, output, rendered)
}

pub(crate) fn chapter<'a>(book: &'a Book, name: &str) -> &'a Chapter {
    book.chapters()
        .find(|chapter| chapter.name == name)
        .unwrap_or_else(|| panic!("no chapter {name}"))
}

#[test]
fn supports_html_and_test_only() {
    for (renderer, expected) in [("html", true), ("test", true), ("epub", false)] {
        let output = Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"))
            .args(["supports", renderer])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            output.status.success(),
            expected,
            "{}",
            describe(&format!("supports {renderer}"), &output)
        );
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn green_book_comes_back_rendered_and_nothing_else_is_on_stdout() {
    let dir = fixture_book("green");
    let (input, output, rendered) = preprocess(dir.path(), "html");
    let context = describe("mdbook-snippets < [ctx, book]", &output);
    assert!(output.status.success(), "{context}");
    let rendered = rendered.unwrap_or_else(|| panic!("stdout is not a book\n{context}"));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("4 passed, 0 failed, 1 skipped"),
        "{context}"
    );

    // Not ours: byte for byte.
    assert_eq!(chapter(&rendered, "Plain"), chapter(&input, "Plain"));
    expect![[r##"
        # Included

        ```rust
        let words = "one two three".split_whitespace().count();
        println!("words = {words}");
        ```
        <div class="mdbook-snippets-output">
        <pre class="mdbook-snippets-stdout">words = 3</pre>
        </div>
    "##]]
    .assert_eq(&chapter(&rendered, "Included").content);
    let output_chapter = &chapter(&rendered, "Output").content;
    assert!(output_chapter.contains(
        r#"<pre class="mdbook-snippets-stdout">&lt;script&gt;alert(&#39;hi&#39;)&lt;/script&gt;</pre>"#
    ));
    assert!(
        !output_chapter.contains("```text,output"),
        "{output_chapter}"
    );
    assert!(output_chapter.contains("```rust,ignore\nthis is not Rust at all"));

    // For `mdbook test` (the renderer it names `test`), the verified blocks are marked so that
    // rustdoc skips them; for `html` above they are as written.
    let (_, output, for_rustdoc) = preprocess(dir.path(), "test");
    let context = describe("mdbook-snippets < [ctx, book] (test)", &output);
    let for_rustdoc = for_rustdoc.unwrap_or_else(|| panic!("stdout is not a book\n{context}"));
    assert!(
        chapter(&for_rustdoc, "Included")
            .content
            .starts_with("# Included\n\n```rust,ignore\nlet words"),
        "{context}"
    );
}

#[test]
fn failing_snippet_fails_with_path_and_line_and_writes_no_book() {
    let dir = fixture_book("green");
    let chapter_file = dir.path().join("src/plain.md");
    let mut text = std::fs::read_to_string(&chapter_file).unwrap();
    text.push_str("\n```rust\nlet number: u32 = \"seven\";\n```\n");
    std::fs::write(&chapter_file, text).unwrap();

    let (_, output, _) = preprocess(dir.path(), "html");
    let context = describe("mdbook-snippets < [ctx, book]", &output);
    assert_eq!(output.status.code(), Some(1), "{context}");
    assert!(output.stdout.is_empty(), "{context}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("src/plain.md:11"), "{context}");
    assert!(
        stderr.contains("4 passed, 1 failed, 1 skipped"),
        "{context}"
    );
}

#[test]
fn bad_input_and_bad_config_are_tool_errors() {
    let dir = fixture_book("green");
    let output = run_preprocessor(dir.path(), b"not json");
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        describe("garbage", &output)
    );
    assert!(output.stdout.is_empty());

    let book_toml = dir.path().join("book.toml");
    let text = std::fs::read_to_string(&book_toml).unwrap();
    std::fs::write(&book_toml, text.replace("edition = ", "editon = ")).unwrap();
    let (_, output, _) = preprocess(dir.path(), "html");
    let context = describe("mdbook-snippets < [ctx, book]", &output);
    assert_eq!(output.status.code(), Some(2), "{context}");
    assert!(output.stdout.is_empty(), "{context}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("unknown key `editon`"),
        "{context}"
    );
}
