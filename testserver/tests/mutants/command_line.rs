//! The mutants on the command line: `--list-mutants`, an unknown name, `--mutant` and
//! `$MDBOOK_SNIPPETS_MUTANT`.

use super::*;

fn binary() -> std::process::Command {
    let mut command = std::process::Command::new(BINARY);
    command.env_remove(MUTANT_VAR);
    command
}

#[test]
fn list_mutants_prints_name_tab_rule_one_line_each() {
    let output = binary().arg("--list-mutants").output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout, mutants::listing());
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), Mutant::ALL.len());
    assert!(lines.len() >= 12);
    for (line, mutant) in lines.iter().zip(Mutant::ALL) {
        let (name, rule) = line.split_once('\t').expect("NAME<TAB>RULE");
        assert_eq!(name, mutant.name());
        assert!(!rule.contains('\t') && rule.contains("(20"), "{line}");
    }
    assert!(lines[0].starts_with("cancel-ignored\t"), "{}", lines[0]);
}

#[test]
fn an_unknown_mutant_exits_2_and_lists_the_known_ones() {
    let by_flag = binary()
        .args(["--mutant", "cancel-ignord"])
        .output()
        .unwrap();
    let by_var = binary().env(MUTANT_VAR, "nope").output().unwrap();
    for (output, prefix) in [
        (
            by_flag,
            "mcp-testserver: error: --mutant: unknown mutant `cancel-ignord`",
        ),
        (
            by_var,
            "mcp-testserver: error: MDBOOK_SNIPPETS_MUTANT: unknown mutant `nope`",
        ),
    ] {
        assert_eq!(output.status.code(), Some(2), "{output:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.starts_with(prefix), "{stderr}");
        assert!(
            stderr.contains("; known mutants: cancel-ignored, cancel-still-answered, "),
            "{stderr}"
        );
        assert!(output.stdout.is_empty());
    }
}

/// The binary over stdio with `args`, and `$MDBOOK_SNIPPETS_MUTANT` set to `variable` or unset
/// (through `env`, so the test's own environment stays as it is); the progress values of one
/// `slow` call.
async fn binary_progress(args: &[&str], variable: Option<&str>) -> Vec<Value> {
    let setting = match variable {
        Some(name) => format!("{MUTANT_VAR}={name}"),
        None => format!("--unset={MUTANT_VAR}"),
    };
    let mut command = vec![setting.as_str(), BINARY];
    command.extend_from_slice(args);
    let mut conn = Conn::spawn("env", &command, Revision::V2025_11_25);
    conn.initialize().await;
    let params = json!({"name": "slow", "arguments": {"steps": 2, "step_ms": 1},
        "_meta": {"progressToken": "t"}});
    conn.send_request(json!(1), "tools/call", params).await;
    let mut progress = Vec::new();
    loop {
        let message = conn.recv().await;
        if message.get("id").is_some() {
            break;
        }
        progress.push(message["params"]["progress"].clone());
    }
    assert_eq!(conn.finish().await, Some(0));
    progress
}

#[tokio::test]
async fn the_binary_breaks_the_rule_named_by_flag_or_variable_and_the_flag_wins() {
    assert_eq!(binary_progress(&[], None).await, [json!(1), json!(2)]);
    let backwards = [json!(2), json!(1)];
    let flag = ["--mutant", "progress-backwards"];
    assert_eq!(binary_progress(&flag, None).await, backwards);
    assert_eq!(
        binary_progress(&[], Some("progress-backwards")).await,
        backwards
    );
    assert_eq!(
        binary_progress(&flag, Some("progress-token-retyped")).await,
        backwards
    );
}
