//! A client template as a reader runs it in a terminal: a process of its own group (as a shell
//! starts a job), lines typed on its stdin, its stdout and stderr read line by line, Ctrl-C sent
//! as a terminal sends it, and everything it printed shown when a wait fails. Killed, with its
//! group, when dropped, so a failing test leaves nothing behind.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process, kill_process_group};

/// How long a wait for a line, or for the exit, may take before the test fails: generous, for a
/// loaded machine; the scenarios' own limits are seconds.
const WAIT: Duration = Duration::from_secs(60);

pub(super) struct Child {
    description: String,
    process: std::process::Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<String>,
    stderr: Receiver<String>,
    /// Every line read so far, for the failure message.
    seen: Vec<String>,
}

/// A finished child: what it printed that the test did not read yet, and its exit code.
pub(super) struct Finished {
    pub(super) stdout: Vec<String>,
    pub(super) stderr: Vec<String>,
    pub(super) code: Option<i32>,
}

impl Child {
    pub(super) fn spawn(mut command: Command) -> Child {
        let description = format!("{command:?}");
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut process = command
            .spawn()
            .unwrap_or_else(|error| panic!("starting {description}: {error}"));
        let stdin = process.stdin.take();
        let stdout = lines(process.stdout.take().expect("piped"));
        let stderr = lines(process.stderr.take().expect("piped"));
        Child {
            description,
            process,
            stdin,
            stdout,
            stderr,
            seen: Vec::new(),
        }
    }

    /// Types `line` (and Enter).
    pub(super) fn type_line(&mut self, line: &str) {
        self.seen.push(format!("stdin: {line}"));
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|error| {
                panic!("writing to {}: {error}\n{}", self.description, self.seen())
            });
    }

    /// The next line on stdout.
    #[track_caller]
    pub(super) fn stdout_line(&mut self) -> String {
        self.next_matching(Stream::Stdout, |_| true)
    }

    /// Reads stderr up to the first line `wanted` accepts, and returns it.
    #[track_caller]
    pub(super) fn stderr_until(&mut self, wanted: impl Fn(&str) -> bool) -> String {
        self.next_matching(Stream::Stderr, wanted)
    }

    /// Ctrl-C: SIGINT to the whole process group, as a terminal sends it (`group`), or to the
    /// process alone, as a stop button's code would.
    pub(super) fn interrupt(&mut self, group: bool) {
        self.seen.push(format!("SIGINT (group: {group})"));
        let pid = Pid::from_child(&self.process);
        let sent = if group {
            kill_process_group(pid, Signal::INT)
        } else {
            kill_process(pid, Signal::INT)
        };
        sent.unwrap_or_else(|error| panic!("SIGINT to {}: {error}", self.description));
    }

    /// Closes stdin (the end of input) and waits for the exit.
    #[track_caller]
    pub(super) fn finish(mut self) -> Finished {
        drop(self.stdin.take());
        let started = Instant::now();
        let code = loop {
            match self.process.try_wait().expect("waiting for the child") {
                Some(status) => break status.code(),
                None if started.elapsed() > WAIT => {
                    panic!("{} did not exit\n{}", self.description, self.seen())
                }
                None => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        // The pipes close with the process (and any child it left holding them).
        let drain = |receiver: &Receiver<String>| -> Vec<String> {
            std::iter::from_fn(|| receiver.recv_timeout(WAIT).ok()).collect()
        };
        Finished {
            stdout: drain(&self.stdout),
            stderr: drain(&self.stderr),
            code,
        }
    }

    #[track_caller]
    fn next_matching(&mut self, stream: Stream, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let receiver = match stream {
                Stream::Stdout => &self.stdout,
                Stream::Stderr => &self.stderr,
            };
            match receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    self.seen.push(format!("{stream:?}: {line}"));
                    if wanted(&line) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "no awaited {stream:?} line from {}\n{}",
                        self.description,
                        self.seen()
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "{} closed its {stream:?}\n{}",
                        self.description,
                        self.seen()
                    )
                }
            }
        }
    }

    fn seen(&self) -> String {
        format!("what it read and printed so far:\n{}", self.seen.join("\n"))
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if matches!(self.process.try_wait(), Ok(None)) {
            let _ = kill_process_group(Pid::from_child(&self.process), Signal::KILL);
            let _ = self.process.wait();
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Stream {
    Stdout,
    Stderr,
}

/// The lines of `pipe`, read on a thread of their own.
fn lines(pipe: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (sender, receiver) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}
