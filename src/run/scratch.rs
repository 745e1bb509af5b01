//! The runs' scratch directories in the system's temporary directory: a snippet's
//! `mdbook-snippets-XXXX/` (its `work`, `tmp`, `artifacts` and `code`), a setup's and the
//! `mutants` command's directory of marks. Each is removed when its run ends, whatever the
//! outcome, and every one still there when the verifier is stopped by SIGINT or SIGTERM
//! (`containment.rs` calls [`remove_all`] once the runs are ended: the process then exits from
//! its signal thread, where the destructors of the threads running snippets never run).
//! A directory a snippet made unwritable or unreadable (`chmod 000`) is still removed: its
//! permissions are restored first.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;

/// A run's scratch directory, removed when dropped.
#[derive(Debug)]
pub(crate) struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// Makes `TMPDIR/PREFIXXXXXXX` (`tempfile`'s name and mode), registered for [`remove_all`].
    /// Refused once the verifier is stopping.
    pub(crate) fn new(prefix: &str) -> anyhow::Result<Scratch> {
        // Made and registered under one lock, so a signal either prevents it or removes it.
        let mut registry = REGISTRY.lock().unwrap_or_else(|poison| poison.into_inner());
        if registry.stopping {
            anyhow::bail!("the verifier is stopping (signal)");
        }
        let path = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .context("creating a temporary directory")?
            .keep();
        registry.dirs.insert(path.clone());
        Ok(Scratch { path })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        remove(&self.path);
        let mut registry = REGISTRY.lock().unwrap_or_else(|poison| poison.into_inner());
        registry.dirs.remove(&self.path);
    }
}

/// Removes every scratch directory still there, and refuses new ones: the verifier is stopping.
pub(crate) fn remove_all() {
    let mut registry = REGISTRY.lock().unwrap_or_else(|poison| poison.into_inner());
    registry.stopping = true;
    for dir in std::mem::take(&mut registry.dirs) {
        remove(&dir);
    }
}

/// Removes `dir` and everything in it; what a snippet made unwritable (a directory of mode
/// 000 cannot be emptied) is made writable first. Errors are ignored: nothing better can be
/// done with them at the end of a run.
fn remove(dir: &Path) {
    if std::fs::remove_dir_all(dir).is_err() {
        allow_removal(dir);
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Gives the owner full access to `dir` and every directory under it (links not followed).
fn allow_removal(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            allow_removal(&entry.path());
        }
    }
}

#[derive(Default)]
struct Registry {
    stopping: bool,
    dirs: BTreeSet<PathBuf>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    stopping: false,
    dirs: BTreeSet::new(),
});

#[cfg(test)]
#[path = "scratch_tests.rs"]
mod tests;
