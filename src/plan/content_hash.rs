//! Content hashes, the cache's keys are made of: a file (as a stream, in bounded memory), a
//! directory tree or a cargo package's sources (by relative path and content, following links
//! without looping), a string. Only regular files and directories are hashed: a FIFO or a
//! device is an error naming it, never read.

use std::collections::BTreeSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use sha2::{Digest, Sha256};

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
        hasher.update(relative.to_string_lossy().as_bytes());
        hash_file_into(&path, &mut hasher)?;
    }
    Ok(hex(&hasher.finalize()))
}

/// Hashes a file (as a stream: its length, then its bytes) or a directory ([`hash_tree`]).
pub(crate) fn hash_path(path: &Path) -> anyhow::Result<String> {
    if path.is_dir() {
        return hash_tree(path);
    }
    let mut hasher = Sha256::new();
    hash_file_into(path, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}

/// Feeds a regular file's length and content to `hasher`, a block at a time, so a file of any
/// size is hashed in bounded memory. Anything else (a FIFO, a device such as `/dev/zero`, a
/// socket) is an error naming it: reading it could block forever or never end. The file is
/// opened without blocking, so even a FIFO is refused at once.
fn hash_file_into(path: &Path, hasher: &mut Sha256) -> anyhow::Result<()> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let mut file = std::fs::File::options()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .with_context(|| format!("reading {}", path.display()))?;
    let metadata = file
        .metadata()
        .with_context(|| format!("reading {}", path.display()))?;
    let kind = metadata.file_type();
    if !kind.is_file() {
        let what = if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_char_device() || kind.is_block_device() {
            "a device"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        anyhow::bail!(
            "{} is {what}: only regular files and directories can be hashed for the cache",
            path.display()
        );
    }
    hasher.update(metadata.len().to_le_bytes());
    let mut buffer = vec![0u8; 1 << 16];
    let mut total: u64 = 0;
    loop {
        let read = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                return Err(error).with_context(|| format!("reading {}", path.display()));
            }
        };
        hasher.update(&buffer[..read]);
        total += read as u64;
    }
    // A file that changed length while read says so in its hash: the next run sees it again.
    hasher.update(total.to_le_bytes());
    Ok(())
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

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
#[path = "content_hash_tests.rs"]
mod tests;
