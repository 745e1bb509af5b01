//! A [`Report`] as GitHub workflow annotations (`--format github`): one `::error` line per
//! failed snippet, chapter not verified and survived mutant, at its Markdown position, control
//! characters escaped as in the terminal report (the workflow log renders escape sequences).
//!
//! GitHub resolves an annotation's `file=` from the repository's root, so the paths are the
//! book's (`src/ch1.md`) with the book's directory in front: relative to `GITHUB_WORKSPACE` (the
//! checkout) when it is set and holds the book, else to the current directory (where a local
//! run is started), else the book's absolute path ([`book_prefix`]; `test_command.rs` reads the
//! environment).

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::report::terminal::{escape_controls, kind_name, survived, survivors};
use crate::snippet::{Outcome, SourceSpan};
use crate::verify::Report;

/// `::error file=...,line=...::message` lines for GitHub Actions, each path (relative to the
/// book root) with `prefix` in front: the book's directory as the workflow names it.
pub(crate) fn github_annotations(report: &Report, prefix: &Path) -> String {
    let mut out = String::new();
    for failure in &report.chapter_failures {
        let title = "chapter not verified";
        annotation(&mut out, prefix, &failure.span, title, &failure.message);
    }
    for result in &report.results {
        if let Outcome::Failed(failure) = &result.outcome {
            let title = format!("snippet {}", kind_name(failure.kind));
            annotation(&mut out, prefix, &failure.span, &title, &failure.message);
        }
    }
    for (mutant, why) in survivors(report) {
        annotation(&mut out, prefix, &mutant.span, &survived(mutant), why);
    }
    out
}

/// The book's directory (`book_root`) as annotations name it, given the canonical
/// `GITHUB_WORKSPACE` and current directory: relative to the first of them that holds it (`""`
/// for that directory itself), else the book root as it is.
pub(crate) fn book_prefix(
    book_root: &Path,
    workspace: Option<&Path>,
    current: Option<&Path>,
) -> PathBuf {
    [workspace, current]
        .into_iter()
        .flatten()
        .find_map(|base| book_root.strip_prefix(base).ok())
        .unwrap_or(book_root)
        .to_path_buf()
}

/// Appends one `::error` line pointing at `span`.
fn annotation(out: &mut String, prefix: &Path, span: &SourceSpan, title: &str, message: &str) {
    writeln!(
        out,
        "::error file={},line={},col={},title={}::{}",
        escape_property(&prefix.join(&span.path).display().to_string()),
        span.line,
        span.column,
        escape_property(title),
        escape_data(message)
    )
    .unwrap();
}

fn escape_data(text: &str) -> String {
    escape_controls(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
#[path = "github_tests.rs"]
mod tests;
