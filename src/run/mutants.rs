//! The mutant phase of `mdbook-snippets test --mutants`: proof that a proof can fail. A
//! snippet's `kills=NAME` claims "if the behaviour named NAME were broken, I would fail". Once
//! the book has run, every passing snippet that makes such claims runs once more per mutant it
//! names: the same executable (or file, for a declared language), nothing rebuilt, with
//! `MDBOOK_SNIPPETS_MUTANT=NAME` set on its command, through the same job slots, timeout and
//! process-group kill, judged by the usual rules. A run that fails (output, exit code, panic,
//! timeout, a missing expected violation) kills its mutant; one that passes lets it survive,
//! and a survivor fails the verification. Nothing here knows what a mutant does: the snippet,
//! its harness or the server it starts reads the variable.
//!
//! A killed mutant's run is cached under the snippet's key plus the mutant's name (a survivor
//! runs again next time, as a failing snippet does), and is judged afresh against the expected
//! block on every use.

use anyhow::{Context, bail};

use crate::plan::{Cache, Record};
use crate::progress::Progress;
use crate::run::process::{JobSlots, MUTANT_VARIABLE, RunRequest, run_all};
use crate::snippet::{MutantResult, Outcome, Snippet, SnippetResult, Verdict};

/// A snippet whose mutants are due, once it has passed: how to run it again and judge a run.
pub(crate) struct Subject<'a> {
    pub snippet: &'a Snippet,
    /// The snippet's own cache key; each mutant's key adds the mutant's name to it.
    pub cache_key: &'a str,
    /// How the snippet ran (`None` when every mutant run is cached). A snippet that does not
    /// run makes no claim (`mutant_list` refuses it before anything runs).
    pub request: Option<RunRequest>,
    /// Judges a record of the snippet's run as it judges its own run.
    pub judge: Box<dyn Fn(&Record) -> SnippetResult + Sync + 'a>,
}

/// The cache key of the run of mutant `name` of the snippet whose key is `snippet_key`.
pub(crate) fn cache_key(cache: &Cache, snippet_key: &str, name: &str) -> String {
    cache.key(&["mutant", snippet_key, name])
}

/// Whether some mutant of `snippet` (whose key is `snippet_key`) has no cached run, so the
/// snippet's executable is needed.
pub(crate) fn any_uncached(snippet: &Snippet, snippet_key: &str, cache: &Cache) -> bool {
    snippet
        .attributes
        .kills
        .iter()
        .any(|name| cache.get(&cache_key(cache, snippet_key, name)).is_none())
}

/// Runs (or takes from the cache) every mutant of every subject, `slots` at a time, caching
/// the runs that kill their mutant. Results come in subject order, then `kills=` order.
pub(crate) fn run_mutants(
    subjects: &[Subject<'_>],
    slots: &JobSlots,
    cache: &Cache,
    progress: &Progress,
) -> anyhow::Result<Vec<MutantResult>> {
    let mut results: Vec<Option<MutantResult>> = Vec::new();
    // (result slot, subject, mutant's name, cache key) of each run to make.
    let mut pending = Vec::new();
    let mut requests = Vec::new();
    for subject in subjects {
        progress.add(subject.snippet.attributes.kills.len());
        for name in &subject.snippet.attributes.kills {
            let key = cache_key(cache, subject.cache_key, name);
            let known = match cache.get(&key) {
                Some(record) => Some(judged(subject, name, &record)),
                None => {
                    // `verify` builds and runs a snippet again when one of its mutant runs is
                    // not cached; an entry that left the cache since is the tool's problem.
                    let Some(mut request) = subject.request.clone() else {
                        bail!(
                            "the cached run of mutant `{name}` of {}:{} is gone; run again",
                            subject.snippet.span.path.display(),
                            subject.snippet.span.line
                        );
                    };
                    request.mutant = Some(name.clone());
                    pending.push((results.len(), subject, name, key));
                    requests.push(request);
                    None
                }
            };
            if let Some(result) = &known {
                progress.mutant_finished(result);
            }
            results.push(known);
        }
    }
    if !requests.is_empty() {
        progress.note(&format!("running {} mutant run(s)", requests.len()));
    }
    let runs = run_all(&requests, slots, &|index, record| {
        let (_, subject, name, _) = &pending[index];
        progress.mutant_finished(&judged(subject, name, &Record::Ran(record.clone())));
    });
    for ((slot, subject, name, key), run) in pending.into_iter().zip(runs) {
        let record = Record::Ran(run.with_context(|| {
            let span = &subject.snippet.span;
            format!(
                "running mutant `{name}` of {}:{}",
                span.path.display(),
                span.line
            )
        })?);
        let result = judged(subject, name, &record);
        let killed = matches!(result.verdict, Verdict::Killed(_));
        if record.is_cacheable_mutant(killed) {
            cache.put(&key, &record)?;
        }
        results[slot] = Some(result);
    }
    Ok(results
        .into_iter()
        .map(|result| result.expect("every mutant is judged"))
        .collect())
}

/// The verdict on mutant `name` from a record of the subject's run with it.
fn judged(subject: &Subject<'_>, name: &str, record: &Record) -> MutantResult {
    let result = (subject.judge)(record);
    let verdict = match result.outcome {
        Outcome::Failed(failure) => Verdict::Killed(failure),
        Outcome::Passed | Outcome::Skipped => Verdict::Survived(format!(
            "the snippet passed with {MUTANT_VARIABLE}={name}: a snippet that kills `{name}` must fail \
             when it is set (its output, exit code, a panic, a timeout)"
        )),
    };
    MutantResult {
        snippet_id: subject.snippet.id.clone(),
        span: subject.snippet.span.clone(),
        name: name.to_owned(),
        verdict,
        stdout: result.stdout,
        elapsed: result.elapsed,
    }
}

/// `(killed, survived)` among `results`.
pub(crate) fn counts(results: &[MutantResult]) -> (usize, usize) {
    let killed = results
        .iter()
        .filter(|result| matches!(result.verdict, Verdict::Killed(_)))
        .count();
    (killed, results.len() - killed)
}

#[cfg(test)]
#[path = "mutants_tests.rs"]
mod tests;
