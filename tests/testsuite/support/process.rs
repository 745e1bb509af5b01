//! A process a snippet started, known by the pid file it wrote, checked through `/proc`: gone,
//! or still running (a zombie runs nothing); killed when the check is dropped, so a failing test
//! leaves nothing behind.

use std::path::Path;
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

/// Waits up to 20 s for a pid file a snippet writes; kills the process when dropped, so a
/// failing test leaves nothing behind.
pub(crate) struct Written {
    pid: i32,
}

impl Written {
    pub(crate) fn wait(path: &Path) -> Written {
        let started = Instant::now();
        loop {
            if let Some(pid) = std::fs::read_to_string(path)
                .ok()
                .and_then(|text| text.trim().parse().ok())
            {
                return Written { pid };
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{} never written",
                path.display()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Asserts the process is gone within `grace` (a killed orphan may take a moment).
    #[track_caller]
    pub(crate) fn assert_gone(&self, grace: Duration) {
        let started = Instant::now();
        while running(self.pid) && started.elapsed() < grace {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!running(self.pid), "pid {} is still running", self.pid);
    }
}

impl Drop for Written {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-9", &self.pid.to_string()])
            .stderr(Stdio::null())
            .status();
    }
}
