//! The book's visible code is what a reader copies. Two rules, read from the chapters'
//! Markdown (no build):
//!
//! - **No hidden name in sight**: a visible line never uses a name that only the block's hidden
//!   lines define (Rust `# ` lines, the other languages' `!!!` lines), which is what the
//!   introduction promises.
//! - **It fits the page**: no visible line is wider than [`LINE_WIDTH`] characters.
//! - **Few harness lines**: at most [`HARNESS_LINE_LIMIT`] visible lines in the whole book call
//!   the test harness. The harness's names are read from its sources: for Rust, what
//!   `snippets/src/lib.rs` re-exports (types, free functions; its modules as `path::` only) and
//!   every binding made from one of them (`let server = TestServer::start()`, then
//!   `server.connect_raw()`, ...); for Python and TypeScript, what the snippet helpers
//!   `interop/snippets/python/mcp_snippet.py` and `interop/snippets/typescript/mcp_snippet.ts`
//!   export. Blocks whose subject is the raw wire spend this budget, and the page says so.
//!
//! Names are found with patterns, not a parser: good enough for a book whose blocks are
//! statements and small items, and each pattern is shown to find its case in the tests below.

use std::collections::BTreeSet;
use std::path::Path;

use super::chapters::Chapter;
use super::names::{Language, WORD, code_of, defined_names, regex, used_names};

/// The most visible lines that may call the test harness, in the whole book.
pub(super) const HARNESS_LINE_LIMIT: usize = 20;

/// The widest a visible line may be: it fits the page, as rustfmt's default width does.
pub(super) const LINE_WIDTH: usize = 100;

/// Chapters the check leaves out, each with the reason. None: `templates.md` shows its code by
/// `{{#include}}` of the standalone packages under `templates/`.
pub(super) const NOT_CHECKED: &[&str] = &[];

/// One line of a code block: its line in the chapter, whether it is hidden, and its text as the
/// reader sees it (the hidden-line prefix removed).
#[derive(Debug)]
pub(super) struct CodeLine {
    pub(super) line: usize,
    pub(super) hidden: bool,
    pub(super) text: String,
}

#[derive(Debug)]
pub(super) struct Block {
    pub(super) chapter: String,
    pub(super) language: Language,
    pub(super) lines: Vec<CodeLine>,
}

/// The names of the harness, as its sources define them.
#[derive(Debug, Default)]
pub(super) struct HarnessApi {
    /// Rust types, functions and constants `snippets/src/lib.rs` re-exports.
    pub(super) items: BTreeSet<String>,
    /// Rust modules of the harness: a harness name only as a path (`jsonrpc::`).
    pub(super) modules: BTreeSet<String>,
    /// Methods of the harness that return one of its types (`connect_raw`, `start_http`).
    pub(super) returning: BTreeSet<String>,
    /// What the Python and TypeScript snippet helpers export.
    pub(super) helpers: BTreeSet<String>,
}

/// A visible line that breaks a rule, for the failure message.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Finding {
    pub(super) chapter: String,
    pub(super) line: usize,
    pub(super) what: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "book/{}:{}: {}",
            self.chapter, self.line, self.what
        )
    }
}

/// The code blocks of a chapter in Rust, Python or TypeScript (a fence with no info string is
/// Rust, as rustdoc has it; `text` and the others are left out).
pub(super) fn blocks(chapter: &Chapter) -> Vec<Block> {
    let mut blocks = Vec::new();
    for fence in &chapter.fences {
        let block = &chapter.text[fence.start..fence.end];
        let mut lines = block.lines();
        let Some(opening) = lines.next() else {
            continue;
        };
        let info = opening.trim_start().trim_start_matches(['`', '~']);
        let first = info.split([',', ' ', '\t']).next().unwrap_or_default();
        let language = match first {
            "" | "rust" => Language::Rust,
            "python" => Language::Python,
            "typescript" => Language::TypeScript,
            _ => continue,
        };
        let body: Vec<&str> = lines.collect();
        let body = match body.last() {
            Some(last) if last.trim_start().starts_with("```") => &body[..body.len() - 1],
            _ => &body[..],
        };
        let lines = body
            .iter()
            .enumerate()
            .map(|(index, text)| {
                let (hidden, shown) = match language {
                    Language::Rust => rust_hidden(text),
                    _ => match text.trim_start().strip_prefix("!!!") {
                        Some(rest) => (true, rest.to_owned()),
                        None => (false, (*text).to_owned()),
                    },
                };
                CodeLine {
                    line: fence.line + 1 + index,
                    hidden,
                    text: shown,
                }
            })
            .collect();
        blocks.push(Block {
            chapter: chapter.name.clone(),
            language,
            lines,
        });
    }
    blocks
}

