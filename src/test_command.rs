//! `mdbook-snippets test [BOOK_DIR]`: load the book, verify it, print the report, and pick the
//! exit code (0 every snippet passed, 1 some snippet failed). A closed stdout ends the report
//! quietly. The containment line comes before the report, so that `N passed, M failed` stays
//! the last line a terminal or a CI log shows.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;

use crate::cli::{Format, TestArgs};
use crate::config::Config;
use crate::report::{github, junit, terminal};
use crate::verify::{UnstoredResults, VerifyOptions, verify};

pub(crate) fn run(args: &TestArgs) -> anyhow::Result<ExitCode> {
    let result = verify_and_report(args);
    // A run that stopped on an error says it before the error (main prints that).
    say_containment();
    result
}

/// `mdbook-snippets: containment: ...` on stderr, once, when this process started a snippet or a
/// setup: which containment they had.
pub(crate) fn say_containment() {
    static SAID: AtomicBool = AtomicBool::new(false);
    if let Some(containment) = crate::run::containment_summary()
        && !SAID.swap(true, Ordering::SeqCst)
    {
        eprintln!("mdbook-snippets: {containment}");
    }
}

fn verify_and_report(args: &TestArgs) -> anyhow::Result<ExitCode> {
    crate::run::stop_on_signals()?;
    let mut config = Config::from_book_toml(&args.book_dir)?;
    args.apply(&mut config);
    let book = crate::mdbook::book::load(&config)?;
    let options = VerifyOptions {
        selection: args.selection(),
        progress: !args.quiet,
        cold_build_without_incremental: true,
        mutants: args.mutants,
    };
    // Verdicts that could not be stored (a full disk) are still reported; the run then fails.
    let (report, tool_error) = match verify(&book, &config, &options) {
        Ok(report) => (report, None),
        Err(error) => {
            let unstored = error.downcast::<UnstoredResults>()?;
            (unstored.report, Some(unstored.error))
        }
    };
    let mut out = terminal::human(&report, &config.book_root);
    if args.format() == Format::Github {
        let prefix = annotation_prefix(&config.book_root);
        out.push_str(&github::github_annotations(&report, &prefix));
    }
    say_containment();
    print_report(&out)?;
    if let Some(error) = tool_error {
        return Err(error);
    }
    if crate::report::overwrite_requested(args.bless) {
        // The chapters as the run read them: only a block still as it was is rewritten.
        let chapters = book
            .chapters
            .iter()
            .map(|chapter| (chapter.path.as_path(), chapter.text.as_str()))
            .collect();
        let blessed = crate::report::bless_book(
            &config.book_root,
            &report.snippets,
            &report.results,
            &chapters,
        )?;
        for refused in &blessed.refused {
            eprintln!("warning: {refused}");
        }
        for path in &blessed.changed {
            eprintln!("blessed the expected output in {}", path.display());
        }
    }
    if let Some(path) = &args.junit {
        write_junit(&junit::junit(&report)?, path)?;
    }
    Ok(if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The book's directory as GitHub annotations name it: from the repository's root
/// (`GITHUB_WORKSPACE`), else from the current directory (`report/github.rs`).
fn annotation_prefix(book_root: &Path) -> PathBuf {
    let workspace = std::env::var_os("GITHUB_WORKSPACE")
        .filter(|value| !value.is_empty())
        .and_then(|value| std::fs::canonicalize(value).ok());
    let current = std::env::current_dir().and_then(std::fs::canonicalize).ok();
    github::book_prefix(book_root, workspace.as_deref(), current.as_deref())
}

/// Writes the JUnit document to `path`, creating its missing directories (a workspace's
/// `target/` for a book in a subfolder, before anything was built there).
fn write_junit(xml: &str, path: &Path) -> anyhow::Result<()> {
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(path, xml).with_context(|| format!("writing {}", path.display()))
}

/// Writes the report to stdout. A reader that went away (`mdbook-snippets test | head`) is not an
/// error: the rest of the report is dropped quietly, as ripgrep does, and the run still blesses,
/// writes its JUnit file and exits with the verdict.
fn print_report(report: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(report.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(error).context("writing the report to stdout")
        }
        _ => Ok(()),
    }
}
