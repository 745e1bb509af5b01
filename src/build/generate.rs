//! Snippets -> one crate, sans-IO. The generated directory is a cargo workspace with one
//! package per edition (`e2021/`, ...; an edition is a package's, never a target's, so cargo has
//! nothing to warn about). In each package, merged snippets are module files
//! (`e2021/src/<id>.rs`, so a diagnostic's file names its snippet) of one binary whose `main`
//! runs the one [`ENTRY_VARIABLE`] names (so a snippet's arguments are rustdoc's: none); a snippet that cannot live in a module (see `placement`) is a binary
//! of its own, a `compile_fail` snippet too, and a `test_harness` snippet a test target. The
//! generator returns the files *and* where each snippet's code starts, so every injected line is
//! accounted for: code line `n` (0-based) is file line `FIRST_CODE_LINE + n`.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

use crate::build::wrap::{ENTRY_FUNCTION, Root, snippet_module};
pub(crate) use crate::plan::Placement;
use crate::plan::{CrateSettings, HarnessParts};
use crate::source::unhide;

/// One snippet as the generator needs it.
#[derive(Debug, Clone)]
pub(crate) struct PlannedSnippet {
    pub id: String,
    /// The block's code, hidden lines (`# `) included.
    pub code: String,
    pub edition: String,
    pub placement: Placement,
    /// Built but not run (`no_run`, and every `compile_fail` snippet).
    pub no_run: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GeneratedCrate {
    /// Paths relative to the crate root, with their contents; `Cargo.toml` first.
    pub files: Vec<(PathBuf, String)>,
    /// One per planned snippet, in the order given.
    pub modules: Vec<GeneratedModule>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GeneratedModule {
    pub id: String,
    /// The cargo target holding it (a binary, or a test target for `test_harness`).
    pub target: String,
    /// The arguments that run this snippet's code in `target`.
    pub args: Vec<String>,
    /// The environment variables that run it (the merged binary's [`ENTRY_VARIABLE`]).
    pub env: Vec<(String, String)>,
}

/// The variable naming the snippet a merged binary runs. rustdoc's merged doctests pick theirs
/// the same way (`RUSTDOC_DOCTEST_RUN_NB_TEST`), so a snippet's `std::env::args()` holds only
/// the program, as under rustdoc, and a command-line parser (clap) sees no argument. It stays
/// in the snippet's environment, as rustdoc's does: a snippet that runs its own executable again
/// (`std::env::current_exe()`) runs itself.
pub(crate) const ENTRY_VARIABLE: &str = "MDBOOK_SNIPPETS_ENTRY";

/// The file of a snippet, relative to the generated workspace root, as rustc and panics name it.
pub(crate) fn module_file(snippet: &PlannedSnippet) -> PathBuf {
    let package = format!("e{}/src", snippet.edition);
    PathBuf::from(match snippet.placement {
        Placement::Merged => format!("{package}/{}.rs", snippet.id),
        Placement::OwnBinary => format!("{package}/own/{}.rs", snippet.id),
        Placement::CompileFail => format!("{package}/compile_fail/{}.rs", snippet.id),
        Placement::TestHarness => format!("{package}/test_harness/{}.rs", snippet.id),
    })
}

/// Generates the crate for `snippets`. `incremental` is the generated packages' own
/// `incremental` profile setting (see `strategy::build` for which one and why); the packages they
/// depend on keep the workspace's.
pub(crate) fn generate(
    snippets: &[PlannedSnippet],
    settings: &CrateSettings,
    incremental: bool,
) -> GeneratedCrate {
    let harness = settings.harness_parts();
    let mut files = Vec::new();
    let mut modules = Vec::new();
    // Per edition: the manifest's target tables, and the merged snippets' ids.
    let mut packages: BTreeMap<&str, (String, Vec<&str>)> = BTreeMap::new();
    let mut used_names = std::collections::HashSet::new();
    for snippet in snippets {
        let (targets, merged) = packages.entry(&snippet.edition).or_default();
        let file = module_file(snippet);
        let in_package = file
            .strip_prefix(format!("e{}", snippet.edition))
            .expect("module files live in their edition's package")
            .to_path_buf();
        let mut env = Vec::new();
        let (target, args) = match snippet.placement {
            Placement::Merged => {
                merged.push(&snippet.id);
                env.push((ENTRY_VARIABLE.to_owned(), snippet.id.clone()));
                (
                    package_name(&settings.package_name, &snippet.edition),
                    Vec::new(),
                )
            }
            Placement::OwnBinary | Placement::CompileFail => {
                // rustc insists that `#![crate_name = ".."]` match the crate's name, which
                // cargo takes from the target's: rustdoc's doctests honour the attribute.
                let target = crate_name_attribute(&snippet.code)
                    .filter(|name| used_names.insert(name.clone()))
                    .unwrap_or_else(|| format!("{}-{}", snippet.placement.prefix(), snippet.id));
                write_target(targets, "bin", &target, &in_package);
                (target, Vec::new())
            }
            Placement::TestHarness => {
                let target = format!("{}-{}", snippet.placement.prefix(), snippet.id);
                write_target(targets, "test", &target, &in_package);
                // One test at a time and uncaptured: a failing test's panic reaches stderr
                // under its own name (`thread 'tests::it_fails' panicked at ...`).
                (
                    target,
                    vec!["--test-threads=1".to_owned(), "--nocapture".to_owned()],
                )
            }
        };
        files.push((file, snippet_file(snippet, harness)));
        modules.push(GeneratedModule {
            id: snippet.id.clone(),
            target,
            args,
            env,
        });
    }
    let mut members = Vec::new();
    for (edition, (targets, merged)) in &packages {
        let package = format!("e{edition}");
        let name = package_name(&settings.package_name, edition);
        let mut targets = targets.clone();
        if !merged.is_empty() {
            write_target(
                &mut targets,
                "bin",
                &name,
                std::path::Path::new("src/main.rs"),
            );
            files.push((
                PathBuf::from(format!("{package}/src/main.rs")),
                dispatcher(merged),
            ));
        }
        files.push((
            PathBuf::from(format!("{package}/Cargo.toml")),
            package_manifest(settings, &name, edition, &targets),
        ));
        members.push((package, name));
    }
    files.insert(
        0,
        (
            PathBuf::from("Cargo.toml"),
            workspace_manifest(settings, &members, incremental),
        ),
    );
    GeneratedCrate { files, modules }
}

/// The generated names a running snippet can print, longest first: its module's path in its
/// binary (`module_path!()`, `std::any::type_name`, a `log` or `tracing` line's target), then
/// its crate's name and its binary's file name (`argv[0]`, a command-line parser's usage line).
/// Under rustdoc each of these is `rust_out`. `program` is the executable the snippet runs in.
pub(crate) fn generated_names(program: &std::path::Path, snippet: &PlannedSnippet) -> Vec<String> {
    let (crate_name, binary) = match snippet.placement {
        Placement::Merged => {
            let binary = program
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            (binary.replace('-', "_"), binary)
        }
        placement => {
            let binary = format!("{}-{}", placement.prefix(), snippet.id);
            (binary.replace('-', "_"), binary)
        }
    };
    let mut names = Vec::new();
    if snippet.placement == Placement::Merged {
        names.push(format!("{crate_name}::{}", snippet.id));
    }
    names.push(crate_name);
    names.push(binary);
    names
}

/// The name a `#![crate_name = "rary"]` line gives the crate, if it is a valid one.
fn crate_name_attribute(code: &str) -> Option<String> {
    code.lines().map(unhide).find_map(|line| {
        let rest = line.trim().strip_prefix("#![crate_name")?.trim_start();
        let rest = rest.strip_prefix('=')?.trim_start().strip_prefix('"')?;
        let (name, _) = rest.split_once('"')?;
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        valid.then(|| name.to_owned())
    })
}

/// An edition's package, and its dispatching binary: every merged snippet of the edition is a
/// module of this one binary, whatever the book's dependencies or the machine's load. Spread
/// over two binaries, a book of 60 tokio snippets took 6-16% more CPU time than in one (each
/// crate loads the dependencies' metadata and instantiates the shared generics again), more
/// than merged doctests take, and won wall time only while a core was idle
/// (guide/src/measurements.md); rustc already runs one crate's codegen units on every core.
fn package_name(package_name: &str, edition: &str) -> String {
    format!("{package_name}-e{edition}")
}

fn write_target(targets: &mut String, kind: &str, name: &str, path: &std::path::Path) {
    let path = path.display();
    writeln!(targets, "[[{kind}]]\nname = \"{name}\"\npath = \"{path}\"").unwrap();
    match kind {
        "bin" => writeln!(targets, "test = false\nbench = false\ndoc = false\n").unwrap(),
        _ => writeln!(targets, "harness = true\nbench = false\n").unwrap(),
    }
}

fn package_manifest(settings: &CrateSettings, name: &str, edition: &str, targets: &str) -> String {
    let mut manifest = format!(
        "# Generated by mdbook-snippets; rewritten on every run.\n[package]\nname = \"{name}\"\n\
         version = \"0.0.0\"\nedition = \"{edition}\"\npublish = false\nautobins = false\n\
         autotests = false\nautoexamples = false\nautobenches = false\n\n{targets}"
    );
    manifest.push_str("[dependencies]\n");
    if let Some(harness) = &settings.harness {
        let path = harness.path.display().to_string();
        writeln!(manifest, "{} = {{ path = {path:?} }}", harness.package_name).unwrap();
    }
    for (dependency, spec) in &settings.dependencies {
        let is_harness = settings
            .harness
            .as_ref()
            .is_some_and(|harness| harness.package_name == *dependency);
        if !is_harness {
            writeln!(manifest, "{} = {spec}", toml_key(dependency)).unwrap();
        }
    }
    manifest
}

fn toml_key(key: &str) -> String {
    if key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        key.to_owned()
    } else {
        format!("{key:?}")
    }
}

fn workspace_manifest(
    settings: &CrateSettings,
    members: &[(String, String)],
    incremental: bool,
) -> String {
    // Its own workspace: the crate sits inside the book's workspace directory but is not one of
    // its members.
    let mut manifest = String::from(
        "# Generated by mdbook-snippets; rewritten on every run.\n[workspace]\nresolver = \"2\"\nmembers = [",
    );
    let list: Vec<String> = members.iter().map(|(dir, _)| format!("{dir:?}")).collect();
    manifest.push_str(&list.join(", "));
    manifest.push_str("]\n\n");
    manifest.push_str(&settings.profiles);
    // The snippets' own code needs no debug info (a panic names its file and line without
    // it), and leaving it out makes the crate build about a third faster. Only these packages
    // are affected: dependencies keep the workspace's settings, so their artifacts stay shared,
    // and a path dependency (a harness) is never rebuilt because the snippets' `incremental`
    // changed (as it was when that was the `CARGO_INCREMENTAL` of the whole build).
    for (_, name) in members {
        write!(
            manifest,
            "\n[profile.dev.package.{name:?}]\ndebug = 0\nincremental = {incremental}\n"
        )
        .unwrap();
    }
    manifest
}

fn dispatcher(ids: &[&str]) -> String {
    let mut out =
        format!("// Generated by mdbook-snippets: runs the snippet named by ${ENTRY_VARIABLE}.\n");
    for id in ids {
        writeln!(out, "mod {id};").unwrap();
    }
    write!(
        out,
        "\nfn main() -> ::std::process::ExitCode {{\n    \
         let id = ::std::env::var({ENTRY_VARIABLE:?}).unwrap_or_default();\n    \
         match id.as_str() {{\n",
    )
    .unwrap();
    for id in ids {
        writeln!(
            out,
            "        {id:?} => ::std::process::Termination::report({id}::{ENTRY_FUNCTION}()),"
        )
        .unwrap();
    }
    out.push_str(
        "        _ => {\n            eprintln!(\"no snippet named {id:?}\");\n            \
         ::std::process::ExitCode::from(2)\n        }\n    }\n}\n",
    );
    out
}

/// The file of one snippet, as its placement needs it: a module of the dispatching binary, or
/// the root of a crate of its own.
pub(crate) fn snippet_file(snippet: &PlannedSnippet, harness: Option<HarnessParts<'_>>) -> String {
    match snippet.placement {
        Placement::Merged => snippet_module(&snippet.code, harness, Root::Module),
        Placement::OwnBinary | Placement::CompileFail => {
            snippet_module(&snippet.code, harness, Root::Binary)
        }
        Placement::TestHarness => snippet_module(&snippet.code, harness, Root::Test),
    }
}

#[cfg(test)]
#[path = "generate_tests.rs"]
mod tests;
