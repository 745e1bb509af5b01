//! A sound cache of what snippets did, so an unchanged book re-verifies without cargo. The key
//! of a snippet hashes everything its behaviour can depend on: its generated module (code,
//! wrapper, edition, and its file and module name, which rustc's messages carry), its harness attributes, its timeout, and the environment fingerprint (this tool's
//! version and build, `rustc -vV`, `RUSTFLAGS`, `CARGO_ENCODED_RUSTFLAGS`, `RUSTC_BOOTSTRAP`, the sources of every package built from a local
//! directory (the harness, `dependencies` paths and their path dependencies, transitively), the
//! harness workspace's `Cargo.lock` and profiles). Compile results are stored, runs when they passed
//! or timed out (the timeout is in the key); the
//! expected block is not part of the key, since a record is judged against it afresh each time.
//!
//! Entries are checked when read: each carries an HMAC-SHA256 of its key and its record under a
//! secret of this cache (`mac-key` in the cache directory, 32 random bytes made by the first
//! verifier that needs it, mode 0600). An entry that does not check (edited, forged, moved to
//! another key's file, written under another secret, torn) is a miss, and is removed, so the
//! snippet runs again and its entry is written afresh. What this does not stop: a process of
//! the same user that can read the secret (a snippet run without the sandbox can) forges an
//! entry as the verifier would; the sandbox keeps snippets from writing the cache at all.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use anyhow::Context;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::plan::content_hash::hex;
use crate::snippet::{Exit, RunRecord};

/// What a snippet did, as far as judging it goes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Record {
    /// It was built and run.
    Ran(RunRecord),
    /// `no_run`: it was built.
    Compiled,
    /// It did not build, with these errors (rustc's rendering) and error codes.
    DidNotCompile { codes: Vec<String>, message: String },
    /// The merged binary holding it did not build for a reason outside any snippet; never
    /// cached (the build strategy builds such snippets alone, where a failure is theirs:
    /// `DidNotCompile`).
    BinaryFailed { message: String },
}

impl Record {
    /// Whether a snippet's record would be the same on every run with the same key: compile
    /// results are, a run that passed is, and so is one that failed by itself (an exit code: a
    /// panic, an `Err` from `main`), a timeout (the timeout is part of the key: a never-ending
    /// snippet does not cost its whole timeout on every run) and output past the limit, so that
    /// a book where most blocks fail is as fast warm as one where all pass. A run killed by a
    /// signal from outside (the verifier stopped, the OOM killer) is no verdict on the code;
    /// `--no-cache` runs everything again.
    pub(crate) fn is_cacheable(&self, passed: bool) -> bool {
        match self {
            Record::Compiled | Record::DidNotCompile { .. } => true,
            Record::Ran(run) => passed || !matches!(run.exit, Exit::Signal(_)),
            Record::BinaryFailed { .. } => false,
        }
    }

