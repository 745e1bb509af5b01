//! Presenting a [`Report`] on the terminal: each failure as a rustc-style excerpt of the
//! Markdown source, then the `failures:` list (each snippet at its opening fence, with the
//! error's line beside it), then under `--mutants` `mutants: K killed, S survived`, then
//! `N passed, M failed[, K skipped]`. A survived mutant is a failure of its own, at its
//! snippet's fence. The other formats (`github`, `junit`) name failures as this one does.
//!
//! Whatever a snippet printed reaches the report; a control character in it is shown escaped
//! (`\u{1b}[8m`, `\r`), here and in the other formats ([`escape_controls`]), so that no
//! escape sequence can hide, recolour or overwrite what follows it on a terminal.

use std::borrow::Cow;
use std::fmt::Write;
use std::path::Path;

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};

use crate::snippet::{ChapterFailure, Failure, FailureKind, Outcome, SnippetResult, SourceSpan};
use crate::snippet::{MutantResult, Verdict};
use crate::verify::Report;

/// The terminal report. Source excerpts are read from the files under `book_root`; a file that
/// cannot be read just goes without an excerpt.
pub(crate) fn human(report: &Report, book_root: &Path) -> String {
    let mut out = String::new();
    for failure in &report.chapter_failures {
        out.push_str(&chapter_failure_text(failure, book_root));
        out.push('\n');
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
        out.push_str(&failure_text(result, failure, book_root));
        if failure.kind == FailureKind::OutputMismatch {
            out.push_str(BLESS_HELP);
        }
        out.push('\n');
    }
    let survivors = survivors(report);
    for (mutant, why) in &survivors {
        out.push_str(&survivor_text(mutant, why, book_root));
        out.push('\n');
    }
    if !failures.is_empty() || !report.chapter_failures.is_empty() || !survivors.is_empty() {
        out.push_str("failures:\n");
        for failure in &report.chapter_failures {
            failure_line(&mut out, &failure.span, "chapter not verified");
        }
        for (result, failure) in &failures {
            failure_line(&mut out, &result.span, &snippet_note(result, failure));
        }
        for (mutant, _) in &survivors {
            let note = format!("{}, {}", survived(mutant), mutant.snippet_id);
            failure_line(&mut out, &mutant.span, &note);
        }
        out.push('\n');
    }
    writeln!(out, "finished in {:.2}s", report.duration.as_secs_f64()).unwrap();
    if let Some((killed, survived)) = report.mutant_counts() {
        writeln!(out, "mutants: {killed} killed, {survived} survived").unwrap();
    }
    writeln!(out, "{}", summary(report)).unwrap();
    escape_controls(&out).into_owned()
}

/// `text` with every control character but newline and tab, and every bidirectional
/// override or isolate, written as an escape (`\u{1b}`, `\r`): a snippet's output cannot send
/// a terminal (or a log viewer) an escape sequence through the report.
pub(crate) fn escape_controls(text: &str) -> Cow<'_, str> {
    let escaped = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if escaped(c) => write!(out, "{}", c.escape_unicode()).unwrap(),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// One snippet's failure as the terminal report shows it: the excerpt of the Markdown with the
/// message's first line as its label, then the rest of the message. Also what `mdbook serve`
/// shows in the page (see `render`).
pub(crate) fn failure_text(result: &SnippetResult, failure: &Failure, book_root: &Path) -> String {
    let mut out = excerpt(result, failure, book_root);
    out.push('\n');
    push_message_body(&mut out, &failure.message);
    escape_controls(&out).into_owned()
}

/// The mutants that survived, each with why.
pub(super) fn survivors(report: &Report) -> Vec<(&MutantResult, &str)> {
    report
        .mutants
        .iter()
        .flatten()
        .filter_map(|mutant| match &mutant.verdict {
            Verdict::Survived(why) => Some((mutant, why.as_str())),
            Verdict::Killed(_) => None,
        })
        .collect()
}

/// `mutant NAME survived`: outside checks look for these words.
pub(super) fn survived(mutant: &MutantResult) -> String {
    format!("mutant {} survived", mutant.name)
}

/// A survived mutant as the terminal report shows it: an excerpt at its snippet's fence.
fn survivor_text(mutant: &MutantResult, why: &str, book_root: &Path) -> String {
    let title = format!("snippet {} {}", mutant.snippet_id, survived(mutant));
    let mut out = excerpt_at(&mutant.span, &title, &survived(mutant), None, book_root);
    out.push('\n');
    writeln!(out, "  {why}").unwrap();
    out
}

