//! The build's strategy: generates the crate for the snippets, builds it with cargo
//! (`cargo.rs`), and while merged snippets are broken, builds the others again without them,
//! so that a broken snippet fails alone; turns what cargo built into one [`Built`] per snippet.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use anyhow::bail;

use crate::build::cargo::{BuildOutput, cargo_build};
use crate::build::crate_files::{already_written, write_crate};
use crate::build::disk::out_of_disk_space;
use crate::build::generate::{Placement, PlannedSnippet, generate, module_file};
use crate::build::messages;
use crate::build::messages::CompileError;
use crate::plan::Record;
use crate::plan::Workspace;

/// What building did for one snippet.
#[derive(Debug)]
pub(crate) enum Built {
    /// Built; run it as `PROGRAM ARGS` with `env` set.
    Executable {
        program: PathBuf,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    /// Nothing to run: a `no_run` snippet that compiled, a `compile_fail` snippet either way,
    /// or a snippet that did not compile.
    Record(Record),
}

/// How many times one verification builds at most: the first build, one per compiler phase
/// whose errors can hide those of a later one, and the last, where every merged snippet still
/// in a binary that did not build is a binary of its own. The verdicts do not depend on how
/// many snippets are broken: whatever the last merged build did not explain, the snippets'
/// own binaries do, as rustdoc builds them.
const MAX_BUILDS: usize = 5;

/// Generates the crate for `snippets`, builds it, and while some merged snippets are broken,
/// builds the others again without them (one broken module would otherwise keep its whole
/// binary from linking). A merged snippet that defines a symbol another one defines too
/// (rustc: "symbol `NAME` is already defined", whatever wrote it: `no_mangle` by hand or a
/// crate's macro), and every merged snippet of a binary that failed with errors no snippet's
/// file explains (a linker's), is moved to a binary of its own and built again; so is every
/// merged snippet of a binary still failing at the last build but one. Returns one [`Built`]
/// per snippet, in order, and leaves in `snippets` where each one was built
/// (`PlannedSnippet::placement`), which names the files its errors are in.
///
/// `incremental: false` builds a crate that does not exist yet without rustc's incremental
/// state: writing it costs a third of a cold build, and it only pays off when the crate is
/// built again with a small change (one snippet edited under `mdbook serve`, or by the next
/// `test`, both of which build incrementally). It is the generated packages' own profile
/// setting (`generate`), so a harness and every other dependency keep theirs. Cargo rebuilds a
/// package whose `incremental` changed even when nothing else did (cargo 1.95 rebuilt all of
/// the bench's `dependencies` book: a `--no-cache` run after a cold one took longer than the
/// cold one), so a crate already on disk exactly as the other setting writes it keeps that
/// setting. Any change to the crate switches it to incremental (one rebuild of the generated
/// packages), a broken merged snippet too, since the last build of a run left it out. A
/// `CARGO_INCREMENTAL` the user set wins, as cargo lets it.
pub(crate) fn build(
    snippets: &mut [PlannedSnippet],
    workspace: &Workspace,
    incremental: bool,
) -> anyhow::Result<Vec<Built>> {
    let planned_files: Vec<PathBuf> = snippets.iter().map(module_file).collect();
    let snippets_placed = snippets;
    let mut broken: HashMap<usize, Vec<CompileError>> = HashMap::new();
    let incremental = incremental || workspace.crate_dir.join("Cargo.toml").is_file();
    let mut attempt = 0;
    let output = loop {
        attempt += 1;
        let snippets: &[PlannedSnippet] = snippets_placed;
        let active: Vec<usize> = (0..snippets.len())
            .filter(|index| !broken.contains_key(index))
            .collect();
        let planned: Vec<PlannedSnippet> = active
            .iter()
            .map(|&index| snippets[index].clone())
            .collect();
        let mut generated = generate(&planned, &workspace.settings, incremental);
        let as_it_is = generate(&planned, &workspace.settings, !incremental);
        if already_written(&workspace.crate_dir, &as_it_is) {
            generated = as_it_is;
        }
        write_crate(
            &workspace.crate_dir,
            &generated,
            workspace.lock_file.as_deref(),
        )?;
        let mut output = cargo_build(
            &workspace.crate_dir,
            &workspace.target_dir,
            &workspace.toolchain,
            &workspace.settings.package_env,
        )?;
        // A full disk fails every snippet's build the same way: the tool's error, not theirs.
        if let Some(line) = out_of_disk_space(&output, &workspace.target_dir) {
            bail!(
                "out of disk space while building the snippets in {}: {line}",
                workspace.target_dir.display()
            );
        }
        if let Some(error) = output.dependency_errors.first() {
            bail!(
                "the dependency `{}` of the snippets does not build (from `harness` or \
                 [preprocessor.snippets.dependencies] in book.toml):\n{}",
                error.crate_name,
                error.rendered
            );
        }
        let files: HashMap<PathBuf, usize> = active
            .iter()
            .map(|&index| (module_file(&snippets[index]), index))
            .collect();
        for error in &mut output.errors {
            let snippet = error.file.as_ref().and_then(|file| files.get(file));
            messages::for_the_book(error, snippet.map(|&index| snippets[index].code.as_str()));
        }
        let mut newly_broken = HashSet::new();
        let mut to_own_binary = HashSet::new();
        for error in &output.errors {
            let Some(&index) = error.file.as_ref().and_then(|file| files.get(file)) else {
                continue;
            };
            let merged = snippets[index].placement == Placement::Merged;
            // Alone in a binary, the snippet defines the symbol once: its own code compiles.
            if merged && is_duplicate_symbol(error) {
                to_own_binary.insert(index);
                continue;
            }
            // A snippet alone in its target breaks nothing else: no need to build again.
            if merged {
                newly_broken.insert(index);
            }
            if snippets[index].placement != Placement::CompileFail {
                broken.entry(index).or_default().push(error.clone());
            }
        }
        for index in &to_own_binary {
            newly_broken.remove(index);
            broken.remove(index);
        }
        let merged_ids: HashSet<&str> = planned
            .iter()
            .filter(|snippet| snippet.placement == Placement::Merged)
            .map(|snippet| snippet.id.as_str())
            .collect();
        let failed = failed_merged_targets(&generated, &merged_ids, &output);
        let by_target = |target: &str| -> Vec<usize> {
            generated
                .modules
                .iter()
                .filter(|module| module.target == target)
                .filter_map(|module| {
                    active
                        .iter()
                        .copied()
                        .find(|&index| snippets[index].id == module.id)
                })
                .filter(|index| !newly_broken.contains(index))
                .collect()
        };
        let mut whole_binaries = Vec::new();
        for target in &failed {
            // A failure no snippet's file explains (a linker's "multiple definition", rustc
            // crashing on one snippet's code): which snippet is to blame is known only by
            // building each alone.
            let explained = output.errors.iter().any(|error| {
                &error.target == target
                    && error
                        .file
                        .as_ref()
                        .and_then(|file| files.get(file))
                        .is_some()
            });
            let last_merged_build = attempt + 1 >= MAX_BUILDS && !newly_broken.is_empty();
            if !explained || last_merged_build {
                whole_binaries.extend(by_target(target));
            }
        }
        to_own_binary.extend(whole_binaries);
        let snippets_mut: &mut [PlannedSnippet] = snippets_placed;
        for &index in &to_own_binary {
            snippets_mut[index].placement = Placement::OwnBinary;
        }
        // rustc reports errors phase by phase (resolution, then types, then borrows, then
        // what only monomorphization finds), so dropping the broken snippets can reveal others.
        if (newly_broken.is_empty() && to_own_binary.is_empty()) || attempt == MAX_BUILDS {
            break (output, generated, files);
        }
    };
    let snippets: &[PlannedSnippet] = snippets_placed;
    let (output, generated, files) = output;
    let module_of: HashMap<&str, _> = generated
        .modules
        .iter()
        .map(|module| (module.id.as_str(), module))
        .collect();

    // A failed build that no snippet explains is the tool's problem (a harness that does not
    // build, a dependency that cannot be resolved), not the book's.
    let runnable_built = generated.modules.iter().any(|module| {
        !module.target.starts_with("cf-") && output.executables.contains_key(&module.target)
    });
    let has_runnable = snippets
        .iter()
        .any(|snippet| snippet.placement != Placement::CompileFail);
    // A build the deadline stopped fails its snippets, as a binary that did not build.
    let stopped = output
        .cargo_stderr
        .contains(crate::build::deadline::STOPPED);
    if has_runnable && !runnable_built && broken.is_empty() && output.errors.is_empty() && !stopped
    {
        bail!(
            "the generated crate at {} did not build, and no snippet is to blame:\n{}",
            workspace.crate_dir.display(),
            tail(&output.cargo_stderr, 40)
        );
    }

    let mut built = Vec::new();
    for (index, snippet) in snippets.iter().enumerate() {
        let own_errors: Vec<CompileError> = output
            .errors
            .iter()
            .filter(|error| error.file.as_ref().and_then(|file| files.get(file)) == Some(&index))
            .cloned()
            .collect();
        if let Some(errors) = broken.get(&index) {
            // Errors of the last build, when it saw the snippet again (a target of its own).
            let errors = if own_errors.is_empty() {
                errors
            } else {
                &own_errors
            };
            built.push(Built::Record(did_not_compile(errors)));
            continue;
        }
        let module = module_of.get(snippet.id.as_str());
        let target = module.map_or("", |module| module.target.as_str());
        let executable = output.executables.get(target);
        let compile_fail = snippet.placement == Placement::CompileFail;
        // A `compile_fail` snippet is alone in its binary, so every error of that binary is
        // its own, those with no place in the code too (`#![no_std]` and `#![no_main]` with a
        // `#[panic_handler]`: "unwinding panics are not supported without std"), as rustdoc
        // counts any error of the doctest's crate.
        let target_errors: Vec<CompileError> = output
            .errors
            .iter()
            .filter(|error| compile_fail && error.target == target)
            .cloned()
            .collect();
        built.push(match (compile_fail, executable) {
            (true, Some(_)) => Built::Record(Record::Compiled),
            (true, None) if !own_errors.is_empty() => Built::Record(did_not_compile(&own_errors)),
            (true, None) if !target_errors.is_empty() => {
                Built::Record(did_not_compile(&target_errors))
            }
            // rustdoc does not link a `no_run` snippet (it stops at metadata), so a library
            // only the reader's machine has (`#[link(name = "extlib")]`) does not fail it; a
            // snippet alone in its binary is judged the same way.
            (false, None)
                if snippet.no_run
                    && snippet.placement == Placement::OwnBinary
                    && only_link_errors(&output.errors, target) =>
            {
                Built::Record(Record::Compiled)
            }
            (_, None) => {
                // Its binary failed for a reason outside any snippet (a linker error, say).
                let others: Vec<&CompileError> = output
                    .errors
                    .iter()
                    .filter(|error| error.target == target)
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
            (false, Some(_)) if snippet.no_run => Built::Record(Record::Compiled),
            (false, Some(executable)) => Built::Executable {
                program: executable.clone(),
                args: module.map(|module| module.args.clone()).unwrap_or_default(),
                env: module.map(|module| module.env.clone()).unwrap_or_default(),
            },
        });
    }
    // A record names the file the snippet was planned in, whatever file it was built in, so
    // that it reads the same from the cache (judged with the plan) as it does now.
    for ((record, snippet), planned_file) in built.iter_mut().zip(snippets).zip(&planned_files) {
        let built_file = module_file(snippet);
        if &built_file != planned_file
            && let Built::Record(
                Record::DidNotCompile { message, .. } | Record::BinaryFailed { message },
            ) = record
        {
            let built_file = built_file.display().to_string();
            *message = message.replace(&built_file, &planned_file.display().to_string());
        }
    }
    Ok(built)
}

/// rustc's error for a symbol two items of one binary define: `symbol `NAME` is already
/// defined` (a `no_mangle` or `export_name` item, written out or expanded from a macro).
fn is_duplicate_symbol(error: &CompileError) -> bool {
    error.message.starts_with("symbol `") && error.message.ends_with("` is already defined")
}

/// The binaries holding merged snippets that cargo did not build.
fn failed_merged_targets(
    generated: &crate::build::generate::GeneratedCrate,
    merged: &HashSet<&str>,
    output: &BuildOutput,
) -> Vec<String> {
    let mut targets: Vec<String> = generated
        .modules
        .iter()
        .filter(|module| merged.contains(module.id.as_str()))
        .filter(|module| !output.executables.contains_key(&module.target))
        .map(|module| module.target.clone())
        .collect();
    targets.sort();
    targets.dedup();
    targets
}

/// Whether every error of `target` is the linker's (and there is one).
fn only_link_errors(errors: &[CompileError], target: &str) -> bool {
    let mut of_target = errors
        .iter()
        .filter(|error| error.target == target)
        .peekable();
    of_target.peek().is_some()
        && of_target.all(|error| error.file.is_none() && error.message.starts_with("linking with"))
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
