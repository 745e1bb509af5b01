//! Paths and files: this repository, its harness crate, the shared snippets target dir, and
//! reading, copying and listing files with errors that name the path.

use std::path::{Path, PathBuf};

/// Where every test's snippet crates are built: the workspace's own target dir (`target/`,
/// the parent of `CARGO_TARGET_TMPDIR`), shared, so the harness and its dependencies (tokio,
/// hyper, rmcp) are built once, by `cargo build --tests` or the first test that needs them, for
/// the book's and the guide's own runs and every other test alike. (A target dir of its own,
/// `target/tmp/snippets-target`, built them a second time on a fresh machine: about 7 minutes
/// of a loaded 2-core machine.) The outer `cargo test` holds no lock on it while tests run.
pub(crate) fn snippets_target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target/tmp has a parent")
        .to_path_buf()
}

/// Where the snippet crates of books that reuse no shared build build (std only, or path
/// dependencies in the book's folder; `Book::target_dir`), `target/tmp/std-target`: apart
/// from [`snippets_target_dir`], whose lock another test's long build can hold, and shared, so
/// cargo's probes of rustc (kept per target dir) run once, not once per book.
pub(crate) fn std_target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("std-target")
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

/// Copies the file or directory `from` to `to`, directories whole, each file with its
/// modification time (as `cp -p`), so cargo finds a copied crate built before fresh.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    if !from.is_dir() {
        std::fs::copy(from, to)
            .unwrap_or_else(|error| panic!("copying {}: {error}", from.display()));
        keep_modified(from, to);
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

/// Gives file `to` the modification time of file `from`.
pub(crate) fn keep_modified(from: &Path, to: &Path) {
    let modified = std::fs::metadata(from)
        .and_then(|metadata| metadata.modified())
        .unwrap_or_else(|error| panic!("reading the time of {}: {error}", from.display()));
    std::fs::File::open(to)
        .and_then(|file| file.set_modified(modified))
        .unwrap_or_else(|error| panic!("setting the time of {}: {error}", to.display()));
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
