//! The artifact registry: during a snippet run (`snippet_main`, between [`begin_run`] and
//! [`end_run`]) every `TestServer` and `Driver` registers its transcript and violation log here
//! when it is created, and `snippet_main` writes the artifacts of each run (compact transcript,
//! sequence diagram) into `$MDBOOK_SNIPPETS_ARTIFACTS` when the run ends. Outside a run nothing
//! is kept, so a test's servers are freed with their last handle.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::artifact_files;
use crate::revision::Revision;
use crate::transcript::Transcript;
use crate::violations::ViolationLog;

/// What one server or client contributes to a snippet's artifacts.
#[derive(Clone, Debug)]
pub struct Registration {
    /// Short kind, e.g. `"server"` or `"driver"`; names the files when a run has several.
    pub kind: String,
    /// The revision the party was started under.
    pub revision: Revision,
    /// Its wire transcript.
    pub transcript: Transcript,
    /// The violations it recorded from its peer.
    pub violations: ViolationLog,
}

static REGISTRY: Mutex<Vec<Registration>> = Mutex::new(Vec::new());
/// Whether a snippet run is collecting registrations.
static COLLECTING: AtomicBool = AtomicBool::new(false);

/// Registers a party for this run's artifacts and violation checks; outside a run, does nothing.
pub fn register(registration: Registration) {
    let mut registry = lock();
    if COLLECTING.load(Ordering::SeqCst) {
        registry.push(registration);
    }
}

/// Starts a run: what registers from now on is kept, until [`end_run`].
pub fn begin_run() {
    let mut registry = lock();
    registry.clear();
    COLLECTING.store(true, Ordering::SeqCst);
}

/// Ends the run and takes everything registered during it.
pub fn end_run() -> Vec<Registration> {
    let mut registry = lock();
    COLLECTING.store(false, Ordering::SeqCst);
    std::mem::take(&mut *registry)
}

fn lock() -> std::sync::MutexGuard<'static, Vec<Registration>> {
    REGISTRY.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// One run's registrations, with the revision of that run.
pub struct RunArtifacts {
    /// The revision the run was under.
    pub revision: Revision,
    /// What registered during the run, in creation order.
    pub registrations: Vec<Registration>,
}

/// Writes `NN-wire_transcript….txt` and `NN-sequence….svg` ([`artifact_files::write`]) for
/// every registration of every run.
/// With more than one run the revision shows in the name; with more than one registration in a
/// run its kind and number do.
pub fn write_artifacts(directory: &Path, runs: &[RunArtifacts]) -> anyhow::Result<()> {
    let mut number = 1;
    for run in runs {
        let several = run.registrations.len() > 1;
        for (index, registration) in run.registrations.iter().enumerate() {
            let mut suffix = String::new();
            if several {
                suffix.push_str(&format!("_{}_{}", registration.kind, index + 1));
            }
            if runs.len() > 1 {
                suffix.push_str(&format!("_{}", run.revision));
            }
            artifact_files::write(directory, number, &suffix, &registration.transcript)?;
            number += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "artifacts_tests.rs"]
mod tests;
