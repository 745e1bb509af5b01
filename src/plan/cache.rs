//! A sound cache of what snippets did, so an unchanged book re-verifies without cargo. The key
//! of a snippet hashes everything its behaviour can depend on: its generated module (code,
//! wrapper, edition, and its file and module name, which rustc's messages carry), its harness attributes, and the environment fingerprint (this tool's
//! version and build, `rustc -vV`, `RUSTFLAGS`, `CARGO_ENCODED_RUSTFLAGS`, `RUSTC_BOOTSTRAP`, the sources of every package built from a local
//! directory (the harness, `dependencies` paths and their path dependencies, transitively), the
//! harness workspace's `Cargo.lock` and profiles). Compile results are stored, runs only when they passed; the
//! expected block is not part of the key, since a record is judged against it afresh each time.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use sha2::{Digest, Sha256};

use crate::snippet::RunRecord;

/// What a snippet did, as far as judging it goes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Record {
    /// It was built and run.
    Ran(RunRecord),
    /// `no_run`: it was built.
    Compiled,
    /// It did not build, with these errors (rustc's rendering) and error codes.
    DidNotCompile { codes: Vec<String>, message: String },
    /// Its binary did not build for a reason outside any snippet (a linker error, say); never
    /// cached.
    BinaryFailed { message: String },
}

impl Record {
    /// Whether the record would be the same on every run with the same key: compile results
    /// are, a run is trusted only once it passed.
    pub(crate) fn is_cacheable(&self, passed: bool) -> bool {
        match self {
            Record::Compiled | Record::DidNotCompile { .. } => true,
            Record::Ran(_) => passed,
            Record::BinaryFailed { .. } => false,
        }
    }
}

/// Held while an entry is written: a signal that stops the verifier waits for it, so no entry
/// is left half-written.
pub(crate) static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) struct Cache {
    dir: PathBuf,
    fingerprint: String,
    enabled: bool,
}

impl Cache {
    /// `fingerprint` is the environment part of every key (see the module docs). A disabled
    /// cache finds nothing but still stores, so the next run can use it.
    pub(crate) fn new(dir: PathBuf, fingerprint: String, enabled: bool) -> Cache {
        Cache {
            dir,
            fingerprint,
            enabled,
        }
    }

    /// The key of one snippet: `parts` are the snippet's own inputs.
    pub(crate) fn key(&self, parts: &[&str]) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.fingerprint.as_bytes());
        for part in parts {
            // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        hex(&hasher.finalize())
    }

    pub(crate) fn get(&self, key: &str) -> Option<Record> {
        if !self.enabled {
            return None;
        }
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        // An unreadable entry (an older format, a torn write) is a miss, never an error.
        serde_json::from_str(&text).ok()
    }

    /// Stores a record. Written to a temporary file of the cache directory and renamed, so a
    /// reader (or a verifier stopped by a signal, which waits for
    /// [`WRITING`]) never sees half
    /// an entry, and a failed write (a full disk) leaves nothing behind.
    pub(crate) fn put(&self, key: &str, record: &Record) -> anyhow::Result<()> {
        self.put_with(key, record, |file, bytes| file.write_all(bytes))
    }

    /// [`Cache::put`] with the write itself given (the seam a test injects a full disk into).
    fn put_with(
        &self,
        key: &str,
        record: &Record,
        write: impl FnOnce(&mut tempfile::NamedTempFile, &[u8]) -> std::io::Result<()>,
    ) -> anyhow::Result<()> {
        let _writing = WRITING.lock().unwrap_or_else(|poison| poison.into_inner());
        let path = self.path(key);
        let text = serde_json::to_string(record).context("serializing a cache entry")?;
        let written = std::fs::create_dir_all(&self.dir)
            .and_then(|()| tempfile::NamedTempFile::with_prefix_in(".partial-", &self.dir))
            .and_then(|mut partial| {
                write(&mut partial, text.as_bytes())?;
                partial.flush()?;
                partial.persist(&path).map_err(|error| error.error)
            });
        match written {
            Ok(_) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::StorageFull => Err(error)
                .with_context(|| {
                    format!(
                        "out of disk space: cannot write the cache entry {} (free some space, or \
                         pass --target-dir on another disk)",
                        path.display()
                    )
                }),
            Err(error) => Err(error).with_context(|| format!("writing {}", path.display())),
        }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }
}

/// Hashes a directory: every file under `dir` except build output (`target`) and hidden
/// entries (VCS data), by relative path and content, in path order.
pub(crate) fn hash_tree(dir: &Path) -> anyhow::Result<String> {
    hash_files(dir, Nested::Include)
}

/// Hashes a cargo package's sources as [`hash_tree`] does, without the subdirectories that hold
/// a `Cargo.toml` of their own: cargo takes those for other packages (hashed on their own when
/// they are dependencies), as it does when it lists a package's files. The whole directory, not
/// only `package.include`: that list is what is published, while a build reads whatever
/// `mod`, `include_str!` or a build script reach.
pub(crate) fn hash_package(dir: &Path) -> anyhow::Result<String> {
    hash_files(dir, Nested::Skip)
}

/// Whether [`collect_files`] descends into a subdirectory that is a package of its own.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nested {
    Include,
    Skip,
}

fn hash_files(dir: &Path, nested: Nested) -> anyhow::Result<String> {
    let mut files = Vec::new();
    collect_files(dir, dir, nested, &mut BTreeSet::new(), &mut files)?;
    files.sort();
    let mut hasher = Sha256::new();
    for relative in files {
        let path = dir.join(&relative);
        let content =
            std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        hasher.update(relative.to_string_lossy().as_bytes());
        hasher.update((content.len() as u64).to_le_bytes());
        hasher.update(&content);
    }
    Ok(hex(&hasher.finalize()))
}

pub(crate) fn hash_str(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

/// Collects the files under `dir`, following symbolic links: a linked directory is walked once
/// (a link back to a directory already walked, a loop, is not), and a dangling link is left out
/// (it holds nothing a build could read; once it points at something, that is hashed).
fn collect_files(
    root: &Path,
    dir: &Path,
    nested: Nested,
    walked: &mut BTreeSet<PathBuf>,
    files: &mut Vec<PathBuf>,
) -> anyhow::Result<()> {
    if let Ok(canonical) = std::fs::canonicalize(dir)
        && !walked.insert(canonical)
    {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let Ok(metadata) = std::fs::metadata(&path) else {
            continue;
        };
        if metadata.is_dir() {
            if nested == Nested::Skip && path.join("Cargo.toml").is_file() {
                continue;
            }
            collect_files(root, &path, nested, walked, files)?;
        } else {
            files.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
