//! `snippet_main`: the entry point the verifier calls for a snippet without `fn main`. It reads
//! the snippet's attributes, runs the body once per revision on a current-thread tokio runtime
//! with a paused clock, writes the artifacts, and turns failures and unexpected (or missing)
//! violations into a non-zero exit.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;

use crate::artifacts::{RunArtifacts, begin_run, end_run, write_artifacts};
use crate::revision::{Revision, set_current_revision};

/// The environment variable holding the snippet's attributes.
pub const ATTRS_VAR: &str = "MDBOOK_SNIPPETS_ATTRS";
/// The environment variable naming the artifact directory.
pub use crate::artifact_files::ARTIFACTS_VAR;

/// What the attributes ask for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attributes {
    /// The revisions to run the body under, in order.
    pub revisions: Vec<Revision>,
    /// Violation rules the snippet expects (each must occur in each run).
    pub expected_violations: Vec<String>,
}

impl Attributes {
    /// Parses `revision=2025-11-25|2026-07-28|both` and repeatable `expect_violation=RULE`
    /// from a comma-separated list; other attributes belong to others and are ignored. A later
    /// `revision` wins (the verifier puts the snippet's own after the book's defaults).
    pub fn parse(text: &str) -> Result<Attributes, String> {
        let mut attributes = Attributes {
            revisions: vec![Revision::V2025_11_25],
            expected_violations: Vec::new(),
        };
        for item in text
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            let (key, value) = item.split_once('=').unwrap_or((item, ""));
            match key.trim() {
                "revision" => {
                    attributes.revisions = match value.trim() {
                        "both" => Revision::ALL.to_vec(),
                        other => vec![other.parse::<Revision>()?],
                    }
                }
                "expect_violation" if !value.trim().is_empty() => {
                    attributes.expected_violations.push(value.trim().to_owned());
                }
                "expect_violation" => {
                    return Err(
                        "`expect_violation` needs a rule, e.g. expect_violation=reused-id".into(),
                    );
                }
                _ => {}
            }
        }
        Ok(attributes)
    }
}

/// Runs a snippet body: see the module docs and ARCHITECTURE.md, "The harness protocol". Never returns.
pub fn snippet_main<F, Fut, E>(body: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    let attributes = match Attributes::parse(&std::env::var(ATTRS_VAR).unwrap_or_default()) {
        Ok(attributes) => attributes,
        Err(error) => {
            eprintln!("error: {ATTRS_VAR}: {error}");
            std::process::exit(1);
        }
    };
    // A mistyped mutant name is the tool's error, said once, not a panic in every server.
    if let Err(error) = crate::server::mutants::from_env() {
        eprintln!("error: {}: {error}", crate::server::mutants::MUTANT_VAR);
        std::process::exit(1);
    }
    let several = attributes.revisions.len() > 1;
    let mut failures = Vec::new();
    let mut runs = Vec::new();
    for &revision in &attributes.revisions {
        if several {
            println!("── revision {revision} ──");
        }
        set_current_revision(revision);
        begin_run();
        let prefix = if several {
            format!("revision {revision}: ")
        } else {
            String::new()
        };
        match run_once(&body) {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                failures.push(format!("{prefix}the snippet returned an error: {error}"))
            }
            Err(()) => failures.push(format!("{prefix}the snippet panicked")),
        }
        let registrations = end_run();
        let seen: Vec<_> = registrations
            .iter()
            .flat_map(|registration| registration.violations.reported())
            .collect();
        for violation in &seen {
            if !attributes.expected_violations.contains(&violation.rule) {
                failures.push(format!("{prefix}unexpected protocol violation {violation}"));
            }
        }
        for rule in &attributes.expected_violations {
            if !seen.iter().any(|violation| &violation.rule == rule) {
                failures.push(format!(
                    "{prefix}expected protocol violation `{rule}` did not happen"
                ));
            }
        }
        runs.push(RunArtifacts {
            revision,
            registrations,
        });
    }
    if let Some(directory) = std::env::var_os(ARTIFACTS_VAR).map(PathBuf::from)
        && let Err(error) = write_artifacts(&directory, &runs)
    {
        failures.push(format!("writing artifacts: {error:#}"));
    }
    if !failures.is_empty() {
        for failure in &failures {
            eprintln!("error: {failure}");
        }
        std::process::exit(1);
    }
    std::process::exit(0);
}

/// One run of the body on a fresh runtime (so nothing leaks between revisions).
fn run_once<F, Fut, E>(body: &F) -> Result<Result<(), E>, ()>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(), E>>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("building a current-thread tokio runtime");
    std::panic::catch_unwind(AssertUnwindSafe(|| {
        runtime.block_on(async {
            let result = body().await;
            // Let connections notice a dropped client, so its last messages reach the transcript.
            for _ in 0..16 {
                tokio::task::yield_now().await;
            }
            result
        })
    }))
    .map_err(|_| ())
}

#[cfg(test)]
#[path = "harness_tests.rs"]
mod tests;
