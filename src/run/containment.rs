//! Every process a snippet or a language setup starts is gone when its run ends, however it
//! detached, and none outlives the verifier when it is stopped by Ctrl-C or SIGTERM.
//!
//! Each run starts as the launcher (`sandbox.rs` builds the command, `launcher.rs` is the
//! process), the leader of a process group of its own, registered here so that a signal to the
//! verifier ends it. How a run ends depends on its [`Isolation`]:
//! - `Namespaces`: the launcher ends only once the run's PID namespace is empty. To end a run
//!   early, its group (the launcher and the namespace's init) is killed: the kernel then kills
//!   the rest of the namespace. Nothing escapes.
//! - `Subreaper` (the fallback): the launcher ends its whole subtree before it exits. To end a
//!   run early it gets SIGTERM (and SIGKILL after a grace period). Only a launcher that did not
//!   exit on its own (killed by the snippet, which Landlock's signal scoping prevents where the
//!   kernel has it) leaves work for the verifier: its marker scan over `/proc`
//!   (`marker_scan.rs`), which cannot find a process that dropped every mark.
//! - `ProcessGroup` (not Linux): the group is killed.
//!
//! The verifier stays a child subreaper, so what a killed launcher leaves stays its descendant
//! for the scan, and it marks itself not dumpable, so no snippet reads its environment or
//! memory through `/proc`: a snippet in a PID namespace does not see it at all; in the fallback
//! `/proc/VERIFIER/environ` is root's only, and a root snippet has lost the capabilities that
//! would read it (`launcher.rs`). Landlock refuses `ptrace`, not those reads.

use std::collections::BTreeMap;
use std::os::fd::AsFd;
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};

use crate::plan::cache::WRITING;
use crate::run::marker_scan::{MARKER_VARIABLE, RunMarks, end_run as scan_and_end, pipe_name};
use crate::run::sandbox::Isolation;

/// How long a launcher asked to stop (SIGTERM) has before it is killed.
pub(crate) const STOP_GRACE: Duration = Duration::from_secs(5);

/// A started run and what identifies its processes. Dropping it ends the run: every process
/// that belongs to it is killed and reaped.
pub(crate) struct Contained {
    run: Run,
    /// Set by [`Contained::finish`]: how the launcher exited, once the caller reaped it.
    launcher_exit: Option<LauncherExit>,
}

/// How the launcher ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LauncherExit {
    /// With an exit code: it ended its own subtree first.
    OnItsOwn,
    /// Killed by a signal, or not waited for.
    Killed,
}

#[derive(Debug, Clone)]
struct Run {
    marks: RunMarks,
    isolation: Isolation,
}

/// Ends a run early (a deadline, an output flood), from any thread: `Copy`, no lock.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stopper {
    launcher: Pid,
    isolation: Isolation,
}

impl Stopper {
    /// Namespaces, process group: the group is killed. Subreaper: the launcher is asked to end
    /// its subtree (SIGTERM); the caller kills it if it has not exited after [`STOP_GRACE`].
    pub(crate) fn stop(self) {
        match self.isolation {
            Isolation::Subreaper => {
                let _ = rustix::process::kill_process(self.launcher, Signal::TERM);
            }
            Isolation::Namespaces | Isolation::ProcessGroup => {
                let _ = kill_process_group(self.launcher, Signal::KILL);
            }
        }
    }
}

