//! Writing the generated crate to disk: only files whose content changed are touched (so cargo
//! rebuilds only what changed), files of snippets no longer there are removed, and the lock
//! file starts from the book's workspace lock.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::build::generate::GeneratedCrate;

/// Writes the generated files, touching only those whose content changed (so cargo rebuilds
/// only what changed) and removing files of snippets no longer there.
pub(crate) fn write_crate(
    dir: &Path,
    generated: &GeneratedCrate,
    lock_file: Option<&Path>,
) -> anyhow::Result<()> {
    let wanted: HashSet<PathBuf> = generated
        .files
        .iter()
        .map(|(path, _)| dir.join(path))
        .collect();
    if dir.is_dir() {
        for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let path = entry
                .with_context(|| format!("reading {}", dir.display()))?
                .path();
            let is_package = path
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| {
                    name.starts_with('e') && name[1..].chars().all(|c| c.is_ascii_digit())
                });
            if path.is_dir() && is_package {
                remove_unwanted(&path, &wanted)?;
            }
        }
    }
    for (relative, content) in &generated.files {
        let path = dir.join(relative);
        if std::fs::read_to_string(&path).is_ok_and(|existing| existing == *content) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, content).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(lock_file) = lock_file {
        copy_lock(lock_file, dir)?;
    }
    Ok(())
}

/// Starts the generated crate's `Cargo.lock` from the book's workspace lock, so shared
/// dependencies resolve to the same versions (and artifacts). Copied only when that lock
/// changed since the last copy: cargo adds what only the snippets need to the copy, and
/// copying it over again on every run would make it resolve those once more each time.
fn copy_lock(lock_file: &Path, dir: &Path) -> anyhow::Result<()> {
    let source =
        std::fs::read(lock_file).with_context(|| format!("reading {}", lock_file.display()))?;
    let marker = dir.join(".mdbook-snippets-lock-source");
    let target = dir.join("Cargo.lock");
    let copied_from = std::fs::read(&marker).ok();
    if target.is_file() && copied_from.as_deref() == Some(source.as_slice()) {
        return Ok(());
    }
    std::fs::write(&target, &source).with_context(|| format!("writing {}", target.display()))?;
    std::fs::write(&marker, &source).with_context(|| format!("writing {}", marker.display()))
}

fn remove_unwanted(dir: &Path, wanted: &HashSet<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry
            .with_context(|| format!("reading {}", dir.display()))?
            .path();
        if path.is_dir() {
            remove_unwanted(&path, wanted)?;
        } else if !wanted.contains(&path) {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        }
    }
    Ok(())
}
