//! What every integration test needs: a book in a directory of its own (from a fixture folder
//! or inline files), a way to run `mdbook-snippets` on it, and an output that prints command,
//! working directory, stdout and stderr when an assertion about it fails. Snippet crates are
//! built into one shared target directory, so dependencies are built once for the whole suite.
//!
//! One helper per concern, used by every module (CONTRIBUTING.md, "Write an integration test"):
//! - a book: [`book`] (inline files), [`fixture`] (a folder of `tests/testsuite/fixtures/`);
//! - a run: [`Book::test`] (`mdbook-snippets test`), [`Book::test_command`] + [`Book::run`]
//!   when the command needs an environment variable, [`Output`] for what it printed;
//! - a `book.toml` the tool must refuse: [`check_bad_config`] (exit 2, nothing runs, the message);
//! - the preprocessor protocol: [`preprocessor`]; the real mdBook: [`mdbook`];
//! - a JUnit report: [`junit`]; a full disk: [`tmpfs`];
//! - files: [`repo`] (this repository), [`read`], [`copy_tree`], [`files_under`].

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod bad_config;
pub(crate) mod junit;
pub(crate) mod mdbook;
mod output;
pub(crate) mod preprocessor;
pub(crate) mod tmpfs;

pub(crate) use bad_config::check_bad_config;
pub(crate) use output::Output;

/// A book in a temporary directory, removed when dropped.
pub(crate) struct Book {
    dir: tempfile::TempDir,
}

/// Where every test's snippet crates are built (shared, so their dependencies are built once;
/// apart from the suite's own target dir, so a nested cargo never waits on the outer one's
/// lock).
pub(crate) fn snippets_target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("snippets-target")
}

/// This repository's root (the workspace, the book, `book.toml`).
pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The harness crate of this repository.
pub(crate) fn harness_dir() -> PathBuf {
    repo().join("snippets")
}

/// The text of a file that must be there, or a panic naming it.
pub(crate) fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()))
}

/// A book made of `files` (path, content); `book.toml` defaults to a minimal one.
pub(crate) fn book(files: &[(&str, &str)]) -> Book {
    let dir = tempfile::Builder::new()
        .prefix("book-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("creating a temporary book directory");
    if !files.iter().any(|(path, _)| *path == "book.toml") {
        write(dir.path(), "book.toml", "[book]\ntitle = \"test\"\n");
    }
    for (path, content) in files {
        write(dir.path(), path, content);
    }
    Book { dir }
}

/// A copy of the fixture book `tests/testsuite/fixtures/<name>`.
pub(crate) fn fixture(name: &str) -> Book {
    let source = repo().join("tests/testsuite/fixtures").join(name);
    let book = book(&[]);
    copy_tree(&source, book.path());
    book
}

fn write(root: &Path, relative: &str, content: &str) {
    write_bytes(root, relative, content.as_bytes());
}

pub(crate) fn write_bytes(root: &Path, relative: &str, content: &[u8]) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("has a parent")).expect("creating directories");
    std::fs::write(&path, content).expect("writing a book file");
}

/// Copies the file or directory `from` to `to`, directories whole.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    if !from.is_dir() {
        std::fs::copy(from, to)
            .unwrap_or_else(|error| panic!("copying {}: {error}", from.display()));
        return;
    }
    std::fs::create_dir_all(to)
        .unwrap_or_else(|error| panic!("creating {}: {error}", to.display()));
    for entry in std::fs::read_dir(from)
        .unwrap_or_else(|error| panic!("reading {}: {error}", from.display()))
    {
        let entry = entry.expect("reading a directory entry");
        copy_tree(&entry.path(), &to.join(entry.file_name()));
    }
}

/// Every file under `dir` (none if it does not exist), directories walked into, in no order.
pub(crate) fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

impl Book {
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn write(&self, relative: &str, content: &str) {
        write(self.path(), relative, content);
    }

    /// Runs `mdbook-snippets test <book> ARGS` with the shared snippets target dir.
    pub(crate) fn test(&self, args: &[&str]) -> Output {
        self.run(self.test_command(args))
    }

    /// `mdbook-snippets test <book> ARGS`, not run yet: give it an environment variable, then
    /// [`Book::run`] it.
    pub(crate) fn test_command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"));
        command.arg("test").arg(self.path()).args(args);
        command
    }

    pub(crate) fn run(&self, command: Command) -> Output {
        self.run_with_target_dir(command, &snippets_target_dir())
    }

    /// Like `run`, building snippet crates in `target_dir`.
    pub(crate) fn run_with_target_dir(&self, mut command: Command, target_dir: &Path) -> Output {
        self.isolate(&mut command, target_dir);
        let description = format!("{command:?}");
        let output = command
            .output()
            .unwrap_or_else(|error| panic!("running {description}: {error}"));
        Output::of(description, self.path(), &output)
    }

    /// What every run of a command on this book gets: the book as its working directory, snippet
    /// crates built in `target_dir`, no GitHub annotations, stdin closed (for a test that must
    /// spawn the command itself).
    pub(crate) fn isolate<'a>(
        &self,
        command: &'a mut Command,
        target_dir: &Path,
    ) -> &'a mut Command {
        command
            .current_dir(self.path())
            .env("CARGO_TARGET_DIR", target_dir)
            .env_remove("GITHUB_ACTIONS")
            .stdin(Stdio::null())
    }
}
