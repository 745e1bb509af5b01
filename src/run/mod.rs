//! Running and judging: a process per snippet (deadline, output cap, clean environment),
//! nothing it starts outliving its verdict, expected output against actual, the verdict, the
//! mutant runs of `test --mutants`, and snippets of declared languages (no build: a file each,
//! run and judged here).

pub(crate) mod artifacts;
pub(crate) mod compare;
pub(crate) mod containment;
pub(crate) mod judge;
pub(crate) mod mutant_list;
pub(crate) mod mutants;
pub(crate) mod other_languages;
pub(crate) mod process;

// What the other stages use; inside the stage, files name each other directly.
pub(crate) use containment::stop_on_signals;
pub(crate) use process::{JobSlots, RunRequest, SnippetFile, run_all};
