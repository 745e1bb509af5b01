//! The mdBook side, input half: loading a book as mdBook does (its chapters, its `{{#include}}`
//! directives) into chapters as text with a source map. The stages after it see nothing of
//! mdBook's formats; the preprocessor protocol (`preprocessor.rs`) and the pages it writes
//! (`report/render.rs`) sit above the pipeline.

pub(crate) mod book;
pub(crate) mod include;
pub(crate) mod include_directive;
pub(crate) mod source_map;

// What the other stages use; inside the stage, files name each other directly.
pub(crate) use book::BookSource;
pub(crate) use source_map::SourceMap;
