//! A run of `mdbook-snippets` watched while it runs: its stderr read line by line as it comes
//! (to act at a point of the run, e.g. once a snippet's verdict is printed), its peak memory
//! read from `/proc` (`VmHWM`, which only grows, so a reading taken while a later snippet waits
//! covers everything before it), and a deadline, past which the run is killed and the test
//! fails instead of hanging the suite.

use std::io::{BufRead as _, Read as _};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use super::book::Book;
use super::output::Output;

/// A run under way (killed when dropped).
pub(crate) struct Running<'a> {
    book: &'a Book,
    description: String,
    child: Child,
    lines: Receiver<String>,
    stderr: String,
    stdout: std::thread::JoinHandle<Vec<u8>>,
}

impl Book {
    /// Starts `command` (from [`Book::test_command`]) as [`Book::run`] would run it.
    pub(crate) fn start(&self, mut command: Command) -> Running<'_> {
        self.isolate(&mut command, &self.target_dir());
        let description = format!("{command:?}");
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("running {description}: {error}"));
        let mut stdout = child.stdout.take().expect("piped");
        let stdout = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stdout.read_to_end(&mut bytes);
            bytes
        });
        let stderr = std::io::BufReader::new(child.stderr.take().expect("piped"));
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in stderr.lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            book: self,
            description,
            child,
            lines,
            stderr: String::new(),
            stdout,
        }
    }
}

impl Running<'_> {
    /// Reads stderr until a line contains `needle`; panics (the run killed) if none does
    /// within `limit`.
    #[track_caller]
    pub(crate) fn wait_for_stderr(&mut self, needle: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let found = line.contains(needle);
                    self.stderr.push_str(&line);
                    self.stderr.push('\n');
                    if found {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                    let _ = self.child.kill();
                    panic!(
                        "no stderr line with {needle:?} within {limit:?}\n--- command: {}\n--- stderr so far:\n{}",
                        self.description, self.stderr
                    );
                }
            }
        }
    }

    /// The run's peak resident memory so far, in KiB (`VmHWM` in `/proc/PID/status`).
    pub(crate) fn peak_memory_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the run is still running");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no VmHWM in\n{status}"))
    }

    /// Waits for the run to end, at most `limit`: past it the run is killed and the test fails
    /// (a hang is a failure, not a hung suite).
    #[track_caller]
    pub(crate) fn finish(mut self, limit: Duration) -> Output {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("waiting for the run") {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                while let Ok(line) = self.lines.try_recv() {
                    self.stderr.push_str(&line);
                    self.stderr.push('\n');
                }
                panic!(
                    "still running after {limit:?}: killed\n--- command: {}\n--- stderr:\n{}",
                    self.description, self.stderr
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // The pipes close with the process (and whatever it left is the containment's
        // concern): the rest of stderr, then stdout.
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(10)) {
            self.stderr.push_str(&line);
            self.stderr.push('\n');
        }
        let stdout = std::mem::replace(&mut self.stdout, std::thread::spawn(Vec::new));
        let output = std::process::Output {
            status,
            stdout: stdout.join().expect("reading stdout"),
            stderr: std::mem::take(&mut self.stderr).into_bytes(),
        };
        Output::of(self.description.clone(), self.book.path(), &output)
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