/// A chapter that could not be verified, as the terminal report shows it.
pub(crate) fn chapter_failure_text(failure: &ChapterFailure, book_root: &Path) -> String {
    let title = format!("chapter {} not verified", failure.chapter_path.display());
    let label = failure.message.lines().next().unwrap_or_default();
    let mut out = excerpt_at(&failure.span, &title, label, None, book_root);
    out.push('\n');
    push_message_body(&mut out, &failure.message);
    out.push_str("  none of this chapter's snippets ran\n");
    escape_controls(&out).into_owned()
}

/// `3 passed, 1 failed`, followed by `, 2 skipped` only when some were skipped. Outside checks
/// parse this line: its shape is a fixed interface.
pub(crate) fn summary(report: &Report) -> String {
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

/// Appends the lines of a failure's message after the first, indented: the first line is already
/// the excerpt's label, and is said once.
fn push_message_body(out: &mut String, message: &str) {
    let body = message.trim_end().lines().skip(1);
    for line in body {
        if line.is_empty() {
            out.push('\n');
        } else {
            writeln!(out, "  {line}").unwrap();
        }
    }
}

/// Said under each output that differs: the way to accept what the snippet printed.
const BLESS_HELP: &str = "  help: if the new output is right, `mdbook-snippets test --bless` \
                          writes it into the expected block\n";

/// A failed snippet's note in the closing list, which names the snippet by its opening fence (as
/// `mdbook test` does): the kind, the id, and where the error is when that is elsewhere (`error
/// at line 5`, or `error at listings/bad.rs:2` in an included file).
fn snippet_note(result: &SnippetResult, failure: &Failure) -> String {
    let mut note = format!("{}, {}", kind_name(failure.kind), result.id);
    let (fence, error) = (&result.span, &failure.span);
    if error.path != fence.path {
        write!(note, ", error at {}:{}", error.path.display(), error.line).unwrap();
    } else if error.line != fence.line {
        write!(note, ", error at line {}", error.line).unwrap();
    }
    note
}

/// Appends one `    path:line (note)` line of the closing `failures:` list.
fn failure_line(out: &mut String, span: &SourceSpan, note: &str) {
    writeln!(out, "    {}:{} ({note})", span.path.display(), span.line).unwrap();
}

pub(super) fn kind_name(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Compile => "does not compile",
        FailureKind::CompileFailMismatch => "compile_fail mismatch",
        FailureKind::Run => "failed at run time",
        FailureKind::Timeout => "timed out",
        FailureKind::OutputMismatch => "output differs",
        FailureKind::Attribute => "unknown attribute",
        FailureKind::Include => "cannot include",
    }
}

fn excerpt(result: &SnippetResult, failure: &Failure, book_root: &Path) -> String {
    let title = format!("snippet {} {}", result.id, kind_name(failure.kind));
    let label = failure.message.lines().next().unwrap_or_default();
    let width = caret_width(&failure.message, &failure.span);
    excerpt_at(&failure.span, &title, label, width, book_root)
}

/// How many characters rustc's own excerpt in `message` underlines on the line numbered
/// `span.line`: its first `^` run (rustc's primary span; `-` marks the others). Its columns are
/// the compiled code's, which can differ from the Markdown's (a hidden line's `# `, a list's
/// indentation), so only the width is taken. `None` when it has none there.
pub(super) fn caret_width(message: &str, span: &SourceSpan) -> Option<usize> {
    let gutter = format!("{} |", span.line);
    let lines: Vec<&str> = message.lines().collect();
    let at = lines
        .iter()
        .position(|line| line.trim_start().starts_with(&gutter))?;
    let carets = lines.get(at + 1)?;
    let (_, after_bar) = carets.split_once('|')?;
    let from = &after_bar[after_bar.find('^')?..];
    Some(from.chars().take_while(|c| *c == '^').count())
}

/// A rustc-style excerpt of the file around `span` (invalid UTF-8 shown as U+FFFD), underlined
/// for `width` characters, else to the end of the line.
fn excerpt_at(
    span: &SourceSpan,
    title: &str,
    label: &str,
    width: Option<usize>,
    book_root: &Path,
) -> String {
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
    let line_end = (offset + line_text.len()).max(start);
    let end = match width {
        Some(width) => line_text[column..]
            .char_indices()
            .nth(width)
            .map_or(line_end, |(at, _)| start + at),
        None => line_end,
    };
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

#[cfg(test)]
#[path = "terminal_tests.rs"]
mod tests;
