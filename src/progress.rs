//! Progress on stderr while a book is verified: on a terminal, an indicatif bar with each
//! failure printed above it; otherwise (CI logs, pipes) one plain line per snippet,
//! `test src/ch1.md:3 ... ok`. stdout is never touched: it carries the report (and, for the
//! preprocessor, the book).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::snippet::{MutantResult, Verdict};
use crate::snippet::{Outcome, SnippetResult};

pub(crate) struct Progress {
    mode: Mode,
}

enum Mode {
    Quiet,
    Lines,
    Bar(ProgressBar),
}

impl Progress {
    /// `enabled: false` prints nothing; otherwise a bar when stderr is a terminal, else lines.
    pub(crate) fn new(enabled: bool) -> Progress {
        let mode = if !enabled {
            Mode::Quiet
        } else if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} snippets {msg}")
                    .expect("a valid template")
                    .progress_chars("=> "),
            );
            // The spinner turns while cargo builds, so a long build does not look hung.
            bar.enable_steady_tick(std::time::Duration::from_millis(120));
            Mode::Bar(bar)
        } else {
            Mode::Lines
        };
        Progress { mode }
    }

    /// More snippets to wait for (the cached ones first, then those built).
    pub(crate) fn add(&self, count: usize) {
        if let Mode::Bar(bar) = &self.mode {
            bar.inc_length(count as u64);
        }
    }

    /// Runs `work`, which writes to stderr, with the bar hidden meanwhile.
    pub(crate) fn suspend<R>(&self, work: impl FnOnce() -> R) -> R {
        match &self.mode {
            Mode::Bar(bar) => bar.suspend(work),
            _ => work(),
        }
    }

    /// A note such as `building 3 snippet(s) in ...`.
    pub(crate) fn note(&self, text: &str) {
        match &self.mode {
            Mode::Quiet => {}
            Mode::Lines => eprintln!("{text}"),
            Mode::Bar(bar) => bar.set_message(text.to_owned()),
        }
    }

    /// A line that stays, such as the toolchain a run compiles with (above a bar).
    pub(crate) fn heading(&self, text: &str) {
        match &self.mode {
            Mode::Quiet => {}
            Mode::Lines => eprintln!("{text}"),
            Mode::Bar(bar) => bar.println(text),
        }
    }

    pub(crate) fn finished(&self, result: &SnippetResult) {
        let verdict = match &result.outcome {
            Outcome::Passed => "ok",
            Outcome::Skipped => "skipped",
            Outcome::Failed(_) => "FAILED",
        };
        let line = format!(
            "test {}:{} ... {verdict}",
            result.span.path.display(),
            result.span.line
        );
        self.line(line, matches!(result.outcome, Outcome::Failed(_)));
    }

    /// `test src/ch1.md:3 mutant NAME ... killed` (or `SURVIVED`).
    pub(crate) fn mutant_finished(&self, result: &MutantResult) {
        let survived = matches!(result.verdict, Verdict::Survived(_));
        let line = format!(
            "test {}:{} mutant {} ... {}",
            result.span.path.display(),
            result.span.line,
            result.name,
            if survived { "SURVIVED" } else { "killed" }
        );
        self.line(line, survived);
    }

    /// One finished run: a line of its own, or on a bar a step (and the line, when it failed).
    fn line(&self, line: String, failed: bool) {
        match &self.mode {
            Mode::Quiet => {}
            Mode::Lines => eprintln!("{line}"),
            Mode::Bar(bar) => {
                if failed {
                    bar.println(line);
                }
                bar.inc(1);
            }
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Mode::Bar(bar) = &self.mode {
            bar.finish_and_clear();
        }
    }
}
