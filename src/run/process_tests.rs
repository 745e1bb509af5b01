use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use super::*;

/// `/bin/sh` with nothing else set (no arguments, file, attributes, `pass-env`, `writable` or
/// mutant), 10 s, 1 KiB of output: each test sets what it needs.
fn sh_request() -> RunRequest {
    RunRequest {
        program: PathBuf::from("/bin/sh"),
        env: Vec::new(),
        args: Vec::new(),
        file: None,
        harness_attributes: String::new(),
        pass_env: Vec::new(),
        writable: Vec::new(),
        timeout: Duration::from_secs(10),
        output_limit: 1024,
        mutant: None,
    }
}

fn shell(script: &str, timeout_millis: u64) -> RunRecord {
    let request = RunRequest {
        args: vec!["-c".to_owned(), script.to_owned()],
        harness_attributes: "revision=2025-11-25,trace=on".to_owned(),
        timeout: Duration::from_millis(timeout_millis),
        output_limit: 64,
        ..sh_request()
    };
    run(&request).expect("sh starts")
}

#[test]
fn exit_code_output_and_environment() {
    let record = shell(
        "echo \"$MDBOOK_SNIPPETS_ATTRS\"; echo oops >&2; ls -A; exit 3",
        10_000,
    );
    assert_eq!(record.exit, Exit::Code(3));
    assert_eq!(record.stdout, "revision=2025-11-25,trace=on\n");
    assert_eq!(record.stderr, "oops\n");
}

#[test]
fn only_a_mutant_run_gets_the_mutant_variable() {
    let request = |mutant: Option<&str>| RunRequest {
        args: vec![
            "-c".to_owned(),
            "echo \"${MDBOOK_SNIPPETS_MUTANT-unset}\"".to_owned(),
        ],
        output_limit: 64,
        mutant: mutant.map(str::to_owned),
        ..sh_request()
    };
    let stdout = |mutant| run(&request(mutant)).expect("sh starts").stdout;
    assert_eq!(stdout(Some("cancel-ignored")), "cancel-ignored\n");
    assert_eq!(stdout(None), "unset\n");
}

#[test]
fn stdin_is_closed() {
    let record = shell("cat; echo done", 10_000);
    assert_eq!(
        (record.exit, record.stdout.as_str()),
        (Exit::Code(0), "done\n")
    );
}

