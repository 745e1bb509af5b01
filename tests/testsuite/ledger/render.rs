//! `book/claims.md`, rendered from the ledger's data: the claims by whom they are about, each
//! with its source, proofs and mutant (a group's usual SDK release named once above its table, and
//! the matrix cells a claim reads as links to each SDK's rows), then every matrix cell with the
//! value it must hold in one folded table, then the spec coverage by page.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::check::Ledger;
use super::data::{About, Claim, MatrixCell, Sentence, Source, Status};

impl Ledger {
    /// `book/claims.md`, from the data.
    pub(super) fn render(&self) -> String {
        let mut page = String::new();
        let server = self
            .claims
            .iter()
            .filter(|c| c.about == About::Server)
            .count();
        let killed: BTreeSet<&str> = self
            .claims
            .iter()
            .filter_map(|claim| claim.mutant.as_deref())
            .collect();
        let demonstrated = |s: &&&Sentence| s.status == Status::Demonstrated;
        let must_should = |s: &Sentence| {
            s.keywords
                .iter()
                .any(|k| k.starts_with("MUST") || k.starts_with("SHOULD") || k == "REQUIRED")
        };
        let in_scope: Vec<&Sentence> = self
            .coverage
            .iter()
            .filter(|s| s.status != Status::OutOfScope)
            .collect();
        let _ = writeln!(
            page,
            "# Claims, proofs and spec coverage\n\n\
             <!-- Generated from book/ledger/claims.toml and book/ledger/coverage.toml by\n     \
             `SNAPSHOTS=overwrite cargo test --test testsuite ledger`: edit those, not this page. -->\n\n\
             **Every claim this book makes about the spec, the test server, rmcp, the Python SDK or \
             the TypeScript SDK is listed here with its source and the run that proves it. Claims \
             about the server side also name a mutant: a build of the test server that breaks \
             exactly that rule, which the proving snippet must notice (`mdbook-snippets test \
             --mutants` fails the build when one survives).** {} claims, {server} about the server \
             side, {} mutants bound to them; {} of the {} normative sentences in scope are \
             demonstrated, {} of them MUST or SHOULD sentences.\n",
            self.claims.len(),
            killed.len(),
            in_scope.iter().filter(demonstrated).count(),
            self.coverage.len(),
            in_scope
                .iter()
                .filter(demonstrated)
                .filter(|s| must_should(s))
                .count(),
        );
        let _ = writeln!(page, "## The claims\n");
        let mut abouts: Vec<About> = self.claims.iter().map(|c| c.about).collect();
        abouts.sort();
        abouts.dedup();
        for about in abouts {
            let claims: Vec<&Claim> = self.claims.iter().filter(|c| c.about == about).collect();
            let _ = writeln!(page, "### About {}\n", about.label());
            // The release most of the group's claims read, named once above the table rather
            // than in every row.
            let usual = usual_release(&claims);
            if let Some((sdk, version)) = usual {
                let _ = writeln!(
                    page,
                    "Sources are places in {sdk} {version} unless they name another release.\n"
                );
            }
            // Only claims about the server side have mutants: the other tables have no column
            // of dashes.
            let with_mutants = claims.iter().any(|claim| claim.mutant.is_some());
            let _ = writeln!(
                page,
                "<div class=\"claims-table\">\n\n| Claim | Source | Proof |{}\n|---|---|---|{}",
                if with_mutants { " Mutant |" } else { "" },
                if with_mutants { "---|" } else { "" },
            );
            for claim in claims {
                let source = match &claim.source {
                    Source::Spec {
                        revision,
                        page,
                        section,
                        quote,
                    } => {
                        let quoted = quote
                            .as_ref()
                            .map(|q| format!(": \"{}\"", q.replace('|', "\\|")))
                            .unwrap_or_default();
                        format!("{revision}, {page}, *{section}*{quoted}")
                    }
                    Source::Sdk { sdk, version, at } if usual == Some((sdk, version)) => at.clone(),
                    Source::Sdk { sdk, version, at } => format!("{sdk} {version}, {at}"),
                };
                let mut proofs: Vec<String> = self
                    .proofs(&claim.id)
                    .iter()
                    .map(|fence| {
                        let run_by = match fence.templates.first() {
                            Some(template) if fence.ignore => {
                                format!(" (the test of template {template})")
                            }
                            _ => String::new(),
                        };
                        format!(
                            "[{}:{}]({}#{}){run_by}",
                            fence.chapter, fence.line, fence.chapter, fence.anchor
                        )
                    })
                    .collect();
                // The matrix cells by SDK, each SDK linking to its rows; the cells' facts are in
                // the folded table at the end of the claims.
                let mut sdks: Vec<&str> = Vec::new();
                for cell in &claim.matrix {
                    if !sdks.contains(&cell.0.as_str()) {
                        sdks.push(&cell.0);
                    }
                }
                if !sdks.is_empty() {
                    let links: Vec<String> = sdks
                        .iter()
                        .map(|sdk| format!("[{sdk}](sdk-matrix.md{})", matrix_anchor(sdk)))
                        .collect();
                    proofs.push(format!("matrix: {}", links.join(", ")));
                }
                let mutant = match &claim.mutant {
                    Some(mutant) => format!(" `{mutant}` |"),
                    None if with_mutants => " — |".to_owned(),
                    None => String::new(),
                };
                let _ = writeln!(
                    page,
                    "| <a id=\"{id}\"></a>**{id}**: {text} | {source} | {proofs} |{mutant}",
                    id = claim.id,
                    text = claim.claim.replace('|', "\\|"),
                    proofs = proofs.join("<br>"),
                );
            }
            page.push_str("\n</div>\n\n");
        }
        let cells: Vec<(&str, &MatrixCell)> = self
            .claims
            .iter()
            .flat_map(|claim| claim.matrix.iter().map(|cell| (claim.id.as_str(), cell)))
            .collect();
        if !cells.is_empty() {
            let _ = writeln!(
                page,
                "### The matrix cells\n\n<details><summary>The {} SDK matrix cells the claims read, and the value each \
                 must hold</summary>\n\n| Claim | SDK | Way of stopping | Revision | Transport | Fact | \
                 Value |\n|---|---|---|---|---|---|---|",
                cells.len()
            );
            for (id, cell) in cells {
                let _ = writeln!(
                    page,
                    "| [{id}](#{id}) | {} | {} | {} | {} | {} | {} |",
                    cell.0,
                    cell.1,
                    cell.2,
                    cell.3,
                    cell.4,
                    cell.5.to_string().replace('|', "\\|")
                );
            }
            let _ = writeln!(page, "\n</details>\n");
        }
        let _ = writeln!(
            page,
            "## Spec coverage\n\n\
             Every MUST, MUST NOT, SHOULD, SHOULD NOT and MAY sentence of the spec pages this book \
             covers, by location (`REVISION/PAGE#SECTION:N`: the N-th such sentence under that \
             section), and what the book does with it. `scripts/spec-coverage.py` lists them from \
             the spec's own text and checks this list, and every quote above, against it.\n"
        );
        let mut pages: BTreeMap<&str, Vec<&Sentence>> = BTreeMap::new();
        for sentence in &self.coverage {
            let page = sentence.at.split('#').next().unwrap_or_default();
            pages.entry(page).or_default().push(sentence);
        }
        let _ = writeln!(
            page,
            "| Revision and page | Sentences | In-scope MUST / SHOULD demonstrated | Demonstrated | Explained | Out of scope |\n|---|---|---|---|---|---|"
        );
        for (name, sentences) in &pages {
            let count = |status| sentences.iter().filter(|s| s.status == status).count();
            let musts: Vec<&&Sentence> = sentences
                .iter()
                .filter(|s| s.status != Status::OutOfScope)
                .filter(|s| must_should(s))
                .collect();
            let _ = writeln!(
                page,
                "| {name} | {} | {} of {} | {} | {} | {} |",
                sentences.len(),
                musts
                    .iter()
                    .filter(|s| s.status == Status::Demonstrated)
                    .count(),
                musts.len(),
                count(Status::Demonstrated),
                count(Status::Explained),
                count(Status::OutOfScope),
            );
        }
        page.push('\n');
        for (name, sentences) in &pages {
            let _ = writeln!(
                page,
                "<details><summary>{name}</summary>\n\n| Sentence | Keywords | What the book does |\n|---|---|---|"
            );
            for sentence in sentences {
                let what = match sentence.status {
                    Status::Demonstrated => format!(
                        "demonstrated: {}",
                        sentence
                            .claims
                            .iter()
                            .map(|c| format!("[{c}](#{c})"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    Status::Explained => {
                        let place = sentence.explained_at.as_deref().unwrap_or_default();
                        format!("explained in [{place}]({place})")
                    }
                    Status::OutOfScope => {
                        format!(
                            "out of scope: {}",
                            sentence.why.as_deref().unwrap_or_default()
                        )
                    }
                };
                let section = sentence.at.split('#').nth(1).unwrap_or_default();
                let _ = writeln!(
                    page,
                    "| {section} | {} | {what} |",
                    sentence.keywords.join(", ")
                );
            }
            let _ = writeln!(page, "\n</details>\n");
        }
        page
    }
}

/// The SDK release that at least half of `claims` (and two or more) cite as their source.
fn usual_release<'a>(claims: &[&'a Claim]) -> Option<(&'a String, &'a String)> {
    let mut counts: BTreeMap<(&String, &String), usize> = BTreeMap::new();
    for claim in claims {
        if let Source::Sdk { sdk, version, .. } = &claim.source {
            *counts.entry((sdk, version)).or_default() += 1;
        }
    }
    let (release, count) = counts.into_iter().max_by_key(|(_, count)| *count)?;
    (count >= 2 && count * 2 >= claims.len()).then_some(release)
}

/// The SDK's section of `sdk-matrix.md` (its heading's id), where its detailed rows are.
fn matrix_anchor(sdk: &str) -> &'static str {
    match sdk {
        "python" => "#python-mcp",
        "typescript" => "#typescript-modelcontextprotocolsdk",
        "typescript-v2" => "#typescript-v2-modelcontextprotocolclient",
        "rmcp" => "#rmcp",
        _ => "",
    }
}
