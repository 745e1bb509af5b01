//! The checks have teeth: each way a ledger can be wrong is reported, on a small book.

use std::collections::BTreeMap;

use super::chapters::parse_chapter;
use super::check::Ledger;

const CLAIM: &str = r#"
[[claim]]
id = "stops"
claim = "The handler stops."
about = "server"
mutant = "cancel-ignored"
source = { revision = "2025-11-25", page = "basic/utilities/cancellation", section = "Behavior Requirements" }
"#;

const COVERAGE: &str = r#"
[[sentence]]
at = "2025-11-25/basic/utilities/cancellation#behavior-requirements:4"
keywords = ["SHOULD"]
fingerprint = "0123456789ab"
status = "demonstrated"
claims = ["stops"]
"#;

const PROVEN: &str = "# A\n\n```rust,claim=stops,kills=cancel-ignored\nx\n```\n\n```text,output\nx\n```\n\n<small>Proves: [stops](claims.md#stops).</small>\n";

/// `problems` are `expected`: one each, found by a part of its text.
fn assert_problems(problems: &[String], expected: &[&str]) {
    for needle in expected {
        assert!(
            problems.iter().any(|p| p.contains(needle)),
            "expected a problem containing {needle:?}, got {problems:#?}"
        );
    }
    assert_eq!(problems.len(), expected.len(), "{problems:#?}");
}

fn check(claims: &str, coverage: &str, chapter: &str, matrix: &str, expected: &[&str]) {
    let mutants = BTreeMap::from([("cancel-ignored".to_owned(), "a rule".to_owned())]);
    let chapter = parse_chapter("a.md".to_owned(), chapter.to_owned());
    let matrix = serde_json::from_str(matrix).expect("JSON");
    let problems = Ledger::new(claims, coverage, vec![chapter], matrix, mutants).problems();
    assert_problems(&problems, expected);
}

#[test]
fn a_proven_claim_passes() {
    check(CLAIM, COVERAGE, PROVEN, "{}", &[]);
}

#[test]
fn a_tag_outside_backticks_fails() {
    let claim = CLAIM.replace("The handler stops.", "The handler parses::<i64>.");
    check(&claim, COVERAGE, PROVEN, "{}", &["outside a code span"]);
    let claim = CLAIM.replace("The handler stops.", "The handler `parses::<i64>`.");
    check(&claim, COVERAGE, PROVEN, "{}", &[]);
}

#[test]
fn a_claim_without_a_proof_fails() {
    let chapter = "# A\n\n```rust,kills=cancel-ignored\nx\n```\n";
    check(
        CLAIM,
        COVERAGE,
        chapter,
        "{}",
        &["claim stops: no proof", "carries `kills=cancel-ignored`"],
    );
}

#[test]
fn a_server_claim_whose_snippets_kill_no_mutant_fails() {
    let chapter = PROVEN.replace(",kills=cancel-ignored", "");
    check(
        CLAIM,
        COVERAGE,
        &chapter,
        "{}",
        &["none of its snippets carries `kills=cancel-ignored`"],
    );
    let claim = CLAIM.replace("mutant = \"cancel-ignored\"\n", "");
    check(
        &claim,
        COVERAGE,
        PROVEN,
        "{}",
        &["names the mutant that breaks it"],
    );
    let claim = CLAIM.replace("\"cancel-ignored\"", "\"no-such-mutant\"");
    let chapter = PROVEN.replace("cancel-ignored", "no-such-mutant");
    check(
        &claim,
        COVERAGE,
        &chapter,
        "{}",
        &["has no mutant no-such-mutant"],
    );
}

#[test]
fn the_proves_line_must_follow_the_run_of_snippets() {
    let chapter = PROVEN.replace("<small>Proves: [stops](claims.md#stops).</small>", "Text.");
    check(CLAIM, COVERAGE, &chapter, "{}", &["the next line must be"]);
    let chapter =
        format!("{PROVEN}\n```rust\ny\n```\n\n<small>Proves: [stops](claims.md#stops).</small>\n");
    check(
        CLAIM,
        COVERAGE,
        &chapter,
        "{}",
        &["a proves line after snippets that prove no claim"],
    );
}

#[test]
fn a_claim_word_must_name_a_claim() {
    let chapter = format!(
        "{PROVEN}\n```rust,claim=nothing\ny\n```\n\n<small>Proves: [nothing](claims.md#nothing).</small>\n"
    );
    check(
        CLAIM,
        COVERAGE,
        &chapter,
        "{}",
        &["`claim=nothing` names no claim"],
    );
}

#[test]
fn a_matrix_cell_must_hold_what_the_claim_says() {
    let claim = r#"
[[claim]]
id = "py-cancels"
claim = "Python sends a cancel."
about = "python"
source = { sdk = "mcp", version = "2.3.0", at = "session.py" }
matrix = [["python", "scope", "2025-11-25", "stdio", "cancel sent", true]]
"#;
    let holds =
        r#"{"matrix": {"python": {"scope": {"2025-11-25": {"stdio": {"cancel sent": true}}}}}}"#;
    check(claim, "sentence = []", "# A\n", holds, &[]);
    check(
        claim,
        "sentence = []",
        "# A\n",
        &holds.replace("true", "false"),
        &["holds false, the claim says true"],
    );
    check(
        claim,
        "sentence = []",
        "# A\n",
        "{}",
        &["no such SDK matrix cell"],
    );
}

