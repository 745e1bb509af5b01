//! Every process a snippet starts is gone when its verdict is given, however it detached
//! (`setsid`, a double fork, a closed stdout), and none outlives the verifier when it is stopped
//! by Ctrl-C or SIGTERM.
//!
//! The verifier is a child subreaper (`PR_SET_CHILD_SUBREAPER`), so an orphan of a snippet is
//! re-parented to it instead of to init and stays in its process tree. When a snippet's run
//! ends, its process group is killed, then every live descendant of the verifier that belongs
//! to the run is killed through a pidfd (exactly that process, never a reused pid) and reaped,
//! until a scan of `/proc` finds none. A process belongs to a run when any of these holds: it
//! carries the run's marker in its environment (`MDBOOK_SNIPPETS_RUN`, set per run), it is in the
//! run's process group, its working directory is inside the run's scratch directory, or it holds
//! one of the run's stdout/stderr pipes. So runs side by side never touch each other's
//! processes, and cargo's processes (none of these) are left alone. A process that clears its
//! environment, leaves the group and the directory and closes the pipes cannot be told from
//! the verifier's other descendants, and is not killed (it holds nothing of the run's).
//! This is Linux (`/proc`, pidfds); on other Unix systems a run's end kills its group only.

use std::collections::BTreeMap;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};

use rustix::process::{Pid, Signal, kill_process_group};

use crate::plan::cache::WRITING;

/// The environment variable that marks a snippet run's processes; its value is unique to the
/// run (`VERIFIER_PID-N`).
pub(crate) const MARKER_VARIABLE: &str = "MDBOOK_SNIPPETS_RUN";

/// A started snippet process and what identifies the processes of its run. Dropping it ends
/// the run: every process that belongs to it is killed and reaped.
pub(crate) struct Contained {
    marks: RunMarks,
}

/// What tells a run's processes apart from every other process.
#[derive(Debug, Clone)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct RunMarks {
    /// The value of [`MARKER_VARIABLE`].
    token: String,
    /// The process group the run's first process leads.
    group: Pid,
    /// The run's scratch directory (working directory, code, artifacts).
    scratch: PathBuf,
    /// `pipe:[INODE]`, as `/proc/PID/fd` shows the run's stdout and stderr pipes.
    pipes: Vec<String>,
}

/// Starts `command` as a snippet run: in a process group of its own, with the run's marker in
/// its environment, registered so that a signal to the verifier ends it. `scratch` is the
/// directory of the run (its working directory is inside). Refused once the verifier is
/// stopping.
pub(crate) fn start(command: &mut Command, scratch: &Path) -> anyhow::Result<(Child, Contained)> {
    static SUBREAPER: Once = Once::new();
    SUBREAPER.call_once(|| {
        // Without it orphans go to init and only the marker scan over all of /proc could find
        // them; with it they stay our descendants.
        #[cfg(target_os = "linux")]
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    });
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let token = format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    );
    use std::os::unix::process::CommandExt;
    command.env(MARKER_VARIABLE, &token).process_group(0);
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
    let marks = RunMarks {
        token: token.clone(),
        group,
        // As `/proc/PID/cwd` shows it: symlinks resolved.
        scratch: std::fs::canonicalize(scratch).unwrap_or_else(|_| scratch.to_path_buf()),
        pipes: pipes.into_iter().flatten().collect(),
    };
    registry.runs.insert(token, marks.clone());
    Ok((child, Contained { marks }))
}

impl Contained {
    /// The run's process group (for a `killpg` while it runs, on an output flood).
    pub(crate) fn group(&self) -> Pid {
        self.marks.group
    }

    /// Ends the run now: its group and every process that belongs to it are killed and reaped.
    pub(crate) fn end(self) {
        // `Drop` does the work.
    }
}

impl Drop for Contained {
    fn drop(&mut self) {
        end_run(&self.marks);
        let mut registry = REGISTRY.lock().unwrap_or_else(|poison| poison.into_inner());
        registry.runs.remove(&self.marks.token);
    }
}