/// Starts `command` (from `sandbox::command`) as a run: in a process group of its own, with
/// the run's marker in its environment, registered so that a signal to the verifier ends it.
/// `scratch` is the directory of the run (a snippet's working directory is inside). Refused
/// once the verifier is stopping.
pub(crate) fn start(command: &mut Command, scratch: &Path) -> anyhow::Result<(Child, Contained)> {
    static SUBREAPER: Once = Once::new();
    SUBREAPER.call_once(|| {
        // Without it, what a killed launcher leaves goes to init and only the marker scan over
        // all of /proc could find it; with it, it stays our descendant.
        #[cfg(target_os = "linux")]
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    });
    let isolation = crate::run::sandbox::containment()?.isolation;
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let token = format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    );
    command.env(MARKER_VARIABLE, &token);
    // A session of its own (and so a process group of its own, whose id is the launcher's pid):
    // nothing the launcher starts has a controlling terminal (`side_doors.rs`). The launcher
    // starts it itself, first thing, so the verifier spawns it with no code between fork and
    // exec (a `vfork`, not a copy of the verifier's memory per snippet); a program started
    // without a launcher gets it from here.
    if isolation == Isolation::ProcessGroup {
        crate::run::side_doors::new_session(command);
    }
    // Spawned and registered under one lock, so a signal either prevents the start or sees the
    // run.
    let mut registry = REGISTRY.lock().unwrap_or_else(|poison| poison.into_inner());
    if registry.stopping {
        anyhow::bail!("the verifier is stopping (signal)");
    }
    let child = command.spawn()?;
    let group = Pid::from_child(&child);
    let mut pipes = Vec::new();
    if let Some(stdout) = &child.stdout {
        pipes.push(pipe_name(stdout.as_fd()));
    }
    if let Some(stderr) = &child.stderr {
        pipes.push(pipe_name(stderr.as_fd()));
    }
    let run = Run {
        marks: RunMarks {
            token: token.clone(),
            group,
            // As `/proc/PID/cwd` shows it: symlinks resolved.
            scratch: std::fs::canonicalize(scratch).unwrap_or_else(|_| scratch.to_path_buf()),
            pipes: pipes.into_iter().flatten().collect(),
        },
        isolation,
    };
    registry.runs.insert(token, run.clone());
    Ok((
        child,
        Contained {
            run,
            launcher_exit: None,
        },
    ))
}

impl Contained {
    /// What ends the run early, from another thread.
    pub(crate) fn stopper(&self) -> Stopper {
        Stopper {
            launcher: self.run.marks.group,
            isolation: self.run.isolation,
        }
    }

    /// Ends the run once the caller has reaped the launcher (`status`: how it exited; `None`
    /// when it was killed by the caller): whatever is left of the run is killed and reaped.
    pub(crate) fn finish(mut self, status: Option<&ExitStatus>) {
        self.launcher_exit = Some(match status.map(ExitStatus::code) {
            Some(Some(_)) => LauncherExit::OnItsOwn,
            _ => LauncherExit::Killed,
        });
    }
}

/// Waits up to `grace` for a child to exit, then kills it; `Some(status)` when it exited by
/// itself in time.
pub(crate) fn wait_or_kill(
    child: &mut Child,
    grace: Duration,
) -> std::io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + grace;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            child.kill()?;
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

impl Drop for Contained {
    fn drop(&mut self) {
        end_run(
            &self.run,
            self.launcher_exit.unwrap_or(LauncherExit::Killed),
        );
        let mut registry = REGISTRY.lock().unwrap_or_else(|poison| poison.into_inner());
        registry.runs.remove(&self.run.marks.token);
    }
}

/// Ends what is left of a run whose launcher is gone (or is being stopped).
fn end_run(run: &Run, launcher_exit: LauncherExit) {
    let group = run.marks.group;
    match run.isolation {
        Isolation::Namespaces => end_namespace_run(group),
        // A launcher that exited by itself ended its subtree first: nothing to scan for.
        Isolation::Subreaper if launcher_exit == LauncherExit::OnItsOwn => {
            let _ = kill_process_group(group, Signal::KILL);
        }
        Isolation::Subreaper | Isolation::ProcessGroup => scan_and_end(&run.marks),
    }
}

/// How long ending a run may take at most.
const END_BUDGET: Duration = Duration::from_secs(5);

