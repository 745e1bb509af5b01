//! What a maintainer meets adopting the tool on a book of their own (issue 36): `install`, a book
//! in a subfolder of a Cargo workspace (`--junit` into the workspace's `target/`, annotations
//! named from the repository's root), which timeout wins, and a report whose last line is the
//! summary even with stderr merged into it.

use std::process::Command;

use crate::support::{Book, Output, book, read, repo};

const BINARY: &str = env!("CARGO_BIN_EXE_mdbook-snippets");

/// A repository whose book is in `docs/`: one `sh` snippet that passes, one that fails.
fn repository_with_book_in_docs() -> Book {
    book(&[
        ("Cargo.toml", "[workspace]\nmembers = []\n"),
        (
            "docs/book.toml",
            "[book]\ntitle = \"docs\"\n\n[preprocessor.snippets]\n\n\
             [preprocessor.snippets.languages.sh]\ncommand = [\"sh\", \"{file}\"]\n\
             extension = \"sh\"\n",
        ),
        ("docs/src/SUMMARY.md", "# Summary\n\n- [A](a.md)\n"),
        (
            "docs/src/a.md",
            "# A\n\n```sh\necho fine\n```\n\n```sh\necho broken >&2\nexit 3\n```\n",
        ),
    ])
}

/// `mdbook-snippets ARGS` run from the repository's root.
fn run_at_root(repository: &Book, args: &[&str]) -> Output {
    let mut command = Command::new(BINARY);
    command.args(args);
    repository.run(command)
}

#[test]
fn junit_into_a_target_dir_that_does_not_exist_yet() {
    let repository = repository_with_book_in_docs();
    let output = run_at_root(
        &repository,
        &[
            "test",
            "docs",
            "--quiet",
            "--junit",
            "target/reports/snippets.xml",
        ],
    );
    output.code(1);
    let junit = read(&repository.path().join("target/reports/snippets.xml"));
    assert!(junit.contains("failures=\"1\""), "{junit}");
}

/// `mdbook-snippets test BOOK --format github` started in `dir` (of the repository), with
/// `GITHUB_WORKSPACE` set to `workspace` (the support's isolation removes the variable, so the
/// shell sets it).
fn annotations_from(repository: &Book, dir: &str, book: &str, workspace: &str) -> Output {
    let mut command = Command::new("sh");
    command.args([
        "-c",
        "cd \"$1\" && GITHUB_WORKSPACE=\"$2\" exec \"$0\" test \"$3\" --quiet --format github",
        BINARY,
        dir,
        workspace,
        book,
    ]);
    repository.run(command)
}

#[test]
fn annotations_name_paths_from_the_repository_root() {
    let repository = repository_with_book_in_docs();
    let root = repository.path().to_str().unwrap();
    let annotation = "::error file=docs/src/a.md,line=7,col=1,";
    // In a workflow, from GITHUB_WORKSPACE, wherever the job runs the command.
    annotations_from(&repository, "docs", ".", root).stdout_contains(annotation);
    annotations_from(&repository, ".", "docs", root).stdout_contains(annotation);
    // Outside one, from the current directory.
    annotations_from(&repository, ".", "docs", "").stdout_contains(annotation);
    annotations_from(&repository, "docs", ".", "")
        .stdout_contains("::error file=src/a.md,line=7,col=1,");
}

#[test]
fn the_summary_is_the_last_line_with_stderr_merged() {
    let repository = repository_with_book_in_docs();
    let mut command = Command::new("sh");
    command.args(["-c", &format!("'{BINARY}' test docs --no-cache 2>&1")]);
    let output = repository.run(command);
    output.code(1);
    let lines: Vec<&str> = output.stdout.lines().collect();
    assert_eq!(lines.last(), Some(&"1 passed, 1 failed"), "{output}");
    let containment = lines.iter().position(|line| line.contains("containment:"));
    let report = lines.iter().position(|line| line.starts_with("failures:"));
    assert!(containment.is_some() && containment < report, "{output}");
}

/// A fence's `timeout=N` is about that snippet and wins; `--timeout` replaces the book's
/// `timeout` for the others.
#[test]
fn a_fence_timeout_wins_over_the_flag() {
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n\n[preprocessor.snippets]\ntimeout = 60\n\n\
             [preprocessor.snippets.languages.sh]\ncommand = [\"sh\", \"{file}\"]\n\
             extension = \"sh\"\n",
        ),
        ("src/SUMMARY.md", "# Summary\n\n- [A](a.md)\n"),
        (
            "src/a.md",
            "```sh,timeout=30\nsleep 2\n```\n\n```sh\nsleep 2\n```\n\n\
             ```rust,timeout=30\nstd::thread::sleep(std::time::Duration::from_secs(2));\n```\n",
        ),
    ]);
    let output = book.test(&["--quiet", "--no-cache", "--timeout", "1"]);
    output.code(1);
    output.stdout_contains("failures:\n    src/a.md:5 (timed out, src_a_md_2");
    output.stdout_contains("2 passed, 1 failed\n");
}

#[test]
fn install_sets_a_book_up_once() {
    let original =
        "# Our book.\n[book]\ntitle = 'Ours'  # kept\n\n[output.html]\nmathjax-support = true\n";
    let book = book(&[
        ("book.toml", original),
        ("src/SUMMARY.md", "# Summary\n\n- [A](a.md)\n"),
        ("src/a.md", "```rust\nprintln!(\"hi\");\n```\n"),
    ]);
    let install = |args: &[&str]| {
        let mut command = Command::new(BINARY);
        command.arg("install").args(args);
        book.run(command)
    };
    let dry = install(&[".", "--dry-run"]);
    dry.code(0);
    expect_test::expect![[r#"
        would write mdbook-snippets.css (the style of the outputs in the pages)
        would add [preprocessor.snippets] (command = "mdbook-snippets") in book.toml
        would add "mdbook-snippets.css" to [output.html] additional-css in book.toml
        dry run: nothing was written
    "#]]
    .assert_eq(&dry.stdout());
    assert_eq!(read(&book.path().join("book.toml")), original);
    assert!(!book.path().join("mdbook-snippets.css").exists());

    install(&[]).code(0);
    assert_eq!(
        read(&book.path().join("book.toml")),
        format!(
            "{original}additional-css = [\"mdbook-snippets.css\"]\n\n\
             [preprocessor.snippets]\ncommand = \"mdbook-snippets\"\n"
        )
    );
    assert_eq!(
        read(&book.path().join("mdbook-snippets.css")),
        read(&repo().join("book/theme/snippets.css"))
    );
    let again = install(&[]);
    again.code(0);
    again.stdout_contains("already has mdbook-snippets: nothing to do");
    // The book it set up verifies.
    book.test(&["--quiet"])
        .code(0)
        .stdout_contains("1 passed, 0 failed");
}
