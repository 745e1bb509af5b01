//! The disk check: a build that failed because the target directory's disk is full is the
//! tool's error, never a snippet's verdict.

use std::path::Path;

use crate::build::cargo::BuildOutput;

/// What says the disk is full, if anything does: a line of cargo's, rustc's or the linker's
/// output with `No space left on device` (ENOSPC), or a linker that crashed with a bus error
/// (how ENOSPC reaches a linker writing its output through `mmap`, as lld does) while the
/// target directory's file system has almost nothing free.
pub(crate) fn out_of_disk_space(output: &BuildOutput, target_dir: &Path) -> Option<String> {
    let rendered = output.errors.iter().map(|error| error.rendered.as_str());
    let dependencies = output
        .dependency_errors
        .iter()
        .map(|error| error.rendered.as_str());
    let mut lines = std::iter::once(output.cargo_stderr.as_str())
        .chain(rendered)
        .chain(dependencies)
        .flat_map(str::lines);
    if let Some(line) = lines
        .clone()
        .find(|line| line.contains("No space left on device"))
    {
        return Some(line.trim().to_owned());
    }
    let crash = lines.find(|line| line.contains("terminated with signal 7"))?;
    let stats = rustix::fs::statvfs(target_dir).ok()?;
    let free = stats.f_bavail.saturating_mul(stats.f_frsize);
    (free < ALMOST_FULL).then(|| {
        format!(
            "No space left on device: {} ({free} bytes free)",
            crash.trim()
        )
    })
}

/// Free bytes under which a crashed linker is taken for a full disk.
const ALMOST_FULL: u64 = 16 << 20;
