//! The check: every way the ledger disagrees with the book, the SDK matrix or the test
//! server's mutants, as one list of problems.

use std::collections::{BTreeMap, HashSet};

use super::chapters::{Chapter, Fence, chapters, proves_line, runs};
use super::data::{About, Claim, ClaimsFile, CoverageFile, MatrixCell, Sentence, Source, Status};
use crate::support::{read, repo};

/// Whether `text` has a `<` outside its code spans (mdBook would take it for an HTML tag).
fn html_outside_code(text: &str) -> bool {
    text.split('`')
        .step_by(2)
        .any(|outside| outside.contains('<'))
}

/// What `mcp-testserver --list-mutants` lists: name -> the rule it breaks. The release binary,
/// as the book's `mutants` command runs it (book.toml): the book's languages build it anyway.
fn mutants() -> BTreeMap<String, String> {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--locked", "--release"])
        .args(["-p", "mcp-testserver"])
        .args(["--bin", "mcp-testserver", "--", "--list-mutants"])
        .current_dir(repo())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("running mcp-testserver --list-mutants");
    assert!(
        output.status.success(),
        "mcp-testserver --list-mutants failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(name, rule)| (name.to_owned(), rule.to_owned()))
        .collect()
}

fn matrix_value<'a>(
    matrix: &'a serde_json::Value,
    cell: &MatrixCell,
) -> Option<&'a serde_json::Value> {
    matrix
        .get("matrix")?
        .get(&cell.0)?
        .get(&cell.1)?
        .get(&cell.2)?
        .get(&cell.3)?
        .get(&cell.4)
}

pub(super) struct Ledger {
    pub(super) claims: Vec<Claim>,
    /// The claims each template's test proves (`templates::PROVES`), by template.
    pub(super) template_proofs: Vec<(String, Vec<String>)>,
    pub(super) coverage: Vec<Sentence>,
    pub(super) chapters: Vec<Chapter>,
    pub(super) matrix: serde_json::Value,
    pub(super) mutants: BTreeMap<String, String>,
}

impl Ledger {
    pub(super) fn load() -> Ledger {
        let src = repo().join("book");
        let matrix = serde_json::from_str(&read(&repo().join("interop/expected.json")))
            .expect("interop/expected.json is JSON");
        let mut ledger = Ledger::new(
            &read(&src.join("ledger/claims.toml")),
            &read(&src.join("ledger/coverage.toml")),
            chapters(&src),
            matrix,
            mutants(),
        );
        ledger.template_proofs = crate::templates::PROVES
            .iter()
            .map(|(template, claims)| {
                let claims = claims.iter().map(|claim| (*claim).to_owned()).collect();
                ((*template).to_owned(), claims)
            })
            .collect();
        ledger
    }

    pub(super) fn new(
        claims: &str,
        coverage: &str,
        chapters: Vec<Chapter>,
        matrix: serde_json::Value,
        mutants: BTreeMap<String, String>,
    ) -> Ledger {
        let claims: ClaimsFile = toml::from_str(claims)
            .unwrap_or_else(|error| panic!("book/ledger/claims.toml: {error}"));
        let coverage: CoverageFile = toml::from_str(coverage)
            .unwrap_or_else(|error| panic!("book/ledger/coverage.toml: {error}"));
        Ledger {
            claims: claims.claim,
            template_proofs: Vec::new(),
            coverage: coverage.sentence,
            chapters,
            matrix,
            mutants,
        }
    }

    fn fences(&self) -> impl Iterator<Item = &Fence> {
        self.chapters.iter().flat_map(|chapter| &chapter.fences)
    }

    pub(super) fn proofs(&self, id: &str) -> Vec<&Fence> {
        self.fences()
            .filter(|fence| fence.claims.iter().any(|claim| claim == id))
            .collect()
    }

