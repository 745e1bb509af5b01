//! The artifact files of one transcript, named and written the one way both writers share: the
//! harness's `snippet_main` (for a Rust snippet) and the `mcp-testserver` binary
//! (`--artifacts DIR`, for a snippet in any language that starts it). `NN-wire_transcript….txt`
//! holds the compact rendering ([`crate::render`]), `NN+1-sequence….svg` the sequence diagram
//! ([`crate::svg`]); the verifier shows them under the snippet in file-name order.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::render::RenderTranscript;
use crate::transcript::Transcript;

/// The variable the verifier sets for every snippet process: the directory its artifacts go in.
/// The binary's `--artifacts` defaults to it; the harness's `snippet_main` writes there.
pub const ARTIFACTS_VAR: &str = "MDBOOK_SNIPPETS_ARTIFACTS";

/// The text and SVG file names of the `number`-th transcript (1-based), with `suffix` (empty,
/// or e.g. `_server_1_2026-07-28`) after the kind: `10-wire_transcript.txt`, `11-sequence.svg`.
pub fn file_names(number: usize, suffix: &str) -> (String, String) {
    (
        format!("{:02}-wire_transcript{suffix}.txt", number * 10),
        format!("{:02}-sequence{suffix}.svg", number * 10 + 1),
    )
}

/// Writes the `number`-th transcript's two files into `directory`, replacing files of the same
/// names (the harness numbers every file of a run itself).
pub fn write(
    directory: &Path,
    number: usize,
    suffix: &str,
    transcript: &Transcript,
) -> anyhow::Result<()> {
    let (text_name, svg_name) = file_names(number, suffix);
    let text_path = directory.join(text_name);
    let svg_path = directory.join(svg_name);
    std::fs::write(&text_path, transcript.render())
        .with_context(|| format!("writing {}", text_path.display()))?;
    std::fs::write(&svg_path, transcript.to_svg())
        .with_context(|| format!("writing {}", svg_path.display()))
}

/// Writes the transcript under the first number whose text file does not exist yet (so a
/// snippet that starts the server twice keeps both: `10-`/`11-`, then `20-`/`21-`); the paths
/// written. The text file is claimed with `create_new`, so two servers never share a number.
pub fn write_next(directory: &Path, transcript: &Transcript) -> anyhow::Result<(PathBuf, PathBuf)> {
    for number in 1.. {
        let (text_name, svg_name) = file_names(number, "");
        let text_path = directory.join(text_name);
        let mut text_file = match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&text_path)
        {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => {
                return Err(error).with_context(|| format!("creating {}", text_path.display()));
            }
        };
        text_file
            .write_all(transcript.render().as_bytes())
            .with_context(|| format!("writing {}", text_path.display()))?;
        let svg_path = directory.join(svg_name);
        std::fs::write(&svg_path, transcript.to_svg())
            .with_context(|| format!("writing {}", svg_path.display()))?;
        return Ok((text_path, svg_path));
    }
    unreachable!("`1..` does not end")
}

/// What the binary does when a session ends: with a directory, writes the transcript there
/// ([`write_next`]) and says so on stderr.
pub(crate) fn write_at_end(
    directory: Option<&Path>,
    transcript: &Transcript,
) -> anyhow::Result<()> {
    let Some(directory) = directory else {
        return Ok(());
    };
    let (text_path, svg_path) = write_next(directory, transcript)?;
    crate::shutdown::say(format_args!(
        "wrote {} and {}",
        text_path.display(),
        svg_path.display()
    ));
    Ok(())
}

/// Checks, before anything is served, that `directory` exists, is a directory and takes a new
/// file (a probe file, created and removed), so a bad path fails at start-up, not at the end.
pub fn check_directory(directory: &Path) -> anyhow::Result<()> {
    let metadata = std::fs::metadata(directory)
        .with_context(|| format!("{}: no such directory", directory.display()))?;
    if !metadata.is_dir() {
        anyhow::bail!("{}: not a directory", directory.display());
    }
    let probe = directory.join(format!(".mcp-testserver-probe-{}", std::process::id()));
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .with_context(|| format!("{}: cannot create a file in it", directory.display()))?;
    std::fs::remove_file(&probe).with_context(|| format!("removing {}", probe.display()))
}

#[cfg(test)]
#[path = "artifact_files_tests.rs"]
mod tests;
