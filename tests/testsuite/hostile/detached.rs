//! Snippets whose processes try to outlive their verdict, and signals to the verifier while
//! they run: each under every containment (a PID namespace, the subreaper fallback with and
//! without Landlock), each checked through `/proc`: the snippet's processes carry a token in
//! their command line (`sleep 40.TOKEN`), and leave a marker file to show they started.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{sh_book, writable};
use crate::support::containment::Containment;
use crate::support::{Book, Tagged, book, files_under, preprocessor};

/// Runs `mdbook-snippets test --quiet --no-cache` under `containment`, checking the run says
/// which containment it had.
fn test_under(book: &Book, containment: Containment) -> crate::support::Output {
    let mut command = book.test_command(&["--quiet", "--no-cache"]);
    containment.apply(&mut command);
    let output = book.run(command);
    output.stderr_contains(&containment.line());
    output
}

/// The issue's reproduction, as a Rust snippet (`rust,timeout=5`): a child that leaves the
/// session (`setsid`) and sleeps holding stdout, a parent that prints and returns. The verdict
/// comes without waiting for the child, which is gone when it does. (No bound on time: the
/// build shares a loaded machine; the unit tests in `process_tests.rs` bound the run itself.)
#[test]
fn a_detached_child_of_a_rust_snippet_is_gone_with_the_verdict() {
    let marks = tempfile::tempdir().unwrap();
    let started = marks.path().join("started");
    let child = Tagged::new();
    let chapter = format!(
        "# Detach\n\n```rust,timeout=5\n\
         std::process::Command::new(\"setsid\")\n    \
         .args([\"sh\", \"-c\", \"echo started > {0}; exec sleep 600.{1}\"])\n    \
         .spawn()\n    .unwrap();\n\
         while !std::path::Path::new(\"{0}\").exists() {{\n    \
         std::thread::sleep(std::time::Duration::from_millis(10));\n}}\n\
         println!(\"parent done\");\n```\n\n```text,output\nparent done\n```\n",
        started.display(),
        child.token(),
    );
    let book = book(&[
        (
            "book.toml",
            &format!(
                "[book]\ntitle = \"detach\"\n\n[preprocessor.snippets]\n{}",
                writable(marks.path())
            ),
        ),
        ("src/SUMMARY.md", "- [A](a.md)\n"),
        ("src/a.md", &chapter),
    ]);
    let output = test_under(&book, Containment::Sandbox);
    output.code(0);
    output.stdout_contains("1 passed, 0 failed");
    assert!(started.exists(), "the child never started");
    child.assert_gone(Duration::from_secs(2));
}

/// The child closes its output and keeps running: nothing waited for it, and it outlived the
/// verifier. Now it is gone when the verifier exits.
#[test]
fn a_detached_child_that_closed_its_output_does_not_outlive_the_verifier() {
    for containment in Containment::ALL {
        let marks = tempfile::tempdir().unwrap();
        let started = marks.path().join("started");
        let child = Tagged::new();
        let book = sh_book(
            &writable(marks.path()),
            &format!(
                "# A\n\n```sh\n(setsid sh -c 'exec >/dev/null 2>&1; echo started > {0}; \
                 exec sleep 40.{1}' &)\n\
                 while [ ! -s {0} ]; do sleep 0.01; done\necho parent done\n```\n",
                started.display(),
                child.token()
            ),
        );
        test_under(&book, containment).code(0);
        assert!(started.exists(), "{containment:?}: the child never started");
        child.assert_gone(Duration::from_secs(2));
    }
}

/// The issue's fork-hopper: a process that leaves the session and its pipes, then forks and
/// exits in a loop as fast as it can (Perl: a shell forks too slowly), every 1000th hop
/// appending a line to a log. The `/proc` scan never saw it alive (every process it read was
/// already a zombie, its successor born after), and it outlived the verdict. Now the chain ends
/// with the verdict: the log stops growing and no hop is left.
#[test]
fn a_setsid_fork_hopper_is_gone_with_the_verdict() {
    for containment in Containment::ALL {
        let marks = tempfile::tempdir().unwrap();
        let log = marks.path().join("hops");
        let hopper = Tagged::new();
        let _stop = StopFile(marks.path().join("stop"));
        let book = sh_book(
            &writable(marks.path()),
            &format!(
                "# A\n\n```sh\n\
                 perl -MPOSIX -e 'POSIX::setsid();\n\
                 open STDIN, \"<\", \"/dev/null\"; open STDOUT, \">\", \"/dev/null\"; \
                 open STDERR, \">\", \"/dev/null\";\n\
                 my $hops = 0;\n\
                 until (-e \"{stop}\") {{\n\
                 fork and POSIX::_exit(0);\n\
                 next if ++$hops % 1000 != 1;\n\
                 open my $log, \">>\", \"{log}\"; print $log \"$hops\\n\"; close $log;\n\
                 }}' hopper-{token} &\n\
                 while [ ! -s {log} ]; do sleep 0.01; done\nsleep 0.2\necho parent done\n```\n",
                stop = marks.path().join("stop").display(),
                log = log.display(),
                token = hopper.token(),
            ),
        );
        test_under(&book, containment).code(0);
        let hops = || {
            std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .count()
        };
        std::thread::sleep(Duration::from_millis(300));
        let before = hops();
        std::thread::sleep(Duration::from_secs(1));
        assert_eq!(
            hops(),
            before,
            "{containment:?}: the fork-and-exit chain still runs after the verdict"
        );
        assert!(before > 0, "{containment:?}: the chain never hopped");
        hopper.assert_gone(Duration::from_secs(2));
    }
}

