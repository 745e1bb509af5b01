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

fn check(claims: &str, coverage: &str, chapter: &str, matrix: &str, expected: &[&str]) {
    let mutants = BTreeMap::from([("cancel-ignored".to_owned(), "a rule".to_owned())]);
    let chapter = parse_chapter("a.md".to_owned(), chapter.to_owned());
    let matrix = serde_json::from_str(matrix).expect("JSON");
    let problems = Ledger::new(claims, coverage, vec![chapter], matrix, mutants).problems();
    for needle in expected {
        assert!(
            problems.iter().any(|p| p.contains(needle)),
            "expected a problem containing {needle:?}, got {problems:#?}"
        );
    }
    assert_eq!(problems.len(), expected.len(), "{problems:#?}");
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
    for needle in expected {
        assert!(
            problems.iter().any(|p| p.contains(needle)),
            "expected a problem containing {needle:?}, got {problems:#?}"
        );
    }
    assert_eq!(problems.len(), expected.len(), "{problems:#?}");
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
