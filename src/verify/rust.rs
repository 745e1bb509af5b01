//! The Rust snippets the cache did not answer: one generated crate built (broken snippets
//! dropped and the rest built again, in `build/strategy.rs`), what built run `jobs` at a time, and
//! everything judged under rustdoc's names.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Context;

use crate::build::strategy;
use crate::build::{Plan, generated_names, module_file};
use crate::config::Config;
use crate::plan::{Record, Workspace};
use crate::progress::Progress;
use crate::run::{JobSlots, RunRequest, judge, run_all};
use crate::snippet::SnippetResult;
use crate::source::Located;

use super::options::VerifyOptions;

/// What building and running the Rust snippets shares with the rest of the verification.
#[derive(Clone, Copy)]
pub(super) struct Running<'a> {
    pub(super) config: &'a Config,
    pub(super) workspace: &'a Workspace,
    pub(super) progress: &'a Progress,
    pub(super) slots: &'a JobSlots,
}

/// Builds what the cache did not know, runs what must run, and judges everything.
pub(super) fn build_and_run(
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
    let mut planned: Vec<_> = plans.iter().map(|plan| plan.planned.clone()).collect();
    let built = strategy::build(
        &mut planned,
        workspace,
        !options.cold_build_without_incremental,
    )?;
    let mut finished = Vec::new();
    let mut to_run = Vec::new();
    for ((mut plan, outcome), placed) in plans.into_iter().zip(built).zip(planned) {
        match outcome {
            strategy::Built::Record(record) => {
                let result =
                    judge::judge(&located[plan.index], &record, &module_file(&plan.planned));
                progress.finished(&result);
                finished.push((plan, (record, result)));
            }
            strategy::Built::Executable { program, args, env } => {
                // Where it was built (a merged snippet may have got a binary of its own) names
                // the file its panics are in; a record names the planned one (the cache's).
                plan.planned = placed;
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
pub(super) type RustFinished = (
    Vec<(Plan, (Record, SnippetResult))>,
    HashMap<usize, RunRequest>,
);
