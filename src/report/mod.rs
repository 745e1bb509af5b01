//! Reporting, from a finished `verify::Report`: the terminal report, GitHub annotations and
//! JUnit XML, what the rendered page shows under each snippet (`render`), and the overwrite mode
//! (`--bless`) that rewrites expected outputs.

pub(crate) mod bless;
pub(crate) mod fence;
pub(crate) mod github;
pub(crate) mod junit;
pub(crate) mod markdown_output;
pub(crate) mod page_html;
pub(crate) mod render;
pub(crate) mod terminal;

// What the other stages use; inside the stage, files name each other directly.
pub(crate) use bless::{bless_book, overwrite_requested};
pub(crate) use terminal::{chapter_failure_text, failure_text, human, summary};