    /// Whether a mutant's record is kept: a kill is (`killed`), and so is a timeout; a survivor
    /// runs again, so that a fixed snippet kills it.
    pub(crate) fn is_cacheable_mutant(&self, killed: bool) -> bool {
        match self {
            Record::Compiled | Record::DidNotCompile { .. } => true,
            Record::Ran(run) => killed || matches!(run.exit, Exit::TimedOut(_)),
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
    /// The cache's secret, read (or made) when first needed; `Err` says why it cannot be.
    secret: std::sync::OnceLock<Result<Secret, String>>,
}

type Secret = [u8; 32];

/// The first line of every entry, before its MAC; an entry without it is a miss.
const ENTRY_HEADER: &str = "mdbook-snippets cache entry, hmac-sha256 ";

/// The file of the cache's secret, in the cache directory.
const SECRET_FILE: &str = "mac-key";

/// An entry larger than this is a miss, never read (no record comes near it: output and
/// artifacts are capped).
const MAX_ENTRY_BYTES: u64 = 256 << 20;

impl Cache {
    /// `fingerprint` is the environment part of every key (see the module docs). A disabled
    /// cache finds nothing but still stores, so the next run can use it.
    pub(crate) fn new(dir: PathBuf, fingerprint: String, enabled: bool) -> Cache {
        Cache {
            dir,
            fingerprint,
            enabled,
            secret: std::sync::OnceLock::new(),
        }
    }

    /// The path of the cache's secret (the sandbox keeps snippets away from the cache
    /// directory it is in).
    pub(crate) fn secret_path(&self) -> PathBuf {
        self.dir.join(SECRET_FILE)
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

    /// The record stored under `key`, if its entry checks (see the module docs); an entry that
    /// does not is removed, and a miss.
    pub(crate) fn get(&self, key: &str) -> Option<Record> {
        if !self.enabled {
            return None;
        }
        let path = self.path(key);
        let file = open_regular(&path, MAX_ENTRY_BYTES)?;
        let mut text = String::new();
        let read = file.take(MAX_ENTRY_BYTES + 1).read_to_string(&mut text);
        // An unreadable entry (an older format, a torn write, a forgery) is a miss, never an
        // error; it is removed so that it cannot stand in the way of the next write.
        let record = read.ok().and_then(|_| self.open_entry(key, &text));
        if record.is_none() {
            let _ = std::fs::remove_file(&path);
        }
        record
    }

    /// The record of an entry's text, if its MAC checks.
    fn open_entry(&self, key: &str, text: &str) -> Option<Record> {
        let secret = self.secret().ok()?;
        let (header, json) = text.split_once('\n')?;
        let mac = decode_hex(header.strip_prefix(ENTRY_HEADER)?)?;
        entry_mac(&secret, key, json).verify_slice(&mac).ok()?;
        serde_json::from_str(json).ok()
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
        let json = serde_json::to_string(record).context("serializing a cache entry")?;
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("creating {}", self.dir.display()))?;
        let secret = self.secret().map_err(anyhow::Error::msg)?;
        let mac = hex(&entry_mac(&secret, key, &json).finalize().into_bytes());
        let text = format!("{ENTRY_HEADER}{mac}\n{json}");
        let written = tempfile::NamedTempFile::with_prefix_in(".partial-", &self.dir).and_then(
            |mut partial| {
                write(&mut partial, text.as_bytes())?;
                partial.flush()?;
                partial.persist(&path).map_err(|error| error.error)
            },
        );
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

    /// The cache's secret: read from [`SECRET_FILE`], or made and written there when there is
    /// none (or it is not 32 bytes: every entry made under it is then a miss).
    fn secret(&self) -> Result<Secret, String> {
        self.secret
            .get_or_init(|| {
                let path = self.secret_path();
                read_or_make_secret(&path).map_err(|error| match error.kind() {
                    std::io::ErrorKind::StorageFull => format!(
                        "out of disk space: cannot write the cache's secret {} (free some space, \
                         or pass --target-dir on another disk): {error}",
                        path.display()
                    ),
                    _ => format!("the cache's secret {}: {error}", path.display()),
                })
            })
            .clone()
    }
}

/// The MAC of the entry of `key` holding `json`, not finalized.
fn entry_mac(secret: &Secret, key: &str, json: &str) -> Hmac<Sha256> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret).expect("any key length");
    // The key first, length-prefixed: an entry moved to another key's file does not check.
    mac.update(&(key.len() as u64).to_le_bytes());
    mac.update(key.as_bytes());
    mac.update(json.as_bytes());
    mac
}

/// Opens `path` for reading if it is a regular file of at most `max` bytes: opened without
/// blocking (a FIFO in its place does not hang the run), its type checked on the open file
/// (a link to `/dev/zero` is not read until memory runs out).
pub(crate) fn open_regular(path: &Path, max: u64) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::File::options()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .ok()?;
    let metadata = file.metadata().ok()?;
    (metadata.is_file() && metadata.len() <= max).then_some(file)
}

fn read_or_make_secret(path: &Path) -> std::io::Result<Secret> {
    let mut bytes = Vec::new();
    if let Some(file) = open_regular(path, 32)
        && file.take(33).read_to_end(&mut bytes).is_ok()
        && let Ok(secret) = Secret::try_from(bytes.as_slice())
    {
        return Ok(secret);
    }
    let dir = path.parent().expect("in the cache directory");
    std::fs::create_dir_all(dir)?;
    let mut secret = Secret::default();
    getrandom::fill(&mut secret).map_err(std::io::Error::other)?;
    // Written whole, readable by this user only (tempfile's mode), then moved into place; a
    // verifier that made one at the same moment wins, and its secret is the one read back.
    let mut partial = tempfile::NamedTempFile::with_prefix_in(".partial-", dir)?;
    partial.write_all(&secret)?;
    partial.flush()?;
    match partial.persist_noclobber(path) {
        Ok(_) => Ok(secret),
        Err(error) if error.error.kind() == std::io::ErrorKind::AlreadyExists => {
            let mut theirs = Vec::new();
            if let Some(file) = open_regular(path, 32) {
                file.take(33).read_to_end(&mut theirs)?;
            }
            match Secret::try_from(theirs.as_slice()) {
                Ok(theirs) => Ok(theirs),
                // Not a secret this tool wrote: replaced, which makes every entry a miss.
                Err(_) => {
                    error.file.persist(path).map_err(|error| error.error)?;
                    Ok(secret)
                }
            }
        }
        Err(error) => Err(error.error),
    }
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|index| u8::from_str_radix(text.get(index..index + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
