//! A language's `setup` command: run once before the first snippet of its languages, again
//! only when its inputs change; a failure is one error naming the command; contained like a
//! snippet, stopped with everything it started at its `setup-timeout` or when the verifier is
//! stopped (under each containment, checked through `/proc`).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use expect_test::expect;

use crate::support::containment::Containment;
use crate::support::{Tagged, book, check_bad_config};

/// A book with two languages whose snippets need `env/ready`, which only their shared `setup`
/// makes (and counts its runs in `runs.log`); `setup-inputs` is `pins.txt`. A snippet finds the
/// environment at `$ENV_DIR`, and may write `logs/` (`writable`).
fn book_with_setup(setup: &str) -> crate::support::Book {
    use std::os::unix::fs::PermissionsExt as _;
    let language = |name: &str| {
        format!(
            "[preprocessor.snippets.languages.{name}]\ncommand = [\"./run.sh\", \"{{file}}\"]\n\
             extension = \"sh\"\n{setup}\n"
        )
    };
    let book = book(&[
        (
            "book.toml",
            &format!(
                "[book]\ntitle = \"t\"\n[preprocessor.snippets]\nwritable = [\"logs\"]\n{}{}",
                language("first"),
                language("second")
            ),
        ),
        ("pins.txt", "v1\n"),
        ("logs/.keep", ""),
        (
            "setup.sh",
            "echo installing the environment\nmkdir -p env && touch env/ready && echo run >> runs.log\n",
        ),
        (
            "run.sh",
            "#!/bin/sh\n[ -e \"$(dirname \"$0\")/env/ready\" ] || { echo 'no environment' >&2; exit 2; }\n\
             ENV_DIR=\"$(dirname \"$0\")/env\" sh \"$1\"\n",
        ),
        ("src/SUMMARY.md", "- [A](a.md)\n"),
        (
            "src/a.md",
            "# A\n\n```first\necho one\n```\n\n```second\necho two\n```\n\n```first\necho three\n```\n",
        ),
    ]);
    let run = book.path().join("run.sh");
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    book
}

/// How many lines `file` of the book has (0 when it does not exist): the logs count runs.
fn lines_in(book: &crate::support::Book, file: &str) -> usize {
    std::fs::read_to_string(book.path().join(file))
        .unwrap_or_default()
        .lines()
        .count()
}

#[test]
fn a_setup_runs_once_before_its_languages_and_again_when_its_inputs_change() {
    let book = book_with_setup("setup = [\"sh\", \"setup.sh\"]\nsetup-inputs = [\"pins.txt\"]");
    let runs = || lines_in(&book, "runs.log");
    let output = book.test(&["--no-cache"]);
    output.code(0).stdout_contains("3 passed, 0 failed");
    // One run for both languages, its output on stderr as progress, never on stdout.
    assert_eq!(runs(), 1, "{output}");
    output.stderr_contains("mdbook-snippets: setting up `first`, `second`: sh setup.sh");
    output.stderr_contains("installing the environment");
    assert!(!output.stdout.contains("installing"), "{output}");

    let output = book.test(&["--no-cache"]);
    output.code(0);
    assert_eq!(runs(), 1, "nothing changed: no second run\n{output}");
    assert!(!output.stderr.contains("setting up"), "{output}");

    std::fs::write(book.path().join("pins.txt"), "v2\n").unwrap();
    book.test(&["--no-cache"]).code(0);
    assert_eq!(runs(), 2);
}

