//! A snippet's artifacts: the files the harness (or a program the snippet starts) writes into
//! `$MDBOOK_SNIPPETS_ARTIFACTS`, read back once the snippet's process has ended, to be shown
//! under its output: `*.txt` and `*.svg`, in file-name order (other names are never opened).
//!
//! They are as bounded as the snippet's output, since a snippet controls them: each must be a
//! regular file, opened without following a link and without blocking (a FIFO, a device, a
//! symbolic link, a directory fail the snippet, naming the file, and are never read); all of
//! them together hold at most the output limit (one byte more fails the snippet, and nothing
//! past the limit is read, so nothing that large is kept or cached); at most [`MAX_ARTIFACTS`]
//! of them; and reading stops at the run's deadline plus [`GRACE`]. A problem is the
//! snippet's failure (`RunRecord::artifact_failure`), never the tool's.

use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::time::{Duration, Instant};

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};

use crate::snippet::{Artifact, ArtifactKind};

/// How long past the run's deadline artifacts are still read: a snippet that ended just in
/// time still gets its regular files shown.
pub(crate) const GRACE: Duration = Duration::from_secs(2);

/// The most artifacts one run may leave (each becomes a box in the page).
pub(crate) const MAX_ARTIFACTS: usize = 1000;

/// What was read back: the artifacts, or why the snippet fails instead.
pub(crate) type ReadArtifacts = Result<Vec<Artifact>, String>;

/// Reads the artifacts in `dir`, within `limit` bytes in all and by `deadline` (plus
/// [`GRACE`]; `None`: no deadline). A directory the snippet removed holds none.
pub(crate) fn read_artifacts(dir: &Path, deadline: Option<Instant>, limit: usize) -> ReadArtifacts {
    let deadline = deadline.map(|deadline| deadline.max(Instant::now()) + GRACE);
    let late = || deadline.is_some_and(|deadline| Instant::now() >= deadline);
    let variable = "$MDBOOK_SNIPPETS_ARTIFACTS";
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let directory = match rustix::fs::open(dir, flags, Mode::empty()) {
        Ok(directory) => directory,
        Err(rustix::io::Errno::NOENT) => return Ok(Vec::new()),
        Err(error) => {
            return Err(format!(
                "the artifacts directory ({variable}) cannot be read: {error} (the snippet \
                 replaced it with something that is not a directory?)"
            ));
        }
    };
    let entries =
        Dir::read_from(&directory).map_err(|error| format!("reading {variable}: {error}"))?;
    let mut names: Vec<(Vec<u8>, ArtifactKind)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|error| format!("reading {variable}: {error}"))?;
        if late() {
            return Err(format!(
                "{variable} was still being listed at the run's deadline (plus {} s): too many \
                 files",
                GRACE.as_secs()
            ));
        }
        let name = entry.file_name().to_bytes();
        let kind = if name.len() <= 4 {
            continue;
        } else if name.ends_with(b".txt") {
            ArtifactKind::Text
        } else if name.ends_with(b".svg") {
            ArtifactKind::Svg
        } else {
            continue;
        };
        if names.len() == MAX_ARTIFACTS {
            return Err(format!(
                "more than {MAX_ARTIFACTS} artifacts (`*.txt`, `*.svg` in {variable})"
            ));
        }
        names.push((name.to_vec(), kind));
    }
    names.sort_by(|(left, _), (right, _)| left.cmp(right));
    let mut artifacts = Vec::new();
    let mut left = limit;
    for (name, kind) in names {
        let shown = String::from_utf8_lossy(&name).into_owned();
        let content = read_one(&directory, &name, &mut left, &late)
            .map_err(|problem| format!("artifact `{shown}` {problem}"))?;
        let stem = shown
            .rsplit_once('.')
            .map_or(shown.as_str(), |(stem, _)| stem);
        artifacts.push(Artifact {
            title: artifact_title(stem),
            kind,
            content: String::from_utf8_lossy(&content).into_owned(),
        });
    }
    Ok(artifacts)
}

/// Reads one artifact, if it is a regular file that fits in `left` bytes (which it uses up).
/// Errors complete "artifact `NAME` ...".
fn read_one(
    directory: &OwnedFd,
    name: &[u8],
    left: &mut usize,
    late: &dyn Fn() -> bool,
) -> Result<Vec<u8>, String> {
    let not_regular = |kind: FileType| {
        let what = match kind {
            FileType::Fifo => "a FIFO",
            FileType::Symlink => "a symbolic link",
            FileType::Directory => "a directory",
            FileType::CharacterDevice | FileType::BlockDevice => "a device",
            FileType::Socket => "a socket",
            _ => "not a regular file",
        };
        format!("is {what}: artifacts must be regular files, and it was not read")
    };
    let kind = |stat: &rustix::fs::Stat| FileType::from_raw_mode(stat.st_mode);
    let stat = rustix::fs::statat(directory, name, AtFlags::SYMLINK_NOFOLLOW)
        .map_err(|error| format!("cannot be read: {error}"))?;
    if kind(&stat) != FileType::RegularFile {
        return Err(not_regular(kind(&stat)));
    }
    // No link followed, and no wait for a writer, should it have become a FIFO since.
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file = rustix::fs::openat(directory, name, flags, Mode::empty())
        .map_err(|error| format!("cannot be opened: {error}"))?;
    let stat = rustix::fs::fstat(&file).map_err(|error| format!("cannot be read: {error}"))?;
    if kind(&stat) != FileType::RegularFile {
        return Err(not_regular(kind(&stat)));
    }
    let too_large = || {
        "takes the artifacts over the output limit (`output-limit`): it was not read whole, \
         nor kept"
            .to_owned()
    };
    if u64::try_from(stat.st_size).unwrap_or(u64::MAX) > *left as u64 {
        return Err(too_large());
    }
    let mut file = std::fs::File::from(file);
    let mut content = Vec::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        if late() {
            return Err(format!(
                "was still being read at the run's deadline (plus {} s)",
                GRACE.as_secs()
            ));
        }
        let read = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(format!("cannot be read: {error}")),
        };
        // The file may have grown since it was measured.
        if read > *left - content.len() {
            return Err(too_large());
        }
        content.extend_from_slice(&buffer[..read]);
    }
    *left -= content.len();
    Ok(content)
}

/// `10-wire_transcript` -> `wire transcript`.
fn artifact_title(stem: &str) -> String {
    let digits = stem.chars().take_while(char::is_ascii_digit).count();
    let stem = match stem[digits..].strip_prefix('-') {
        Some(rest) if digits > 0 => rest,
        _ => stem,
    };
    stem.replace('_', " ")
}

#[cfg(test)]
#[path = "artifacts_tests.rs"]
mod tests;
