//! The pipeline for one book: extract the snippets of every chapter, answer what the cache
//! knows, generate and build one crate for the rest (dropping broken snippets and building the
//! others once more), run them, and judge each against its attributes and expected block.
//! Every snippet ends as a [`SnippetResult`]; `Err` is only the tool failing.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::build::cargo;
use crate::build::{Plan, generated_names, module_file, named_edition, plan};
use crate::config::Config;
use crate::mdbook::BookSource;
use crate::plan::{
    Cache, Record, Selection, Toolchain, Workspace, check_selection, select, selection_reports,
};
use crate::progress::Progress;
use crate::run::mutant_list;
use crate::run::mutants::{self, Subject};
use crate::run::other_languages::{self, LanguagePlan};
use crate::run::{JobSlots, RunRequest, judge, run_all};
use crate::snippet::MutantResult;
use crate::snippet::{ChapterFailure, Outcome, Snippet, SnippetResult};
use crate::source::{Located, extract_book, note_default_edition, note_unmarked, unknown_words};

#[derive(Debug, Clone, Default)]
pub(crate) struct VerifyOptions {
    /// Which snippets to verify (chapter, name, partition); the others are skipped.
    pub selection: Selection,
    /// Show progress on stderr as results come in (a bar on a terminal, else a line each).
    pub progress: bool,
    /// Build a generated crate that does not exist yet without rustc's incremental state: right
    /// for `mdbook-snippets test` (what CI runs, where nothing is built twice), wrong for the
    /// preprocessor, whose first build under `mdbook serve` is followed by edits.
    pub cold_build_without_incremental: bool,
    /// Then run every passing snippet that carries `kills=` once more per mutant it names
    /// (`mdbook-snippets test --mutants`; see `mutants`).
    pub mutants: bool,
}

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

