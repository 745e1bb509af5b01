//! The selected snippets nothing has decided yet, in phases: plan each (its cache key), answer
//! what the cache knows, prepare the setups of the languages that run, build and run the rest
//! (other languages on a scoped thread beside the Rust build), store the new records, and under
//! `--mutants` run the mutants of the snippets that claim to kill them.

use std::collections::HashMap;

use crate::build::{Plan, module_file, named_edition, plan};
use crate::config::Config;
use crate::plan::{Cache, Record, Toolchain, Workspace};
use crate::progress::Progress;
use crate::run::mutants::{self, Subject};
use crate::run::other_languages::LanguagePlan;
use crate::run::{JobSlots, RunRequest, judge};
use crate::snippet::{MutantResult, Outcome, SnippetResult};
use crate::source::Located;

use super::languages::{language_result, plan_languages, run_languages};
use super::options::VerifyOptions;
use super::rust::{Running, RustFinished, build_and_run};

/// What the phases share: the book's snippets, how to verify them, where progress goes.
#[derive(Clone, Copy)]
pub(super) struct Book<'a> {
    pub located: &'a [Located],
    pub config: &'a Config,
    pub options: &'a VerifyOptions,
    pub progress: &'a Progress,
}

/// What deciding the pending snippets yields besides their results.
pub(super) struct Decided {
    /// The edition the book or its harness names (`None`: snippets are 2015 by default).
    pub book_edition: Option<String>,
    /// A record that could not be stored (a full disk); the verdicts stand.
    pub cache_error: Option<anyhow::Error>,
    /// Under `--mutants`, one per mutant run.
    pub mutants: Option<Vec<MutantResult>>,
}

/// The plans of the pending snippets, split by what decides them.
struct Work {
    /// Rust snippets to build (and run).
    to_build: Vec<Plan>,
    /// Snippets of declared languages to run.
    to_run: Vec<LanguagePlan>,
    /// The snippets that claim to kill mutants, for the mutant phase.
    rust_claims: Vec<Plan>,
    language_claims: Vec<LanguagePlan>,
}

/// Decides every snippet of `pending` into `results`. `Err` is the tool failing (no
/// workspace, a setup that fails, cargo missing).
pub(super) fn decide(
    book: Book<'_>,
    pending: Vec<usize>,
    toolchain: Toolchain,
    results: &mut [Option<SnippetResult>],
) -> anyhow::Result<Decided> {
    let workspace = Workspace::discover(book.config, toolchain)?;
    crate::run::sandbox::configure(super::sandbox_settings::with_workspace(
        book.config,
        &workspace.cache_dir,
        &workspace.target_dir,
    )?);
    let book_edition = named_edition(book.config, &workspace.settings).map(str::to_owned);
    let cache = Cache::new(
        workspace.cache_dir.clone(),
        format!(
            "{}{}",
            workspace.fingerprint,
            super::sandbox_settings::verdict_inputs(book.config)
        ),
        book.config.use_cache,
    );
    let (language_pending, rust_pending): (Vec<usize>, Vec<usize>) = pending
        .into_iter()
        .partition(|&index| book.located[index].snippet.language.is_some());
    let language_plans = plan_languages(book.located, &language_pending, book.config, &cache)?;
    for &index in &language_pending {
        if !language_plans.iter().any(|plan| plan.index == index) {
            // `no_run` in a language without `check`: nothing to verify.
            let snippet = &book.located[index].snippet;
            results[index] = Some(judge::result(snippet, Outcome::Skipped, None));
        }
    }
    let plans: Vec<Plan> = rust_pending
        .iter()
        .map(|&index| {
            plan(
                &book.located[index],
                index,
                book.config,
                &workspace.settings,
                &cache,
            )
        })
        .collect();
    book.progress.add(plans.len() + language_plans.len());
    let work = answer_from_cache(book, plans, language_plans, &cache, results);

    let languages_needed: Vec<&str> = work
        .to_run
        .iter()
        .filter_map(|plan| {
            let language = book.located[plan.index].snippet.language.as_ref()?;
            Some(language.name.as_str())
        })
        .collect();
    let setup_state = workspace.cache_dir.with_file_name("setup");
    crate::build::setup::prepare(
        book.config,
        &languages_needed,
        &setup_state,
        book.progress,
        &crate::run::run_setup,
    )?;
    let slots = JobSlots::new(book.config.jobs);
    let running = Running {
        config: book.config,
        workspace: &workspace,
        progress: book.progress,
        slots: &slots,
    };
    // Held until every snippet (and mutant) has run: the executables live in the shared
    // target dir and another run of the same book would rebuild them under our feet.
    let (finished, rust_requests, lock) = run_uncached(book, &work, &running)?;
    let cache_error = store(finished, &cache, results);
    let mutants = if book.options.mutants {
        let subjects = mutant_subjects(book.located, results, &work, rust_requests);
        Some(mutants::run_mutants(
            &subjects,
            &slots,
            &cache,
            book.progress,
        )?)
    } else {
        None
    };
    drop(lock);
    Ok(Decided {
        book_edition,
        cache_error,
        mutants,
    })
}

