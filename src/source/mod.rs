//! The source side, sans-IO: a chapter's Markdown -> snippets (every block rustdoc would test,
//! every fence of a declared language), their info strings, and their positions in the book
//! (`SourceSpan`, through an include's source map).

pub(crate) mod chapters;
pub(crate) mod extract;
pub(crate) mod hidden_lines;
pub(crate) mod info_string;
pub(crate) mod located;

// What the other stages use; inside the stage, files name each other directly.
pub(crate) use chapters::{extract_book, note_default_edition, note_unmarked, unknown_words};
pub(crate) use hidden_lines::unhide;
pub(crate) use info_string::{edit_distance, merge_harness_attributes};
pub(crate) use located::Located;