/// Verifies every snippet of `book` (Rust, and the languages `config` declares) and returns one result per snippet (in book order,
/// alongside the snippets themselves). A failing snippet is a result, and so is a chapter that
/// cannot be read; `Err` means the tool could not do its job (a selection that matches nothing,
/// cargo missing, a harness that does not build).
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
    let mut results: Vec<Option<SnippetResult>> = vec![None; located.len()];
    let mut mutant_results = options.mutants.then(Vec::new);
    let mut pending = Vec::new();
    for (index, selected) in select(&located, &options.selection).into_iter().enumerate() {
        let snippet = &located[index].snippet;
        if selected && let Some(failure) = located[index].include_failure.clone() {
            results[index] = Some(judge::result(snippet, Outcome::Failed(failure), None));
        } else if selected && let Some(failure) = unknown_words(snippet, config.unknown_attributes)
        {
            results[index] = Some(judge::result(snippet, Outcome::Failed(failure), None));
        } else if selected {
            pending.push(index);
        } else {
            results[index] = Some(judge::result(
                &located[index].snippet,
                Outcome::Skipped,
                None,
            ));
        }
    }

    if options.mutants {
        // Before anything is built or run, every claim of the book, whatever the selection
        // (an `ignore` snippet is never selected): a false claim is the book's error (exit 2).
        let snippets: Vec<&Snippet> = located.iter().map(|located| &located.snippet).collect();
        mutant_list::check_claims(&snippets, config, &progress)?;
    }
    let mut cache_error = None;
    // The edition the book or its harness names (`None`: snippets are 2015 by default).
    let mut book_edition = config.edition.clone();
    if !pending.is_empty() {
        let workspace = Workspace::discover(config, toolchain?)?;
        let harness = workspace.settings.harness_parts();
        book_edition = named_edition(config, harness).map(str::to_owned);
        let cache = Cache::new(
            workspace.cache_dir.clone(),
            workspace.fingerprint.clone(),
            config.use_cache,
        );
        let (language_pending, rust_pending): (Vec<usize>, Vec<usize>) = pending
            .into_iter()
            .partition(|&index| located[index].snippet.language.is_some());
        let language_plans = plan_languages(&located, &language_pending, config, &cache)?;
        for &index in &language_pending {
            if !language_plans.iter().any(|plan| plan.index == index) {
                // `no_run` in a language without `check`: nothing to verify.
                results[index] = Some(judge::result(
                    &located[index].snippet,
                    Outcome::Skipped,
                    None,
                ));
            }
        }
        let plans: Vec<Plan> = rust_pending
            .iter()
            .map(|&index| plan(&located[index], index, config, harness, &cache))
            .collect();
        progress.add(plans.len() + language_plans.len());
        // The snippets that claim to kill mutants, for the mutant phase.
        let claims =
            |index: usize| options.mutants && !located[index].snippet.attributes.kills.is_empty();
        let rust_claims: Vec<Plan> = plans
            .iter()
            .filter(|plan| claims(plan.index))
            .cloned()
            .collect();
        let language_claims: Vec<LanguagePlan> = language_plans
            .iter()
            .filter(|plan| claims(plan.index))
            .cloned()
            .collect();
        let (cached_languages, languages_to_run): (Vec<LanguagePlan>, Vec<LanguagePlan>) =
            language_plans
                .into_iter()
                .partition(|plan| cache.get(&plan.cache_key).is_some());
        for plan in &cached_languages {
            let record = cache.get(&plan.cache_key).expect("partitioned on it");
            let result = language_result(&located, plan, &record);
            progress.finished(&result);
            results[plan.index] = Some(result);
        }
        // A snippet with a mutant run to make is built (and run) again: its executable is
        // needed, and only this run's build is sure to hold it.
        let (cached, to_build): (Vec<Plan>, Vec<Plan>) = plans.into_iter().partition(|plan| {
            cache.get(&plan.cache_key).is_some()
                && !(claims(plan.index)
                    && mutants::any_uncached(&located[plan.index].snippet, &plan.cache_key, &cache))
        });
        for plan in &cached {
            let record = cache.get(&plan.cache_key).expect("partitioned on it");
            let result = judge::judge(&located[plan.index], &record, &module_file(&plan.planned));
            progress.finished(&result);
            results[plan.index] = Some(result);
        }
        let languages_needed: Vec<&str> = languages_to_run
            .iter()
            .filter_map(|plan| Some(located[plan.index].snippet.language.as_ref()?.name.as_str()))
            .collect();
        let setup_state = workspace.cache_dir.with_file_name("setup");
        crate::build::setup::prepare(
            config,
            &languages_needed,
            &setup_state,
            &progress,
            &crate::run::run_setup,
        )?;
        // Other languages need no build: they run while cargo builds the Rust snippets, and
        // beside the Rust runs within the same `jobs`.
        let slots = JobSlots::new(config.jobs);
        let (rust_finished, language_finished) = std::thread::scope(|scope| {
            let languages =
                scope.spawn(|| run_languages(&located, &languages_to_run, &slots, &progress));
            let rust = if to_build.is_empty() {
                Ok((Vec::new(), HashMap::new(), None))
            } else {
                // Held until every snippet (and mutant) has run: the executables live in the
                // shared target dir and another run of the same book would rebuild them under
                // our feet.
                workspace.lock().and_then(|lock| {
                    let run = Running {
                        config,
                        workspace: &workspace,
                        progress: &progress,
                        slots: &slots,
                    };
                    build_and_run(&located, to_build, &run, options)
                        .map(|(finished, requests)| (finished, requests, Some(lock)))
                })
            };
            (
                rust,
                languages.join().expect("running snippets does not panic"),
            )
        });
        let (rust_finished, rust_requests, lock) = rust_finished?;
        let finished = rust_finished
            .into_iter()
            .map(|(plan, finished)| (plan.index, plan.cache_key, finished))
            .chain(
                language_finished?
                    .into_iter()
                    .map(|(plan, finished)| (plan.index, plan.cache_key, finished)),
            );
        for (index, cache_key, (record, result)) in finished {
            let passed = matches!(result.outcome, Outcome::Passed);
            // A record that cannot be stored (a full disk) does not lose the verdicts: they
            // are reported, then the error.
            if record.is_cacheable(passed)
                && let Err(error) = cache.put(&cache_key, &record)
            {
                cache_error.get_or_insert(error);
            }
            results[index] = Some(result);
        }
        if let Some(mutant_results) = &mut mutant_results {
            let subjects = mutant_subjects(
                &located,
                &results,
                &rust_claims,
                &language_claims,
                rust_requests,
            );
            *mutant_results = mutants::run_mutants(&subjects, &slots, &cache, &progress)?;
        }
        drop(lock);
    }

    let results = located
        .iter()
        .zip(results)
        .map(|(located, result)| {
            let mut result = result.expect("every snippet is judged");
            note_unmarked(&located.snippet, &mut result);
            note_default_edition(&located.snippet, book_edition.as_deref(), &mut result);
            result
        })
        .collect();
    let report = Report {
        snippets: located.into_iter().map(|located| located.snippet).collect(),
        results,
        chapter_failures,
        mutants: mutant_results,
        duration: started.elapsed(),
    };
    match cache_error {
        None => Ok(report),
        Some(error) => Err(anyhow::Error::new(UnstoredResults { report, error })),
    }
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

