use std::time::{Duration, Instant};

use super::*;

fn shell(script: &str, timeout_millis: u64) -> RunRecord {
    let request = RunRequest {
        program: PathBuf::from("/bin/sh"),
        args: vec!["-c".to_owned(), script.to_owned()],
        file: None,
        harness_attributes: "revision=2025-11-25,trace=on".to_owned(),
        timeout: Duration::from_millis(timeout_millis),
        output_limit: 64,
        mutant: None,
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
        program: PathBuf::from("/bin/sh"),
        args: vec![
            "-c".to_owned(),
            "echo \"${MDBOOK_SNIPPETS_MUTANT-unset}\"".to_owned(),
        ],
        file: None,
        harness_attributes: String::new(),
        timeout: Duration::from_secs(10),
        output_limit: 64,
        mutant: mutant.map(str::to_owned),
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
fn artifacts_are_read_back_in_name_order() {
    let record = shell(
        "printf '<svg/>' > \"$MDBOOK_SNIPPETS_ARTIFACTS/20-sequence.svg\"; \
         printf 'in -> x' > \"$MDBOOK_SNIPPETS_ARTIFACTS/10-wire_transcript.txt\"; \
         printf 'skip' > \"$MDBOOK_SNIPPETS_ARTIFACTS/notes.bin\"",
        10_000,
    );
    assert_eq!(
        record.artifacts,
        vec![
            Artifact {
                title: "wire transcript".to_owned(),
                kind: ArtifactKind::Text,
                content: "in -> x".to_owned()
            },
            Artifact {
                title: "sequence".to_owned(),
                kind: ArtifactKind::Svg,
                content: "<svg/>".to_owned()
            },
        ]
    );
}

#[test]
fn run_all_keeps_request_order() {
    let requests: Vec<RunRequest> = (0..5)
        .map(|index| RunRequest {
            program: PathBuf::from("/bin/sh"),
            args: vec![
                "-c".to_owned(),
                format!("sleep 0.0{}; echo {index}", 5 - index),
            ],
            file: None,
            harness_attributes: String::new(),
            timeout: Duration::from_secs(10),
            output_limit: 1024,
            mutant: None,
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
        program: PathBuf::from("/bin/sh"),
        args: vec!["{file}".to_owned()],
        file,
        harness_attributes: String::new(),
        timeout: Duration::from_secs(10),
        output_limit: 1024,
        mutant: None,
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
