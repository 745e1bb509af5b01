//! What a [`Record`] means for a snippet: passed or failed, and why, given its attributes
//! (`should_panic`, `no_run`, `compile_fail`) and its expected-output block. The positions in
//! the messages it reports are the Markdown's (`positions.rs`).

use std::path::Path;

use crate::plan::Record;
use crate::run::compare::compare;
use crate::run::positions::{remap, renumber_gutter};
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

#[cfg(test)]
#[path = "judge_tests.rs"]
mod tests;
