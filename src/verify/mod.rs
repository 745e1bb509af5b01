//! The pipeline for one book: extract the snippets of every chapter, answer what the cache
//! knows, generate and build one crate for the rest (dropping broken snippets and building the
//! others once more), run them, and judge each against its attributes and expected block.
//! Every snippet ends as a [`SnippetResult`]; `Err` is only the tool failing.

use std::time::{Duration, Instant};

use crate::config::Config;
use crate::mdbook::BookSource;
use crate::plan::{Selection, Toolchain, check_selection, select, selection_reports};
use crate::progress::Progress;
use crate::run::mutant_list;
use crate::run::{judge, mutants};
use crate::snippet::MutantResult;
use crate::snippet::{ChapterFailure, Outcome, Snippet, SnippetResult};
use crate::source::{Located, extract_book, note_default_edition, note_unmarked, unknown_words};

mod languages;
mod options;
mod pending;
mod rust;
mod sandbox_settings;

pub(crate) use options::VerifyOptions;

use pending::{Book, Decided};

/// The outcome of verifying a book.
#[derive(Debug, Clone)]
pub(crate) struct Report {
    /// Every snippet found, in book order; its `span`s point into the source files.
    pub snippets: Vec<Snippet>,
    /// One per snippet, same order.
    pub results: Vec<SnippetResult>,
    /// Chapters whose snippets could not be verified at all; each counts as one failure.
    pub chapter_failures: Vec<ChapterFailure>,
    /// One per mutant run, in book order, under `--mutants`; `None` without it.
    pub mutants: Option<Vec<MutantResult>>,
    pub duration: Duration,
}

impl Report {
    pub(crate) fn count(&self, wanted: fn(&Outcome) -> bool) -> usize {
        self.results
            .iter()
            .filter(|result| wanted(&result.outcome))
            .count()
    }

    /// Failed snippets plus chapters that could not be verified, plus mutants that survived.
    pub(crate) fn failed(&self) -> usize {
        self.count(|outcome| matches!(outcome, Outcome::Failed(_)))
            + self.chapter_failures.len()
            + self.mutant_counts().map_or(0, |(_, survived)| survived)
    }

    /// `(killed, survived)` under `--mutants`.
    pub(crate) fn mutant_counts(&self) -> Option<(usize, usize)> {
        self.mutants.as_deref().map(mutants::counts)
    }
}

/// Verifies every snippet of `book` (Rust, and the languages `config` declares) and returns one
/// result per snippet (in book order, alongside the snippets themselves). A failing snippet is a
/// result, and so is a chapter that cannot be read; `Err` means the tool could not do its job (a
/// selection that matches nothing, cargo missing, a harness that does not build).
pub(crate) fn verify(
    book: &BookSource,
    config: &Config,
    options: &VerifyOptions,
) -> anyhow::Result<Report> {
    let started = Instant::now();
    let progress = Progress::new(options.progress);
    let (located, mut chapter_failures) = extract_book(book, &config.language_syntaxes());
    check_selection(&located, &options.selection).map_err(anyhow::Error::msg)?;
    // The run's first line names the toolchain; not finding it fails only a Rust build.
    let toolchain = Toolchain::resolve();
    if let Ok(toolchain) = &toolchain {
        progress.heading(&toolchain.describe(&config.book_root));
    }
    chapter_failures.retain(|failure| selection_reports(&options.selection, failure));
    crate::run::sandbox::configure(sandbox_settings::before_workspace(config));
    let (mut results, pending) = triage(&located, config, &options.selection);
    if options.mutants {
        // Before anything is built or run, every claim of the book, whatever the selection
        // (an `ignore` snippet is never selected): a false claim is the book's error (exit 2).
        let snippets: Vec<&Snippet> = located.iter().map(|located| &located.snippet).collect();
        mutant_list::check_claims(&snippets, config, &progress)?;
    }
    let decided = if pending.is_empty() {
        Decided {
            book_edition: config.edition.clone(),
            cache_error: None,
            mutants: options.mutants.then(Vec::new),
        }
    } else {
        let book = Book {
            located: &located,
            config,
            options,
            progress: &progress,
        };
        pending::decide(book, pending, toolchain?, &mut results)?
    };

    let results = located
        .iter()
        .zip(results)
        .map(|(located, result)| {
            let mut result = result.expect("every snippet is judged");
            note_unmarked(&located.snippet, &mut result);
            note_default_edition(
                &located.snippet,
                decided.book_edition.as_deref(),
                &mut result,
            );
            result
        })
        .collect();
    let report = Report {
        snippets: located.into_iter().map(|located| located.snippet).collect(),
        results,
        chapter_failures,
        mutants: decided.mutants,
        duration: started.elapsed(),
    };
    match decided.cache_error {
        None => Ok(report),
        Some(error) => Err(anyhow::Error::new(UnstoredResults { report, error })),
    }
}

/// Decides what needs neither a build nor a run: a snippet the selection leaves out is skipped,
/// one holding an include problem or an unknown word (under `unknown-attributes = "error"`)
/// fails. Returns those results, by snippet, and the indices of the rest.
fn triage(
    located: &[Located],
    config: &Config,
    selection: &Selection,
) -> (Vec<Option<SnippetResult>>, Vec<usize>) {
    let mut results: Vec<Option<SnippetResult>> = vec![None; located.len()];
    let mut pending = Vec::new();
    for (index, selected) in select(located, selection).into_iter().enumerate() {
        let snippet = &located[index].snippet;
        let failure = || {
            located[index]
                .include_failure
                .clone()
                .or_else(|| unknown_words(snippet, config.unknown_attributes))
        };
        if !selected {
            results[index] = Some(judge::result(snippet, Outcome::Skipped, None));
        } else if let Some(failure) = failure() {
            results[index] = Some(judge::result(snippet, Outcome::Failed(failure), None));
        } else {
            pending.push(index);
        }
    }
    (results, pending)
}

/// The error of a run whose verdicts are all known but could not all be stored in the cache
/// (a full disk): the caller reports the verdicts, then fails with `error`.
#[derive(Debug)]
pub(crate) struct UnstoredResults {
    pub report: Report,
    pub error: anyhow::Error,
}

impl std::fmt::Display for UnstoredResults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.error)
    }
}

impl std::error::Error for UnstoredResults {}
