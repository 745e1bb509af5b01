//! The launcher's fallback, where user namespaces are refused (`launcher.rs`): a child
//! subreaper, so every orphan of the program is re-parented to the launcher, never to the
//! verifier or init, and the run's processes are exactly its descendants. When the program
//! exits, or on SIGTERM, SIGINT, SIGHUP (from the verifier, or the death of the verifier), it
//! kills its children again and again, reaping them, until it has none; a subtree it cannot
//! end in time gets the launcher killed, which the verifier sees (and scans for what is left).

use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use anyhow::Context;
use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};

/// Runs the program `start` starts as a child subreaper: once it has exited, or on SIGTERM,
/// SIGINT or SIGHUP (the program is then killed), ends its whole subtree before returning how
/// the program exited.
pub(crate) fn run(start: impl FnOnce() -> anyhow::Result<Child>) -> anyhow::Result<ExitStatus> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    rustix::process::set_child_subreaper(Some(rustix::process::getpid()))
        .context("becoming a child subreaper")?;
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    // Registered before the program starts, so a stop request is never lost.
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])
        .context("installing the SIGTERM handler")?;
    let handle = signals.handle();
    let mut program = start()?;
    let pidfd = rustix::process::pidfd_open(
        Pid::from_child(&program),
        rustix::process::PidfdFlags::empty(),
    )
    .context("pidfd_open")?;
    let stopper = std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            // Through the pidfd: never another process that got a reaped program's pid.
            let _ = rustix::process::pidfd_send_signal(&pidfd, Signal::KILL);
        }
    });
    let status = program.wait().context("waiting for the program");
    let ended = end_children(Duration::from_secs(5));
    handle.close();
    let _ = stopper.join();
    if !ended {
        // Something of the run is still alive: no verdict as if all were well. The verifier
        // sees a launcher killed by a signal and scans for what is left.
        let _ = rustix::process::kill_process(rustix::process::getpid(), Signal::KILL);
    }
    status
}

/// Kills this process's children, again and again (an orphan of a killed child becomes a
/// child in turn), reaping them, until there are none; false if `budget` ran out first.
/// Children's pids are stable until reaped, and only this loop reaps them.
fn end_children(budget: Duration) -> bool {
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        for child in children() {
            let _ = rustix::process::kill_process(child, Signal::KILL);
        }
        let mut reaped = false;
        loop {
            match rustix::process::waitid(
                WaitId::All,
                WaitIdOptions::EXITED | WaitIdOptions::NOHANG,
            ) {
                Ok(Some(_)) => reaped = true,
                Ok(None) => break,
                Err(Errno::CHILD) => return true,
                Err(Errno::INTR) => {}
                Err(_) => return false,
            }
        }
        if started.elapsed() > budget {
            return false;
        }
        if !reaped {
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }
}

/// This process's children: every thread's `/proc/self/task/TID/children` (an orphan is
/// handed to any live thread of its subreaper), else a scan of `/proc` for our pid as parent.
fn children() -> Vec<Pid> {
    let mut found = Vec::new();
    let mut listed = false;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
                listed = true;
                found.extend(
                    text.split_whitespace()
                        .filter_map(|pid| Pid::from_raw(pid.parse().ok()?)),
                );
            }
        }
    }
    if listed {
        return found;
    }
    let me = rustix::process::getpid().as_raw_nonzero().get();
    crate::process_table::children_of(|parent| parent == me)
        .filter_map(Pid::from_raw)
        .collect()
}
