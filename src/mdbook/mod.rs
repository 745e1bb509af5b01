//! The mdBook side: the preprocessor protocol, loading a book as mdBook does (its chapters,
//! its `{{#include}}` directives), and writing what happened into the pages mdBook renders.
//! The only stage that knows mdBook's formats; everything after it sees chapters as text with
//! a source map.

pub(crate) mod book;
pub(crate) mod include;
pub(crate) mod include_directive;
pub(crate) mod preprocessor;
pub(crate) mod render;
pub(crate) mod source_map;

// What the other stages use; inside the stage, files name each other directly.
pub(crate) use book::BookSource;
pub(crate) use render::{OpeningFence, line_start};
pub(crate) use source_map::SourceMap;
