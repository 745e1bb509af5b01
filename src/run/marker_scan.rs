//! The fallback's last line (Linux): when a snippet's launcher did not end its own subtree (it
//! was killed, or there is none), the run's processes are found by a scan of `/proc` among the
//! verifier's descendants (it is a child subreaper) and killed through pidfds, again until a
//! scan finds none. A process belongs to a run when any of these holds: it carries the run's
//! marker in its environment (`MDBOOK_SNIPPETS_RUN`), it is in the run's process group, its
//! working directory is inside the run's scratch directory, or it holds one of the run's
//! stdout/stderr pipes. So runs side by side never touch each other's processes, and cargo's
//! processes (none of these) are left alone. What it cannot find: a process that dropped every
//! mark (cleared its environment, left the group and the directory, closed the pipes), and a
//! fork-and-exit chain that keeps ahead of the scan (every process seen is already a zombie).
//! Both are contained by the launcher (`launcher.rs`) unless the snippet killed it first.

use std::os::fd::AsFd;
use std::path::PathBuf;

use rustix::process::Pid;

/// The environment variable that marks a snippet run's processes; its value is unique to the
/// run (`VERIFIER_PID-N`).
pub(crate) const MARKER_VARIABLE: &str = "MDBOOK_SNIPPETS_RUN";

/// What tells a run's processes apart from every other process.
#[derive(Debug, Clone)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) struct RunMarks {
    /// The value of [`MARKER_VARIABLE`].
    pub token: String,
    /// The process group the run's first process (the launcher) leads.
    pub group: Pid,
    /// The run's scratch directory (working directory, code, artifacts).
    pub scratch: PathBuf,
    /// `pipe:[INODE]`, as `/proc/PID/fd` shows the run's stdout and stderr pipes.
    pub pipes: Vec<String>,
}

/// `pipe:[INODE]` of a pipe end, as `/proc/PID/fd/N` links name it.
pub(crate) fn pipe_name(fd: impl AsFd) -> Option<String> {
    let stat = rustix::fs::fstat(fd).ok()?;
    Some(format!("pipe:[{}]", stat.st_ino))
}

/// Other Unix systems have no subreaper, pidfd or `/proc` here: a run's end kills its group.
#[cfg(not(target_os = "linux"))]
pub(crate) fn end_run(marks: &RunMarks) {
    let _ = rustix::process::kill_process_group(marks.group, rustix::process::Signal::KILL);
}

#[cfg(target_os = "linux")]
pub(crate) use linux::{end_run, live_member_of_group, terminate_own_group};

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
    use crate::process_table::{Process, scan};

    /// SIGTERM to every live descendant in our own process group (cargo and what it runs).
    pub(crate) fn terminate_own_group() {
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
    pub(crate) fn end_run(marks: &RunMarks) {
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

    /// Whether a live (not zombie) process is in process group `group`.
    pub(crate) fn live_member_of_group(group: Pid) -> bool {
        let group = group.as_raw_nonzero().get();
        scan()
            .iter()
            .any(|process| process.group == group && !process.zombie)
    }
}
