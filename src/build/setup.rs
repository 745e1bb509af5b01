//! A declared language's `setup`: the command that prepares its environment (a venv, a
//! `node_modules`), run from the book root before the first snippet of the language that must
//! run, and again only when what it depends on changes. What it depends on is its key: the
//! command, the content of its program when that is a file, the content of each argument that
//! names a file (`sh setup.sh`: the script), and the content of each `setup-inputs` path; the key of the last successful run is kept in
//! `<target>/mdbook-snippets/setup/`. Languages that name the same command share one run.
//! Its output goes to stderr as progress (stdout, which may carry the book, is never touched).
//! A setup that fails, or runs past its `setup-timeout`, is one error naming the command and its
//! languages, before any snippet of theirs runs. The process itself is started by the runner
//! `verify` passes (`run::run_setup`: contained like a snippet, ended with everything it
//! started at the deadline or on SIGINT/SIGTERM), since this stage comes before `run/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::Duration;

use anyhow::{Context, bail};

use crate::config::{Config, Setup};
use crate::plan::hash_str;
use crate::progress::Progress;

/// What runs a setup command (program and arguments) from a directory until it exits
/// (`Some(status)`) or the timeout passes (`None`: stopped, with everything it started).
pub(crate) type SetupRunner<'a> =
    &'a dyn Fn(&[String], &Path, Duration) -> anyhow::Result<Option<ExitStatus>>;

/// Runs the setup of each language in `languages` (names of `config.languages`) that has one
/// and whose key changed since its last successful run, through `runner`. `state_dir` keeps the
/// keys.
pub(crate) fn prepare(
    config: &Config,
    languages: &[&str],
    state_dir: &Path,
    progress: &Progress,
    runner: SetupRunner<'_>,
) -> anyhow::Result<()> {
    // Setups by command, in the order the book declares the languages, each with its languages.
    let mut setups: BTreeMap<&[String], (&Setup, Vec<&str>)> = BTreeMap::new();
    for language in &config.languages {
        if let Some(setup) = &language.setup
            && languages.contains(&language.name.as_str())
        {
            setups
                .entry(&setup.command)
                .or_insert((setup, Vec::new()))
                .1
                .push(&language.name);
        }
    }
    for (setup, names) in setups.values() {
        let key = setup_key(setup, &config.book_root)?;
        // One stamp per book and command: the same command in another book is another setup.
        let stamp = state_dir.join(hash_str(&format!(
            "{}\0{}",
            config.book_root.display(),
            setup.command.join("\0")
        )));
        if std::fs::read_to_string(&stamp).is_ok_and(|kept| kept == key) {
            continue;
        }
        let names = names
            .iter()
            .map(|name| format!("`{name}`"))
            .collect::<Vec<_>>()
            .join(", ");
        progress.suspend(|| run(setup, &names, &config.book_root, runner))?;
        std::fs::create_dir_all(state_dir)
            .with_context(|| format!("creating {}", state_dir.display()))?;
        std::fs::write(&stamp, key).with_context(|| format!("writing {}", stamp.display()))?;
    }
    Ok(())
}

/// The hash of what `setup`, run in `book_root`, depends on; part of its languages' cache
/// identity too (`other_languages::inputs_hashes`).
pub(crate) fn setup_key(setup: &Setup, book_root: &Path) -> anyhow::Result<String> {
    let mut parts = format!("{}\n{:?}\n", book_root.display(), setup.command);
    let program = Path::new(&setup.command[0]);
    if program.is_absolute() && program.is_file() {
        parts.push_str(&format!("program {}\n", crate::plan::hash_path(program)?));
    }
    parts.push_str(&argument_files_key(&setup.command, Some(book_root))?);
    for input in &setup.inputs {
        parts.push_str(&format!(
            "{} {}\n",
            input.display(),
            crate::plan::hash_path(input)?
        ));
    }
    Ok(hash_str(&parts))
}

/// The content of each argument of `command` (after its program) that names a file: the
/// script an interpreter runs (`sh setup.sh`, `python3 /opt/run.py {file}`) is as much what
/// runs as the program is. A relative argument is taken from `cwd`, where the command runs;
/// without one (a snippet's command runs in a fresh temporary directory) only absolute
/// arguments name files. Directories are left out (an argument `.` is no reason to hash the
/// book), and so is `{file}`, the snippet.
pub(crate) fn argument_files_key(command: &[String], cwd: Option<&Path>) -> anyhow::Result<String> {
    let mut parts = String::new();
    for argument in command.iter().skip(1) {
        let path = match cwd {
            Some(cwd) if !argument.is_empty() => cwd.join(argument),
            _ => PathBuf::from(argument),
        };
        if path.is_absolute() && path.is_file() {
            parts.push_str(&format!(
                "argument {argument} {}\n",
                crate::plan::hash_path(&path)?
            ));
        }
    }
    Ok(parts)
}

fn run(
    setup: &Setup,
    names: &str,
    book_root: &Path,
    runner: SetupRunner<'_>,
) -> anyhow::Result<()> {
    eprintln!("mdbook-snippets: setting up {names}: {}", setup.shown);
    let status = runner(&setup.command, book_root, setup.timeout)
        .with_context(|| format!("running the setup of {names}: `{}`", setup.shown))?;
    match status {
        Some(status) if status.success() => Ok(()),
        Some(status) => bail!(
            "the setup of {names} failed: `{}` {status} (its output is above; it runs from the \
             book root, as `setup` in book.toml says); no snippet of {names} was run",
            setup.shown
        ),
        None => bail!(
            "the setup of {names} timed out: `{}` ran for {} s (`setup-timeout`) and was \
             stopped with everything it started; no snippet of {names} was run",
            setup.shown,
            setup.timeout.as_secs()
        ),
    }
}
