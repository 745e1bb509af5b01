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

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde::Deserialize;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()))
}

/// The generated chapter, relative to the book's `src`.
const CLAIMS_CHAPTER: &str = "claims.md";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimsFile {
    claim: Vec<Claim>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Claim {
    /// Short, kebab-case, unique: the anchor in `claims.md` and the `claim=` word of a proof.
    id: String,
    /// The claim in one sentence, as the book makes it.
    claim: String,
    /// Whose behaviour the claim is about.
    about: About,
    source: Source,
    /// The mutant of `mcp-testserver` that breaks the claim (claims about the server side).
    mutant: Option<String>,
    /// SDK matrix cells and the value each must hold: `[sdk, scenario, revision, transport,
    /// fact, value]`.
    #[serde(default)]
    matrix: Vec<MatrixCell>,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
enum About {
    /// What the spec requires of a server, shown by the test server (a mutant breaks it).
    Server,
    /// What the spec requires of a client or of both sides, shown by a client run.
    Client,
    /// What rmcp does.
    Rmcp,
    /// What the Python SDK does.
    Python,
    /// What the TypeScript SDK does.
    Typescript,
}

impl About {
    fn label(self) -> &'static str {
        match self {
            About::Server => "the server side",
            About::Client => "the client side",
            About::Rmcp => "rmcp",
            About::Python => "the Python SDK",
            About::Typescript => "the TypeScript SDK",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, untagged)]
enum Source {
    Spec {
        revision: String,
        page: String,
        section: String,
        /// The spec's exact words, where the book quotes them (`scripts/spec-coverage.py check`
        /// compares them with the spec text).
        quote: Option<String>,
    },
    Sdk {
        sdk: String,
        version: String,
        /// Where in the release's source, or the issue thread.
        at: String,
    },
}

#[derive(Debug, Deserialize)]
struct MatrixCell(String, String, String, String, String, serde_json::Value);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CoverageFile {
    sentence: Vec<Sentence>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sentence {
    /// `REVISION/PAGE#SECTION:N` (see `scripts/spec-coverage.py`).
    at: String,
    keywords: Vec<String>,
    /// Of the sentence's normalized text: `scripts/spec-coverage.py check` notices a rewording.
    fingerprint: String,
    status: Status,
    #[serde(default)]
    claims: Vec<String>,
    /// Where the book explains it: `chapter.md#heading-id`.
    #[serde(rename = "where")]
    explained_at: Option<String>,
    /// Why the book leaves it out.
    why: Option<String>,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum Status {
    Demonstrated,
    Explained,
    OutOfScope,
}

/// A code block of a chapter, with what the ledger reads from its info string.
#[derive(Debug)]
struct Fence {
    chapter: String,
    line: usize,
    /// The id of the heading the block sits under (mdBook's), or "" before the first one.
    anchor: String,
    claims: Vec<String>,
    kills: Vec<String>,
    /// Byte range of the block in the chapter.
    start: usize,
    end: usize,
}

#[derive(Debug, Default)]
struct Chapter {
    name: String,
    text: String,
    fences: Vec<Fence>,
    anchors: HashSet<String>,
}

/// The chapters SUMMARY.md links to, in order, but the generated one.
fn chapters(src: &Path) -> Vec<Chapter> {
    let summary = read(&src.join("SUMMARY.md"));
    let mut names = Vec::new();
    for part in summary.split("](").skip(1) {
        if let Some(name) = part.split(')').next()
            && name.ends_with(".md")
            && name != CLAIMS_CHAPTER
            && !names.iter().any(|n| n == name)
        {
            names.push(name.to_owned());
        }
    }
    names
        .into_iter()
        .map(|name| {
            let text = read(&src.join(&name));
            parse_chapter(name, text)
        })
        .collect()
}

/// mdBook 0.5's heading id (`mdbook-html`, `id_from_content` and `unique_id`).
fn heading_id(content: &str, used: &mut HashSet<String>) -> String {
    let id: String = content
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|ch| {
            if ch.is_alphanumeric() || ch == '_' || ch == '-' {
                Some(ch)
            } else if ch.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect();
    if used.insert(id.clone()) {
        return id;
    }
    (1..)
        .map(|counter| format!("{id}-{counter}"))
        .find(|candidate| used.insert(candidate.clone()))
        .expect("an unused suffix")
}

fn parse_chapter(name: String, text: String) -> Chapter {
    let mut chapter = Chapter {
        name,
        ..Chapter::default()
    };
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH;
    let mut heading: Option<String> = None;
    let mut anchor = String::new();
    let mut used = HashSet::new();
    for (event, range) in Parser::new_ext(&text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let content = heading.take().unwrap_or_default();
                anchor = heading_id(&content, &mut used);
                chapter.anchors.insert(anchor.clone());
            }
            Event::Text(part) | Event::Code(part) => {
                if let Some(content) = &mut heading {
                    content.push_str(&part);
                }
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let info = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                let words: Vec<&str> = info.split([',', ' ', '\t']).map(str::trim).collect();
                let values = |key: &str| -> Vec<String> {
                    words
                        .iter()
                        .filter_map(|word| word.strip_prefix(key))
                        .map(str::to_owned)
                        .collect()
                };
                chapter.fences.push(Fence {
                    chapter: chapter.name.clone(),
                    line: text[..range.start].matches('\n').count() + 1,
                    anchor: anchor.clone(),
                    claims: values("claim="),
                    kills: values("kills="),
                    start: range.start,
                    end: range.end,
                });
            }
            _ => {}
        }
    }
    chapter.text = text;
    chapter
}

/// Runs of code blocks separated by blank lines only (a snippet, its expected output, the
/// other languages' tabs): the proves line follows a run.
fn runs(chapter: &Chapter) -> Vec<&[Fence]> {
    let mut runs = Vec::new();
    let mut first = 0;
    for index in 1..=chapter.fences.len() {
        let joined = index < chapter.fences.len()
            && chapter.text[chapter.fences[index - 1].end..chapter.fences[index].start]
                .trim()
                .is_empty();
        if !joined {
            runs.push(&chapter.fences[first..index]);
            first = index;
        }
    }
    runs
}

/// The line that follows a run of snippets proving `claims`.
fn proves_line(claims: &[String]) -> String {
    let links: Vec<String> = claims
        .iter()
        .map(|id| format!("[{id}]({CLAIMS_CHAPTER}#{id})"))
        .collect();
    format!("<small>Proves: {}.</small>", links.join(", "))
}

/// Whether `text` has a `<` outside its code spans (mdBook would take it for an HTML tag).
fn html_outside_code(text: &str) -> bool {
    text.split('`')
        .step_by(2)
        .any(|outside| outside.contains('<'))
}

/// What `mcp-testserver --list-mutants` lists: name -> the rule it breaks.
fn mutants() -> BTreeMap<String, String> {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--locked", "-p", "mcp-testserver"])
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

struct Ledger {
    claims: Vec<Claim>,
    coverage: Vec<Sentence>,
    chapters: Vec<Chapter>,
    matrix: serde_json::Value,
    mutants: BTreeMap<String, String>,
}

impl Ledger {
    fn load() -> Ledger {
        let src = repo().join("book");
        let matrix = serde_json::from_str(&read(&repo().join("interop/expected.json")))
            .expect("interop/expected.json is JSON");
        Ledger::new(
            &read(&src.join("ledger/claims.toml")),
            &read(&src.join("ledger/coverage.toml")),
            chapters(&src),
            matrix,
            mutants(),
        )
    }

    fn new(
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
            coverage: coverage.sentence,
            chapters,
            matrix,
            mutants,
        }
    }

    fn fences(&self) -> impl Iterator<Item = &Fence> {
        self.chapters.iter().flat_map(|chapter| &chapter.fences)
    }

    fn proofs(&self, id: &str) -> Vec<&Fence> {
        self.fences()
            .filter(|fence| fence.claims.iter().any(|claim| claim == id))
            .collect()
    }

    /// Every way the ledger disagrees with the book, the matrix or the server.
    fn problems(&self) -> Vec<String> {
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

    /// `book/claims.md`, from the data.
    fn render(&self) -> String {
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
            let _ = writeln!(page, "### About {}\n", about.label());
            let _ = writeln!(
                page,
                "| Claim | Source | Proof | Mutant |\n|---|---|---|---|"
            );
            for claim in self.claims.iter().filter(|c| c.about == about) {
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
                    Source::Sdk { sdk, version, at } => format!("{sdk} {version}, {at}"),
                };
                let mut proofs: Vec<String> = self
                    .proofs(&claim.id)
                    .iter()
                    .map(|fence| {
                        format!(
                            "[{}:{}]({}#{})",
                            fence.chapter, fence.line, fence.chapter, fence.anchor
                        )
                    })
                    .collect();
                proofs.extend(claim.matrix.iter().map(|cell| {
                    format!(
                        "[matrix](sdk-matrix.md): {} / {} / {} / {}: {} = {}",
                        cell.0, cell.1, cell.2, cell.3, cell.4, cell.5
                    )
                }));
                let mutant = claim
                    .mutant
                    .as_ref()
                    .map(|m| format!("`{m}`"))
                    .unwrap_or_else(|| "—".to_owned());
                let _ = writeln!(
                    page,
                    "| <a id=\"{id}\"></a>**{id}**: {text} | {source} | {proofs} | {mutant} |",
                    id = claim.id,
                    text = claim.claim.replace('|', "\\|"),
                    proofs = proofs.join("<br>"),
                );
            }
            page.push('\n');
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

/// The checks have teeth: each way a ledger can be wrong is reported, on a small book.
mod teeth {
    use super::*;

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
        let chapter = format!(
            "{PROVEN}\n```rust\ny\n```\n\n<small>Proves: [stops](claims.md#stops).</small>\n"
        );
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
        let holds = r#"{"matrix": {"python": {"scope": {"2025-11-25": {"stdio": {"cancel sent": true}}}}}}"#;
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
}