/// The plans of the snippets of declared languages at `indices`; a `no_run` snippet of a
/// language without `check` has none.
fn plan_languages(
    located: &[Located],
    indices: &[usize],
    config: &Config,
    cache: &Cache,
) -> anyhow::Result<Vec<LanguagePlan>> {
    if indices.is_empty() {
        return Ok(Vec::new());
    }
    let inputs = other_languages::inputs_hashes(config)?;
    Ok(indices
        .iter()
        .filter_map(|&index| {
            let name = &located[index].snippet.language.as_ref()?.name;
            let declared = config.languages.iter().find(|l| &l.name == name)?;
            other_languages::plan(
                &located[index],
                index,
                declared,
                &inputs[name],
                config,
                cache,
            )
        })
        .collect())
}

fn language_result(located: &[Located], plan: &LanguagePlan, record: &Record) -> SnippetResult {
    let file = plan
        .request
        .file
        .as_ref()
        .expect("a language snippet has a file");
    other_languages::judge(
        &located[plan.index],
        record,
        &file.name,
        plan.error_position,
    )
}

/// Runs the snippets of declared languages, `jobs` at a time, and judges each.
fn run_languages(
    located: &[Located],
    plans: &[LanguagePlan],
    slots: &JobSlots,
    progress: &Progress,
) -> anyhow::Result<Vec<(LanguagePlan, (Record, SnippetResult))>> {
    let requests: Vec<RunRequest> = plans.iter().map(|plan| plan.request.clone()).collect();
    let runs = run_all(&requests, slots, &|index, record| {
        let record = other_languages::record(&plans[index], record.clone());
        progress.finished(&language_result(located, &plans[index], &record));
    });
    plans
        .iter()
        .zip(runs)
        .map(|(plan, run)| {
            let run = run.with_context(|| format!("running {}", plan.request.program.display()))?;
            let record = other_languages::record(plan, run);
            let result = language_result(located, plan, &record);
            Ok((plan.clone(), (record, result)))
        })
        .collect()
}

