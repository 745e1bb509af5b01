//! What the tables of `book.toml` share: serde's error about a table, with an unknown key named
//! as such, and paths resolved from the book root.

use std::path::{Component, Path, PathBuf};

use anyhow::bail;

/// serde's message about `table`, with an unknown field called what it is to the user: an
/// unknown key, named, with the known key it most resembles when one is close (a typo).
pub(crate) fn table_error(error: &toml::de::Error, table: &str) -> anyhow::Error {
    let message = error.message();
    match message
        .strip_prefix("unknown field ")
        .and_then(|rest| rest.split_once(", expected one of "))
    {
        Some((key, expected)) => match closest_key(key, expected) {
            Some(close) => anyhow::anyhow!(
                "unknown key {key} in {table}: did you mean {close}? (expected one of: {expected})"
            ),
            None => anyhow::anyhow!("unknown key {key} in {table} (expected one of: {expected})"),
        },
        None => anyhow::anyhow!("in {table}: {message}"),
    }
}

/// Of serde's `` `a`, `b` `` list, the key nearest to `key` (both quoted as serde quotes them),
/// when it is near enough to be a typo of it: clap's measure for "a similar subcommand exists".
fn closest_key<'list>(key: &str, expected: &'list str) -> Option<&'list str> {
    let bare = key.trim_matches('`');
    expected
        .split(", ")
        .map(|candidate| (strsim::jaro(bare, candidate.trim_matches('`')), candidate))
        .filter(|(similarity, _)| *similarity > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// `path` (relative to the book root, or absolute, maybe through symlinks) as a canonical
/// directory, or an error naming `key`.
pub(crate) fn existing_dir(book_root: &Path, path: &str, key: &str) -> anyhow::Result<PathBuf> {
    let joined = book_root.join(path);
    match std::fs::canonicalize(&joined) {
        Ok(dir) if dir.is_dir() => Ok(dir),
        Ok(dir) => bail!("`{key}`: {} is not a directory", dir.display()),
        Err(_) => bail!(
            "`{key}`: {} does not exist (set in [preprocessor.snippets] of book.toml; \
             relative paths start at the book root)",
            joined.display()
        ),
    }
}

/// Resolves `.` and `..` without touching the file system (the path may not exist yet).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
