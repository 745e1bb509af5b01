//! What a [`Record`] means for a snippet: passed or failed, and why, given its attributes
//! (`should_panic`, `no_run`, `compile_fail`) and its expected-output block. Also rewrites
//! generated-file positions (`src/e2021/<id>.rs:5:9`) in messages to Markdown positions.

use std::path::Path;

use crate::build::{FIRST_CODE_LINE, lifted_lines};
use crate::plan::Record;
use crate::run::compare::compare;
use crate::snippet::{
    Exit, Failure, FailureKind, Outcome, RunRecord, Snippet, SnippetResult, SourceSpan,
};
use crate::source::Located;

pub(crate) fn judge(located: &Located, record: &Record, module_file: &Path) -> SnippetResult {
    let snippet = &located.snippet;
    let fail = |kind, span: Option<SourceSpan>, message: String| {
        Outcome::Failed(Failure {
            kind,
            span: span.unwrap_or_else(|| snippet.span.clone()),
            message,
        })
    };
    let outcome = match (record, &snippet.attributes.compile_fail) {
        (Record::Compiled, Some(_)) => fail(
            FailureKind::CompileFailMismatch,
            None,
            "compiled, but the snippet is marked `compile_fail`".to_owned(),
        ),
        (Record::DidNotCompile { codes, message }, Some(wanted)) => {
            let missing: Vec<&String> =
                wanted.iter().filter(|code| !codes.contains(code)).collect();
            if missing.is_empty() {
                Outcome::Passed
            } else {
                let (message, span) =
                    remap(&renumber_gutter(message, located), module_file, located);
                fail(
                    FailureKind::CompileFailMismatch,
                    span,
                    format!("expected error {missing:?}, but rustc said:\n{message}"),
                )
            }
        }
        (Record::DidNotCompile { message, .. }, None) => {
            let (message, span) = remap(&renumber_gutter(message, located), module_file, located);
            fail(FailureKind::Compile, span, message)
        }
        (Record::BinaryFailed { message }, _) => fail(FailureKind::Compile, None, message.clone()),
        (Record::Compiled, None) => Outcome::Passed,
        (Record::Ran(run), _) => judge_run(snippet, run, &|text| {
            remap(&without_thread_ids(text), module_file, located)
        }),
    };
    let run = match record {
        Record::Ran(run) => Some(run),
        _ => None,
    };
    result(snippet, outcome, run)
}

/// A position-rewriting pass over a snippet's stderr: the text with positions in the generated
/// file rewritten to Markdown positions, and the first of them.
pub(crate) type Remap<'a> = dyn Fn(&str) -> (String, Option<SourceSpan>) + 'a;

