//! Runs built snippets, one process each, `jobs` at a time (one limit for all of a run's
//! snippets, whatever their language), each in the sandbox (`sandbox`: through the launcher,
//! writing only its own directory and the book's `writable` paths where Landlock is enforced).
//! Each process gets a fresh temporary working directory, `TMPDIR` beside it, a closed stdin, a
//! clean environment (what a program needs, the `MDBOOK_SNIPPETS_*` family and the book's
//! `pass-env`), the harness environment (`MDBOOK_SNIPPETS_ATTRS`, `MDBOOK_SNIPPETS_ARTIFACTS`)
//! and its own process group. A timeout, an output flood or the end of the snippet ends every
//! process it started, however it detached (`containment`), and output is read only until the
//! deadline.

use std::io::Read;
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use rustix::event::{PollFd, PollFlags, poll};

use crate::run::containment::{STOP_GRACE, wait_or_kill};
use crate::run::sandbox::Access;
use crate::run::scratch::Scratch;

use crate::snippet::{Exit, RunRecord};

/// One snippet process to start: `program args...`.
#[derive(Debug, Clone)]
pub(crate) struct RunRequest {
    pub program: PathBuf,
    /// `{file}` in an argument is replaced with the path of `file`, when there is one.
    pub args: Vec<String>,
    /// Variables the program itself needs (which snippet a merged binary runs), set after the
    /// clean environment.
    pub env: Vec<(String, String)>,
    /// The source file of a snippet of a declared language, written into the snippet's
    /// temporary directory (beside its working directory, which starts empty) before it starts.
    pub file: Option<SnippetFile>,
    /// The value of `MDBOOK_SNIPPETS_ATTRS`.
    pub harness_attributes: String,
    /// `pass-env`: variables of the verifier's environment the snippet gets besides those that
    /// pass by default.
    pub pass_env: Vec<String>,
    pub timeout: Duration,
    /// Bytes kept of stdout, and of stderr; more stops the process.
    pub output_limit: usize,
    /// `writable` in `book.toml`: what the snippet may write besides its scratch directory,
    /// under Landlock.
    pub writable: Vec<PathBuf>,
    /// The value of `MDBOOK_SNIPPETS_MUTANT` on a mutant run (`test --mutants`); every other run
    /// goes without the variable, even when the verifier's own environment has it.
    pub mutant: Option<String>,
}

/// A snippet's code as a file: `name` (`src_ch1_md_2.py`) and its text.
#[derive(Debug, Clone)]
pub(crate) struct SnippetFile {
    pub name: String,
    pub content: String,
}

/// How many snippet processes may run at once, shared by every [`run_all`] of a verification
/// (Rust snippets and those of other languages run side by side, within one `--jobs`).
pub(crate) struct JobSlots {
    free: Mutex<usize>,
    freed: Condvar,
    jobs: usize,
}

impl JobSlots {
    pub(crate) fn new(jobs: usize) -> JobSlots {
        let jobs = jobs.max(1);
        JobSlots {
            free: Mutex::new(jobs),
            freed: Condvar::new(),
            jobs,
        }
    }

    /// Runs `work` once a slot is free.
    fn with_slot<T>(&self, work: impl FnOnce() -> T) -> T {
        let mut free = self.free.lock().expect("no panics while locked");
        while *free == 0 {
            free = self.freed.wait(free).expect("no panics while locked");
        }
        *free -= 1;
        drop(free);
        let result = work();
        *self.free.lock().expect("no panics while locked") += 1;
        self.freed.notify_one();
        result
    }
}