/// Judges every plan whose record the cache holds into `results`, and returns the rest. A
/// snippet with a mutant run to make is built (and run) again: its executable is needed, and
/// only this run's build is sure to hold it.
fn answer_from_cache(
    book: Book<'_>,
    plans: Vec<Plan>,
    language_plans: Vec<LanguagePlan>,
    cache: &Cache,
    results: &mut [Option<SnippetResult>],
) -> Work {
    let located = book.located;
    let claims =
        |index: usize| book.options.mutants && !located[index].snippet.attributes.kills.is_empty();
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
    let (cached_languages, to_run): (Vec<LanguagePlan>, Vec<LanguagePlan>) = language_plans
        .into_iter()
        .partition(|plan| cache.get(&plan.cache_key).is_some());
    for plan in &cached_languages {
        let record = cache.get(&plan.cache_key).expect("partitioned on it");
        let result = language_result(located, plan, &record);
        book.progress.finished(&result);
        results[plan.index] = Some(result);
    }
    let (cached, to_build): (Vec<Plan>, Vec<Plan>) = plans.into_iter().partition(|plan| {
        cache.get(&plan.cache_key).is_some()
            && !(claims(plan.index)
                && mutants::any_uncached(&located[plan.index].snippet, &plan.cache_key, cache))
    });
    for plan in &cached {
        let record = cache.get(&plan.cache_key).expect("partitioned on it");
        let result = judge::judge(&located[plan.index], &record, &module_file(&plan.planned));
        book.progress.finished(&result);
        results[plan.index] = Some(result);
    }
    Work {
        to_build,
        to_run,
        rust_claims,
        language_claims,
    }
}

/// Each snippet decided by this run: its index, cache key, record and result.
type Finished = Vec<(usize, String, (Record, SnippetResult))>;

/// Builds and runs the Rust snippets of `work` while the other languages' snippets run on a
/// scoped thread, within the same job slots. Returns what finished, how each Rust snippet that
/// ran was run, and the crate lock (held while a Rust snippet was built).
fn run_uncached<'a>(
    book: Book<'_>,
    work: &Work,
    running: &Running<'a>,
) -> anyhow::Result<(
    Finished,
    HashMap<usize, RunRequest>,
    Option<crate::plan::CrateLock>,
)> {
    let (rust, languages) = std::thread::scope(|scope| {
        let languages =
            scope.spawn(|| run_languages(book.located, &work.to_run, running.slots, book.progress));
        let rust = if work.to_build.is_empty() {
            Ok((Vec::new(), HashMap::new(), None))
        } else {
            running.workspace.lock().and_then(|lock| {
                let (finished, requests): RustFinished =
                    build_and_run(book.located, work.to_build.clone(), running, book.options)?;
                Ok((finished, requests, Some(lock)))
            })
        };
        (
            rust,
            languages.join().expect("running snippets does not panic"),
        )
    });
    let (rust, requests, lock) = rust?;
    let finished = rust
        .into_iter()
        .map(|(plan, finished)| (plan.index, plan.cache_key, finished))
        .chain(
            languages?
                .into_iter()
                .map(|(plan, finished)| (plan.index, plan.cache_key, finished)),
        )
        .collect();
    Ok((finished, requests, lock))
}

/// Puts each finished snippet's result into `results` and its record into the cache when it is
/// cacheable. A record that cannot be stored (a full disk) does not lose the verdicts: the
/// first such error is returned, to be reported after them.
fn store(
    finished: Finished,
    cache: &Cache,
    results: &mut [Option<SnippetResult>],
) -> Option<anyhow::Error> {
    let mut cache_error = None;
    for (index, cache_key, (record, result)) in finished {
        let passed = matches!(result.outcome, Outcome::Passed);
        if record.is_cacheable(passed)
            && let Err(error) = cache.put(&cache_key, &record)
        {
            cache_error.get_or_insert(error);
        }
        results[index] = Some(result);
    }
    cache_error
}

/// The snippets whose mutants are due: those of `work`'s claims that
/// passed, in book order, each with how it ran (a Rust one's request from `rust_requests`, by
/// snippet index, when it was built and run this time) and how a run of it is judged.
fn mutant_subjects<'a>(
    located: &'a [Located],
    results: &[Option<SnippetResult>],
    work: &'a Work,
    mut rust_requests: HashMap<usize, RunRequest>,
) -> Vec<Subject<'a>> {
    let (rust_claims, language_claims) = (&work.rust_claims, &work.language_claims);
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
