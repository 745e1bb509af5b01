//! Planning: what a run will do, before anything is built. The configuration (`book.toml`),
//! which snippets a run verifies, where each snippet goes (a merged module or a crate of its
//! own), each snippet's plan (edition, timeout, cache key), and the generated workspace's place.

pub(crate) mod book_toml;
pub(crate) mod config;
pub(crate) mod dependency_table;
pub(crate) mod language_table;
pub(crate) mod path_packages;
pub(crate) mod placement;
pub(crate) mod select;
pub(crate) mod snippet_plan;
pub(crate) mod workspace;

// What the other stages use; inside the stage, files name each other directly.
pub(crate) use book_toml::normalize;
pub(crate) use config::Config;
pub(crate) use language_table::{ErrorPosition, FILE_PLACEHOLDER, Language, Setup};
pub(crate) use placement::Placement;
pub(crate) use select::{Partition, Selection, check_selection, select, selection_reports};
pub(crate) use snippet_plan::{Plan, named_edition, plan};
pub(crate) use workspace::Workspace;
