//! Building: each snippet's plan and cache key (which hashes the file generated for it), the
//! generated crate (sans-IO), cargo and its messages (broken snippets dropped and the rest built
//! again), and the `setup` of declared languages.

pub(crate) mod cargo;
pub(crate) mod crate_files;
pub(crate) mod deadline;
pub(crate) mod disk;
pub(crate) mod generate;
pub(crate) mod messages;
pub(crate) mod rustc_wrapper;
pub(crate) mod setup;
pub(crate) mod snippet_plan;
pub(crate) mod strategy;
pub(crate) mod wrap;

// What the other stages use; inside the stage, files name each other directly.
pub(crate) use generate::{generated_names, module_file};
pub(crate) use snippet_plan::{Plan, named_edition, plan};
pub(crate) use wrap::{FIRST_CODE_LINE, lifted_lines};
