//! Books that use a package or declared crates are tested, outside this tool, with `cargo test
//! --doc`, which sets Cargo's package variables (`CARGO_PKG_*`, `CARGO_MANIFEST_*`), and take
//! the package's edition: a harness crate's snippets see the harness's variables as its own
//! doctests do under `cargo test --doc`, and a book that is a package (`harness = "."`) gets
//! its package's variables and its edition when `book.toml` names none. A plain book keeps
//! `mdbook test`'s environment (no variables: `compat::rustdoc`).

use std::process::Command;

use expect_test::expect;

use super::rustdoc::rustdoc_verdicts;
use crate::support::{book, junit};

/// Snippets reading the package's variables at compile time, for a package `my-harness` 1.2.3.
const READS_THE_PACKAGE: [&str; 3] = [
    "assert_eq!(env!(\"CARGO_PKG_NAME\"), \"my-harness\");\nassert_eq!(env!(\"CARGO_PKG_VERSION_MAJOR\"), \"1\");",
    "assert_eq!(env!(\"CARGO_PKG_VERSION\"), \"1.2.3\");\nassert_eq!(env!(\"CARGO_PKG_DESCRIPTION\"), \"a harness\");",
    "assert!(env!(\"CARGO_MANIFEST_DIR\").ends_with(\"harness\"));\nassert_eq!(option_env!(\"CARGO_PKG_AUTHORS\"), Some(\"A:B\"));",
];

#[test]
fn a_harness_crates_snippets_see_its_package_variables_as_under_cargo_test_doc() {
    let mut chapter = "# Variables\n\n".to_owned();
    let mut docs = String::new();
    for snippet in READS_THE_PACKAGE {
        chapter.push_str(&format!("```rust\n{snippet}\n```\n\n"));
        docs.push_str("//! ```\n");
        for line in snippet.lines() {
            docs.push_str(&format!("//! {line}\n"));
        }
        docs.push_str("//! ```\n");
    }
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[rust]\nedition = \"2021\"\n\
             [preprocessor.snippets]\nharness = \"harness\"\n",
        ),
        (
            "harness/Cargo.toml",
            "[package]\nname = \"my-harness\"\nversion = \"1.2.3\"\nedition = \"2021\"\n\
             description = \"a harness\"\nauthors = [\"A\", \"B\"]\n[workspace]\n",
        ),
        (
            "harness/src/lib.rs",
            &format!("{docs}\npub fn unused() {{}}\n"),
        ),
        ("src/SUMMARY.md", "- [C](c.md)\n"),
        ("src/c.md", &chapter),
    ]);
    // The peer: the same snippets as the harness's own doctests.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut peer = Command::new(cargo);
    peer.args([
        "test",
        "--doc",
        "--quiet",
        "--manifest-path",
        "harness/Cargo.toml",
    ]);
    let peer = book.run_with_target_dir(peer, &book.path().join("harness/target"));
    peer.code(0).stdout_contains("3 passed");

    let output = book.test(&["--quiet", "--junit", "report.xml"]);
    output.code(0);
    let ours = junit::verdicts_by_line(&junit::read(&book, "report.xml"));
    expect![[r#"{3: "passed", 8: "passed", 13: "passed"}"#]].assert_eq(&format!("{ours:?}"));
}

#[test]
fn a_package_book_takes_its_packages_edition_and_variables() {
    let chapter = "# Edition\n\n\
        ```rust\nasync fn later() {}\nlet _ = later();\n```\n\n\
        ```rust\nlet r#gen = 2024;\nassert_eq!(r#gen, 2024);\n```\n\n\
        ```rust\nassert_eq!(env!(\"CARGO_PKG_NAME\"), \"edition-book\");\n```\n";
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[preprocessor.snippets]\nharness = \".\"\n",
        ),
        (
            "Cargo.toml",
            "[package]\nname = \"edition-book\"\nversion = \"0.3.0\"\nedition = \"2024\"\n\
             publish = false\n[[bin]]\nname = \"edition-book\"\npath = \"main.rs\"\n[workspace]\n",
        ),
        ("main.rs", "fn main() {}\n"),
        ("src/SUMMARY.md", "- [C](c.md)\n"),
        ("src/c.md", chapter),
    ]);
    let output = book.test(&["--quiet", "--junit", "report.xml"]);
    output.code(0);
    let ours = junit::verdicts_by_line(&junit::read(&book, "report.xml"));
    // rustdoc, as `mdbook test` runs it with the package's edition named.
    let mut theirs = rustdoc_verdicts(&book, "src/c.md", Some("2024"), &[]);
    // rustdoc under `mdbook test` has no package, so no `CARGO_PKG_NAME`: the block that reads
    // it is the one `cargo test --doc` would judge.
    theirs.insert(13, "passed");
    assert_eq!(ours, theirs, "{output}");
    expect![[r#"{3: "passed", 8: "passed", 13: "passed"}"#]].assert_eq(&format!("{ours:?}"));
}

/// A book that declares crates but names no package: the name rustdoc gives a doctest's crate,
/// `rust_out`, at version 0.0.0, the manifest directory being the book's root.
#[test]
fn declared_crates_get_the_documented_package_variables() {
    let chapter = "# Declared\n\n\
        ```rust\nassert_eq!(env!(\"CARGO_PKG_NAME\"), \"rust_out\");\n\
        assert_eq!(env!(\"CARGO_PKG_VERSION\"), \"0.0.0\");\n\
        assert_eq!(helper::answer(), 42);\n```\n";
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[rust]\nedition = \"2021\"\n\
             [preprocessor.snippets.dependencies]\nhelper = { path = \"helper\" }\n",
        ),
        (
            "helper/Cargo.toml",
            "[package]\nname = \"helper\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("helper/src/lib.rs", "pub fn answer() -> u32 { 42 }\n"),
        ("src/SUMMARY.md", "- [C](c.md)\n"),
        ("src/c.md", chapter),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(0).stdout_contains("1 passed, 0 failed");
}