/// On SIGINT or SIGTERM: refuse new runs, end every running one (and its descendants), ask
/// cargo and the compilers it started (our process group) to stop, wait for a cache entry being
/// written, and exit 130 or 143 (128 + the signal), as a shell reports it.
pub(crate) fn stop_on_signals() -> anyhow::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
        .map_err(|error| anyhow::anyhow!("installing the SIGINT/SIGTERM handler: {error}"))?;
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            stop_everything();
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
    let runs: Vec<RunMarks> = {
        let mut registry = REGISTRY.lock().unwrap_or_else(|poison| poison.into_inner());
        registry.stopping = true;
        registry.runs.values().cloned().collect()
    };
    for marks in &runs {
        let _ = kill_process_group(marks.group, Signal::KILL);
        // The first process, even if it left its group (it is our child: the pid is its own).
        let _ = rustix::process::kill_process(marks.group, Signal::KILL);
    }
    for marks in &runs {
        end_run(marks);
    }
    // cargo, rustc and the linker run in our own process group (snippets never do): a SIGTERM
    // lets cargo stop its jobs.
    #[cfg(target_os = "linux")]
    linux::terminate_own_group();
}

#[derive(Default)]
struct Registry {
    stopping: bool,
    runs: BTreeMap<String, RunMarks>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    stopping: false,
    runs: BTreeMap::new(),
});

/// Other Unix systems have no subreaper, pidfd or `/proc` here: a run's end kills its group.
#[cfg(not(target_os = "linux"))]
fn end_run(marks: &RunMarks) {
    let _ = kill_process_group(marks.group, Signal::KILL);
}

#[cfg(target_os = "linux")]
use linux::end_run;

/// The Linux side: `/proc`, pidfds, `waitid`.
#[cfg(target_os = "linux")]
mod linux {
    use std::collections::HashMap;
    use std::os::fd::{AsFd, OwnedFd};
    use std::path::PathBuf;
    use std::time::{Duration, Instant};

    use rustix::event::{PollFd, PollFlags, poll};
    use rustix::io::Errno;
    use rustix::process::{
        Pid, PidfdFlags, Signal, WaitId, WaitIdOptions, kill_process_group, pidfd_open,
        pidfd_send_signal, waitid,
    };

    use super::{MARKER_VARIABLE, RunMarks};

    /// SIGTERM to every live descendant in our own process group (cargo and what it runs).
    pub(super) fn terminate_own_group() {
        let own_group = rustix::process::getpgrp();
        let me = rustix::process::getpid();
        for process in descendants(&scan(), me) {
            if process.group == own_group.as_raw_nonzero().get()
                && !process.zombie
                && let Some(pid) = Pid::from_raw(process.pid)
            {
                let _ = rustix::process::kill_process(pid, Signal::TERM);
            }
        }
    }

    /// How long ending a run may take at most (a fork storm that outruns the kills gives up then).
    const END_BUDGET: Duration = Duration::from_secs(5);

