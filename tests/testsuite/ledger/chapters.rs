//! The book's chapters as the ledger reads them: each code block with its line, the heading
//! it sits under (mdBook's id) and its `claim=` and `kills=` words; runs of blocks, and the
//! proves line that must follow a run proving claims.

use std::collections::HashSet;
use std::path::Path;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use crate::support::read;

/// The generated chapter, relative to the book's `src`.
pub(super) const CLAIMS_CHAPTER: &str = "claims.md";

/// A code block of a chapter, with what the ledger reads from its info string.
#[derive(Debug)]
pub(super) struct Fence {
    pub(super) chapter: String,
    pub(super) line: usize,
    /// The id of the heading the block sits under (mdBook's), or "" before the first one.
    pub(super) anchor: String,
    pub(super) claims: Vec<String>,
    pub(super) kills: Vec<String>,
    /// Marked `ignore`: the verifier does not run it.
    pub(super) ignore: bool,
    /// The templates (`templates/NAME/`) its `{{#include}}` lines show.
    pub(super) templates: Vec<String>,
    /// Byte range of the block in the chapter.
    pub(super) start: usize,
    pub(super) end: usize,
}

#[derive(Debug, Default)]
pub(super) struct Chapter {
    pub(super) name: String,
    pub(super) text: String,
    pub(super) fences: Vec<Fence>,
    pub(super) anchors: HashSet<String>,
}

/// The chapters SUMMARY.md links to, in order, but the generated one.
pub(super) fn chapters(src: &Path) -> Vec<Chapter> {
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

pub(super) fn parse_chapter(name: String, text: String) -> Chapter {
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
                    ignore: words.contains(&"ignore"),
                    templates: included_templates(&text[range.clone()]),
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

/// The templates a block shows: `NAME` of each `{{#include ../templates/NAME/FILE}}` line.
fn included_templates(block: &str) -> Vec<String> {
    block
        .lines()
        .filter_map(|line| line.trim().strip_prefix("{{#include "))
        .filter_map(|path| path.split_once("templates/"))
        .filter_map(|(_, rest)| rest.split_once('/'))
        .map(|(name, _)| name.to_owned())
        .collect()
}

/// Runs of code blocks separated by blank lines only (a snippet, its expected output, the
/// other languages' tabs): the proves line follows a run.
pub(super) fn runs(chapter: &Chapter) -> Vec<&[Fence]> {
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
pub(super) fn proves_line(claims: &[String]) -> String {
    let links: Vec<String> = claims
        .iter()
        .map(|id| format!("[{id}]({CLAIMS_CHAPTER}#{id})"))
        .collect();
    format!("<small>Proves: {}.</small>", links.join(", "))
}
