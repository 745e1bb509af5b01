//! The crate lock: one run at a time writes, builds and runs a generated crate (found by
//! `workspace.rs`); a second run on the same book waits for it, saying so on stderr. An `flock`
//! on a file in the crate directory, so the kernel releases it when the run ends, however it
//! ends.

use std::path::Path;

use anyhow::Context;

use crate::plan::workspace::Workspace;

/// An exclusive lock on a generated crate directory, held while the crate is written, built and
/// run: two runs on one book at once (`mdbook serve` and `mdbook-snippets test`, say) would
/// otherwise rewrite each other's module files mid-build. Released when dropped.
#[derive(Debug)]
pub(crate) struct CrateLock {
    _file: std::fs::File,
}

impl Workspace {
    /// Takes the lock on [`Workspace::crate_dir`], saying on stderr when another run holds it
    /// and this one waits.
    pub(crate) fn lock(&self) -> anyhow::Result<CrateLock> {
        lock_dir(&self.crate_dir)
    }
}

/// Locks `dir/.mdbook-snippets.lock` with `flock`, creating both as needed.
fn lock_dir(dir: &Path) -> anyhow::Result<CrateLock> {
    use rustix::fs::{FlockOperation, flock};

    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(".mdbook-snippets.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    match flock(&file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => return Ok(CrateLock { _file: file }),
        Err(rustix::io::Errno::WOULDBLOCK) => eprintln!(
            "waiting for {} (another mdbook-snippets run is building this book)",
            path.display()
        ),
        Err(error) => {
            return Err(std::io::Error::from(error))
                .with_context(|| format!("locking {}", path.display()));
        }
    }
    loop {
        match flock(&file, FlockOperation::LockExclusive) {
            Ok(()) => return Ok(CrateLock { _file: file }),
            Err(rustix::io::Errno::INTR) => continue,
            Err(error) => {
                return Err(std::io::Error::from(error))
                    .with_context(|| format!("locking {}", path.display()));
            }
        }
    }
}
