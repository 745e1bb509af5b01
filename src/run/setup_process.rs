//! A language setup's process (`build/setup.rs` decides when one runs; `verify` hands it this
//! runner): contained like a snippet (`sandbox.rs`: its own PID namespace where the kernel
//! allows it, else the subreaper launcher; no Landlock, since a setup installs things), ended
//! with everything it started at its deadline (`setup-timeout`) or when the verifier is stopped
//! (SIGINT, SIGTERM). Its stdout goes to the verifier's stderr, as progress; stdin is closed.

use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::run::containment::{Contained, STOP_GRACE, wait_or_kill};
use crate::run::sandbox::Access;
use crate::run::scratch::Scratch;

/// Runs `command` (program and arguments) from `cwd` with the snippets' clean environment until it
/// exits (`Some(status)`) or `timeout` passes (`None`: it was stopped, with everything it
/// started).
pub(crate) fn run_setup(
    command: &[String],
    cwd: &Path,
    timeout: Duration,
) -> anyhow::Result<Option<ExitStatus>> {
    let (program, args) = command.split_first().context("an empty setup command")?;
    let stderr = std::io::stderr();
    let as_stdout = std::os::fd::AsFd::as_fd(&stderr)
        .try_clone_to_owned()
        .context("duplicating stderr")?;
    let marks_dir = Scratch::new("mdbook-snippets-setup-")
        .context("creating a temporary directory for a setup")?;
    let (mut child, contained) = start_like_a_setup(
        Path::new(program),
        args,
        cwd,
        Stdio::from(as_stdout),
        &marks_dir,
    )
    .with_context(|| format!("starting {program}"))?;
    let deadline = Instant::now().checked_add(timeout);
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait().context("waiting for the setup")? {
            break Some(status);
        }
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            contained.stopper().stop();
            wait_or_kill(&mut child, STOP_GRACE).context("stopping the setup")?;
            break None;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    contained.finish(status.as_ref());
    Ok(status)
}

/// Starts `program args` as a setup (or the `mutants` command, `mutant_list.rs`) is started:
/// through the launcher (`Access::Setup`), from `cwd`, with the snippets' clean environment (a
/// secret of the verifier's is not a setup's), stdin closed and stdout to `stdout`, contained as
/// a run. Its marks' directory (a process working in it belongs to the run) is `marks_dir`, a
/// scratch directory of its own, never the book root, where cargo and other processes of the
/// verifier work too; the caller keeps it until the run has ended.
pub(crate) fn start_like_a_setup(
    program: &Path,
    args: &[String],
    cwd: &Path,
    stdout: Stdio,
    marks_dir: &Scratch,
) -> anyhow::Result<(Child, Contained)> {
    let mut process = crate::run::sandbox::command(program, args, Access::Setup)?;
    process
        .current_dir(cwd)
        .env_clear()
        .envs(crate::run::process::passed_environment(
            &crate::run::sandbox::settings().pass_env,
        ))
        .stdin(Stdio::null())
        .stdout(stdout);
    crate::run::containment::start(&mut process, marks_dir.path())
}
