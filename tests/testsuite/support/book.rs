//! A book in a directory of its own (inline files, or a copy of a fixture folder), and the runs
//! of `mdbook-snippets` on it: each in the book's directory, snippet crates built in a shared
//! target dir (one for books with crates to build, one for std-only books), no GitHub
//! annotations, stdin closed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use super::files::{copy_tree, repo, snippets_target_dir, std_target_dir};
use super::output::Output;

/// A book in a temporary directory, removed when dropped, with what the verifier built for it
/// in its target dir ([`builds_of`]).
pub(crate) struct Book {
    dir: tempfile::TempDir,
    created: SystemTime,
}

impl Drop for Book {
    /// A book's snippet crates are named after its path, a new one each run: kept, every
    /// `cargo test` left about 300 MB of them in `target/debug/deps` (4.2 GB in a day of runs).
    fn drop(&mut self) {
        let Ok(root) = std::fs::canonicalize(self.path()) else {
            return;
        };
        for path in builds_of(&self.target_dir(), &root, self.created) {
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}

impl Book {
    /// When the book was made: what was built for it is newer.
    pub(crate) fn created(&self) -> SystemTime {
        self.created
    }
}

/// The key the verifier names the book at the canonical path `root` by
/// (`src/plan/workspace.rs`): the first 10 hex digits of the SHA-256 of the path.
pub(crate) fn book_key(root: &Path) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(root.to_string_lossy().as_bytes());
    let key: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    key[..10].to_owned()
}

/// What the verifier and cargo keep in `target_dir` for the book at the canonical path `root`,
/// made since `since`: the generated crate's folder (`mdbook-snippets/KEY`, [`book_key`]), and
/// each build of the book's own crates, found by its hash: its fingerprint folder and its files
/// in `deps/`. The book's own crates are the packages `snippets-KEY-eEDITION` (each snippet
/// binary, merged or of its own), and any crate whose dep-info in `deps/` (written since
/// `since`) names a file of the book (a path dependency in the book's folder).
pub(crate) fn builds_of(target_dir: &Path, root: &Path, since: SystemTime) -> Vec<PathBuf> {
    let entries = |dir: &Path| -> Vec<(String, PathBuf)> {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| {
                (
                    entry.file_name().to_string_lossy().into_owned(),
                    entry.path(),
                )
            })
            .collect()
    };
    let hash_of = |stem: &str| stem.rsplit_once('-').map(|(_, hash)| format!("-{hash}"));
    let key = book_key(root);
    let mut found: Vec<PathBuf> = Vec::new();
    let crate_dir = target_dir.join("mdbook-snippets").join(&key);
    if crate_dir.exists() {
        found.push(crate_dir);
    }
    let debug = target_dir.join("debug");
    let fingerprints = entries(&debug.join(".fingerprint"));
    let deps = entries(&debug.join("deps"));
    let package = format!("snippets-{key}-");
    let mut hashes: Vec<String> = fingerprints
        .iter()
        .filter(|(name, _)| name.starts_with(&package))
        .filter_map(|(name, _)| hash_of(name))
        .collect();
    let in_book = format!("{}/", root.display());
    for (name, path) in &deps {
        let Some(stem) = name.strip_suffix(".d") else {
            continue;
        };
        // With 2 s to spare for a file system whose times are coarser than the clock's.
        let recent = std::fs::metadata(path)
            .and_then(|metadata| metadata.modified())
            .is_ok_and(|modified| modified + Duration::from_secs(2) >= since);
        if recent
            && std::fs::read_to_string(path).is_ok_and(|text| text.contains(&in_book))
            && let Some(hash) = hash_of(stem)
        {
            hashes.push(hash);
        }
    }
    for (name, path) in fingerprints.iter().chain(&deps) {
        let stem = name.split('.').next().unwrap_or_default();
        if hashes.iter().any(|hash| stem.ends_with(hash.as_str())) {
            found.push(path.clone());
        }
    }
    found
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
    Book {
        dir,
        created: SystemTime::now(),
    }
}

/// A book of one chapter, `src/a.md`, whose `sh` fences are snippets run by `sh`, with `table`
/// as the other lines of its `[preprocessor.snippets]` (shell snippets need no build, so a
/// test of what happens around a run is fast).
pub(crate) fn sh_book(table: &str, chapter: &str) -> Book {
    book(&[
        (
            "book.toml",
            &format!(
                "[book]\ntitle = \"sh\"\n\n[preprocessor.snippets]\n{table}\n\n\
                 [preprocessor.snippets.languages.sh]\ncommand = [\"sh\", \"{{file}}\"]\n\
                 extension = \"sh\"\n"
            ),
        ),
        ("src/SUMMARY.md", "# Summary\n\n- [A](a.md)\n"),
        ("src/a.md", chapter),
    ])
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

impl Book {
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn write(&self, relative: &str, content: &str) {
        write(self.path(), relative, content);
    }

    /// A folder inside this book, removed with it, for `TMPDIR` of a process that leaves files
    /// there: rustdoc left a `/tmp/.tmpXXXXXX/rustdoc-cfgs` folder behind on some `--test` runs,
    /// 19 a `cargo test` before this (the kind of leftover rust-lang/rust#139899 reports).
    pub(crate) fn tmpdir(&self) -> PathBuf {
        let dir = self.path().join(".tmpdir");
        std::fs::create_dir_all(&dir).expect("creating the book's TMPDIR");
        dir
    }

    /// Where this book's snippet crates build ([`Book::run`], [`Book::start`]): the shared
    /// snippets target dir when they link crates built there once for every test (a harness,
    /// a dependency from a registry or outside the book, the book's own package), else the
    /// shared dir of the books that reuse nothing of it (std only, or only path dependencies in
    /// the book's folder, which are built for that book alone wherever it builds). A cargo
    /// build holds its target dir's lock from start to end, so such a book need not wait there
    /// behind another test's build of the book, the guide or a template (a book with a path
    /// dependency waited 35 s there in a run of the testsuite).
    pub(crate) fn target_dir(&self) -> PathBuf {
        if self.reuses_shared_builds() {
            snippets_target_dir()
        } else {
            std_target_dir()
        }
    }

    fn reuses_shared_builds(&self) -> bool {
        if self.path().join("Cargo.toml").exists() {
            return true;
        }
        let text = std::fs::read_to_string(self.path().join("book.toml")).unwrap_or_default();
        let Ok(table) = text.parse::<toml::Table>() else {
            // A book.toml a test breaks on purpose: as the words say.
            return text.contains("harness") || text.contains("dependencies");
        };
        let Some(snippets) = table.get("preprocessor").and_then(|p| p.get("snippets")) else {
            return false;
        };
        let in_book = |dependency: &toml::Value| {
            dependency
                .get("path")
                .and_then(toml::Value::as_str)
                .is_some_and(|path| !path.starts_with('/') && !path.starts_with(".."))
        };
        snippets.get("harness").is_some()
            || snippets
                .get("dependencies")
                .and_then(toml::Value::as_table)
                .is_some_and(|dependencies| !dependencies.values().all(in_book))
    }

    /// Runs `mdbook-snippets test <book> ARGS`, building in [`Book::target_dir`].
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
        self.run_with_target_dir(command, &self.target_dir())
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
            .env_remove("GITHUB_WORKSPACE")
            .stdin(Stdio::null())
    }
}
