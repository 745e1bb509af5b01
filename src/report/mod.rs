//! Reporting: the terminal report, GitHub annotations and JUnit XML, progress on stderr while
//! snippets run, and the overwrite mode (`--bless`) that rewrites expected outputs.

pub(crate) mod bless;
pub(crate) mod progress;
pub(crate) mod terminal;
