//! How to verify a book: what the entry points choose.

use crate::plan::Selection;

#[derive(Debug, Clone, Default)]
pub(crate) struct VerifyOptions {
    /// Which snippets to verify (chapter, name, partition); the others are skipped.
    pub selection: Selection,
    /// Show progress on stderr as results come in (a bar on a terminal, else a line each).
    pub progress: bool,
    /// Build a generated crate that does not exist yet without rustc's incremental state: right
    /// for `mdbook-snippets test` (what CI runs, where nothing is built twice), wrong for the
    /// preprocessor, whose first build under `mdbook serve` is followed by edits.
    pub cold_build_without_incremental: bool,
    /// Then run every passing snippet that carries `kills=` once more per mutant it names
    /// (`mdbook-snippets test --mutants`; see `mutants`).
    pub mutants: bool,
}
