//! The mdBook preprocessor protocol, driven as mdBook drives it: `supports RENDERER`, and
//! `[ctx, book]` JSON on stdin -> the book JSON on stdout, nothing else on stdout.

use std::process::{Command, Stdio};

use expect_test::expect;

use crate::support::preprocessor::{chapter, preprocess, run_preprocessor};
use crate::support::{Output, fixture};

#[test]
fn supports_html_test_and_llms_only() {
    for (renderer, expected) in [
        ("html", true),
        ("test", true),
        ("llms", true),
        ("epub", false),
        ("markdown", false),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"));
        command.args(["supports", renderer]).stdin(Stdio::null());
        let cwd = std::env::current_dir().unwrap();
        let output = Output::of(format!("{command:?}"), &cwd, &command.output().unwrap());
        assert_eq!(output.success(), expected, "{output}");
        assert!(output.stdout.is_empty(), "{output}");
    }
}

#[test]
fn green_book_comes_back_rendered_and_nothing_else_is_on_stdout() {
    let dir = fixture("green");
    let (input, output, rendered) = preprocess(dir.path(), "html");
    assert!(output.success(), "{output}");
    let rendered = rendered.unwrap_or_else(|| panic!("stdout is not a book\n{output}"));
    output.stderr_contains("4 passed, 0 failed, 1 skipped");

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
    let for_rustdoc = for_rustdoc.unwrap_or_else(|| panic!("stdout is not a book\n{output}"));
    assert!(
        chapter(&for_rustdoc, "Included")
            .content
            .starts_with("# Included\n\n```rust,ignore\nlet words"),
        "{output}"
    );
}

#[test]
fn the_llms_renderer_gets_outputs_as_markdown_blocks() {
    let dir = fixture("green");
    let (input, output, rendered) = preprocess(dir.path(), "llms");
    assert!(output.success(), "{output}");
    let rendered = rendered.unwrap_or_else(|| panic!("stdout is not a book\n{output}"));
    assert_eq!(chapter(&rendered, "Plain"), chapter(&input, "Plain"));
    // The fence as written (no `ignore`: no rustdoc reads it), the output in a fenced block.
    expect![[r##"
        # Included

        ```rust
        let words = "one two three".split_whitespace().count();
        println!("words = {words}");
        ```

        ```text
        words = 3
        ```
    "##]]
    .assert_eq(&chapter(&rendered, "Included").content);
    // The expected-output block is replaced by the real output, as text: no HTML, nothing escaped.
    let output_chapter = &chapter(&rendered, "Output").content;
    assert!(
        output_chapter.contains("```text\n<script>alert('hi')</script>\n```"),
        "{output_chapter}"
    );
    assert!(!output_chapter.contains("mdbook-snippets-output"));
    assert!(!output_chapter.contains("```text,output"));
}

#[test]
fn failing_snippet_fails_with_path_and_line_and_writes_no_book() {
    let dir = fixture("green");
    let chapter_file = dir.path().join("src/plain.md");
    let mut text = std::fs::read_to_string(&chapter_file).unwrap();
    text.push_str("\n```rust\nlet number: u32 = \"seven\";\n```\n");
    std::fs::write(&chapter_file, text).unwrap();

    let (_, output, _) = preprocess(dir.path(), "html");
    output
        .code(1)
        .stderr_contains("src/plain.md:11")
        .stderr_contains("4 passed, 1 failed, 1 skipped");
    assert!(output.stdout.is_empty(), "{output}");
}

#[test]
fn bad_input_and_bad_config_are_tool_errors() {
    let dir = fixture("green");
    let output = run_preprocessor(dir.path(), b"not json", &[]);
    output.code(2);
    assert!(output.stdout.is_empty(), "{output}");

    let book_toml = dir.path().join("book.toml");
    let text = std::fs::read_to_string(&book_toml).unwrap();
    std::fs::write(&book_toml, text.replace("edition = ", "editon = ")).unwrap();
    let (_, output, _) = preprocess(dir.path(), "html");
    output.code(2).stderr_contains("unknown key `editon`");
    assert!(output.stdout.is_empty(), "{output}");
}
