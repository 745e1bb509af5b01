//! What every integration test needs: a book in a directory of its own (from a fixture folder
//! or inline files), a way to run `mdbook-snippets` on it, and an output that prints command,
//! working directory, stdout and stderr when an assertion about it fails. Snippet crates are
//! built into one shared target directory, so dependencies are built once for the whole suite.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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

/// The harness crate of this repository.
pub(crate) fn harness_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("snippets")
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
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/testsuite/fixtures")
        .join(name);
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

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from)
        .unwrap_or_else(|error| panic!("reading {}: {error}", from.display()))
    {
        let entry = entry.expect("reading a fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            std::fs::create_dir_all(&target).expect("creating a directory");
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copying a fixture file");
        }
    }
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
        let mut command = Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"));
        command.arg("test").arg(self.path()).args(args);
        self.run(command)
    }

    pub(crate) fn run(&self, command: Command) -> Output {
        self.run_with_target_dir(command, &snippets_target_dir())
    }

    /// Like `run`, building snippet crates in `target_dir`.
    pub(crate) fn run_with_target_dir(&self, mut command: Command, target_dir: &Path) -> Output {
        command
            .current_dir(self.path())
            .env("CARGO_TARGET_DIR", target_dir)
            .env_remove("GITHUB_ACTIONS")
            .stdin(Stdio::null());
        let description = format!("{command:?}");
        let output = command
            .output()
            .unwrap_or_else(|error| panic!("running {description}: {error}"));
        Output {
            command: description,
            cwd: self.path().to_path_buf(),
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// A finished command, printed whole when an assertion about it fails.
pub(crate) struct Output {
    pub command: String,
    pub cwd: PathBuf,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// Asserts the exit code, printing everything otherwise.
    #[track_caller]
    pub(crate) fn code(&self, expected: i32) -> &Output {
        assert_eq!(self.code, Some(expected), "unexpected exit code\n{self}");
        self
    }

    /// stdout with the book's directory shown as `[ROOT]` and the run time as `[TIME]`.
    pub(crate) fn stdout(&self) -> String {
        self.redact(&self.stdout)
    }

    pub(crate) fn stderr(&self) -> String {
        self.redact(&self.stderr)
    }

    fn redact(&self, text: &str) -> String {
        let root = self.cwd.display().to_string();
        text.replace(&root, "[ROOT]")
            .lines()
            .map(|line| match line.strip_prefix("finished in ") {
                Some(_) => "finished in [TIME]".to_owned(),
                None => line.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    }

    #[track_caller]
    pub(crate) fn stdout_contains(&self, needle: &str) -> &Output {
        assert!(
            self.stdout.contains(needle),
            "stdout lacks {needle:?}\n{self}"
        );
        self
    }

    #[track_caller]
    pub(crate) fn stderr_contains(&self, needle: &str) -> &Output {
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}\n{self}"
        );
        self
    }
}

impl std::fmt::Display for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "--- command: {}\n--- cwd: {}\n--- exit code: {:?}\n--- stdout:\n{}\n--- stderr:\n{}",
            self.command,
            self.cwd.display(),
            self.code,
            self.stdout,
            self.stderr
        )
    }
}
