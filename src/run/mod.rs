//! Running and judging: a process per snippet (deadline, output cap, clean environment) in a
//! sandbox (namespaces and Landlock where the kernel allows them), nothing it starts outliving
//! its verdict, expected output against actual, the verdict, the mutant runs of `test
//! --mutants`, snippets of declared languages (no build: a file each, run and judged here), and
//! the process of a language's setup.

pub(crate) mod artifacts;
pub(crate) mod compare;
#[cfg(target_os = "linux")]
pub(crate) mod confine;
pub(crate) mod containment;
pub(crate) mod judge;
pub(crate) mod launcher;
pub(crate) mod launcher_args;
pub(crate) mod marker_scan;
pub(crate) mod mutant_list;
pub(crate) mod mutants;
#[cfg(target_os = "linux")]
pub(crate) mod namespace_init;
pub(crate) mod other_languages;
pub(crate) mod positions;
pub(crate) mod process;
pub(crate) mod sandbox;
pub(crate) mod scratch;
pub(crate) mod setup_process;
#[cfg(target_os = "linux")]
pub(crate) mod side_doors;
#[cfg(target_os = "linux")]
pub(crate) mod subreaper;

// What the other stages use; inside the stage, files name each other directly.
pub(crate) use containment::stop_on_signals;
pub(crate) use process::{JobSlots, RunRequest, SnippetFile, run_all};
pub(crate) use sandbox::summary_if_used as containment_summary;
pub(crate) use setup_process::run_setup;
