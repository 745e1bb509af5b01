//! A [`Report`] as JUnit XML (`--junit PATH`, through `quick-junit`): a test case per snippet,
//! per chapter not verified, and per mutant run; a snippet's or a mutant run's case has its run's
//! time when it ran in this verification (not when its verdict came from the cache). Control
//! characters a snippet printed are shown escaped, as in the terminal report (`quick-junit` would
//! drop them silently).

use anyhow::Context as _;
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use crate::report::terminal::{escape_controls, kind_name};
use crate::snippet::{MutantResult, Outcome, Verdict};
use crate::verify::Report;

/// A JUnit XML document (written by `quick-junit`) with one test case per snippet, named
/// `path:line`, and one per chapter that could not be verified.
pub(crate) fn junit(report: &Report) -> anyhow::Result<String> {
    let mut suite = TestSuite::new("mdbook-snippets");
    suite.set_time(report.duration);
    for result in &report.results {
        let status = match &result.outcome {
            Outcome::Passed => TestCaseStatus::success(),
            Outcome::Skipped => TestCaseStatus::skipped(),
            Outcome::Failed(failure) => failed(kind_name(failure.kind), &failure.message),
        };
        let name = format!("{}:{}", result.span.path.display(), result.span.line);
        let mut case = TestCase::new(name, status);
        case.set_classname(result.span.path.display().to_string());
        if let Some(elapsed) = result.elapsed {
            case.set_time(elapsed);
        }
        if !result.stdout.is_empty() {
            case.set_system_out(escape_controls(&result.stdout));
        }
        suite.add_test_case(case);
    }
    for failure in &report.chapter_failures {
        let span = &failure.span;
        let name = format!("{}:{}", span.path.display(), span.line);
        let mut case = TestCase::new(name, failed("chapter not verified", &failure.message));
        case.set_classname(failure.chapter_path.display().to_string());
        suite.add_test_case(case);
    }
    for mutant in report.mutants.iter().flatten() {
        suite.add_test_case(mutant_case(mutant));
    }
    let mut junit = quick_junit::Report::new("mdbook-snippets");
    junit.set_time(report.duration);
    junit.add_test_suite(suite);
    junit.to_string().context("writing the JUnit XML report")
}

/// A mutant run as a JUnit test case, `src/ch1.md:3 mutant NAME`: passed when the mutant was
/// killed (how, in its output), failed when it survived.
fn mutant_case(mutant: &MutantResult) -> TestCase {
    let span = &mutant.span;
    let name = format!(
        "{}:{} mutant {}",
        span.path.display(),
        span.line,
        mutant.name
    );
    let (status, output) = match &mutant.verdict {
        Verdict::Killed(failure) => (
            TestCaseStatus::success(),
            format!("killed: {}\n{}", kind_name(failure.kind), failure.message),
        ),
        Verdict::Survived(why) => (failed("mutant survived", why), mutant.stdout.clone()),
    };
    let mut case = TestCase::new(name, status);
    case.set_classname(span.path.display().to_string());
    if let Some(elapsed) = mutant.elapsed {
        case.set_time(elapsed);
    }
    if !output.is_empty() {
        case.set_system_out(escape_controls(&output));
    }
    case
}

fn failed(kind: &str, message: &str) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    status
        .set_message(kind)
        .set_description(escape_controls(message));
    status
}
