//! Snippets in languages a book declares (`[preprocessor.snippets.languages.NAME]`): Python
//! and JavaScript run beside Rust, fail at their Markdown lines (wrong output, an exception, a
//! timeout, a failed check), are selected, cached and blessed like Rust snippets; a bad
//! language table is one error, exit 2, before anything runs.
//!
//! `run`: the verdicts, selection, includes and the rendered page; `rerun`: what makes a
//! snippet run again (cache keys) and bless; `config`: bad language tables; `setup`: a
//! language's `setup` command.

mod config;
mod rerun;
mod run;
mod setup;
