//! A process a snippet started, known by a token in its command line, checked through `/proc`:
//! gone, or still running (a zombie runs nothing); killed when the check is dropped, so a failing
//! test leaves nothing behind.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether the process is still there and not a zombie (a zombie runs nothing).
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().chars().next());
        state != Some(Some('Z')) && state != Some(Some('X'))
    })
}

/// The processes whose command line holds a token a test gave them (`sleep 40.TOKEN`, `sh -c
/// SCRIPT TOKEN`), as the OS outside any PID namespace sees them: a snippet in a namespace of
/// its own knows neither its pid nor anyone else's, so the test finds its processes by name.
/// Everything still there is killed when the check is dropped.
pub(crate) struct Tagged {
    token: String,
}

impl Tagged {
    /// A token no other process has: digits only, so `sleep 40.TOKEN` carries it.
    pub(crate) fn new() -> Tagged {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        let next = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Tagged {
            token: format!("{}{next:04}", std::process::id()),
        }
    }

    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    /// The live (not zombie) processes whose command line holds the token.
    pub(crate) fn pids(&self) -> Vec<i32> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
                    String::from_utf8_lossy(&cmdline).contains(self.token.as_str())
                }) && running(*pid)
            })
            .collect()
    }

    /// Asserts no process holds the token within `grace` (a killed orphan may take a moment).
    #[track_caller]
    pub(crate) fn assert_gone(&self, grace: Duration) {
        let started = Instant::now();
        while !self.pids().is_empty() && started.elapsed() < grace {
            std::thread::sleep(Duration::from_millis(20));
        }
        let left = self.pids();
        assert!(
            left.is_empty(),
            "still running with {}: {left:?}",
            self.token
        );
    }
}

impl Drop for Tagged {
    fn drop(&mut self) {
        for pid in self.pids() {
            let _ = Command::new("kill")
                .args(["-9", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
    }
}
