//! A snippet's artifacts: the files the harness (or a program the snippet starts) writes into
//! `$MDBOOK_SNIPPETS_ARTIFACTS`, read back once the snippet's process has ended, to be shown
//! under its output.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::snippet::{Artifact, ArtifactKind};

/// The harness's files, in file-name order: `*.txt` and `*.svg`; other files are not shown.
pub(crate) fn read_artifacts(dir: &Path) -> anyhow::Result<Vec<Artifact>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()
        .with_context(|| format!("reading {}", dir.display()))?;
    paths.sort();
    let mut artifacts = Vec::new();
    for path in paths {
        let kind = match path.extension().and_then(|extension| extension.to_str()) {
            Some("txt") => ArtifactKind::Text,
            Some("svg") => ArtifactKind::Svg,
            _ => continue,
        };
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        artifacts.push(Artifact {
            title: artifact_title(&stem),
            kind,
            content: String::from_utf8_lossy(&bytes).into_owned(),
        });
    }
    Ok(artifacts)
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
