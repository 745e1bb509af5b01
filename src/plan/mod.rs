//! Planning: what a run will do, before anything is built, from the configuration (`config/`):
//! which snippets a run verifies, where each snippet goes (a merged module or a crate of its
//! own), the generated workspace's place and settings, and the result cache (what is known,
//! keyed from the workspace's fingerprint).

pub(crate) mod cache;
pub(crate) mod content_hash;
pub(crate) mod crate_lock;
pub(crate) mod package_book;
pub(crate) mod package_env;
pub(crate) mod path_packages;
pub(crate) mod placement;
pub(crate) mod select;
pub(crate) mod toolchain;
pub(crate) mod workspace;

// What the other stages use; inside the stage, files name each other directly.
pub(crate) use cache::{Cache, Record};
pub(crate) use content_hash::{hash_path, hash_str};
pub(crate) use crate_lock::CrateLock;
pub(crate) use placement::Placement;
pub(crate) use select::{Partition, Selection, check_selection, select, selection_reports};
pub(crate) use toolchain::Toolchain;
pub(crate) use workspace::{CrateSettings, HarnessParts, Workspace};
