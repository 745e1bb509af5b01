//! The client templates (rmcp, Python, TypeScript) against the test server binary, as a reader
//! uses them: one call typed per line, Ctrl-C pressed while one runs. The server's wire
//! transcript (`--artifacts`) shows what crossed: which cancels, with which reason, and the
//! late answer of a server that ignored one.

use std::process::Command;

use super::build::{python_template, rust_template, typescript_template};
use super::child::Child;
use super::shown::check_shown;
use crate::support::{read, test_server};

/// The limits every client run gets: `--idle 1 --total 4` (seconds).
const LIMITS: [&str; 4] = ["--idle", "1", "--total", "4"];

/// The calls typed, in order, and whether Ctrl-C is pressed while the call runs (after its first
/// progress notification, so the server is working on it).
const CALLS: [(&str, bool); 5] = [
    // 2 s in all, progress every 0.5 s: only progress keeps it within the 1 s idle limit.
    (r#"slow {"steps": 4, "step_ms": 500}"#, false),
    // No progress at all: the idle limit ends it.
    (r#"wait_gate {"gate": "never"}"#, false),
    // Progress every 0.2 s for 8 s: the total limit ends it.
    (r#"slow {"steps": 40, "step_ms": 200}"#, false),
    // Stopped by the user; this tool ignores the cancel and answers 2 s after it started.
    (r#"ignore_cancel {"steps": 5, "step_ms": 400}"#, true),
    // Runs while that late answer arrives, and gets its own.
    (r#"slow {"steps": 8, "step_ms": 300}"#, false),
];

/// What one run of a client template showed: its stdout, one line per call, and the wire.
struct ClientRun {
    outcomes: Vec<String>,
    /// The server's wire transcript (compact lines), progress notifications left out.
    wire: Vec<String>,
    /// The run as the page shows it (`runs/NAME.txt`).
    shown: String,
}

/// Runs the client `command` (the template and its arguments before the limits) against the
/// test server, `typed` being how the page shows the command line; [`check_run`] and
/// [`check_shown`] judge it. `ctrl_c_to_group`: Ctrl-C as
/// a terminal sends it, to the whole foreground process group.
fn run_client(name: &str, mut command: Command, typed: &str, ctrl_c_to_group: bool) -> ClientRun {
    let artifacts = tempfile::Builder::new()
        .prefix("template-artifacts-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("creating the artifacts directory");
    command
        .args(LIMITS)
        .arg(test_server())
        .arg("--artifacts")
        .arg(artifacts.path());
    let mut child = Child::spawn(command);
    let mut shown = vec![format!(
        "$ {typed} {} ../../target/release/mcp-testserver",
        LIMITS.join(" ")
    )];
    let mut outcomes = Vec::new();
    for (call, ctrl_c) in CALLS {
        child.type_line(call);
        shown.push(call.to_owned());
        if ctrl_c {
            // This call's first progress (the earlier calls' lines are read past).
            child.stderr_until(|line| line.trim_start().starts_with("progress 1/5 "));
            child.interrupt(ctrl_c_to_group);
            shown.push("^C".to_owned());
        }
        let outcome = child.stdout_line();
        shown.push(outcome.clone());
        outcomes.push(outcome);
    }
    let finished = child.finish();
    assert_eq!(
        finished.code,
        Some(0),
        "{name} exited with {:?}: {:?}",
        finished.code,
        finished.stderr
    );
    assert!(
        finished.stdout.is_empty(),
        "{name} printed more: {:?}",
        finished.stdout
    );
    assert!(
        !finished
            .stderr
            .iter()
            .any(|line| line.contains("violation")),
        "the test server saw protocol violations: {:?}",
        finished.stderr
    );
    let transcript = read(&artifacts.path().join("10-wire_transcript.txt"));
    let calls = call_ids(&transcript);
    let wire: Vec<String> = transcript
        .lines()
        .filter(|line| {
            line.starts_with("→ notification cancelled")
                || calls.iter().any(|id| {
                    line.starts_with(&format!("→ req {id} tools/call"))
                        || line.starts_with(&format!("← resp {id} "))
                })
        })
        .map(str::to_owned)
        .collect();
    shown.push(String::new());
    shown.push("What the server saw (progress left out):".to_owned());
    shown.extend(wire.iter().map(|line| shown_wire_line(line)));
    let shown = shown.join("\n") + "\n";
    ClientRun {
        outcomes,
        wire,
        shown,
    }
}

/// A line of the compact transcript as the page shows it, short enough for the page: no progress
/// token, `cancelled` for `notification cancelled`.
fn shown_wire_line(line: &str) -> String {
    let line = line.replacen("→ notification cancelled ", "→ cancelled ", 1);
    match line.split_once(" _meta.progressToken=") {
        Some((request, token)) if !token.contains(' ') => request.to_owned(),
        _ => line,
    }
}

/// The ids of the `tools/call` requests of a compact transcript, in order.
fn call_ids(transcript: &str) -> Vec<String> {
    transcript
        .lines()
        .filter_map(|line| line.strip_prefix("→ req "))
        .filter_map(|rest| rest.split_once(" tools/call "))
        .map(|(id, _)| id.to_owned())
        .collect()
}

/// Checks what every client must show, whatever its SDK: the first call completed thanks to
/// progress, the next three were cancelled on the wire with `reasons`, the fourth was answered
/// late anyway, and the last call got its own answer, after that late one.
#[track_caller]
fn check_run(run: &ClientRun, reasons: [&str; 3]) {
    let outcomes: Vec<&str> = run.outcomes.iter().map(String::as_str).collect();
    assert_eq!(outcomes[0], "slow: completed 4 steps", "{outcomes:?}");
    assert!(
        outcomes[1].starts_with("wait_gate: gave up: no progress for 1"),
        "{outcomes:?}"
    );
    assert!(
        outcomes[2].starts_with("slow: gave up: 4") && outcomes[2].ends_with(" in all"),
        "{outcomes:?}"
    );
    assert_eq!(outcomes[3], "ignore_cancel: stopped", "{outcomes:?}");
    assert_eq!(outcomes[4], "slow: completed 8 steps", "{outcomes:?}");

    let ids: Vec<String> = run
        .wire
        .iter()
        .filter_map(|line| line.strip_prefix("→ req "))
        .map(|rest| rest.split(' ').next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(ids.len(), CALLS.len(), "{:#?}", run.wire);
    let position = |prefix: &str| run.wire.iter().position(|line| line.starts_with(prefix));
    let cancel = |id: &str| position(&format!("→ notification cancelled requestId={id} "));
    let response = |id: &str| position(&format!("← resp {id} "));
    for (index, reason) in (1..4).zip(reasons) {
        let line = cancel(&ids[index]).map(|at| run.wire[at].as_str());
        assert_eq!(
            line.and_then(|line| line.split_once(" reason="))
                .map(|(_, reason)| reason),
            Some(format!("{reason:?}").as_str()),
            "call {index}: the cancel and its reason\n{:#?}",
            run.wire
        );
    }
    for index in [0, 4] {
        assert_eq!(
            cancel(&ids[index]),
            None,
            "call {index} was not cancelled\n{:#?}",
            run.wire
        );
    }
    for index in [1, 2] {
        assert_eq!(
            response(&ids[index]),
            None,
            "a cancelled call has no answer\n{:#?}",
            run.wire
        );
    }
    let late = response(&ids[3]).expect("the server that ignored the cancel answers anyway");
    assert!(
        cancel(&ids[3]) < Some(late),
        "the answer came after the cancel\n{:#?}",
        run.wire
    );
    let last = response(&ids[4]).expect("the last call is answered");
    assert!(
        late < last,
        "the late answer arrived while the last call ran\n{:#?}",
        run.wire
    );
    assert!(
        run.wire[last].ends_with("result \"completed 8 steps\""),
        "{:#?}",
        run.wire
    );
}

#[test]
fn the_rmcp_client_cancels_on_each_limit_and_on_ctrl_c() {
    let run = run_client(
        "rmcp-client",
        rust_template("rmcp-client"),
        "cargo run -q --",
        true,
    );
    check_run(
        &run,
        [
            "request timeout",
            "maximum total timeout exceeded",
            "stopped by the user",
        ],
    );
    check_shown("rmcp-client", &run.shown);
}

#[test]
fn the_python_client_cancels_on_each_limit_and_on_ctrl_c() {
    let command = python_template("python-client", "client.py");
    let run = run_client("python-client", command, "python client.py", true);
    check_run(&run, ["caller cancelled"; 3]);
    check_shown("python-client", &run.shown);
}

/// Ctrl-C goes to the client alone: the TypeScript SDK starts the server in the client's process
/// group, so a terminal's Ctrl-C would stop the server too (the template says so).
#[test]
fn the_typescript_client_cancels_on_each_limit_and_on_its_stop_signal() {
    let scratch = tempfile::Builder::new()
        .prefix("typescript-client-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("creating a scratch directory");
    let command = typescript_template("typescript-client", "client.ts", scratch.path());
    let run = run_client("typescript-client", command, "npx tsx client.ts", false);
    check_run(
        &run,
        [
            "SdkError: Request timed out",
            "TimeoutError: The operation was aborted due to timeout",
            "stopped by the user",
        ],
    );
    check_shown("typescript-client", &run.shown);
}