/// Judges a run: its exit against the snippet's attributes, then its stdout against the
/// expected block. `remap` rewrites the stderr's positions (`panic_span` is the first).
pub(crate) fn judge_run(snippet: &Snippet, run: &RunRecord, remap: &Remap<'_>) -> Outcome {
    let (stderr, panic_span) = remap(&run.stderr);
    let fail = |kind, span: Option<SourceSpan>, message: String| {
        Outcome::Failed(Failure {
            kind,
            span: span.unwrap_or_else(|| snippet.span.clone()),
            message,
        })
    };
    let with_stderr = |headline: String| {
        if stderr.trim().is_empty() {
            headline
        } else {
            // Panics start with a blank line since Rust 1.92; it says nothing.
            let stderr = stderr.trim_start_matches(['\n', '\r']).trim_end();
            // The panic's note names the variable the sandbox sets to 0; say what sets it.
            let stderr = stderr.replace(RUST_NOTE, &format!("{RUST_NOTE}{BACKTRACE_HINT}"));
            format!("{headline}\nstderr:\n{stderr}")
        }
    };
    // Artifacts the snippet left that cannot be shown fail it, however it ended.
    if let Some(problem) = &run.artifact_failure {
        return fail(FailureKind::Run, None, problem.clone());
    }
    // `None` when the process ended the way the snippet's attributes say it must; only then is
    // its output compared.
    let unexpected_exit = match run.exit {
        Exit::TimedOut(limit) => Some(fail(
            FailureKind::Timeout,
            None,
            with_stderr(format!(
                "timed out after {} s; the process group was killed",
                limit.as_secs_f64()
            )),
        )),
        Exit::OutputLimit(limit) => Some(fail(
            FailureKind::Run,
            None,
            format!("printed more than {limit} bytes on stdout or stderr; stopped"),
        )),
        Exit::Code(0) if snippet.attributes.should_panic => Some(fail(
            FailureKind::Run,
            None,
            with_stderr("exited successfully, but the snippet is marked `should_panic`".to_owned()),
        )),
        Exit::Code(0) => None,
        // rustdoc passes a `should_panic` block whose process failed in any way (a panic, an
        // `Err` from `main`, `exit(3)`, `abort()`), and so do we.
        Exit::Code(_) | Exit::Signal(_) if snippet.attributes.should_panic => None,
        Exit::Code(code) => {
            let mut headline = match panic_message(&stderr) {
                Some(message) => format!("panicked: {message}"),
                None => format!("exited with code {code}"),
            };
            headline.push_str(&limit_hint(&stderr, None));
            Some(fail(FailureKind::Run, panic_span, with_stderr(headline)))
        }
        Exit::Signal(signal) => Some(fail(
            FailureKind::Run,
            panic_span,
            with_stderr(format!(
                "killed by signal {signal}{}",
                limit_hint(&stderr, Some(signal))
            )),
        )),
    };
    if let Some(failure) = unexpected_exit {
        return failure;
    }
    match &snippet.expected {
        Some(expected) => match compare(&expected.text, &run.stdout) {
            Ok(()) => Outcome::Passed,
            Err(diff) => fail(
                FailureKind::OutputMismatch,
                Some(expected.span.clone()),
                diff,
            ),
        },
        None => Outcome::Passed,
    }
}

/// What a failure says about the limit it most likely hit (`run/side_doors.rs`); empty when
/// none applies.
pub(crate) fn limit_hint(stderr: &str, signal: Option<i32>) -> String {
    const SIGXFSZ: i32 = 25;
    if signal == Some(SIGXFSZ)
        || stderr.contains("File too large")
        || stderr.contains("File size limit exceeded")
    {
        return " (SIGXFSZ: a file reached the limit `file-size-limit` of [preprocessor.snippets])"
            .to_owned();
    }
    if stderr.contains("memory allocation of") || stderr.contains("Cannot allocate memory") {
        return " (out of memory: the limit `memory-limit` of [preprocessor.snippets], or the \
                 machine's)"
            .to_owned();
    }
    if stderr.contains("No space left on device") {
        return " (a private tmpfs is full: the limit `scratch-limit` of \
                 [preprocessor.snippets], or the disk)"
            .to_owned();
    }
    if stderr.contains("Resource temporarily unavailable") && stderr.contains("fork") {
        return " (no more processes: the limit `process-limit` of [preprocessor.snippets])"
            .to_owned();
    }
    String::new()
}

/// The note a Rust panic ends with, and what the report adds to it: snippets run with
/// `RUST_BACKTRACE=0` unless the book sets `backtrace = true`.
const RUST_NOTE: &str =
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace";
const BACKTRACE_HINT: &str = " (here: `backtrace = true` in [preprocessor.snippets])";

/// The first line of a panic message: `thread 'main' panicked at src/x.rs:1:1:\nMESSAGE`.
fn panic_message(stderr: &str) -> Option<&str> {
    let mut lines = stderr.lines();
    lines.find(|line| line.contains("panicked at"))?;
    lines.next()
}

/// A result for `snippet`, carrying what its run printed, if it ran.
pub(crate) fn result(
    snippet: &Snippet,
    outcome: Outcome,
    run: Option<&RunRecord>,
) -> SnippetResult {
    SnippetResult {
        id: snippet.id.clone(),
        span: snippet.span.clone(),
        outcome,
        stdout: run.map(|run| run.stdout.clone()).unwrap_or_default(),
        stderr: run
            .map(|run| without_thread_ids(&run.stderr))
            .unwrap_or_default(),
        artifacts: run.map(|run| run.artifacts.clone()).unwrap_or_default(),
        elapsed: run.and_then(|run| run.elapsed),
    }
}

