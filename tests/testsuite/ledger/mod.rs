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

use chapters::CLAIMS_CHAPTER;
use check::Ledger;

use crate::support::repo;

mod chapters;
mod check;
mod data;
mod render;
mod teeth;

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
