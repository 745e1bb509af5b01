//! This repository's book: the claims ledger and the spec coverage map (`book/ledger/`), checked
//! against the chapters, the SDK matrix and the test server's mutants, and rendered into
//! `book/claims.md`.
//!
//! A claim is proven by the book snippets whose info string names it (`claim=ID`) and by SDK
//! matrix cells (`interop/expected.json`) holding the value the claim states. A claim about the
//! server side names the mutant of `mcp-testserver` that breaks it, and one of its snippets must
//! carry `kills=` that mutant, so `mdbook-snippets test --mutants` shows the proof can fail. After
//! every run of snippets that proves a claim, the chapter says so in one line linking back to the
//! ledger. `SNAPSHOTS=overwrite` rewrites `book/claims.md` from the data; nothing else is written.
//!
//! Beside the ledger, the book's visible code (`visible_code`): no visible line uses a name only
//! hidden lines define, and at most `HARNESS_LINE_LIMIT` visible lines call the test harness.

use chapters::{CLAIMS_CHAPTER, chapters};
use check::Ledger;
use visible_code::{HARNESS_LINE_LIMIT, HarnessApi};

use crate::support::repo;

mod chapters;
mod check;
mod data;
mod names;
mod render;
mod teeth;
mod visible_code;

#[test]
fn every_claim_has_a_proof_with_teeth_and_the_page_shows_them() {
    let ledger = Ledger::load();
    let problems = ledger.problems();
    assert!(
        problems.is_empty(),
        "the claims ledger disagrees with the book ({} problems):\n{}",
        problems.len(),
        problems.join("\n")
    );
    let path = repo().join("book").join(CLAIMS_CHAPTER);
    let rendered = ledger.render();
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current != rendered {
        if std::env::var("SNAPSHOTS").as_deref() == Ok("overwrite") {
            std::fs::write(&path, &rendered).expect("writing book/claims.md");
        } else {
            panic!(
                "book/{CLAIMS_CHAPTER} is not what book/ledger/ renders; run \
                 `SNAPSHOTS=overwrite cargo test --test testsuite ledger` and read the diff"
            );
        }
    }
}

#[test]
fn the_visible_code_is_what_a_reader_copies() {
    let api = HarnessApi::load(&repo());
    // The names come from the harness's sources: a derivation that found nothing would make
    // the check below pass on anything.
    for (kind, names, expected) in [
        ("types and functions", &api.items, "TestServer"),
        (
            "methods returning harness values",
            &api.returning,
            "connect_raw",
        ),
        ("snippet helpers", &api.helpers, "in_flight"),
        ("snippet helpers", &api.helpers, "inFlight"),
    ] {
        assert!(
            names.contains(expected),
            "the harness's {kind} read from its sources lack {expected}: {names:?}"
        );
    }
    let (hidden, harness) = visible_code::check(&chapters(&repo().join("book")), &api);
    let list = |findings: &[visible_code::Finding]| {
        findings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    };
    println!(
        "visible lines using a name only hidden lines define, or too wide: {}; calling the \
         harness: {} (at most {HARNESS_LINE_LIMIT})\n{}",
        hidden.len(),
        harness.len(),
        list(&harness)
    );
    assert!(
        hidden.is_empty(),
        "{} visible lines use a name only hidden lines define (the introduction promises they \
         never do) or are too wide for the page:\n{}",
        hidden.len(),
        list(&hidden)
    );
    assert!(
        harness.len() <= HARNESS_LINE_LIMIT,
        "{} visible lines call the test harness, more than {HARNESS_LINE_LIMIT}:\n{}",
        harness.len(),
        list(&harness)
    );
}

/// Every version mark (`<span class="sdk-mark" data-since="rmcp 3.6.0">`, for the version picker)
/// names an SDK the picker knows (`rmcp`, `mcp`, `typescript`, or a framework's name) and a release
/// `interop/history.json` measured, and the book has some.
#[test]
fn version_marks_name_measured_releases() {
    let history: serde_json::Value =
        serde_json::from_str(&crate::support::read(&repo().join("interop/history.json")))
            .expect("interop/history.json is JSON");
    let releases = &history["releases"];
    let measured = |sdk: &str, version: &str| {
        let keys: &[&str] = match sdk {
            "rmcp" => &["rmcp"],
            "mcp" => &["python"],
            "typescript" => &["typescript", "typescript-v2"],
            // An agent framework's picker and marks use its key in history.json (issue 32).
            _ => std::slice::from_ref(&sdk),
        };
        keys.iter().any(|key| releases[*key].get(version).is_some())
    };
    let mark = regex::Regex::new(r#"<span class="sdk-mark"([^>]*)>"#).expect("a pattern");
    let attribute = regex::Regex::new(r#"data-(since|until)="(\S+) (\S+)""#).expect("a pattern");
    let mut marks = 0;
    let mut problems = Vec::new();
    for chapter in chapters(&repo().join("book")) {
        for found in mark.captures_iter(&chapter.text) {
            marks += 1;
            let attributes: Vec<_> = attribute.captures_iter(&found[1]).collect();
            if attributes.is_empty() {
                problems.push(format!(
                    "book/{}: a mark without data-since or data-until",
                    chapter.name
                ));
            }
            for version in attributes {
                if !measured(&version[2], &version[3]) {
                    problems.push(format!(
                        "book/{}: {} {} is not a release interop/history.json measured",
                        chapter.name, &version[2], &version[3]
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(marks >= 10, "only {marks} version marks in the book");
}
