//! Builds the generated crate with `cargo build --message-format=json` and turns cargo's
//! messages into the executables built and the compile errors, each attributed to the module
//! file (so the snippet) it is in. The caller drops broken snippets and builds the rest once
//! more.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};
use serde::Deserialize;

use crate::cache::Record;
use crate::generate::{GeneratedCrate, PlannedSnippet, generate, module_file};
use crate::verify::{Located, Plan, VerifyOptions};
use crate::workspace::Workspace;

/// What building did for one snippet.
#[derive(Debug)]
pub enum Built {
    /// Built; run it as `PROGRAM <id>`.
    Executable(PathBuf),
    /// Nothing to run: a `no_run` snippet that compiled, a `compile_fail` snippet either way,
    /// or a snippet that did not compile.
    Record(Record),
}

/// Generates the crate for `plans`, builds it, and if some snippets are broken, builds the
/// others once more without them (one broken module would otherwise keep its whole binary from
/// linking). Returns one [`Built`] per plan, in order.
pub fn build(
    located: &[Located],
    plans: &[Plan],
    workspace: &Workspace,
    options: &VerifyOptions,
) -> anyhow::Result<Vec<Built>> {
    let mut broken: HashMap<usize, Vec<CompileError>> = HashMap::new();
    let incremental =
        !options.cold_build_without_incremental || workspace.crate_dir.join("Cargo.toml").is_file();
    let mut attempt = 0;
    let output = loop {
        attempt += 1;
        let active: Vec<usize> = (0..plans.len())
            .filter(|index| !broken.contains_key(index))
            .collect();
        let planned: Vec<PlannedSnippet> = active
            .iter()
            .map(|&index| plans[index].planned.clone())
            .collect();
        let generated = generate(&planned, &workspace.settings);
        write_crate(
            &workspace.crate_dir,
            &generated,
            workspace.lock_file.as_deref(),
        )?;
        let output = cargo_build(&workspace.crate_dir, &workspace.target_dir, incremental)?;
        let files: HashMap<PathBuf, usize> = active
            .iter()
            .map(|&index| (module_file(&plans[index].planned), index))
            .collect();
        let mut newly_broken = HashSet::new();
        for error in &output.errors {
            let Some(&index) = error.file.as_ref().and_then(|file| files.get(file)) else {
                continue;
            };
            if !plans[index].planned.compile_fail {
                newly_broken.insert(index);
                broken.entry(index).or_default().push(error.clone());
            }
        }
        if newly_broken.is_empty() || attempt == 2 {
            break (output, generated, files);
        }
    };
    let (output, generated, files) = output;
    let bin_of: HashMap<&str, &str> = generated
        .modules
        .iter()
        .map(|module| (module.id.as_str(), module.bin.as_str()))
        .collect();

    // A failed build that no snippet explains is the tool's problem (a harness that does not
    // build, a dependency that cannot be resolved), not the book's.
    let runnable_built = generated.modules.iter().any(|module| {
        !module.bin.starts_with("cf-") && output.executables.contains_key(&module.bin)
    });
    let has_runnable = plans.iter().any(|plan| !plan.planned.compile_fail);
    if has_runnable && !runnable_built && broken.is_empty() && output.errors.is_empty() {
        bail!(
            "the generated crate at {} did not build, and no snippet is to blame:\n{}",
            workspace.crate_dir.display(),
            tail(&output.cargo_stderr, 40)
        );
    }

    let mut built = Vec::new();
    for (index, plan) in plans.iter().enumerate() {
        let planned = &plan.planned;
        if let Some(errors) = broken.get(&index) {
            built.push(Built::Record(did_not_compile(errors)));
            continue;
        }
        let bin = bin_of.get(planned.id.as_str()).copied().unwrap_or_default();
        let executable = output.executables.get(bin);
        let own_errors: Vec<CompileError> = output
            .errors
            .iter()
            .filter(|error| error.file.as_ref().and_then(|file| files.get(file)) == Some(&index))
            .cloned()
            .collect();
        built.push(match (planned.compile_fail, executable) {
            (true, Some(_)) => Built::Record(Record::Compiled),
            (true, None) if !own_errors.is_empty() => Built::Record(did_not_compile(&own_errors)),
            (_, None) => {
                // Its binary failed for a reason outside any snippet (a linker error, say).
                let others: Vec<&CompileError> = output
                    .errors
                    .iter()
                    .filter(|error| error.bin == bin)
                    .collect();
                let message = if others.is_empty() {
                    tail(&output.cargo_stderr, 20)
                } else {
                    others.iter().map(|error| error.rendered.as_str()).collect()
                };
                Built::Record(Record::BinaryFailed {
                    message: format!("the binary holding this snippet did not build:\n{message}"),
                })
            }
            (false, Some(_)) if plan_is_no_run(located, plan) => Built::Record(Record::Compiled),
            (false, Some(executable)) => Built::Executable(executable.clone()),
        });
    }
    Ok(built)
}

