//! A finished command: its exit code, stdout and stderr, asserted on with `code`,
//! `stdout_contains` and `stderr_contains`, and printed whole (command, working directory, exit
//! code, stdout, stderr) when an assertion about it fails; `stdout()` and `stderr()` show the
//! book's directory as `[ROOT]` and the run time as `[TIME]`, for snapshots.

use std::path::{Path, PathBuf};

/// A finished command, printed whole when an assertion about it fails.
pub(crate) struct Output {
    pub command: String,
    pub cwd: PathBuf,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// What `command` (as described), run in `cwd`, left behind.
    pub(crate) fn of(command: String, cwd: &Path, output: &std::process::Output) -> Output {
        Output {
            command,
            cwd: cwd.to_path_buf(),
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Whether it exited with code 0.
    pub(crate) fn success(&self) -> bool {
        self.code == Some(0)
    }

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
