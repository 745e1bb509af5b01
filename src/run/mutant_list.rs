//! The claims of `kills=NAME`, checked under `test --mutants` before anything is built or run,
//! so that a claim cannot pass for the wrong reason:
//!
//! - every name must be one the book's `mutants` command lists (`NAME<TAB>rule` lines, as
//!   `mcp-testserver --list-mutants` prints them). A misspelt name would otherwise be refused
//!   by whatever reads `MDBOOK_SNIPPETS_MUTANT`, the snippet would fail on that, and the
//!   failure would count as a kill: a proof that cannot fail. With the list, a mutant run only
//!   ever names a mutant the program knows, so its failure is the program breaking that rule.
//! - a snippet that does not run (`ignore`, `no_run`, `compile_fail`, in every language) can
//!   notice nothing, so its claims are false by construction.
//!
//! Either is an error at the claim's fence (exit 2). A book without a `mutants` key keeps
//! today's behaviour, names unchecked, with a warning saying so.

use std::io::Read as _;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::config::{Config, MutantsCommand};
use crate::progress::Progress;
use crate::snippet::Snippet;
use crate::source::edit_distance;

/// How long the `mutants` command may take: it may build the program that lists them
/// (`cargo run ... --list-mutants` on a fresh clone).
pub(crate) const LIST_TIMEOUT: Duration = Duration::from_secs(600);

/// The most bytes of the list that are read.
const LIST_LIMIT: usize = 1 << 20;

/// Checks the claims of `snippets` (every snippet of the book, whatever a `--mutants` run
/// selects: a false claim is the book's error, as a bad `book.toml` key is): `Err` names each
/// false one at its fence. Runs the `mutants` command only when some snippet makes a claim.
pub(crate) fn check_claims(
    snippets: &[&Snippet],
    config: &Config,
    progress: &Progress,
) -> anyhow::Result<()> {
    let claims: Vec<&Snippet> = snippets
        .iter()
        .copied()
        .filter(|snippet| !snippet.attributes.kills.is_empty())
        .collect();
    if claims.is_empty() {
        return Ok(());
    }
    let known = match &config.mutants {
        Some(command) => Some(list(command, &config.book_root, progress)?),
        None => {
            progress.suspend(|| {
                eprintln!(
                    "warning: `kills=` names are not checked: book.toml has no `mutants` command \
                     listing the mutants ([preprocessor.snippets] mutants = [...]), so a \
                     misspelt name fails its run and counts as killed"
                );
            });
            None
        }
    };
    let shown = config
        .mutants
        .as_ref()
        .map(|mutants| mutants.shown.as_str());
    let problems = problems(&claims, known.as_deref(), shown);
    if problems.is_empty() {
        return Ok(());
    }
    bail!(
        "{} false `kills=` claim(s), nothing was run:\n{}",
        problems.len(),
        problems.join("\n")
    )
}

/// Each false claim among `claims`, as `PATH:LINE: why`. `known` is the list of mutants
/// (`None`: unchecked), `command` the command that printed it, as `book.toml` writes it.
pub(crate) fn problems(
    claims: &[&Snippet],
    known: Option<&[String]>,
    command: Option<&str>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for snippet in claims {
        let at = format!("{}:{}", snippet.span.path.display(), snippet.span.line);
        if let Some(why) = not_run(snippet) {
            problems.push(format!(
                "{at}: `kills={}` on a snippet that does not run ({why}): nothing could notice \
                 the mutant (remove the claim, or let the snippet run)",
                snippet.attributes.kills.join("`, `kills=")
            ));
            continue;
        }
        let Some(known) = known else { continue };
        for name in &snippet.attributes.kills {
            if known.contains(name) {
                continue;
            }
            let hint = known
                .iter()
                .map(|candidate| (edit_distance(name, candidate), candidate))
                .filter(|(distance, _)| *distance <= 3)
                .min()
                .map(|(_, candidate)| format!("; did you mean `{candidate}`?"))
                .unwrap_or_default();
            problems.push(format!(
                "{at}: `kills={name}`: no such mutant in the list `{}` prints{hint}",
                command.unwrap_or_default()
            ));
        }
    }
    problems
}

/// Why `snippet` does not run, if it does not.
fn not_run(snippet: &Snippet) -> Option<&'static str> {
    let attributes = &snippet.attributes;
    if attributes.ignore {
        Some("`ignore`")
    } else if attributes.compile_fail.is_some() {
        Some("`compile_fail`")
    } else if attributes.no_run {
        Some("`no_run`")
    } else {
        None
    }
}

/// The names the `mutants` command prints: the first tab-separated field of each non-blank
/// line. It runs from the book root contained as a language's `setup` is (`sandbox.rs`: its
/// own namespaces, writing anywhere but the cache, the snippets' clean environment), its stderr
/// shown, for at most [`LIST_TIMEOUT`]; everything it started ends when it exits.
fn list(
    mutants: &MutantsCommand,
    book_root: &Path,
    progress: &Progress,
) -> anyhow::Result<Vec<String>> {
    let (shown, command) = (&mutants.shown, &mutants.command);
    let marks_dir = crate::run::scratch::Scratch::new("mdbook-snippets-mutants-")
        .context("creating a temporary directory for the `mutants` command")?;
    let (mut child, contained) = crate::run::setup_process::start_like_a_setup(
        Path::new(&command[0]),
        &command[1..],
        book_root,
        Stdio::piped(),
        &marks_dir,
    )
    .with_context(|| format!("starting the `mutants` command `{shown}`"))?;
    let stdout = child.stdout.take().expect("piped");
    // Read on a thread of its own: a command that never closes its stdout cannot hold us.
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stdout
            .take(LIST_LIMIT as u64 + 1)
            .read_to_end(&mut bytes)
            .map(|_| bytes)
    });
    let status = progress.suspend(|| wait(&mut child, Instant::now() + LIST_TIMEOUT));
    let status = status.with_context(|| format!("waiting for the `mutants` command `{shown}`"));
    let status = match status {
        Ok(Some(status)) => status,
        other => {
            contained.stopper().stop();
            let _ = crate::run::containment::wait_or_kill(
                &mut child,
                crate::run::containment::STOP_GRACE,
            );
            contained.finish(None);
            other?;
            bail!(
                "the `mutants` command `{shown}` did not finish within {} s; it was killed",
                LIST_TIMEOUT.as_secs()
            );
        }
    };
    // Whatever it left running (a background child holding its stdout) ends now, and with it
    // the pipe the reader waits on.
    contained.finish(Some(&status));
    if !status.success() {
        bail!("the `mutants` command `{shown}` failed ({status})");
    }
    let bytes = reader
        .join()
        .expect("reading does not panic")
        .with_context(|| format!("reading what the `mutants` command `{shown}` printed"))?;
    if bytes.len() > LIST_LIMIT {
        bail!("the `mutants` command `{shown}` printed more than {LIST_LIMIT} bytes");
    }
    let names = parse_list(&String::from_utf8_lossy(&bytes));
    if names.is_empty() {
        bail!("the `mutants` command `{shown}` listed no mutant (expected `NAME<TAB>rule` lines)");
    }
    Ok(names)
}

/// `NAME<TAB>rule` lines -> the names (a line without a tab is a name alone).
pub(crate) fn parse_list(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.split('\t').next())
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `Some(status)` once `child` exits, `None` at `deadline`.
fn wait(
    child: &mut std::process::Child,
    deadline: Instant,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
#[path = "mutant_list_tests.rs"]
mod tests;
