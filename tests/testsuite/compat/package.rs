//! A book that is a Cargo package without a library (`harness = "."`), its examples using the
//! crates of its own `Cargo.toml` (found on a public book whose author copied 55 dependencies
//! into `book.toml` because the harness had to be a library): its `[dependencies]`, its
//! `Cargo.lock` and its target directory are the snippets', so after `cargo build` no registry
//! dependency is built again (a path dependency is, once: cargo names a path package's
//! artifacts by its place relative to the workspace root, and the generated crate is a
//! workspace of its own). `mdbook test -L target/debug/deps` gives the same verdicts.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use expect_test::expect;

use super::rustdoc::rustdoc_verdicts;
use crate::support::{book, junit, repo};

const MANIFEST: &str = r#"[package]
name = "package-book"
version = "0.1.0"
edition = "2021"
publish = false

[[bin]]
name = "package-book"
path = "main.rs"

[dependencies]
helper = { path = "helper", optional = false }
memchr = "2"

[workspace]
"#;

const CHAPTER: &str = "# Using the package's crates

```rust
extern crate helper;
assert_eq!(helper::answer(), 42);
```

```rust
extern crate helper;
assert_eq!(helper::answer(), 41);
```
";

/// The `memchr` library artifacts under `target/debug/deps`, with their times.
fn memchr_artifacts(target: &Path) -> Vec<(PathBuf, SystemTime)> {
    let mut artifacts: Vec<(PathBuf, SystemTime)> = std::fs::read_dir(target.join("debug/deps"))
        .expect("reading target/debug/deps")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("libmemchr-"))
        })
        .map(|path| {
            let modified = std::fs::metadata(&path).and_then(|m| m.modified());
            (path, modified.expect("a modification time"))
        })
        .collect();
    artifacts.sort();
    artifacts
}

#[test]
fn a_package_book_without_a_library_uses_its_dependencies_lock_and_target() {
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[rust]\nedition = \"2021\"\n\
             [preprocessor.snippets]\nharness = \".\"\n",
        ),
        ("Cargo.toml", MANIFEST),
        ("main.rs", "fn main() {}\n"),
        (
            "helper/Cargo.toml",
            "[package]\nname = \"helper\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("helper/src/lib.rs", "pub fn answer() -> u32 { 42 }\n"),
        ("src/SUMMARY.md", "- [C](c.md)\n"),
        ("src/c.md", CHAPTER),
    ]);
    let target = book.path().join("target");
    // The user's own build, in the package's target directory, offline: `memchr` at the
    // version this repository locks, which its build already fetched.
    std::fs::copy(repo().join("Cargo.lock"), book.path().join("Cargo.lock")).unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build.args(["build", "--quiet", "--offline"]);
    book.run_with_target_dir(build, &target).code(0);
    let built = memchr_artifacts(&target);
    assert!(!built.is_empty(), "cargo build made no libmemchr");
    // `mdbook test -L target/debug/deps`, as rustdoc runs it after that build.
    let theirs = rustdoc_verdicts_with_library_path(&book, &target.join("debug/deps"));

    let mut command = book.test_command(&["--quiet", "--junit", "report.xml"]);
    command.env("CARGO_NET_OFFLINE", "true");
    let output = book.run_with_target_dir(command, &target);
    output.code(1);
    output.stdout_contains("1 passed, 1 failed\n");
    assert_eq!(
        memchr_artifacts(&target),
        built,
        "a registry dependency was built again\n{output}"
    );
    assert!(
        book.path().join("Cargo.lock").is_file(),
        "the package's lock is kept"
    );

    let ours = junit::verdicts_by_line(&junit::read(&book, "report.xml"));
    expect![[r#"{3: "passed", 8: "failed"}"#]].assert_eq(&format!("{ours:?}"));
    assert_eq!(ours, theirs, "{output}");
}

fn rustdoc_verdicts_with_library_path(
    book: &crate::support::Book,
    deps: &Path,
) -> std::collections::BTreeMap<usize, &'static str> {
    let flag = format!("-L{}", deps.display());
    rustdoc_verdicts(book, "src/c.md", Some("2021"), &[&flag])
}
