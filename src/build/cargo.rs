//! Cargo's invocation: runs `cargo build --message-format=json` on the generated crate (read
//! with `cargo_metadata`) and turns cargo's messages into the executables built and the compile
//! errors, each attributed to the file (so the snippet) it is in; errors of other packages are
//! dependency errors, naming the crate.

use std::collections::HashMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context;
use cargo_metadata::Message;
use cargo_metadata::diagnostic::{Diagnostic, DiagnosticLevel, DiagnosticSpan};

pub(crate) use crate::build::messages::CompileError;
use crate::build::rustc_wrapper::{PACKAGE_ENV, WRAPPER_MARKER};
use crate::plan::Toolchain;

/// What one `cargo build` produced.
#[derive(Debug, Default)]
pub(crate) struct BuildOutput {
    /// Target name -> the executable (binaries, and test targets built as tests).
    pub executables: HashMap<String, PathBuf>,
    /// Compile errors of the generated crate (warnings are left out).
    pub errors: Vec<CompileError>,
    /// Compile errors of other packages: the harness, a dependency of the book.
    pub dependency_errors: Vec<DependencyError>,
    /// Cargo's own text (stderr): what explains a failure with no compile error of ours, such as
    /// a dependency that cannot be resolved.
    pub cargo_stderr: String,
}

/// An error compiling a crate the snippets depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DependencyError {
    /// The crate (target) name, e.g. `helper`.
    pub crate_name: String,
    pub rendered: String,
}

/// Runs cargo on the crate at `crate_dir`, building into `target_dir`. `Err` only when cargo
/// cannot be started; a failed build is an `Ok` with errors.
///
/// The toolchain is `toolchain`'s (its `cargo`, `RUSTC` its `rustc`), and every rustc of the
/// generated packages runs through this binary (`rustc_wrapper`), without the variables cargo
/// sets, and with `package_env` (Cargo's package variables of a book that uses a package or
/// declares crates) instead.
pub(crate) fn cargo_build(
    crate_dir: &Path,
    target_dir: &Path,
    toolchain: &Toolchain,
    package_env: &[(String, String)],
) -> anyhow::Result<BuildOutput> {
    let manifest = crate_dir.join("Cargo.toml");
    // An executable replaced while it runs (a rebuild, an upgrade) reads as `PATH (deleted)`:
    // the new one at PATH is a wrapper as good.
    let wrapper = std::env::current_exe().context("finding this executable")?;
    let wrapper = match wrapper
        .to_str()
        .and_then(|path| path.strip_suffix(" (deleted)"))
    {
        Some(path) => std::path::PathBuf::from(path),
        None => wrapper,
    };
    let mut command = Command::new(&toolchain.cargo);
    command
        .args([
            "build",
            "--workspace",
            "--bins",
            "--tests",
            "--keep-going",
            "--message-format=json",
        ])
        .arg("--manifest-path")
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", target_dir)
        .env("RUSTC", &toolchain.rustc)
        .env("RUSTC_WORKSPACE_WRAPPER", &wrapper)
        .env(WRAPPER_MARKER, "1")
        .stdin(Stdio::null());
    if !package_env.is_empty() {
        let json = serde_json::to_string(package_env).context("writing the package variables")?;
        command.env(PACKAGE_ENV, json);
    }
    // `build-timeout`: cargo and everything it started are stopped at the deadline.
    let output = crate::build::deadline::output(&mut command).with_context(|| {
        format!(
            "running {} build for {}",
            toolchain.cargo.display(),
            manifest.display()
        )
    })?;
    let mut build = parse_messages(&output.stdout, crate_dir);
    build.cargo_stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    Ok(build)
}

/// The span that places an error in the generated code: the primary one, or, when that is in a
/// macro's definition elsewhere (std's `panic!`, `vec!`), the call site it expanded from in our
/// files, or else any span of the error in our files. Our files are the relative paths (cargo
/// names std's and dependencies' files absolutely).
fn in_generated_code(diagnostic: &Diagnostic) -> Option<&DiagnosticSpan> {
    let ours = |span: &DiagnosticSpan| Path::new(&span.file_name).is_relative();
    let primary = diagnostic.spans.iter().find(|span| span.is_primary)?;
    let mut span = primary;
    loop {
        if ours(span) {
            return Some(span);
        }
        match &span.expansion {
            Some(expansion) => span = &expansion.span,
            None => break,
        }
    }
    diagnostic
        .spans
        .iter()
        .find(|span| ours(span))
        .or(Some(primary))
}

/// Reads cargo's JSON messages. Ours are those of targets under `crate_dir` (canonical, as
/// cargo reports it); errors of other packages are dependency errors.
pub(crate) fn parse_messages(stdout: &[u8], crate_dir: &Path) -> BuildOutput {
    let mut build = BuildOutput::default();
    for message in Message::parse_stream(BufReader::new(stdout)).flatten() {
        match message {
            Message::CompilerArtifact(artifact) => {
                if let Some(executable) = artifact.executable {
                    build
                        .executables
                        .insert(artifact.target.name, executable.into_std_path_buf());
                }
            }
            Message::CompilerMessage(message) => {
                let diagnostic = message.message;
                if diagnostic.level != DiagnosticLevel::Error || is_summary(&diagnostic) {
                    continue;
                }
                let ours = message.target.src_path.as_std_path().starts_with(crate_dir);
                if !ours {
                    build.dependency_errors.push(DependencyError {
                        crate_name: message.target.name,
                        rendered: diagnostic.rendered.unwrap_or(diagnostic.message),
                    });
                    continue;
                }
                let primary = in_generated_code(&diagnostic);
                build.errors.push(CompileError {
                    target: message.target.name,
                    file: primary.map(|span| PathBuf::from(&span.file_name)),
                    line: primary.map_or(0, |span| span.line_start),
                    column: primary.map_or(0, |span| span.column_start),
                    code: diagnostic.code.map(|code| code.code),
                    message: diagnostic.message,
                    rendered: diagnostic.rendered.unwrap_or_default(),
                });
            }
            _ => {}
        }
    }
    build
}

/// rustc's closing "aborting due to 2 previous errors" says nothing about a place.
fn is_summary(diagnostic: &Diagnostic) -> bool {
    diagnostic.spans.is_empty()
        && (diagnostic.message.starts_with("aborting due to")
            || diagnostic.message.starts_with("could not compile"))
}

#[cfg(test)]
#[path = "cargo_tests.rs"]
mod tests;
