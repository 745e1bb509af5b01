//! The source side, sans-IO: a chapter's Markdown -> snippets (every block rustdoc would test,
//! every fence of a declared language), their info strings, and their positions in the book
//! (`SourceSpan`, through an include's source map).

pub(crate) mod chapters;
pub(crate) mod extract;
pub(crate) mod hidden_lines;
pub(crate) mod info_string;
pub(crate) mod located;