/// Runs every request, at most `slots` allow at once, calling `on_done` as each finishes (for
/// progress). Results come back in request order; an `Err` is a process that could not be
/// started at all.
pub(crate) fn run_all(
    requests: &[RunRequest],
    slots: &JobSlots,
    on_done: &(dyn Fn(usize, &RunRecord) + Sync),
) -> Vec<anyhow::Result<RunRecord>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<anyhow::Result<RunRecord>>>> =
        Mutex::new(requests.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..slots.jobs.min(requests.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(request) = requests.get(index) else {
                        break;
                    };
                    let result = slots.with_slot(|| run(request));
                    if let Ok(record) = &result {
                        on_done(index, record);
                    }
                    results.lock().expect("no panics while locked")[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("no panics while locked")
        .into_iter()
        .map(|result| result.expect("every request ran"))
        .collect()
}

/// Runs one snippet process to completion, timeout or output limit. Whatever happened, every
/// process the snippet started is gone when this returns (see `containment`), and it returns
/// by the deadline even if a process it could not end keeps the output pipes open.
pub(crate) fn run(request: &RunRequest) -> anyhow::Result<RunRecord> {
    let scratch =
        Scratch::new("mdbook-snippets-").context("creating a temporary directory for a snippet")?;
    let work_dir = scratch.path().join("work");
    let artifacts_dir = scratch.path().join("artifacts");
    let code_dir = scratch.path().join("code");
    let temp_dir = scratch.path().join("tmp");
    for dir in [&work_dir, &artifacts_dir, &code_dir, &temp_dir] {
        std::fs::create_dir(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut args = request.args.clone();
    if let Some(file) = &request.file {
        let path = code_dir.join(&file.name);
        std::fs::write(&path, &file.content)
            .with_context(|| format!("writing {}", path.display()))?;
        let path = path.to_string_lossy();
        for arg in &mut args {
            *arg = arg.replace(crate::config::FILE_PLACEHOLDER, &path);
        }
    }
    let access = Access::Snippet {
        scratch: scratch.path(),
        writable: &request.writable,
    };
    let mut command = crate::run::sandbox::command(&request.program, &args, access)?;
    command
        .current_dir(&work_dir)
        .env_clear()
        .envs(passed_environment(&request.pass_env))
        .env("MDBOOK_SNIPPETS_ATTRS", &request.harness_attributes)
        .env("MDBOOK_SNIPPETS_ARTIFACTS", &artifacts_dir)
        .envs(request.env.iter().map(|(name, value)| (name, value)))
        // Temporary files go in the run's own directory: removed with it, and writable under
        // the sandbox, which keeps the rest of the disk read-only.
        .env("TMPDIR", &temp_dir)
        // Panics print the same text on every machine: no backtrace, unless the book asks
        // (`backtrace = true`).
        .env(
            "RUST_BACKTRACE",
            if crate::run::sandbox::settings().backtrace {
                "1"
            } else {
                "0"
            },
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Last, so that nothing set before it (an inherited value, a cleared environment) wins.
    set_mutant_variable(&mut command, request.mutant.as_deref());
    // No deadline when the timeout is too large for the clock (`--timeout 18446744073709551615`).
    let started = Instant::now();
    let deadline = started.checked_add(request.timeout);
    let (mut child, contained) = crate::run::containment::start(&mut command, scratch.path())
        .with_context(|| format!("starting {}", request.program.display()))?;
    let stopper = contained.stopper();
    let flooded = AtomicBool::new(false);
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");

    let (status, stdout, stderr) = std::thread::scope(|scope| {
        let limit = request.output_limit;
        let flooded = &flooded;
        let stop = move || stopper.stop();
        let stdout = scope.spawn(move || read_capped(stdout, limit, deadline, stop, flooded));
        let stderr = scope.spawn(move || read_capped(stderr, limit, deadline, stop, flooded));
        let status = match wait_with_deadline(&mut child, deadline) {
            // Past the deadline: the run is stopped, whatever it holds.
            Ok(None) => {
                stopper.stop();
                wait_or_kill(&mut child, STOP_GRACE).map(|_| None)
            }
            other => other,
        };
        // Whatever happened, nothing of the snippet outlives it.
        contained.finish(status.as_ref().ok().and_then(Option::as_ref));
        let stdout = stdout.join().expect("reader does not panic");
        let stderr = stderr.join().expect("reader does not panic");
        (status, stdout, stderr)
    });
    let status = status.with_context(|| format!("waiting for {}", request.program.display()))?;
    let (stdout, stdout_ended) = stdout;
    let (stderr, stderr_ended) = stderr;
    let exit = if flooded.load(Ordering::SeqCst) {
        Exit::OutputLimit(request.output_limit)
    } else {
        match status {
            // A pipe still open at the deadline: something of the snippet was still running.
            _ if !(stdout_ended && stderr_ended) => Exit::TimedOut(request.timeout),
            None => Exit::TimedOut(request.timeout),
            Some(status) => {
                use std::os::unix::process::ExitStatusExt;
                match (status.code(), status.signal()) {
                    (Some(code), _) => Exit::Code(code),
                    (None, Some(signal)) => Exit::Signal(signal),
                    (None, None) => Exit::Code(-1),
                }
            }
        }
    };
    let artifacts =
        crate::run::artifacts::read_artifacts(&artifacts_dir, deadline, request.output_limit);
    Ok(RunRecord {
        exit,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        artifact_failure: artifacts.as_ref().err().cloned(),
        artifacts: artifacts.unwrap_or_default(),
        elapsed: Some(started.elapsed()),
    })
}

/// The variables a snippet gets from the verifier's environment: what a program needs to run
/// (and what cargo sets for a program it runs), where the machine's trusted certificates are,
/// the `MDBOOK_SNIPPETS_*` family, and the names the book lists in `pass-env`. Nothing else:
/// what a snippet prints is published, and a book's build may run with tokens in its
/// environment.
pub(crate) fn passed_environment(
    pass_env: &[String],
) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    std::env::vars_os()
        .filter(|(name, _)| {
            name.to_str()
                .is_some_and(|name| passes(name) || pass_env.iter().any(|listed| listed == name))
        })
        .collect()
}

/// Whether a variable passes by default (see [`passed_environment`]).
fn passes(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "LANGUAGE",
        "TERM",
        "TZ",
        "TMPDIR",
        "RUST_BACKTRACE",
        // What cargo sets for a program it runs (`cargo run`, `cargo test`, so rustdoc's
        // doctests see them), and what cargo and rustup need to be found again.
        "CARGO",
        "CARGO_HOME",
        "CARGO_MANIFEST_DIR",
        "CARGO_MANIFEST_PATH",
        "CARGO_CRATE_NAME",
        "CARGO_BIN_NAME",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_TARGET_TMPDIR",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
        // Where the machine's trusted certificates are (paths, no secret), so that a setup's
        // installer (uv, pip, npm, cargo, git, curl) reaches its registry on a machine whose
        // network goes through a certificate authority of its own: without them, uv refused
        // PyPI's certificate on such a machine (`invalid peer certificate: UnknownIssuer`).
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "NODE_EXTRA_CA_CERTS",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "PIP_CERT",
        "GIT_SSL_CAINFO",
        "CARGO_HTTP_CAINFO",
    ];
    const PREFIXES: &[&str] = &["LC_", "MDBOOK_SNIPPETS_", "CARGO_PKG_"];
    NAMES.contains(&name) || PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

/// `Some(status)` when the process exits before `deadline`, `None` when it is still running.
fn wait_with_deadline(
    child: &mut std::process::Child,
    deadline: Option<Instant>,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if deadline.is_some_and(|deadline| now >= deadline) {
            return Ok(None);
        }
        let left = deadline.map_or(pause, |deadline| deadline - now);
        std::thread::sleep(pause.min(left));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Reads a pipe to its end or to the deadline, keeping at most `limit` bytes; past the limit
/// `on_flood` stops the run (once) so that a flood ends quickly. Returns what was kept and whether
/// the pipe ended (false: something still held it open at the deadline).
fn read_capped(
    pipe: impl Read + AsFd,
    limit: usize,
    deadline: Option<Instant>,
    on_flood: impl Fn(),
    flooded: &AtomicBool,
) -> (Vec<u8>, bool) {
    let mut pipe = pipe;
    let mut kept = Vec::new();
    let mut buffer = [0u8; 8192];
    // Past the deadline, what is already in the pipe is still read (a snippet that printed and
    // exited just in time), up to one pipe buffer.
    let mut late_budget: usize = 1 << 16;
    loop {
        let wait = deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()));
        if wait.is_some_and(|wait| wait.is_zero()) && late_budget == 0 {
            return (kept, false);
        }
        let timeout = wait.map(|wait| rustix::event::Timespec {
            tv_sec: wait.as_secs().try_into().unwrap_or(i64::MAX),
            tv_nsec: wait.subsec_nanos().into(),
        });
        let mut fds = [PollFd::new(&pipe, PollFlags::IN)];
        match poll(&mut fds, timeout.as_ref()) {
            Ok(0) => {
                // The deadline passed with nothing to read.
                return (kept, false);
            }
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return (kept, true),
        }
        match pipe.read(&mut buffer) {
            Ok(0) | Err(_) => return (kept, true),
            Ok(read) => {
                if wait.is_some_and(|wait| wait.is_zero()) {
                    late_budget = late_budget.saturating_sub(read);
                }
                let room = limit.saturating_sub(kept.len());
                kept.extend_from_slice(&buffer[..read.min(room)]);
                if read > room && !flooded.swap(true, Ordering::SeqCst) {
                    on_flood();
                }
            }
        }
    }
}

/// The environment variable that names the mutant of a mutant run.
pub(crate) const MUTANT_VARIABLE: &str = "MDBOOK_SNIPPETS_MUTANT";

/// Sets `MDBOOK_SNIPPETS_MUTANT` on a mutant run's command, and removes it from every other
/// run, so that a value in the verifier's own environment never changes (nor, cached, stands
/// for) a snippet's own run.
fn set_mutant_variable(command: &mut Command, mutant: Option<&str>) {
    match mutant {
        Some(name) => command.env(MUTANT_VARIABLE, name),
        None => command.env_remove(MUTANT_VARIABLE),
    };
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