/// rustdoc's hidden lines: `# ` or a lone `#` after indentation (`##` shows one `#`).
fn rust_hidden(text: &str) -> (bool, String) {
    let trimmed = text.trim_start();
    if trimmed == "#" {
        return (true, String::new());
    }
    match trimmed.strip_prefix("# ") {
        Some(rest) => (true, rest.to_owned()),
        None => (false, text.to_owned()),
    }
}

impl HarnessApi {
    /// The harness's names, from `snippets/src` and the snippet helpers under `repo`.
    pub(super) fn load(repo: &Path) -> HarnessApi {
        let read = |path: &Path| {
            std::fs::read_to_string(path)
                .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()))
        };
        let src = repo.join("snippets/src");
        let mut sources = Vec::new();
        let mut folders = vec![src.clone()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).expect("reading snippets/src") {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    sources.push(read(&path));
                }
            }
        }
        HarnessApi::from_sources(
            &read(&src.join("lib.rs")),
            &sources,
            &read(&repo.join("interop/snippets/python/mcp_snippet.py")),
            &read(&repo.join("interop/snippets/typescript/mcp_snippet.ts")),
        )
    }

    pub(super) fn from_sources(
        lib: &str,
        sources: &[String],
        python_helper: &str,
        typescript_helper: &str,
    ) -> HarnessApi {
        let mut api = HarnessApi::default();
        // `pub use PATH::{A, B};`, `pub use PATH::A;` and `pub mod NAME;` at the crate root
        // (the prelude's own `pub use` lines re-export the same names or other crates').
        let uses = regex(r"(?s)\bpub use ([^;]+);");
        let crate_level = lib.split("pub mod prelude").next().unwrap_or(lib);
        for statement in uses.captures_iter(crate_level) {
            let path = &statement[1];
            let names = match path.find('{') {
                Some(open) => path[open + 1..].trim_end_matches('}').to_owned(),
                None => path.rsplit("::").next().unwrap_or(path).to_owned(),
            };
            for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let name = name.rsplit(" as ").next().unwrap_or(name).to_owned();
                if path.starts_with("mcp_testserver_core::{") {
                    api.modules.insert(name);
                } else {
                    api.items.insert(name);
                }
            }
        }
        for module in regex(r"\bpub mod (\w+)").captures_iter(crate_level) {
            if &module[1] != "prelude" {
                api.modules.insert(module[1].to_owned());
            }
        }
        let signature = regex(r"(?s)\bpub\s+(?:async\s+)?fn\s+(\w+)[^{;]*?->\s*([^{;]+)");
        for source in sources {
            for function in signature.captures_iter(source) {
                let returns: BTreeSet<&str> =
                    WORD.find_iter(&function[2]).map(|w| w.as_str()).collect();
                if returns.contains("Self") || returns.iter().any(|w| api.items.contains(*w)) {
                    api.returning.insert(function[1].to_owned());
                }
            }
        }
        for helper in regex(r"(?m)^(?:async\s+)?def\s+([a-z]\w*)").captures_iter(python_helper) {
            api.helpers.insert(helper[1].to_owned());
        }
        let exported = regex(r"(?m)^export\s+(?:async\s+)?(?:function|const|class)\s+(\w+)");
        for helper in exported.captures_iter(typescript_helper) {
            api.helpers.insert(helper[1].to_owned());
        }
        api
    }
}

/// Visible lines that use a name only the block's hidden lines define.
pub(super) fn hidden_names_in_sight(block: &Block) -> Vec<Finding> {
    let mut hidden = BTreeSet::new();
    let mut visible = BTreeSet::new();
    for line in &block.lines {
        let code = code_of(&line.text, block.language);
        let names = defined_names(&code, block.language);
        if line.hidden {
            hidden.extend(names);
        } else {
            visible.extend(names);
        }
    }
    let only_hidden: BTreeSet<&String> = hidden.difference(&visible).collect();
    let mut findings = Vec::new();
    for line in block.lines.iter().filter(|line| !line.hidden) {
        let code = code_of(&line.text, block.language);
        let used: BTreeSet<String> = used_names(&code, block.language).into_iter().collect();
        let named: Vec<&String> = used.iter().filter(|n| only_hidden.contains(n)).collect();
        if !named.is_empty() {
            let names: Vec<&str> = named.iter().map(|n| n.as_str()).collect();
            findings.push(Finding {
                chapter: block.chapter.clone(),
                line: line.line,
                what: format!(
                    "uses {}, which only hidden lines define: `{}`",
                    names.join(", "),
                    line.text.trim()
                ),
            });
        }
    }
    findings
}

