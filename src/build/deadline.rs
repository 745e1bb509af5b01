//! The build's deadline (`build-timeout`): cargo runs as `Command::output` would run it, but
//! past the deadline it is stopped with every process it started (rustc, the wrapper, the
//! linker: frozen with SIGSTOP first, so none starts another, then killed), so a compile that
//! never ends (`const _: () = loop {};`) cannot hold the run. The snippets it held fail
//! (`cargo.rs` sees the note this adds to cargo's stderr). Linux (`/proc`).

use std::collections::BTreeSet;
use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `build-timeout` of the book being verified (`verify` sets it before the build); `None`: no
/// deadline.
static BUILD_TIMEOUT: std::sync::Mutex<Option<Duration>> = std::sync::Mutex::new(None);

/// Sets the deadline of the builds that follow.
pub(crate) fn set_build_timeout(timeout: Option<Duration>) {
    *BUILD_TIMEOUT
        .lock()
        .unwrap_or_else(|poison| poison.into_inner()) = timeout;
}

/// The line added to cargo's stderr when the deadline stopped the build.
pub(crate) const STOPPED: &str = "mdbook-snippets: the build ran past `build-timeout`";

/// Runs `command` to its end or to the book's `build-timeout`, with its stdout and stderr
/// captured (stdin as the caller set it).
pub(crate) fn output(command: &mut Command) -> std::io::Result<Output> {
    let timeout = *BUILD_TIMEOUT
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    });
    let err = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr.read_to_end(&mut bytes);
        bytes
    });
    let deadline = timeout.and_then(|timeout| Instant::now().checked_add(timeout));
    let mut pause = Duration::from_millis(1);
    let mut stopped = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            let tree = end_tree(child.id() as i32);
            stopped = true;
            let status = child.wait()?;
            // Its orphans are ours now (the verifier is a subreaper): reaped, not left zombies.
            for pid in tree.into_iter().filter_map(rustix::process::Pid::from_raw) {
                let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG);
            }
            break status;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    let stdout = out.join().unwrap_or_default();
    let mut stderr = err.join().unwrap_or_default();
    if stopped {
        let seconds = timeout.map_or(0, |timeout| timeout.as_secs());
        stderr.extend_from_slice(
            format!(
                "\n{STOPPED} ({seconds} s) and was stopped: raise it in [preprocessor.snippets] \
                 if the book's build needs longer\n"
            )
            .as_bytes(),
        );
    }
    Ok(Output {
        status,
        stdout,
        stderr,
    })
}

/// Freezes `root` and its descendants (until a scan finds no new one), then kills them all;
/// returns the pids of the descendants.
fn end_tree(root: i32) -> BTreeSet<i32> {
    use rustix::process::{Pid, Signal, kill_process};
    let mut tree = BTreeSet::from([root]);
    loop {
        for &pid in &tree {
            if let Some(pid) = Pid::from_raw(pid) {
                let _ = kill_process(pid, Signal::STOP);
            }
        }
        let grown: BTreeSet<i32> = descendants(&tree);
        if grown.is_subset(&tree) {
            break;
        }
        tree.extend(grown);
    }
    for &pid in &tree {
        if let Some(pid) = Pid::from_raw(pid) {
            let _ = kill_process(pid, Signal::KILL);
        }
    }
    tree.remove(&root);
    tree
}

/// The processes whose parent is in `parents`.
fn descendants(parents: &BTreeSet<i32>) -> BTreeSet<i32> {
    crate::process_table::children_of(|parent| parents.contains(&parent)).collect()
}
