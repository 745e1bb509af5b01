//! Presenting a [`Report`]: the terminal report (each failure as a rustc-style excerpt of the
//! Markdown source, then `N passed, M failed[, K skipped]`), GitHub workflow annotations, and
//! JUnit XML.

use std::fmt::Write;
use std::path::Path;

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};

use crate::snippet::{Failure, FailureKind, Outcome, SnippetResult, SourceSpan};
use crate::verify::Report;

/// The terminal report. Source excerpts are read from the files under `book_root`; a file that
/// cannot be read just goes without an excerpt.
pub fn human(report: &Report, book_root: &Path) -> String {
    let mut out = String::new();
    for failure in &report.chapter_failures {
        let title = format!("chapter {} not verified", failure.chapter_path.display());
        let label = failure.message.lines().next().unwrap_or_default();
        out.push_str(&excerpt_at(&failure.span, &title, label, book_root));
        out.push_str("\n  none of this chapter's snippets ran\n\n");
    }
    let failures: Vec<(&SnippetResult, &Failure)> = report
        .results
        .iter()
        .filter_map(|result| match &result.outcome {
            Outcome::Failed(failure) => Some((result, failure)),
            _ => None,
        })
        .collect();
    for (result, failure) in &failures {
        out.push_str(&excerpt(result, failure, book_root));
        out.push('\n');
        for line in failure.message.trim_end().lines() {
            if line.is_empty() {
                out.push('\n');
            } else {
                writeln!(out, "  {line}").unwrap();
            }
        }
        out.push('\n');
    }
    if !failures.is_empty() || !report.chapter_failures.is_empty() {
        out.push_str("failures:\n");
        for failure in &report.chapter_failures {
            failure_line(&mut out, &failure.span, "chapter not verified");
        }
        for (result, failure) in &failures {
            let note = format!("{}, {}", kind_name(failure.kind), result.id);
            failure_line(&mut out, &failure.span, &note);
        }
        out.push('\n');
    }
    writeln!(out, "finished in {:.2}s", report.duration.as_secs_f64()).unwrap();
    writeln!(out, "{}", summary(report)).unwrap();
    out
}

/// `3 passed, 1 failed`, followed by `, 2 skipped` only when some were skipped. Outside checks
/// parse this line: its shape is a fixed interface.
pub fn summary(report: &Report) -> String {
    let mut line = format!(
        "{} passed, {} failed",
        report.count(|outcome| matches!(outcome, Outcome::Passed)),
        report.failed(),
    );
    let skipped = report.count(|outcome| matches!(outcome, Outcome::Skipped));
    if skipped > 0 {
        write!(line, ", {skipped} skipped").unwrap();
    }
    line
}

/// Appends one `    path:line (note)` line of the closing `failures:` list.
fn failure_line(out: &mut String, span: &SourceSpan, note: &str) {
    writeln!(out, "    {}:{} ({note})", span.path.display(), span.line).unwrap();
}

fn kind_name(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Compile => "does not compile",
        FailureKind::CompileFailMismatch => "compile_fail mismatch",
        FailureKind::Run => "failed at run time",
        FailureKind::Timeout => "timed out",
        FailureKind::OutputMismatch => "output differs",
        FailureKind::Attribute => "unknown attribute",
    }
}

fn excerpt(result: &SnippetResult, failure: &Failure, book_root: &Path) -> String {
    let title = format!("snippet {} {}", result.id, kind_name(failure.kind));
    let label = failure.message.lines().next().unwrap_or_default();
    excerpt_at(&failure.span, &title, label, book_root)
}

/// A rustc-style excerpt of the file around `span` (invalid UTF-8 shown as U+FFFD).
fn excerpt_at(span: &SourceSpan, title: &str, label: &str, book_root: &Path) -> String {
    let Ok(bytes) = std::fs::read(book_root.join(&span.path)) else {
        return format!(
            "error: {title}\n --> {}:{}:{}\n",
            span.path.display(),
            span.line,
            span.column
        );
    };
    let source = String::from_utf8_lossy(&bytes);
    // A few lines of context on each side of the failing line.
    let lines: Vec<&str> = source.split_inclusive('\n').collect();
    let failing = span.line.clamp(1, lines.len().max(1)) - 1;
    let first = failing.saturating_sub(2);
    let last = (failing + 3).min(lines.len());
    let window: String = lines.get(first..last).unwrap_or_default().concat();
    let offset: usize = lines[first..failing].iter().map(|line| line.len()).sum();
    let line_text = lines
        .get(failing)
        .copied()
        .unwrap_or_default()
        .trim_end_matches('\n');
    let column = (span.column.max(1) - 1).min(line_text.len());
    let column = (0..=column)
        .rev()
        .find(|&index| line_text.is_char_boundary(index))
        .unwrap_or(0);
    let start = offset + column;
    let end = (offset + line_text.len()).max(start);
    let path = span.path.display().to_string();
    let group = Level::ERROR.primary_title(title).element(
        Snippet::source(window.as_str())
            .line_start(first + 1)
            .fold(false)
            .path(path.as_str())
            .annotation(AnnotationKind::Primary.span(start..end).label(label)),
    );
    Renderer::plain().render(&[group])
}

/// `::error file=...,line=...::message` lines for GitHub Actions.
pub fn github_annotations(report: &Report) -> String {
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
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// A JUnit XML document with one test case per snippet.
pub fn junit(report: &Report) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    writeln!(
        out,
        "<testsuites><testsuite name=\"mdbook-snippets\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
        report.results.len() + report.chapter_failures.len(),
        report.failed(),
        report.count(|outcome| matches!(outcome, Outcome::Skipped)),
        report.duration.as_secs_f64()
    )
    .unwrap();
    for result in &report.results {
        let name = format!("{}:{}", result.span.path.display(), result.span.line);
        write!(
            out,
            "  <testcase name=\"{}\" classname=\"{}\">",
            xml(&name),
            xml(&result.span.path.display().to_string())
        )
        .unwrap();
        match &result.outcome {
            Outcome::Passed => {}
            Outcome::Skipped => out.push_str("<skipped/>"),
            Outcome::Failed(failure) => write!(
                out,
                "<failure message=\"{}\">{}</failure>",
                xml(kind_name(failure.kind)),
                xml(&failure.message)
            )
            .unwrap(),
        }
        if !result.stdout.is_empty() {
            write!(out, "<system-out>{}</system-out>", xml(&result.stdout)).unwrap();
        }
        out.push_str("</testcase>\n");
    }
    for failure in &report.chapter_failures {
        let span = &failure.span;
        writeln!(
            out,
            "  <testcase name=\"{}\" classname=\"{}\"><failure message=\"chapter not verified\">{}</failure></testcase>",
            xml(&format!("{}:{}", span.path.display(), span.line)),
            xml(&failure.chapter_path.display().to_string()),
            xml(&failure.message)
        )
        .unwrap();
    }
    out.push_str("</testsuite></testsuites>\n");
    out
}

fn xml(text: &str) -> String {
    text.chars()
        .filter(|&c| c == '\n' || c == '\t' || c >= ' ')
        .collect::<String>()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