#[test]
fn coverage_entries_say_what_the_book_does() {
    let coverage = COVERAGE.replace("claims = [\"stops\"]", "");
    check(
        CLAIM,
        &coverage,
        PROVEN,
        "{}",
        &["demonstrated, but names no claim"],
    );
    let coverage = COVERAGE
        .replace("demonstrated", "explained")
        .replace("claims = [\"stops\"]", "where = \"a.md#nowhere\"");
    check(
        CLAIM,
        &coverage,
        PROVEN,
        "{}",
        &["a.md has no heading #nowhere"],
    );
    let coverage = COVERAGE
        .replace("demonstrated", "out-of-scope")
        .replace("claims = [\"stops\"]", "");
    check(
        CLAIM,
        &coverage,
        PROVEN,
        "{}",
        &["out of scope, but not why"],
    );
}

/// The visible-code findings of one chapter, with a harness whose API is `lib` and `helpers`.
fn visible(chapter: &str) -> (Vec<String>, Vec<String>) {
    use super::visible_code::{HarnessApi, check};
    let lib = "pub mod driver;\npub use mcp_testserver_core::{jsonrpc, server};\n\
               pub use test_server::TestServer;\npub use driver::{Driver, serve_thing};\n\
               pub use raw_client::RawClient;\n\
               pub mod prelude { pub use crate::{TestServer}; }\n";
    let sources = vec![
        lib.to_owned(),
        "impl TestServer {\n    pub fn connect_raw(&self) -> RawClient {}\n    \
         pub async fn connect_rmcp(&self) -> anyhow::Result<RunningService<RoleClient, ()>> {}\n}\n\
         pub struct RawClient;\nimpl RawClient { pub fn fork(&self) -> Self {} }\n"
            .to_owned(),
    ];
    let api = HarnessApi::from_sources(
        lib,
        &sources,
        "def in_flight(client, tool):\n    pass\n",
        "export async function inFlight(client, tool) {}\n",
    );
    let chapter = parse_chapter("a.md".to_owned(), chapter.to_owned());
    let (hidden, harness) = check(&[chapter], &api);
    let lines = |findings: Vec<super::visible_code::Finding>| {
        findings
            .into_iter()
            .map(|f| format!("{}: {}", f.line, f.what))
            .collect()
    };
    (lines(hidden), lines(harness))
}

#[test]
fn the_harness_api_is_read_from_its_sources() {
    use super::visible_code::HarnessApi;
    let api = HarnessApi::load(&crate::support::repo());
    for name in [
        "TestServer",
        "Driver",
        "RawClient",
        "FakeServer",
        "serve_rmcp_http",
    ] {
        assert!(
            api.items.contains(name),
            "{name} missing from {:?}",
            api.items
        );
    }
    for name in ["connect_raw", "start_http", "start"] {
        assert!(
            api.returning.contains(name),
            "{name} missing from {:?}",
            api.returning
        );
    }
    assert!(
        !api.returning.contains("connect_rmcp"),
        "connect_rmcp returns rmcp's client"
    );
    assert!(api.modules.contains("jsonrpc"), "{:?}", api.modules);
    for name in ["in_flight", "handler_log", "inFlight", "withClient"] {
        assert!(
            api.helpers.contains(name),
            "{name} missing from {:?}",
            api.helpers
        );
    }
}

#[test]
fn a_visible_line_using_a_hidden_name_is_reported() {
    let chapter = "# A\n\n```rust\n# let server = TestServer::start();\n\
                   # let client = server.connect_rmcp().await?;\n\
                   client.call_tool(params).await?;\n```\n";
    let (hidden, _) = visible(chapter);
    assert_eq!(hidden.len(), 1, "{hidden:#?}");
    assert!(hidden[0].starts_with("6: uses client"), "{hidden:#?}");
    // A parameter of a visible function is the reader's own name; so is a visible binding.
    let chapter = "# A\n\n```rust\nasync fn stop(client: &Peer<RoleClient>) {\n    \
                   client.cancel().await;\n    println!(\"{client:?} is done\");\n}\n\
                   # let client = hidden();\n# stop(&client).await;\n```\n";
    assert_eq!(visible(chapter).0, Vec::<String>::new());
    // Python and TypeScript: a helper imported on a hidden line.
    let chapter = "# A\n\n```python\n!!!from mcp_snippet import in_flight\n\
                   await in_flight(client, \"slow\")  # in_flight is only a word here\n```\n\n\
                   ```typescript\n!!!import { inFlight } from 'mcp-snippet';\n\
                   const text = `waiting for ${inFlight}`;\n```\n";
    let (hidden, _) = visible(chapter);
    assert_eq!(hidden.len(), 2, "{hidden:#?}");
    assert!(hidden[0].starts_with("5: uses in_flight"), "{hidden:#?}");
    assert!(hidden[1].starts_with("10: uses inFlight"), "{hidden:#?}");
    // A word in a string or a comment, a field or a method of the same name, is not a use.
    let chapter = "# A\n\n```rust\n# let server = 1;\nlet text = \"the server\"; // server\n\
                   let port = http.server().port;\n```\n";
    assert_eq!(visible(chapter).0, Vec::<String>::new());
}