/// The name rustdoc gives every doctest's crate, which a snippet sees where it prints its
/// module path or its program's name.
pub(crate) const RUSTDOC_CRATE: &str = "rust_out";

/// `run`'s output with the generated crate's `names` (longest first: see
/// `build::generate::generated_names`) replaced by [`RUSTDOC_CRATE`], so a `log` line reads
/// `[INFO rust_out] ...` and a type `rust_out::Point`, as under `mdbook test`.
pub(crate) fn with_rustdoc_names(mut run: RunRecord, names: &[String]) -> RunRecord {
    for name in names.iter().filter(|name| !name.is_empty()) {
        run.stdout = run.stdout.replace(name.as_str(), RUSTDOC_CRATE);
        run.stderr = run.stderr.replace(name.as_str(), RUSTDOC_CRATE);
    }
    run
}

/// Panic messages name the thread with its OS id (`thread 'main' (1234) panicked at`), which
/// differs on every run; the report and the rendered page show `thread 'main' panicked at`, so
/// the same snippet gives the same bytes every time.
pub(crate) fn without_thread_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("thread '") {
        let name_start = start + "thread '".len();
        out.push_str(&rest[..name_start]);
        rest = &rest[name_start..];
        let Some(name_end) = rest.find('\'') else {
            continue;
        };
        let after_name = &rest[name_end + 1..];
        let id = after_name
            .strip_prefix(" (")
            .and_then(|tail| tail.split_once(')'))
            .filter(|(digits, tail)| {
                !digits.is_empty()
                    && digits.chars().all(|c| c.is_ascii_digit())
                    && tail.starts_with(" panicked")
            });
        match id {
            Some((digits, _)) => {
                out.push_str(&rest[..=name_end]);
                rest = &after_name[" (".len() + digits.len() + ")".len()..];
            }
            None => {
                out.push_str(&rest[..=name_end]);
                rest = after_name;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Replaces every `MODULE_FILE:LINE:COLUMN` in `text` with the Markdown position it stands for,
/// and returns the first such position (the panic or the error's primary place).
pub(crate) fn remap(
    text: &str,
    module_file: &Path,
    located: &Located,
) -> (String, Option<SourceSpan>) {
    let needle = format!("{}:", module_file.display());
    let mut out = String::new();
    let mut first = None;
    let mut rest = text;
    while let Some(start) = rest.find(&needle) {
        out.push_str(&rest[..start]);
        let after = &rest[start + needle.len()..];
        let digits = |s: &str| s.chars().take_while(char::is_ascii_digit).count();
        let line_len = digits(after);
        let line: usize = after[..line_len].parse().unwrap_or(0);
        let (column, consumed) = match after[line_len..].strip_prefix(':') {
            Some(tail) if digits(tail) > 0 => {
                let column_len = digits(tail);
                (
                    tail[..column_len].parse().unwrap_or(1),
                    line_len + 1 + column_len,
                )
            }
            _ => (1, line_len),
        };
        if line_len == 0 {
            out.push_str(&needle);
            rest = after;
            continue;
        }
        let code_lines = located.snippet.code.lines().count();
        let span = if line >= FIRST_CODE_LINE && line - FIRST_CODE_LINE < code_lines {
            located.code_span(line - FIRST_CODE_LINE, column)
        } else if let Some((code_line, column)) = lifted_at(located, line, column) {
            located.code_span(code_line, column)
        } else {
            located.snippet.span.clone()
        };
        out.push_str(&format!(
            "{}:{}:{}",
            span.path.display(),
            span.line,
            span.column
        ));
        first.get_or_insert(span);
        rest = &after[consumed..];
    }
    out.push_str(rest);
    (out, first)
}

/// For rustc's excerpt of the generated file's first line, whose caret line is `carets` (its
/// gutter `width` wide): the Markdown line, the text of the lifted line the carets point at, and
/// the carets moved under that text. `None` when they point at no lifted line.
fn lifted_excerpt(
    located: &Located,
    width: usize,
    carets: &str,
) -> Option<(usize, String, String)> {
    let after_bar = carets.get(width..)?.strip_prefix(" | ")?;
    let marks = after_bar.find(['^', '-'])?;
    let (code_line, column) = lifted_at(located, 1, marks + 1)?;
    let (_, _, text) = lifted_lines(&located.snippet.code)
        .into_iter()
        .find(|(line, _, _)| *line == code_line)?;
    let moved = format!("{}{}", " ".repeat(column - 1), &after_bar[marks..]);
    Some((located.code_span(code_line, 1).line, text, moved))
}

/// The 0-based code line and the column in it of a position on the generated file's first line
/// that falls in a crate-level line lifted there (`# #![feature(..)]`).
fn lifted_at(located: &Located, file_line: usize, column: usize) -> Option<(usize, usize)> {
    if file_line != 1 {
        return None;
    }
    lifted_lines(&located.snippet.code)
        .into_iter()
        .find(|(_, start, text)| (*start..start + text.chars().count().max(1)).contains(&column))
        .map(|(code_line, start, _)| (code_line, column - start + 1))
}

/// rustc's excerpts number the lines of the generated file (`4 | let x = ...`); this puts the
/// Markdown line numbers there instead, widening the gutter when they need more digits.
fn renumber_gutter(rendered: &str, located: &Located) -> String {
    let code_lines = located.snippet.code.lines().count();
    let markdown_line = |file_line: usize| {
        (file_line >= FIRST_CODE_LINE && file_line - FIRST_CODE_LINE < code_lines)
            .then(|| located.code_span(file_line - FIRST_CODE_LINE, 1).line)
    };
    // A gutter line is `  12 | code`, `     | `, `   --> `, `    = note`, or `   ::: `.
    let gutter = |line: &str| -> Option<(usize, Option<usize>)> {
        let indent = line.len() - line.trim_start().len();
        let rest = &line[indent..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let after = &rest[digits..];
        if digits > 0 && (after.starts_with(" |") || after == " |") {
            Some((indent + digits, rest[..digits].parse().ok()))
        } else if indent > 0
            && ["|", "-->", "= ", ":::"]
                .iter()
                .any(|start| rest.starts_with(start))
        {
            Some((indent, None))
        } else {
            None
        }
    };
    let numbers: Vec<usize> = rendered
        .lines()
        .filter_map(gutter)
        .filter_map(|(_, number)| number)
        .collect();
    let digits = |number: usize| number.to_string().len();
    let old_digits = numbers
        .iter()
        .map(|&number| digits(number))
        .max()
        .unwrap_or(0);
    let new_digits = numbers
        .iter()
        .map(|&number| digits(markdown_line(number).unwrap_or(number)))
        .max()
        .unwrap_or(0);
    let delta = new_digits.saturating_sub(old_digits);
    let mut out = String::new();
    let mut lines = rendered.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if let Some((width, Some(1))) = gutter(line)
            && let Some(next) = lines.peek()
            && let Some((markdown_line, text, carets)) = lifted_excerpt(located, width, next)
        {
            // The first line holds lifted crate-level lines: show the one rustc points at, as
            // the author wrote it, at its Markdown line.
            let width = width + delta;
            out.push_str(&format!("{markdown_line:>width$} | {text}\n"));
            out.push_str(&format!("{} | {carets}", " ".repeat(width)));
            lines.next();
            continue;
        }
        match gutter(line) {
            Some((width, Some(number))) => {
                let shown = markdown_line(number).unwrap_or(number);
                let width = width + delta;
                out.push_str(&format!("{shown:>width$}{}", &line[width - delta..]));
            }
            Some((_, None)) => {
                out.push_str(&" ".repeat(delta));
                out.push_str(line);
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
#[path = "judge_tests.rs"]
mod tests;