#[test]
fn timeout_kills_the_whole_group() {
    let started = Instant::now();
    // The leftover child holds our stdout pipe: if it survived, reading would not end.
    let record = shell("sleep 30 & while :; do :; done", 300);
    assert_eq!(record.exit, Exit::TimedOut(Duration::from_millis(300)));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn children_left_behind_are_killed() {
    let started = Instant::now();
    let record = shell("sleep 30 & echo parent done", 10_000);
    assert_eq!(
        (record.exit, record.stdout.as_str()),
        (Exit::Code(0), "parent done\n")
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn output_flood_is_capped_and_stopped() {
    let record = shell("yes flood", 10_000);
    assert_eq!(record.exit, Exit::OutputLimit(64));
    assert_eq!(record.stdout.len(), 64);
}

#[test]
fn run_all_keeps_request_order() {
    let requests: Vec<RunRequest> = (0..5)
        .map(|index| RunRequest {
            args: vec![
                "-c".to_owned(),
                format!("sleep 0.0{}; echo {index}", 5 - index),
            ],
            ..sh_request()
        })
        .collect();
    let finished = AtomicUsize::new(0);
    let results = run_all(&requests, &JobSlots::new(3), &|_, _| {
        finished.fetch_add(1, Ordering::SeqCst);
    });
    let outputs: Vec<String> = results
        .into_iter()
        .map(|result| result.expect("runs").stdout)
        .collect();
    assert_eq!(outputs, ["0\n", "1\n", "2\n", "3\n", "4\n"]);
    assert_eq!(finished.load(Ordering::SeqCst), 5);
}

/// Two `run_all`s side by side (Rust snippets and another language's) share one limit: with
/// 2 slots, 4 processes that each sleep 0.3 s take two rounds, not one.
#[test]
fn concurrent_run_alls_share_the_job_limit() {
    let sleeper = |file: Option<SnippetFile>| RunRequest {
        args: vec!["{file}".to_owned()],
        file,
        ..sh_request()
    };
    let requests: Vec<RunRequest> = (0..2)
        .map(|index| {
            sleeper(Some(SnippetFile {
                name: format!("s{index}.sh"),
                content: "sleep 0.3\necho \"$0\"\n".to_owned(),
            }))
        })
        .collect();
    let slots = JobSlots::new(2);
    let started = Instant::now();
    let (first, second) = std::thread::scope(|scope| {
        let first = scope.spawn(|| run_all(&requests, &slots, &|_, _| {}));
        let second = run_all(&requests, &slots, &|_, _| {});
        (first.join().unwrap(), second)
    });
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(580), "{elapsed:?}");
    for result in first.into_iter().chain(second) {
        // `{file}` became the path of the file written for the request.
        let stdout = result.expect("runs").stdout;
        assert!(stdout.trim_end().ends_with(".sh"), "{stdout:?}");
        assert!(stdout.contains("/code/s"), "{stdout:?}");
    }
}

/// A process of the snippet, named by the pid it wrote to a file; killed when dropped, so a
/// failing test leaves nothing behind either.
struct Leftover {
    pid: i32,
}

impl Leftover {
    fn read(path: &std::path::Path) -> Leftover {
        let text = std::fs::read_to_string(path).expect("the snippet wrote its child's pid");
        Leftover {
            pid: text.trim().parse().expect("a pid"),
        }
    }

    /// Whether the OS still has the process (running, or a zombie nobody reaped).
    fn exists(&self) -> bool {
        std::path::Path::new(&format!("/proc/{}", self.pid)).exists()
    }
}

impl Drop for Leftover {
    fn drop(&mut self) {
        if let Some(pid) = Pid::from_raw(self.pid) {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
    }
}

/// `script` run by `sh` with `$1` a file for the pid of the child it detaches.
fn detaching(script: &str, timeout: Duration) -> (RunRecord, Leftover, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let request = RunRequest {
        args: vec![
            "-c".to_owned(),
            script.to_owned(),
            "sh".to_owned(),
            pid_file.to_string_lossy().into_owned(),
        ],
        timeout,
        ..sh_request()
    };
    let started = Instant::now();
    let record = run(&request).expect("sh starts");
    let elapsed = started.elapsed();
    (record, Leftover::read(&pid_file), elapsed)
}

/// The reproduction: the child leaves the process group and the session (`setsid`)
/// and keeps stdout open; the parent prints and returns. The verdict comes at once and the
/// child is gone (killed and reaped).
#[test]
fn a_detached_child_holding_stdout_is_gone_with_the_verdict() {
    let (record, child, elapsed) = detaching(
        "setsid sh -c 'echo $$ > \"$1\"; exec sleep 40' sh \"$1\" &
         while [ ! -s \"$1\" ]; do sleep 0.01; done; echo parent done",
        Duration::from_secs(5),
    );
    assert_eq!(
        (record.exit, record.stdout.as_str()),
        (Exit::Code(0), "parent done\n")
    );
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    assert!(!child.exists(), "pid {} is still there", child.pid);
}

/// A double fork whose grandchild closes its output and leaves the session: nothing waits for
/// it, and without the fix it outlived the verifier.
#[test]
fn a_detached_child_that_closed_its_output_is_gone_with_the_verdict() {
    let (record, child, _) = detaching(
        "(setsid sh -c 'exec >/dev/null 2>&1; echo $$ > \"$1\"; exec sleep 40' sh \"$1\" &) ;
         while [ ! -s \"$1\" ]; do sleep 0.01; done; echo parent done",
        Duration::from_secs(5),
    );
    assert_eq!(record.exit, Exit::Code(0));
    assert!(!child.exists(), "pid {} is still there", child.pid);
}

/// A snippet that runs past its timeout while a detached child holds the pipes: the deadline
/// holds, and the child is gone too.
#[test]
fn the_deadline_holds_while_a_detached_child_holds_the_pipes() {
    let (record, child, elapsed) = detaching(
        "setsid sh -c 'echo $$ > \"$1\"; exec sleep 40' sh \"$1\" &
         while :; do sleep 0.05; done",
        Duration::from_millis(500),
    );
    assert_eq!(record.exit, Exit::TimedOut(Duration::from_millis(500)));
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    assert!(!child.exists(), "pid {} is still there", child.pid);
}

/// Reading stops at the deadline even when a writer keeps the pipe open forever (one no scan
/// could attribute to the snippet).
#[test]
fn reading_stops_at_the_deadline() {
    let (reader, mut writer) = std::io::pipe().unwrap();
    std::io::Write::write_all(&mut writer, b"early\n").unwrap();
    let flooded = AtomicBool::new(false);
    let started = Instant::now();
    let deadline = Instant::now() + Duration::from_millis(300);
    let (kept, ended) = read_capped(reader, 1024, Some(deadline), || {}, &flooded);
    assert_eq!((kept.as_slice(), ended), (b"early\n".as_slice(), false));
    assert!(started.elapsed() < Duration::from_secs(3));
    drop(writer);
}

/// Runs side by side: ending one never touches another's processes, even detached ones.
#[test]
fn ending_one_run_leaves_the_others_alone() {
    let request = |script: &str| RunRequest {
        args: vec!["-c".to_owned(), script.to_owned()],
        ..sh_request()
    };
    let requests = [
        request("setsid sleep 40 & echo first"),
        request(
            "setsid sh -c 'sleep 0.5; echo detached child of the second' & sleep 1; echo second",
        ),
    ];
    let results = run_all(&requests, &JobSlots::new(2), &|_, _| {});
    let outputs: Vec<String> = results
        .into_iter()
        .map(|result| result.expect("runs").stdout)
        .collect();
    assert_eq!(
        outputs,
        ["first\n", "detached child of the second\nsecond\n"]
    );
}

/// Any timeout the configuration accepts works: one too large for the clock means no deadline.
#[test]
fn a_timeout_too_large_for_the_clock_is_no_deadline() {
    let request = RunRequest {
        args: vec!["-c".to_owned(), "echo fine".to_owned()],
        timeout: Duration::from_secs(u64::MAX),
        ..sh_request()
    };
    let record = run(&request).expect("sh starts");
    assert_eq!(
        (record.exit, record.stdout.as_str()),
        (Exit::Code(0), "fine\n")
    );
}

#[test]
fn the_environment_is_clean_but_for_what_a_program_needs() {
    for name in [
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "TERM",
        "TMPDIR",
        "MDBOOK_SNIPPETS_MUTANT",
        "CARGO_MANIFEST_DIR",
        "CARGO_PKG_NAME",
        "SSL_CERT_FILE",
        "NODE_EXTRA_CA_CERTS",
    ] {
        assert!(passes(name), "{name}");
    }
    for name in [
        "MY_SECRET_TOKEN",
        "GITHUB_TOKEN",
        "CARGO_REGISTRY_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "RUSTC_WRAPPER",
        // A proxy's address may carry its credentials: a book that needs it lists it.
        "HTTPS_PROXY",
        "https_proxy",
    ] {
        assert!(!passes(name), "{name}");
    }
    // What the snippet sees: only names that pass (and what `sh` sets itself), though this
    // test's own environment holds others (cargo's `CARGO_MAKEFLAGS`, `LD_LIBRARY_PATH`, ...).
    let others: Vec<String> = std::env::vars()
        .map(|(name, _)| name)
        .filter(|name| !passes(name))
        .collect();
    assert!(
        !others.is_empty(),
        "nothing to keep out in this environment"
    );
    let request = RunRequest {
        args: vec!["-c".to_owned(), "env | cut -d= -f1".to_owned()],
        pass_env: vec![others[0].clone()],
        output_limit: 1 << 20,
        ..sh_request()
    };
    let record = run(&request).expect("sh starts");
    let names: Vec<&str> = record.stdout.lines().collect();
    assert!(names.contains(&"PATH"), "{names:?}");
    assert!(names.contains(&others[0].as_str()), "pass-env: {names:?}");
    for name in names {
        assert!(
            passes(name) || ["PWD", "OLDPWD", "SHLVL", "_", others[0].as_str()].contains(&name),
            "{name} reached the snippet"
        );
    }
}

/// Many short runs side by side: a run's end scans for its processes while other runs are being
/// started, and a fork of the verifier that has not yet exec'd holds copies of every pipe. No
/// run may take another's starting process for its own (it was killed with SIGKILL).
#[test]
fn runs_starting_while_others_end_are_left_alone() {
    let requests: Vec<RunRequest> = (0..120)
        .map(|index| RunRequest {
            args: vec!["-c".to_owned(), format!("echo {index}")],
            timeout: Duration::from_secs(30),
            ..sh_request()
        })
        .collect();
    let results = run_all(&requests, &JobSlots::new(8), &|_, _| {});
    for (index, result) in results.into_iter().enumerate() {
        let record = result.expect("runs");
        assert_eq!(
            (record.exit, record.stdout),
            (Exit::Code(0), format!("{index}\n"))
        );
    }
}