/// A namespace run's group (the launcher, the init) is killed; an init whose launcher died
/// first is our child now (we are a subreaper) and is reaped once the kernel has emptied its
/// namespace. A launcher that exited by itself leaves an empty group: nothing to do.
fn end_namespace_run(group: Pid) {
    if kill_process_group(group, Signal::KILL).is_err() {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{WaitId, WaitIdOptions, waitid};
        let started = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            while let Ok(Some(_)) = waitid(
                WaitId::Pgid(Some(group)),
                WaitIdOptions::EXITED | WaitIdOptions::NOHANG,
            ) {}
            if !crate::run::marker_scan::live_member_of_group(group)
                || started.elapsed() > END_BUDGET
            {
                break;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }
}

/// Before anything runs: refuses a bad `MDBOOK_SNIPPETS_SANDBOX`, marks the verifier not
/// dumpable (its environment, which may hold secrets a snippet must not print, is then not
/// readable through `/proc` by a process without `CAP_SYS_PTRACE`), and on SIGINT or SIGTERM:
/// refuses new runs, ends every running one (and its descendants), removes their scratch
/// directories (`scratch.rs`), asks cargo and the compilers it started (our process group) to
/// stop, waits for a cache entry being written, and exits 130 or 143 (128 + the signal), as a
/// shell reports it.
pub(crate) fn stop_on_signals() -> anyhow::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    crate::run::sandbox::check_variable()?;
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
        .map_err(|error| anyhow::anyhow!("installing the SIGINT/SIGTERM handler: {error}"))?;
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            stop_everything();
            // The runs are ended: their scratch directories go (this thread's exit skips the
            // destructors that would remove them).
            crate::run::scratch::remove_all();
            let _writing = WRITING.lock().unwrap_or_else(|poison| poison.into_inner());
            std::process::exit(128 + signal);
        }
    });
    Ok(())
}

/// Called before the process exits on its own: once a signal is being handled, the exit is
/// the signal handler's (130 / 143), not a verdict of snippets it killed.
pub(crate) fn hold_exit_while_stopping() {
    let stopping = REGISTRY
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .stopping;
    if stopping {
        loop {
            std::thread::park();
        }
    }
}

/// Ends every registered run and refuses new ones.
fn stop_everything() {
    let runs: Vec<Run> = {
        let mut registry = REGISTRY.lock().unwrap_or_else(|poison| poison.into_inner());
        registry.stopping = true;
        registry.runs.values().cloned().collect()
    };
    for run in &runs {
        Stopper {
            launcher: run.marks.group,
            isolation: run.isolation,
        }
        .stop();
    }
    // A subreaper launcher ends its subtree, then exits (another thread reaps it): wait for
    // that, then kill whatever did not.
    #[cfg(target_os = "linux")]
    {
        let started = Instant::now();
        while runs
            .iter()
            .any(|run| run.isolation == Isolation::Subreaper && running(run.marks.group))
            && started.elapsed() < STOP_GRACE
        {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    for run in &runs {
        let _ = kill_process_group(run.marks.group, Signal::KILL);
        // The launcher, even if it left its group (it is our child: the pid is its own).
        let _ = rustix::process::kill_process(run.marks.group, Signal::KILL);
    }
    for run in &runs {
        end_run(run, LauncherExit::Killed);
    }
    // cargo, rustc and the linker run in our own process group (snippets never do): a SIGTERM
    // lets cargo stop its jobs.
    #[cfg(target_os = "linux")]
    crate::run::marker_scan::terminate_own_group();
}

/// Whether our child `pid` has not exited yet (not reaped here: its own thread waits for it).
#[cfg(target_os = "linux")]
fn running(pid: Pid) -> bool {
    use rustix::process::{WaitId, WaitIdOptions, waitid};
    matches!(
        waitid(
            WaitId::Pid(pid),
            WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
        ),
        Ok(None)
    )
}

#[derive(Default)]
struct Registry {
    stopping: bool,
    runs: BTreeMap<String, Run>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    stopping: false,
    runs: BTreeMap::new(),
});