/// The snippets whose mutants are due: those of `rust_claims` and `language_claims` that
/// passed, in book order, each with how it ran (a Rust one's request from `rust_requests`, by
/// snippet index, when it was built and run this time) and how a run of it is judged.
fn mutant_subjects<'a>(
    located: &'a [Located],
    results: &[Option<SnippetResult>],
    rust_claims: &'a [Plan],
    language_claims: &'a [LanguagePlan],
    mut rust_requests: HashMap<usize, RunRequest>,
) -> Vec<Subject<'a>> {
    let passed = |index: usize| {
        results[index]
            .as_ref()
            .is_some_and(|result| result.outcome == Outcome::Passed)
    };
    let mut subjects: Vec<(usize, Subject<'a>)> = Vec::new();
    // No claim is made by a snippet that does not run (`mutant_list` refused it).
    for plan in rust_claims.iter().filter(|plan| passed(plan.index)) {
        let located = &located[plan.index];
        let judge =
            move |record: &Record| judge::judge(located, record, &module_file(&plan.planned));
        subjects.push((
            plan.index,
            Subject {
                snippet: &located.snippet,
                cache_key: &plan.cache_key,
                request: rust_requests.remove(&plan.index),
                judge: Box::new(judge),
            },
        ));
    }
    for plan in language_claims.iter().filter(|plan| passed(plan.index)) {
        subjects.push((
            plan.index,
            Subject {
                snippet: &located[plan.index].snippet,
                cache_key: &plan.cache_key,
                request: Some(plan.request.clone()),
                judge: Box::new(move |record| language_result(located, plan, record)),
            },
        ));
    }
    subjects.sort_by_key(|(index, _)| *index);
    subjects.into_iter().map(|(_, subject)| subject).collect()
}

/// What building and running the Rust snippets shares with the rest of the verification.
#[derive(Clone, Copy)]
struct Running<'a> {
    config: &'a Config,
    workspace: &'a Workspace,
    progress: &'a Progress,
    slots: &'a JobSlots,
}

/// Builds what the cache did not know, runs what must run, and judges everything.
fn build_and_run(
    located: &[Located],
    plans: Vec<Plan>,
    running: &Running<'_>,
    options: &VerifyOptions,
) -> anyhow::Result<RustFinished> {
    let Running {
        config,
        workspace,
        progress,
        slots,
    } = *running;
    progress.note(&format!(
        "building {} snippet(s) in {}",
        plans.len(),
        workspace.crate_dir.display()
    ));
    let planned: Vec<_> = plans.iter().map(|plan| plan.planned.clone()).collect();
    let built = cargo::build(&planned, workspace, !options.cold_build_without_incremental)?;
    let mut finished = Vec::new();
    let mut to_run = Vec::new();
    for (plan, outcome) in plans.into_iter().zip(built) {
        match outcome {
            cargo::Built::Record(record) => {
                let result =
                    judge::judge(&located[plan.index], &record, &module_file(&plan.planned));
                progress.finished(&result);
                finished.push((plan, (record, result)));
            }
            cargo::Built::Executable { program, args, env } => {
                to_run.push((plan, program, (args, env)));
            }
        }
    }
    let requests: Vec<RunRequest> = to_run
        .iter()
        .map(|(plan, program, (args, env))| RunRequest {
            program: program.clone(),
            args: args.clone(),
            env: env.clone(),
            file: None,
            harness_attributes: plan.harness_attributes.clone(),
            pass_env: config.pass_env.clone(),
            writable: config.writable.clone(),
            timeout: plan.timeout,
            output_limit: config.output_limit,
            mutant: None,
        })
        .collect();
    let names = |(plan, program, _): &(Plan, PathBuf, _)| generated_names(program, &plan.planned);
    let records = run_all(&requests, slots, &|index, record| {
        let plan = &to_run[index].0;
        let record = judge::with_rustdoc_names(record.clone(), &names(&to_run[index]));
        let result = judge::judge(
            &located[plan.index],
            &Record::Ran(record),
            &module_file(&plan.planned),
        );
        progress.finished(&result);
    });
    let mut ran = HashMap::new();
    for ((entry, record), request) in to_run.into_iter().zip(records).zip(requests) {
        let names = names(&entry);
        let (plan, program, _) = entry;
        let record = record.with_context(|| format!("running {}", program.display()))?;
        let record = Record::Ran(judge::with_rustdoc_names(record, &names));
        let result = judge::judge(&located[plan.index], &record, &module_file(&plan.planned));
        ran.insert(plan.index, request);
        finished.push((plan, (record, result)));
    }
    Ok((finished, ran))
}

/// Each Rust snippet built, with its record and result; and how each one that ran was run
/// (by snippet index), for its mutant runs.
type RustFinished = (
    Vec<(Plan, (Record, SnippetResult))>,
    HashMap<usize, RunRequest>,
);
