//! The snippets of declared languages: planned, run `jobs` at a time beside the Rust build, and
//! judged. No build: a language's snippet runs as its file.

use anyhow::Context;

use crate::config::Config;
use crate::plan::{Cache, Record};
use crate::progress::Progress;
use crate::run::other_languages::{self, LanguagePlan};
use crate::run::{JobSlots, RunRequest, run_all};
use crate::snippet::SnippetResult;
use crate::source::Located;

/// The plans of the snippets of declared languages at `indices`; a `no_run` snippet of a
/// language without `check` has none.
pub(super) fn plan_languages(
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

pub(super) fn language_result(
    located: &[Located],
    plan: &LanguagePlan,
    record: &Record,
) -> SnippetResult {
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
pub(super) fn run_languages(
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