    /// Every way the ledger disagrees with the book, the matrix or the server.
    pub(super) fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut ids = HashSet::new();
        for claim in &self.claims {
            let id = &claim.id;
            if !ids.insert(id.as_str()) {
                problems.push(format!("claim {id}: listed twice"));
            }
            if id.is_empty()
                || !id
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
            {
                problems.push(format!("claim {id:?}: an id is lower-case kebab-case"));
            }
            let mut texts = vec![claim.claim.as_str()];
            match &claim.source {
                Source::Spec { section, .. } => texts.push(section),
                Source::Sdk { at, .. } => texts.push(at),
            }
            if texts.iter().any(|text| html_outside_code(text)) {
                problems.push(format!(
                    "claim {id}: `<` outside a code span would be HTML on the page; put it in backticks"
                ));
            }
            let proofs = self.proofs(id);
            if proofs.is_empty() && claim.matrix.is_empty() {
                problems.push(format!(
                    "claim {id}: no proof (no snippet carries `claim={id}`, no matrix cell)"
                ));
            }
            for cell in &claim.matrix {
                match matrix_value(&self.matrix, cell) {
                    None => problems.push(format!(
                        "claim {id}: no such SDK matrix cell {:?}",
                        [&cell.0, &cell.1, &cell.2, &cell.3, &cell.4]
                    )),
                    Some(value) if *value != cell.5 => problems.push(format!(
                        "claim {id}: matrix cell {} / {} / {} / {} / {} holds {value}, the claim says {}",
                        cell.0, cell.1, cell.2, cell.3, cell.4, cell.5
                    )),
                    Some(_) => {}
                }
            }
            match (&claim.mutant, claim.about) {
                (None, About::Server) => problems.push(format!(
                    "claim {id}: a claim about the server side names the mutant that breaks it"
                )),
                (Some(mutant), _) => {
                    if !self.mutants.contains_key(mutant) {
                        problems.push(format!(
                            "claim {id}: mcp-testserver has no mutant {mutant} (it has: {})",
                            self.mutants.keys().cloned().collect::<Vec<_>>().join(", ")
                        ));
                    }
                    if !proofs.iter().any(|fence| fence.kills.contains(mutant)) {
                        problems.push(format!(
                            "claim {id}: none of its snippets carries `kills={mutant}`"
                        ));
                    }
                }
                (None, _) => {}
            }
            if let Source::Spec { revision, .. } = &claim.source
                && !["2025-11-25", "2026-07-28"].contains(&revision.as_str())
            {
                problems.push(format!("claim {id}: unknown revision {revision}"));
            }
        }
        for fence in self.fences() {
            for claim in &fence.claims {
                if !ids.contains(claim.as_str()) {
                    problems.push(format!(
                        "book/{}:{}: `claim={claim}` names no claim of book/ledger/claims.toml",
                        fence.chapter, fence.line
                    ));
                }
            }
        }
        problems.extend(self.template_problems());
        for chapter in &self.chapters {
            for run in runs(chapter) {
                let claims: Vec<String> = run
                    .iter()
                    .flat_map(|fence| fence.claims.iter().cloned())
                    .fold(Vec::new(), |mut unique, claim| {
                        if !unique.contains(&claim) {
                            unique.push(claim);
                        }
                        unique
                    });
                let last = run.last().expect("a run is never empty");
                let next_line = chapter.text[last.end..]
                    .lines()
                    .map(str::trim)
                    .find(|line| !line.is_empty())
                    .unwrap_or_default();
                let says = next_line.starts_with("<small>Proves:");
                if claims.is_empty() && says {
                    problems.push(format!(
                        "book/{}:{}: a proves line after snippets that prove no claim",
                        chapter.name, last.line
                    ));
                } else if !claims.is_empty() && next_line != proves_line(&claims) {
                    problems.push(format!(
                        "book/{}:{}: after this run of snippets, the next line must be\n    {}",
                        chapter.name,
                        run[0].line,
                        proves_line(&claims)
                    ));
                }
            }
        }
        let mut seen = HashSet::new();
        for sentence in &self.coverage {
            let at = &sentence.at;
            if !seen.insert(at.as_str()) {
                problems.push(format!("coverage {at}: listed twice"));
            }
            if sentence.fingerprint.len() != 12
                || !sentence
                    .fingerprint
                    .chars()
                    .all(|ch| ch.is_ascii_hexdigit())
            {
                problems.push(format!(
                    "coverage {at}: a fingerprint is 12 hex digits (scripts/spec-coverage.py)"
                ));
            }
            match sentence.status {
                Status::Demonstrated if sentence.claims.is_empty() => {
                    problems.push(format!("coverage {at}: demonstrated, but names no claim"))
                }
                Status::Explained => match &sentence.explained_at {
                    None => problems.push(format!("coverage {at}: explained, but not where")),
                    Some(place) => {
                        let (chapter, anchor) = place.split_once('#').unwrap_or((place, ""));
                        match self.chapters.iter().find(|c| c.name == chapter) {
                            None => problems.push(format!(
                                "coverage {at}: explained in {chapter}, which SUMMARY.md does not list"
                            )),
                            Some(c) if !anchor.is_empty() && !c.anchors.contains(anchor) => {
                                problems.push(format!("coverage {at}: {chapter} has no heading #{anchor}"))
                            }
                            Some(_) => {}
                        }
                    }
                },
                Status::OutOfScope if sentence.why.as_deref().unwrap_or("").is_empty() => {
                    problems.push(format!("coverage {at}: out of scope, but not why"))
                }
                _ => {}
            }
            for claim in &sentence.claims {
                if !ids.contains(claim.as_str()) {
                    problems.push(format!("coverage {at}: names no claim {claim}"));
                }
            }
        }
        problems
    }

    /// An `ignore` block is not run, so its `claim=` words stand only for a template it shows
    /// whose test proves them (`template_proofs`); and each such proof is claimed on the page.
    fn template_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let proves = |template: &str, claim: &str| {
            self.template_proofs
                .iter()
                .any(|(name, claims)| name == template && claims.iter().any(|c| c == claim))
        };
        for fence in self.fences().filter(|fence| fence.ignore) {
            for claim in &fence.claims {
                if fence.templates.is_empty() {
                    problems.push(format!(
                        "book/{}:{}: an `ignore` block is not run, so `claim={claim}` proves nothing",
                        fence.chapter, fence.line
                    ));
                } else if !fence
                    .templates
                    .iter()
                    .any(|template| proves(template, claim))
                {
                    problems.push(format!(
                        "book/{}:{}: the test of template {} does not prove {claim} \
                         (tests/testsuite/templates/mod.rs, PROVES)",
                        fence.chapter,
                        fence.line,
                        fence.templates.join(", ")
                    ));
                }
            }
        }
        for (template, claims) in &self.template_proofs {
            for claim in claims {
                let shown = self.fences().any(|fence| {
                    fence.ignore
                        && fence.templates.contains(template)
                        && fence.claims.contains(claim)
                });
                if !shown {
                    problems.push(format!(
                        "template {template}: its test proves {claim}, but no `ignore` block \
                         showing it carries `claim={claim}`"
                    ));
                }
            }
        }
        problems
    }
}