fn plan_is_no_run(located: &[Located], plan: &Plan) -> bool {
    located[plan.index].snippet.attributes.no_run
}

fn did_not_compile(errors: &[CompileError]) -> Record {
    Record::DidNotCompile {
        codes: errors
            .iter()
            .filter_map(|error| error.code.clone())
            .collect(),
        message: errors.iter().map(|error| error.rendered.as_str()).collect(),
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Writes the generated files, touching only those whose content changed (so cargo rebuilds
/// only what changed) and removing module files of snippets no longer there.
fn write_crate(
    dir: &Path,
    generated: &GeneratedCrate,
    lock_file: Option<&Path>,
) -> anyhow::Result<()> {
    let wanted: HashSet<PathBuf> = generated
        .files
        .iter()
        .map(|(path, _)| dir.join(path))
        .collect();
    let src = dir.join("src");
    if src.is_dir() {
        remove_unwanted(&src, &wanted)?;
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
        let target = dir.join("Cargo.lock");
        std::fs::copy(lock_file, &target)
            .with_context(|| format!("copying {} to {}", lock_file.display(), target.display()))?;
    }
    Ok(())
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

/// What one `cargo build` produced.
#[derive(Debug, Default)]
pub struct BuildOutput {
    /// Binary target name -> the executable.
    pub executables: HashMap<String, PathBuf>,
    /// Compile errors of the generated crate (warnings are left out).
    pub errors: Vec<CompileError>,
    /// Whether cargo reported success.
    pub success: bool,
    /// Cargo's own text (stderr): what explains a failure with no compile error of ours, such as
    /// a harness that does not build or a dependency that cannot be resolved.
    pub cargo_stderr: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    /// The binary target being compiled.
    pub bin: String,
    /// The primary span's file, relative to the generated crate's root; `None` when the error
    /// has no span (a linker error, say).
    pub file: Option<PathBuf>,
    pub line: usize,
    pub column: usize,
    /// `E0425`, when rustc gave one.
    pub code: Option<String>,
    /// The one-line message.
    pub message: String,
    /// rustc's full rendering, source excerpt included.
    pub rendered: String,
}

/// Runs cargo on the crate at `crate_dir`, building into `target_dir`. `Err` only when cargo
/// cannot be started; a failed build is an `Ok` with errors.
///
/// `incremental: false` is for a crate `mdbook-snippets test` builds for the first time:
/// writing rustc's incremental state costs a third of a cold build and only pays off when the
/// crate is built again (one snippet edited under `mdbook serve`, or the next `test` after an
/// edit, which build incrementally). Cargo does not fingerprint the setting, so switching never
/// rebuilds anything; a `CARGO_INCREMENTAL` the user set wins.
pub fn cargo_build(
    crate_dir: &Path,
    target_dir: &Path,
    incremental: bool,
) -> anyhow::Result<BuildOutput> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = crate_dir.join("Cargo.toml");
    let mut command = Command::new(&cargo);
    command
        .args(["build", "--bins", "--keep-going", "--message-format=json"])
        .arg("--manifest-path")
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", target_dir)
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .stdin(Stdio::null());
    if !incremental && std::env::var_os("CARGO_INCREMENTAL").is_none() {
        command.env("CARGO_INCREMENTAL", "0");
    }
    let output = command
        .output()
        .with_context(|| format!("running cargo build for {}", manifest.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut build = parse_messages(&stdout, &manifest);
    build.cargo_stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    Ok(build)
}

/// Reads cargo's JSON lines. Messages about other packages (the harness, its dependencies) are
/// not ours to attribute and are left to `cargo_stderr`.
pub fn parse_messages(stdout: &str, manifest: &Path) -> BuildOutput {
    let mut build = BuildOutput::default();
    for line in stdout.lines() {
        let Ok(message) = serde_json::from_str::<CargoMessage>(line) else {
            continue;
        };
        match message.reason.as_str() {
            "compiler-artifact" => {
                if let (Some(target), Some(executable)) = (message.target, message.executable) {
                    build.executables.insert(target.name, executable);
                }
            }
            "compiler-message" => {
                let (Some(target), Some(diagnostic)) = (message.target, message.message) else {
                    continue;
                };
                let ours = message.manifest_path.as_deref() == Some(manifest);
                if ours && diagnostic.level == "error" && !is_summary(&diagnostic) {
                    let primary = diagnostic.spans.iter().find(|span| span.is_primary);
                    build.errors.push(CompileError {
                        bin: target.name,
                        file: primary.map(|span| PathBuf::from(&span.file_name)),
                        line: primary.map_or(0, |span| span.line_start),
                        column: primary.map_or(0, |span| span.column_start),
                        code: diagnostic.code.map(|code| code.code),
                        message: diagnostic.message,
                        rendered: diagnostic.rendered.unwrap_or_default(),
                    });
                }
            }
            "build-finished" => build.success = message.success.unwrap_or(false),
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

#[derive(Deserialize)]
struct CargoMessage {
    reason: String,
    manifest_path: Option<PathBuf>,
    target: Option<Target>,
    executable: Option<PathBuf>,
    message: Option<Diagnostic>,
    success: Option<bool>,
}

#[derive(Deserialize)]
struct Target {
    name: String,
}

#[derive(Deserialize)]
struct Diagnostic {
    message: String,
    level: String,
    code: Option<DiagnosticCode>,
    spans: Vec<DiagnosticSpan>,
    rendered: Option<String>,
}

#[derive(Deserialize)]
struct DiagnosticCode {
    code: String,
}

#[derive(Deserialize)]
struct DiagnosticSpan {
    file_name: String,
    line_start: usize,
    column_start: usize,
    is_primary: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_and_executables_of_our_package_only() {
        let manifest = Path::new("/t/gen/Cargo.toml");
        let stdout = r#"{"reason":"compiler-message","package_id":"x","manifest_path":"/t/gen/Cargo.toml","target":{"name":"gen-e2021"},"message":{"message":"cannot find value `y` in this scope","level":"error","code":{"code":"E0425","explanation":null},"spans":[{"file_name":"src/e2021/a_1.rs","line_start":5,"column_start":9,"is_primary":true}],"rendered":"error[E0425]: cannot find value `y`\n"}}
{"reason":"compiler-message","package_id":"x","manifest_path":"/t/gen/Cargo.toml","target":{"name":"gen-e2021"},"message":{"message":"unused variable","level":"warning","code":null,"spans":[],"rendered":"warning\n"}}
{"reason":"compiler-message","package_id":"x","manifest_path":"/t/gen/Cargo.toml","target":{"name":"gen-e2021"},"message":{"message":"aborting due to 1 previous error","level":"error","code":null,"spans":[],"rendered":"error: aborting\n"}}
{"reason":"compiler-message","package_id":"h","manifest_path":"/t/harness/Cargo.toml","target":{"name":"harness"},"message":{"message":"broken harness","level":"error","code":null,"spans":[],"rendered":"error\n"}}
{"reason":"compiler-artifact","manifest_path":"/t/gen/Cargo.toml","target":{"name":"gen-e2024"},"executable":"/t/target/debug/gen-e2024"}
Compiling is not JSON
{"reason":"build-finished","success":false}"#;
        let build = parse_messages(stdout, manifest);
        assert_eq!(
            build.errors,
            vec![CompileError {
                bin: "gen-e2021".to_owned(),
                file: Some(PathBuf::from("src/e2021/a_1.rs")),
                line: 5,
                column: 9,
                code: Some("E0425".to_owned()),
                message: "cannot find value `y` in this scope".to_owned(),
                rendered: "error[E0425]: cannot find value `y`\n".to_owned(),
            }]
        );
        assert_eq!(
            build.executables,
            HashMap::from([(
                "gen-e2024".to_owned(),
                PathBuf::from("/t/target/debug/gen-e2024")
            )])
        );
        assert!(!build.success);
    }
}
