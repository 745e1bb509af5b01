//! Books written for rustdoc, verified as `mdbook test` would judge them: info-string words of
//! other tools, `test_harness`, snippets that only work at a crate's root, paths in `book.toml`
//! given every way (`..`, absolute, through a symlink), and crates from
//! `[preprocessor.snippets.dependencies]` or a harness that is just a crate (`crates`); what
//! is read from Markdown (`markdown`); and every block's verdict against `rustdoc --test`'s own
//! (`rustdoc`).

use crate::support::Output;

mod broken;
mod cargo_env;
mod crates;
mod markdown;
mod messages;
mod package;
mod programs;
mod rustdoc;

/// The warnings and errors on stderr (nothing else: no progress line, and no warning of
/// cargo's about the generated crate, which the author cannot act on).
fn warnings(output: &Output) -> String {
    output
        .stderr()
        .lines()
        .filter(|line| line.contains("warning") || line.contains("error"))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// `text` from the first `start` on (all of it when there is none).
fn tail_from(text: &str, start: &str) -> String {
    text[text.find(start).unwrap_or(0)..].to_owned()
}