#[test]
fn a_verdict_made_in_another_environment_is_not_reused() {
    use std::os::unix::fs::PermissionsExt as _;
    // The setup copies the pins into the environment; the snippet prints what it finds there.
    let book = book_with_setup("setup = [\"./setup.sh\"]\nsetup-inputs = [\"pins.txt\"]");
    let setup = |extra: &str| {
        book.write(
            "setup.sh",
            &format!(
                "#!/bin/sh\nmkdir -p env && cp pins.txt env/ready {extra}&& echo run >> runs.log\n"
            ),
        );
        let path = book.path().join("setup.sh");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    let expect = |output: &str| {
        book.write(
            "src/a.md",
            &format!(
                "# A\n\n```first\necho ran >> \"$ENV_DIR/../logs/snippet-runs.log\"\ncat \"$ENV_DIR/ready\"\n```\n\n\
                 ```text,output\n{output}```\n"
            ),
        );
    };
    let count = |file: &str| lines_in(&book, file);
    setup("");
    expect("v1\n");
    book.test(&[]).code(0).stdout_contains("1 passed, 0 failed");
    assert_eq!((count("runs.log"), count("logs/snippet-runs.log")), (1, 1));

    // Other pins: the setup runs again, and so does the snippet.
    book.write("pins.txt", "v2\n");
    expect("v2\n");
    let output = book.test(&[]);
    output.code(0).stdout_contains("1 passed, 0 failed");
    assert_eq!(
        (count("runs.log"), count("logs/snippet-runs.log")),
        (2, 2),
        "{output}"
    );

    // Another setup script (same pins): the environment differs, the verdict is not re-used.
    setup("&& echo patched >> env/ready ");
    expect("v2\npatched\n");
    let output = book.test(&[]);
    output.code(0).stdout_contains("1 passed, 0 failed");
    assert_eq!(
        (count("runs.log"), count("logs/snippet-runs.log")),
        (3, 3),
        "{output}"
    );

    // Nothing changed: neither runs.
    let output = book.test(&[]);
    output.code(0).stdout_contains("1 passed, 0 failed");
    assert_eq!(
        (count("runs.log"), count("logs/snippet-runs.log")),
        (3, 3),
        "{output}"
    );
}

#[test]
fn a_setup_script_run_by_an_interpreter_is_an_input() {
    // `sh setup.sh` without `setup-inputs`: the script, an argument naming a file, is what runs.
    let book = book_with_setup("setup = [\"sh\", \"setup.sh\"]");
    let setup = |version: &str| {
        book.write(
            "setup.sh",
            &format!("mkdir -p env && echo {version} > env/ready && echo run >> runs.log\n"),
        );
    };
    let runs = || lines_in(&book, "runs.log");
    book.write(
        "src/a.md",
        "# A\n\n```first\ncat \"$ENV_DIR/ready\"\n```\n\n```text,output\nv1\n```\n",
    );
    setup("v1");
    book.test(&[]).code(0).stdout_contains("1 passed, 0 failed");
    book.test(&[]).code(0).stdout_contains("1 passed, 0 failed");
    assert_eq!(runs(), 1);

    // The edited script runs again, and so does the snippet: it now reads v2, not the v1 its
    // cached verdict saw.
    setup("v2");
    let output = book.test(&[]);
    output.code(1).stdout_contains("0 passed, 1 failed");
    assert_eq!(runs(), 2, "{output}");
}

#[test]
fn a_failed_setup_is_one_error_naming_the_command() {
    let book = book_with_setup("setup = \"echo cannot install >&2; exit 3\"");
    let output = book.test(&["--no-cache"]);
    output.code(2);
    output.stderr_contains(
        "the setup of `first`, `second` failed: `echo cannot install >&2; exit 3` exit status: 3",
    );
    output.stderr_contains("cannot install");
    // Not one failure per snippet.
    assert!(!output.stdout.contains("no environment"), "{output}");
    assert!(!output.stdout.contains("failed at run time"), "{output}");
}

/// A script for a setup: it says it started, detaches a child, and hangs, both processes
/// tagged with `token` (and, with `ignore_sigterm`, deaf to SIGTERM).
fn hanging_setup(token: &str, ignore_sigterm: bool) -> String {
    let trap = if ignore_sigterm { "trap '' TERM\n" } else { "" };
    format!(
        "{trap}echo started > started\n\
         setsid sh -c 'while :; do sleep 1; done' child-{token} &\n\
         exec sh -c 'while :; do sleep 1; done' main-{token}\n"
    )
}

/// Waits for the setup's two processes and its `started` file.
fn wait_for_setup(book: &crate::support::Book, processes: &Tagged) {
    let started = Instant::now();
    while processes.pids().len() < 2 || !book.path().join("started").exists() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the setup never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A setup that hangs held the run whatever `timeout` said. Now `setup-timeout` stops it, and
/// everything it started, and the run fails naming it, before any snippet runs.
#[test]
fn a_hanging_setup_is_stopped_at_its_setup_timeout() {
    for containment in Containment::ALL {
        let processes = Tagged::new();
        let book = book_with_setup("setup = [\"sh\", \"hang.sh\"]\nsetup-timeout = 2");
        book.write("hang.sh", &hanging_setup(processes.token(), false));
        let mut command = book.test_command(&["--no-cache"]);
        containment.apply(&mut command);
        let began = Instant::now();
        let output = book.run(command);
        output.code(2).stderr_contains(&containment.line()).stderr_contains(
            "the setup of `first`, `second` timed out: `sh hang.sh` ran for 2 s (`setup-timeout`) \
             and was stopped with everything it started; no snippet of `first`, `second` was run",
        );
        assert!(
            book.path().join("started").exists(),
            "{containment:?}: {output}"
        );
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "{containment:?}: {:?}",
            began.elapsed()
        );
        processes.assert_gone(Duration::from_secs(2));
    }
}

/// SIGTERM to the verifier while a setup that ignores SIGTERM runs: the verifier exited 143 and
/// the setup stayed. Now both it and the child it detached are gone, and so is its scratch
/// directory.
#[test]
fn a_setup_that_ignores_sigterm_is_stopped_with_the_verifier() {
    for containment in Containment::ALL {
        let processes = Tagged::new();
        let book = book_with_setup("setup = [\"sh\", \"hang.sh\"]");
        book.write("hang.sh", &hanging_setup(processes.token(), true));
        let target = tempfile::tempdir().unwrap();
        // The verifier's temporary directory, where the setup's directory of marks goes.
        let temp = tempfile::tempdir().unwrap();
        let mut command = book.test_command(&["--quiet", "--no-cache"]);
        containment.apply(&mut command);
        let mut verifier = book
            .isolate(&mut command, target.path())
            .env("TMPDIR", temp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_setup(&book, &processes);
        let sent = Command::new("kill")
            .args(["-TERM", &verifier.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let began = Instant::now();
        let status = loop {
            if let Some(status) = verifier.try_wait().unwrap() {
                break status;
            }
            if began.elapsed() > Duration::from_secs(20) {
                let _ = verifier.kill();
                panic!("{containment:?}: the verifier did not exit on SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(143), "{containment:?}");
        processes.assert_gone(Duration::from_secs(2));
        // Its scratch directory too (it was left behind).
        let left: Vec<_> = std::fs::read_dir(temp.path()).unwrap().collect();
        assert!(left.is_empty(), "{containment:?}: {left:?}");
    }
}

#[test]
fn a_bad_setup_timeout_is_refused() {
    let language = "[preprocessor.snippets.languages.first]\ncommand = [\"sh\", \"{file}\"]\n\
                    extension = \"sh\"\n";
    check_bad_config(
        &format!("{language}setup = \"true\"\nsetup-timeout = 0\n"),
        expect![[r#"
            error: in [ROOT]/book.toml: `languages.first.setup-timeout`: must be a positive integer, found 0
        "#]],
    );
    check_bad_config(
        &format!("{language}setup-timeout = 60\n"),
        expect![[r#"
            error: in [ROOT]/book.toml: `languages.first.setup-timeout`: given without `setup`
        "#]],
    );
}