    /// Kills the run's group, then every live process that belongs to the run, again until a scan
    /// finds none, and reaps those that became our children.
    pub(super) fn end_run(marks: &RunMarks) {
        let _ = kill_process_group(marks.group, Signal::KILL);
        let started = Instant::now();
        let me = rustix::process::getpid();
        let group = marks.group.as_raw_nonzero().get();
        let mut killed: Vec<OwnedFd> = Vec::new();
        let mut pause = Duration::from_millis(1);
        loop {
            let processes = scan();
            let mut found = false;
            for process in descendants(&processes, me) {
                // The first process is the caller's `Child`, waited for (reaped) by the caller.
                if process.zombie || process.pid == group || !belongs(process, marks) {
                    continue;
                }
                let Some(pid) = Pid::from_raw(process.pid) else {
                    continue;
                };
                // Through a pidfd: the signal reaches this process even if the pid is reused.
                if let Ok(pidfd) = pidfd_open(pid, PidfdFlags::empty()) {
                    found = true;
                    let _ = pidfd_send_signal(&pidfd, Signal::KILL);
                    killed.push(pidfd);
                }
            }
            // The group's other members (children that did not leave it) were killed by killpg;
            // those that are our children now are reaped here too.
            for process in descendants(&processes, me) {
                if process.zombie
                    && process.group == group
                    && process.parent == me.as_raw_nonzero().get()
                    && process.pid != process.group
                    && let Some(pid) = Pid::from_raw(process.pid)
                    && let Ok(pidfd) = pidfd_open(pid, PidfdFlags::empty())
                {
                    killed.push(pidfd);
                }
            }
            killed.retain(|pidfd| !reaped(pidfd));
            if (!found && killed.is_empty()) || started.elapsed() > END_BUDGET {
                break;
            }
            if !found && killed.iter().all(|pidfd| exited(pidfd) && !ours(pidfd)) {
                // Dead, and someone else's child: its parent reaps it.
                break;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }

    /// Reaps the process if it is our child and has exited; true when it is gone for us.
    fn reaped(pidfd: &OwnedFd) -> bool {
        match waitid(
            WaitId::PidFd(pidfd.as_fd()),
            WaitIdOptions::EXITED | WaitIdOptions::NOHANG,
        ) {
            Ok(Some(_)) => true,
            Ok(None) => false,
            // Not our child (yet): its parent may still die and hand it to us.
            Err(Errno::CHILD) => false,
            Err(_) => true,
        }
    }

    /// Whether the process is our child (waitid does not refuse it).
    fn ours(pidfd: &OwnedFd) -> bool {
        !matches!(
            waitid(
                WaitId::PidFd(pidfd.as_fd()),
                WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
            ),
            Err(Errno::CHILD)
        )
    }

    /// Whether the process has exited (a pidfd is readable then).
    fn exited(pidfd: &OwnedFd) -> bool {
        let mut fds = [PollFd::new(pidfd, PollFlags::IN)];
        let zero = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        matches!(poll(&mut fds, Some(&zero)), Ok(1))
    }

    /// One line of `/proc/PID/stat`, the fields we use.
    #[derive(Debug, Clone, Copy)]
    struct Process {
        pid: i32,
        parent: i32,
        group: i32,
        zombie: bool,
    }

    /// Every process `/proc` shows.
    fn scan() -> Vec<Process> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .filter_map(|entry| {
                let name = entry.ok()?.file_name();
                let pid: i32 = name.to_str()?.parse().ok()?;
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
                let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
                let state = fields.next()?;
                let parent = fields.next()?.parse().ok()?;
                let group = fields.next()?.parse().ok()?;
                Some(Process {
                    pid,
                    parent,
                    group,
                    zombie: state == "Z" || state == "X",
                })
            })
            .collect()
    }

    /// The processes below `root` in the process tree.
    fn descendants(processes: &[Process], root: Pid) -> Vec<&Process> {
        let mut children: HashMap<i32, Vec<&Process>> = HashMap::new();
        for process in processes {
            children.entry(process.parent).or_default().push(process);
        }
        let mut found = Vec::new();
        let mut stack = vec![root.as_raw_nonzero().get()];
        while let Some(pid) = stack.pop() {
            for child in children.get(&pid).into_iter().flatten() {
                found.push(*child);
                stack.push(child.pid);
            }
        }
        found
    }

    /// Whether a process belongs to the run (see the module docs).
    fn belongs(process: &Process, marks: &RunMarks) -> bool {
        if process.group == marks.group.as_raw_nonzero().get() {
            return true;
        }
        let proc_dir = PathBuf::from(format!("/proc/{}", process.pid));
        let marker = format!("{MARKER_VARIABLE}={}", marks.token);
        if std::fs::read(proc_dir.join("environ")).is_ok_and(|environ| {
            environ
                .split(|&byte| byte == 0)
                .any(|entry| entry == marker.as_bytes())
        }) {
            return true;
        }
        if std::fs::read_link(proc_dir.join("cwd")).is_ok_and(|cwd| cwd.starts_with(&marks.scratch))
        {
            return true;
        }
        // A fork of the verifier that has not yet exec'd (another run's snippet, cargo being
        // started) holds a copy of every descriptor we have, this run's pipes included, until
        // `exec` closes them: it is never taken for the run's by its descriptors.
        if is_unexeced_fork(process) {
            return false;
        }
        let Ok(fds) = std::fs::read_dir(proc_dir.join("fd")) else {
            return false;
        };
        fds.filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
            .any(|target| {
                marks
                    .pipes
                    .iter()
                    .any(|pipe| target.as_os_str() == pipe.as_str())
            })
    }

    /// Whether the process is our child still running our own executable (forked, not yet exec'd).
    fn is_unexeced_fork(process: &Process) -> bool {
        static OWN_EXE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
        let own = OWN_EXE.get_or_init(|| std::fs::read_link("/proc/self/exe").ok());
        process.parent == rustix::process::getpid().as_raw_nonzero().get()
            && std::fs::read_link(format!("/proc/{}/exe", process.pid)).ok() == *own
    }
}

/// `pipe:[INODE]` of a pipe end, as `/proc/PID/fd/N` links name it.
fn pipe_name(fd: impl AsFd) -> Option<String> {
    let stat = rustix::fs::fstat(fd).ok()?;
    Some(format!("pipe:[{}]", stat.st_ino))
}