#[test]
fn visible_lines_calling_the_harness_are_counted() {
    let chapter = "# A\n\n```rust\nlet server = TestServer::start();\n\
                   let raw = server.connect_raw();\nlet other = raw.fork();\n\
                   let client = server.connect_rmcp().await?;\nclient.call_tool(x).await?;\n\
                   other.send(jsonrpc::request(1));\nlet v = server::Core::new();\n\
                   # server.idle().await;\n```\n\n\
                   ```python\nfrom mcp_snippet import in_flight\nawait in_flight(client, 'slow')\n\
                   await client.call_tool('slow')\n```\n";
    let (_, harness) = visible(chapter);
    let lines: Vec<&str> = harness
        .iter()
        .map(|f| f.split(':').next().unwrap())
        .collect();
    // The rmcp client made by the harness is rmcp's: `client.call_tool` is the reader's code;
    // a hidden line is not counted; `server::` is a harness path only as `server::`.
    assert_eq!(
        lines,
        ["4", "5", "6", "7", "9", "10", "15", "16"],
        "{harness:#?}"
    );
}

#[test]
fn an_import_defines_only_the_names_it_brings_in() {
    // A hidden `use` brings in `ClientLifecycleMode`, not `rmcp`: a visible `rmcp::` path is the
    // reader's own; a visible use of the hidden import's name is not.
    let chapter = "# A\n\n```rust\n# use rmcp::service::{ClientLifecycleMode, ClientServiceExt};\n\
                   fn f() -> Result<(), rmcp::ServiceError> { Ok(()) }\n\
                   let mode = ClientLifecycleMode::Initialize;\n```\n";
    let (hidden, _) = visible(chapter);
    assert_eq!(hidden.len(), 1, "{hidden:#?}");
    assert!(
        hidden[0].starts_with("6: uses ClientLifecycleMode"),
        "{hidden:#?}"
    );
    // A visible import is a definition, never a use.
    let chapter = "# A\n\n```python\n!!!import mcp.client\nfrom mcp import Client\n```\n";
    assert_eq!(visible(chapter).0, Vec::<String>::new());
}

#[test]
fn a_visible_line_wider_than_the_page_is_reported() {
    let wide = format!("let x = \"{}\";", "a".repeat(100));
    let chapter = format!("# A\n\n```rust\n{wide}\n# {wide}\n```\n");
    let (findings, _) = visible(&chapter);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert!(
        findings[0].starts_with("4: 111 characters"),
        "{findings:#?}"
    );
}

/// A claim about rmcp, shown by the template `client` whose test proves it (`template_proofs`).
const RMCP_CLAIM: &str = r#"
[[claim]]
id = "times-out"
claim = "rmcp cancels on a timeout."
about = "rmcp"
source = { sdk = "rmcp", version = "3.11.0", at = "service.rs" }
"#;

const SHOWN: &str = "# A\n\n```rust,ignore,claim=times-out\n{{#include ../templates/client/src/main.rs:call}}\n```\n\n<small>Proves: [times-out](claims.md#times-out).</small>\n";

fn check_templates(chapter: &str, proofs: &[(&str, &[&str])], expected: &[&str]) {
    let chapter = parse_chapter("a.md".to_owned(), chapter.to_owned());
    let mut ledger = Ledger::new(
        RMCP_CLAIM,
        "sentence = []",
        vec![chapter],
        serde_json::json!({}),
        BTreeMap::new(),
    );
    ledger.template_proofs = proofs
        .iter()
        .map(|(template, claims)| {
            (
                (*template).to_owned(),
                claims.iter().map(|claim| (*claim).to_owned()).collect(),
            )
        })
        .collect();
    let problems = ledger.problems();
    assert_problems(&problems, expected);
}

#[test]
fn an_ignored_block_proves_a_claim_only_through_the_test_of_the_template_it_shows() {
    check_templates(SHOWN, &[("client", &["times-out"])], &[]);
    check_templates(
        SHOWN,
        &[("client", &[])],
        &["the test of template client does not prove times-out"],
    );
    let not_a_template = SHOWN.replace("{{#include ../templates/client/src/main.rs:call}}", "x");
    check_templates(
        &not_a_template,
        &[],
        &["an `ignore` block is not run, so `claim=times-out` proves nothing"],
    );
}

#[test]
fn a_template_proof_must_be_claimed_where_the_template_is_shown() {
    let unclaimed = SHOWN.replace(",claim=times-out", "").replace(
        "\n<small>Proves: [times-out](claims.md#times-out).</small>\n",
        "",
    );
    check_templates(
        &unclaimed,
        &[("client", &["times-out"])],
        &[
            "claim times-out: no proof",
            "template client: its test proves times-out, but no `ignore` block",
        ],
    );
}
