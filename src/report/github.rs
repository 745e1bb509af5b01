//! A [`Report`] as GitHub workflow annotations (`--format github`): one `::error` line per
//! failed snippet, chapter not verified and survived mutant, at its Markdown position, control
//! characters escaped as in the terminal report (the workflow log renders escape sequences).

use std::fmt::Write;

use crate::report::terminal::{escape_controls, kind_name, survived, survivors};
use crate::snippet::{Outcome, SourceSpan};
use crate::verify::Report;

/// `::error file=...,line=...::message` lines for GitHub Actions.
pub(crate) fn github_annotations(report: &Report) -> String {
    let mut out = String::new();
    for failure in &report.chapter_failures {
        let title = "chapter not verified";
        annotation(&mut out, &failure.span, title, &failure.message);
    }
    for result in &report.results {
        if let Outcome::Failed(failure) = &result.outcome {
            let title = format!("snippet {}", kind_name(failure.kind));
            annotation(&mut out, &failure.span, &title, &failure.message);
        }
    }
    for (mutant, why) in survivors(report) {
        annotation(&mut out, &mutant.span, &survived(mutant), why);
    }
    out
}

/// Appends one `::error` line pointing at `span`.
fn annotation(out: &mut String, span: &SourceSpan, title: &str, message: &str) {
    writeln!(
        out,
        "::error file={},line={},col={},title={}::{}",
        escape_property(&span.path.display().to_string()),
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
