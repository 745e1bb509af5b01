//! Building: the generated crate (sans-IO), cargo and its messages (broken snippets dropped and
//! the rest built again), the files of the snippets of declared languages, and their `setup`.

pub(crate) mod cargo;
pub(crate) mod generate;
pub(crate) mod other_languages;
pub(crate) mod setup;
pub(crate) mod wrap;

// What the other stages use; inside the stage, files name each other directly.
pub(crate) use generate::{
    CrateSettings, HarnessDependency, PlannedSnippet, module_file, snippet_file,
};
pub(crate) use wrap::{FIRST_CODE_LINE, HarnessParts, lifted_lines};
