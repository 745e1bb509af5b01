//! What the author reads when a snippet fails: the book's file and line, and nothing of the
//! generated crate (its entry function, its files, its module names), nor advice to edit a
//! `Cargo.toml` the book does not have. Each block fails here as it fails under `rustdoc --test`.

use expect_test::expect;

use super::rustdoc::same_verdicts_as_rustdoc;

/// Found on a public book (rust-lang/async-book, which names no edition): an `async fn main`
/// without a runtime, a call of a function another snippet defines, a crate the book does not
/// declare.
#[test]
fn failures_name_the_book_and_nothing_generated() {
    let chapter = "# Failing\n\n\
        ```rust\nasync fn main() {\n    println!(\"never\");\n}\n```\n\n\
        ```rust\nfn handle_connection() {}\nfn main() { handle_connection(); }\n```\n\n\
        ```rust\nfn main() {\n    handle_connection();\n}\n```\n\n\
        ```rust,edition2021\n#[tokio::main]\nasync fn main() {}\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, None);
    output.code(1);
    expect![[r#"{3: "failed", 9: "passed", 14: "failed", 20: "failed"}"#]]
        .assert_eq(&format!("{ours:?}"));
    let stdout = output.stdout();
    let generated_names = [
        "__mdbook_snippets",
        "e2015/",
        "e2021/",
        "src_c_md_2::",
        ".rs:",
        "Cargo.toml",
        "cargo add",
    ];
    for generated in generated_names {
        let shown: Vec<&str> = stdout
            .lines()
            .filter(|line| line.contains(generated))
            .collect();
        assert!(
            shown.is_empty(),
            "`{generated}` is shown:\n{}\n\n{output}",
            shown.join("\n")
        );
    }
    // rustc's own error about a crate's `main`, at the block's `fn main`.
    output.stdout_contains("error[E0752]: `main` function is not allowed to be `async`");
    output.stdout_contains(" --> src/c.md:4:1");
    // rustc's advice for an edition points at the book, not at a rustc or cargo command line.
    output.stdout_contains(
        "= help: set `edition = \"2024\"` in book.toml's `[rust]` table, or on the block \
         (```rust,edition2024)",
    );
    assert!(!stdout.contains("--edition"), "{output}");
}

/// The summary's caret spans rustc's span (`"x"`), not the rest of the line, as rustdoc's own
/// excerpt underlines it.
#[test]
fn the_summary_caret_spans_rustcs_span() {
    let chapter = "# Caret\n\n```rust\nlet v: u32 = \"x\"; let b = 2;\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, Some("2021"));
    output.code(1);
    expect![[r#"{3: "failed"}"#]].assert_eq(&format!("{ours:?}"));
    let stdout = output.stdout();
    let summary: String = stdout
        .lines()
        .take(6)
        .map(|line| format!("{line}\n"))
        .collect();
    expect![[r#"
        error: snippet src_c_md_1 does not compile
         --> src/c.md:4:14
          |
        2 |
        3 | ```rust
        4 | let v: u32 = "x"; let b = 2;
    "#]]
    .assert_eq(&summary);
    output.stdout_contains(
        "4 | let v: u32 = \"x\"; let b = 2;\n  |              ^^^ error[E0308]: mismatched types\n",
    );
}