/// The issue's mark-dropper: a process that leaves its session and group, goes to `/`, clears
/// its environment (the run's marker too) and closes its pipes, then sleeps. Nothing tied it to
/// its run, so it lived on with parent pid 1 after the verifier exited. Now it is gone.
#[test]
fn a_process_that_drops_every_mark_is_gone_with_the_verdict() {
    for containment in Containment::ALL {
        let marks = tempfile::tempdir().unwrap();
        let started = marks.path().join("started");
        let dropper = Tagged::new();
        let book = sh_book(
            &writable(marks.path()),
            &format!(
                "# A\n\n```sh\ncat > \"$TMPDIR/dropper.sh\" <<'EOF'\n\
                 exec </dev/null >/dev/null 2>&1\necho started > {started}\n\
                 exec sleep 40.{token}\nEOF\n\
                 setsid sh -c 'cd / && exec env -i /bin/sh \"$0\"' \"$TMPDIR/dropper.sh\" &\n\
                 while [ ! -s {started} ]; do sleep 0.01; done\necho parent done\n```\n",
                started = started.display(),
                token = dropper.token(),
            ),
        );
        test_under(&book, containment).code(0);
        assert!(
            started.exists(),
            "{containment:?}: the dropper never started"
        );
        dropper.assert_gone(Duration::from_secs(2));
    }
}

/// Creates its file when dropped: the fork-hopper stops at it, even when a check failed.
struct StopFile(PathBuf);

impl Drop for StopFile {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.0, "");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// SIGTERM and SIGINT to `mdbook-snippets test`, and SIGTERM to the preprocessor, while a
/// snippet (and a child it detached) runs: both are gone, the exit code is 143 / 130, the
/// cache holds no half-written entry, and the runs' scratch directories (`TMPDIR/mdbook-snippets-*`,
/// left behind before) are gone.
#[test]
fn a_signal_stops_the_running_snippets_and_exits_128_plus_the_signal() {
    for containment in Containment::ALL {
        for (signal, code, preprocessor) in [
            ("TERM", 143, false),
            ("INT", 130, false),
            ("TERM", 143, true),
        ] {
            let case = format!("SIG{signal}, preprocessor: {preprocessor}, {containment:?}");
            signal_case(containment, signal, code, preprocessor, &case);
        }
    }
}

fn signal_case(containment: Containment, signal: &str, code: i32, preprocessor: bool, case: &str) {
    let marks = tempfile::tempdir().unwrap();
    let main_file = marks.path().join("main");
    let child_file = marks.path().join("child");
    let processes = Tagged::new();
    let book = sh_book(
        &writable(marks.path()),
        &format!(
            "# A\n\n```sh\necho ok\n```\n\n```sh\n\
             setsid sh -c 'echo started > {child}; exec sleep 40.{token}' &\n\
             echo started > {main}\n\
             exec sh -c 'while :; do sleep 0.1; done' main-{token}\n```\n",
            main = main_file.display(),
            child = child_file.display(),
            token = processes.token(),
        ),
    );
    let target = tempfile::tempdir().unwrap();
    // The verifier's temporary directory, where its runs' scratch directories go.
    let temp = tempfile::tempdir().unwrap();
    let mut verifier = if preprocessor {
        let input = preprocessor::input_json(book.path(), "html");
        let mut command = preprocessor::command(book.path(), &[]);
        let mut child = containment
            .apply(&mut command)
            .env("CARGO_TARGET_DIR", target.path())
            .env("TMPDIR", temp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, &input).unwrap();
        drop(stdin);
        child
    } else {
        let mut command = book.test_command(&["--quiet", "--no-cache"]);
        containment.apply(&mut command);
        book.isolate(&mut command, target.path())
            .env("TMPDIR", temp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let started = Instant::now();
    while processes.pids().len() < 2 || !main_file.exists() || !child_file.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{case}: never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let the first snippet's verdict reach the cache.
    std::thread::sleep(Duration::from_millis(300));
    // The running snippet's scratch directory is there: the check after the signal is not
    // vacuous.
    assert!(!scratch_dirs(temp.path()).is_empty(), "{case}");
    let sent = Command::new("kill")
        .args([format!("-{signal}"), verifier.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = wait_for_exit(&mut verifier, case);
    assert_eq!(status.code(), Some(code), "{case}");
    processes.assert_gone(Duration::from_secs(2));
    assert_eq!(
        partial_files(target.path()),
        Vec::<PathBuf>::new(),
        "{case}"
    );
    assert_eq!(scratch_dirs(temp.path()), Vec::<PathBuf>::new(), "{case}");
}

/// The runs' scratch directories in `temp` (`mdbook-snippets-*`).
fn scratch_dirs(temp: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(temp)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("mdbook-snippets-"))
        })
        .collect()
}

/// Waits up to 20 s for the verifier to exit.
fn wait_for_exit(verifier: &mut std::process::Child, case: &str) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = verifier.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = verifier.kill();
            panic!("the verifier did not exit ({case})");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Half-written cache entries under `dir`.
fn partial_files(dir: &Path) -> Vec<PathBuf> {
    files_under(dir)
        .into_iter()
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().contains("partial"))
        })
        .collect()
}