/// Visible lines that call the harness.
pub(super) fn harness_lines(block: &Block, api: &HarnessApi) -> Vec<Finding> {
    let mut bound: BTreeSet<String> = BTreeSet::new();
    // A helper's name that the visible code defines for itself is the reader's own.
    let own: BTreeSet<String> = block
        .lines
        .iter()
        .filter(|line| !line.hidden && !line.text.contains("mcp_snippet"))
        .filter(|line| !line.text.contains("mcp-snippet"))
        .flat_map(|line| defined_names(&code_of(&line.text, block.language), block.language))
        .collect();
    let mut findings = Vec::new();
    let statements = statements(block);
    let modules: Vec<&str> = api.modules.iter().map(String::as_str).collect();
    let paths = regex(&format!(r"(?:^|[^\w:])(?:{})::", modules.join("|")));
    for (index, line) in block.lines.iter().enumerate() {
        let code = code_of(&line.text, block.language);
        let used = used_names(&code, block.language);
        let harness = match block.language {
            Language::Rust => {
                (!modules.is_empty() && paths.is_match(&code))
                    || used
                        .iter()
                        .any(|n| api.items.contains(n) || bound.contains(n))
            }
            Language::Python | Language::TypeScript => {
                used.iter()
                    .any(|n| api.helpers.contains(n) && (line.hidden || !own.contains(n)))
                    || code.contains("mcp_snippet")
                    || line.text.contains("'mcp-snippet'")
            }
        };
        if harness && !line.hidden {
            findings.push(Finding {
                chapter: block.chapter.clone(),
                line: line.line,
                what: format!("calls the harness: `{}`", line.text.trim()),
            });
        }
        // A binding made from the harness is the harness too (Rust only: the other languages'
        // helpers hand back the SDK's own client).
        if block.language == Language::Rust
            && let Some((pattern, value)) = &statements[index]
            && made_from_harness(value, api, &bound)
        {
            bound.extend(WORD.find_iter(pattern).map(|w| w.as_str().to_owned()));
        }
    }
    findings
}

/// For each line that starts a `let`, its pattern and its value up to the `;` that ends it
/// (which may be lines later).
fn statements(block: &Block) -> Vec<Option<(String, String)>> {
    let start = regex(r"^\s*let\s+(?:mut\s+)?([^=]+?)\s*(?::[^=]*)?=([^=].*)$");
    (0..block.lines.len())
        .map(|index| {
            let code = code_of(&block.lines[index].text, Language::Rust);
            let found = start.captures(&code)?;
            let pattern = found[1].to_owned();
            let mut value = found[2].to_owned();
            let mut next = index + 1;
            while !value.contains(';') && next < block.lines.len() {
                value.push(' ');
                value.push_str(&code_of(&block.lines[next].text, Language::Rust));
                next += 1;
            }
            let value = value.split(';').next().unwrap_or_default().to_owned();
            Some((pattern, value))
        })
        .collect()
}

/// Whether a `let`'s value is a harness value: it names a harness item, calls a method of the
/// harness that returns one on a harness binding, or is such a binding.
fn made_from_harness(value: &str, api: &HarnessApi, bound: &BTreeSet<String>) -> bool {
    let names = used_names(value, Language::Rust);
    if names.iter().any(|n| api.items.contains(n)) {
        return true;
    }
    let method = regex(r"(\w+)\s*\.\s*(\w+)\s*\(");
    if method
        .captures_iter(value)
        .any(|call| bound.contains(&call[1]) && api.returning.contains(&call[2]))
    {
        return true;
    }
    let trimmed = value.trim().trim_start_matches('&');
    let head = trimmed.split(['.', ' ']).next().unwrap_or_default();
    bound.contains(head) && (trimmed == head || trimmed == format!("{head}.clone()"))
}

/// Visible lines wider than [`LINE_WIDTH`] characters.
pub(super) fn wide_lines(block: &Block) -> Vec<Finding> {
    block
        .lines
        .iter()
        .filter(|line| !line.hidden && line.text.chars().count() > LINE_WIDTH)
        .map(|line| Finding {
            chapter: block.chapter.clone(),
            line: line.line,
            what: format!(
                "{} characters, more than {LINE_WIDTH}: `{}`",
                line.text.chars().count(),
                line.text.trim()
            ),
        })
        .collect()
}

/// Every finding of the rules in `chapters`: names from hidden lines and over-wide lines, then
/// the harness lines apart (they are counted, not forbidden).
pub(super) fn check(chapters: &[Chapter], api: &HarnessApi) -> (Vec<Finding>, Vec<Finding>) {
    let mut hidden = Vec::new();
    let mut harness = Vec::new();
    for chapter in chapters
        .iter()
        .filter(|c| !NOT_CHECKED.contains(&c.name.as_str()))
    {
        for block in blocks(chapter) {
            hidden.extend(hidden_names_in_sight(&block));
            hidden.extend(wide_lines(&block));
            harness.extend(harness_lines(&block, api));
        }
    }
    (hidden, harness)
}
