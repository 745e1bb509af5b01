//! A chapter's Markdown as its reader sees it, as plain Markdown text (sans-IO): each fenced
//! block's hidden lines removed (Rust's `# ` lines, another language's prefix, `!!!` by
//! default) and its info string reduced to the language; HTML turned into Markdown (links, code,
//! emphasis, tables) or text (everything else, with the controls of the version picker left
//! out); links between chapters made links to the pages; terminal colours and hyperlinks in
//! outputs reduced to their text, and every other control character escaped (`\x1b`), so no raw
//! byte a terminal would act on reaches the file.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::LazyLock;

use mdbook_renderer::config::Config;
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use regex::{Captures, Regex};

/// The hidden-line prefix of each language other than Rust.
#[derive(Debug, Default)]
pub(crate) struct Hidden {
    prefixes: BTreeMap<String, String>,
}

impl Hidden {
    /// From mdBook's `output.html.code.hidelines` and `mdbook-snippets`'s languages (`hidden`,
    /// default `!!!`).
    pub(crate) fn from_config(config: &Config) -> Hidden {
        let mut prefixes: BTreeMap<String, String> = config
            .get::<BTreeMap<String, String>>("output.html.code.hidelines")
            .ok()
            .flatten()
            .unwrap_or_default();
        let languages = config
            .get::<BTreeMap<String, toml::Value>>("preprocessor.snippets.languages")
            .ok()
            .flatten()
            .unwrap_or_default();
        for (name, language) in languages {
            let hidden = language.get("hidden").and_then(toml::Value::as_str);
            let hidden = hidden.unwrap_or(crate::config::language_table::DEFAULT_HIDDEN);
            prefixes.insert(name, hidden.to_owned());
        }
        Hidden { prefixes }
    }

    #[cfg(test)]
    pub(crate) fn of(pairs: &[(&str, &str)]) -> Hidden {
        let prefixes = pairs.iter().map(|(a, b)| (a.to_string(), b.to_string()));
        Hidden {
            prefixes: prefixes.collect(),
        }
    }
}

/// The HTML page mdBook writes for a chapter's source path.
pub(crate) fn page_of(path: &str) -> String {
    match path.strip_suffix(".md") {
        Some(stem) => format!("{stem}.html"),
        None => path.to_owned(),
    }
}

/// The chapter `content` (at `chapter_path`, links made absolute under `base`) as text.
pub(crate) fn chapter_text(
    content: &str,
    chapter_path: &str,
    base: &str,
    hidden: &Hidden,
) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_FOOTNOTES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    // Byte ranges kept as written (inline code) or replaced (code blocks), in order.
    let mut kept: Vec<(Range<usize>, Option<String>)> = Vec::new();
    let mut block: Option<(Range<usize>, String)> = None;
    for (event, range) in Parser::new_ext(content, options).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let info = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                // In a block quote the block's range starts after the `> ` that opens its line,
                // and every later line starts with it too: take it in, so it is the container
                // `code_block` strips from each line (and the closing fence is found).
                let line_start = content[..range.start].rfind('\n').map_or(0, |at| at + 1);
                let lead = &content[line_start..range.start];
                let start = if lead.contains('>') && lead.chars().all(|c| c == '>' || c == ' ') {
                    line_start
                } else {
                    range.start
                };
                block = Some((start..range.end, info));
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((range, info)) = block.take() {
                    let written = &content[range.clone()];
                    kept.push((range, Some(code_block(written, &info, hidden))));
                }
            }
            Event::Code(_) if block.is_none() => kept.push((range, None)),
            _ => {}
        }
    }
    let mut out = String::new();
    let mut at = 0;
    for (range, replacement) in kept {
        if range.start < at {
            continue;
        }
        out.push_str(&prose(&content[at..range.start], chapter_path, base));
        out.push_str(replacement.as_deref().unwrap_or(&content[range.clone()]));
        at = range.end;
    }
    out.push_str(&prose(&content[at..], chapter_path, base));
    let out = crate::report::markdown_output::plain_text(&out);
    static BLANKS: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\n[ \t]*(\n[ \t]*){2,}").unwrap());
    BLANKS.replace_all(&out, "\n\n").into_owned()
}

/// The language of a block with this info string: its first word, `rust` for rustdoc's
/// attributes or none, `text` for an expected-output block.
fn language(info: &str) -> String {
    let mut words = info
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|word| !word.is_empty());
    let rustdoc = [
        "ignore",
        "no_run",
        "should_panic",
        "compile_fail",
        "edition",
        "test_harness",
    ];
    match words.next() {
        None => "rust".to_owned(),
        Some(word) if rustdoc.iter().any(|attribute| word.starts_with(attribute)) => {
            "rust".to_owned()
        }
        Some(word) if word == "output" || info.split(',').any(|w| w.trim() == "output") => {
            "text".to_owned()
        }
        Some(word) => word.split('=').next().unwrap_or(word).to_owned(),
    }
}

/// A code block as written (opening line, body, closing line) -> the block a reader sees.
fn code_block(written: &str, info: &str, hidden: &Hidden) -> String {
    let lines: Vec<&str> = written.trim_end_matches('\n').split('\n').collect();
    let language = language(info);
    let opening = lines[0];
    let fence_at = opening.find(['`', '~']);
    let Some(fence_at) =
        fence_at.filter(|_| !info.is_empty() || opening.trim_start().starts_with(['`', '~']))
    else {
        // An indented block: kept as written.
        return written.to_owned();
    };
    let container = &opening[..fence_at];
    let fence: String = opening[fence_at..]
        .chars()
        .take_while(|c| *c == opening[fence_at..].chars().next().unwrap_or('`'))
        .collect();
    let closed = lines.len() > 1
        && lines[lines.len() - 1]
            .trim_start_matches(container)
            .trim()
            .starts_with(&fence);
    let body = &lines[1..lines.len() - usize::from(closed)];
    let own_prefix = info
        .split(',')
        .find_map(|word| word.trim().strip_prefix("hidelines="))
        .map(str::to_owned);
    let prefix = own_prefix.or_else(|| hidden.prefixes.get(&language).cloned());
    let mut out = vec![format!("{container}{fence}{language}")];
    for line in body {
        let code = line
            .strip_prefix(container)
            .unwrap_or(line.trim_start_matches(container.trim_end()));
        let trimmed = code.trim_start();
        let shown = if language == "rust" {
            if trimmed == "#" || trimmed.starts_with("# ") {
                None
            } else if let Some(rest) = trimmed.strip_prefix("##") {
                Some(format!("{}#{rest}", &code[..code.len() - trimmed.len()]))
            } else {
                Some(code.to_owned())
            }
        } else {
            match &prefix {
                Some(prefix) if trimmed.starts_with(prefix.as_str()) => None,
                _ => Some(code.to_owned()),
            }
        };
        if let Some(shown) = shown {
            out.push(format!("{container}{shown}").trim_end().to_owned());
        }
    }
    out.push(format!("{container}{fence}"));
    out.join("\n") + if written.ends_with('\n') { "\n" } else { "" }
}

/// Markdown outside code: HTML turned into Markdown or text, chapter links into page links.
fn prose(text: &str, chapter_path: &str, base: &str) -> String {
    links(&html_to_markdown(text), chapter_path, base)
}

static TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?s)<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*/?>|<!--.*?-->"#)
        .unwrap()
});
static HREF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"href\s*=\s*(?:"([^"]*)"|'([^']*)')"#).unwrap());

/// HTML tags -> Markdown (links, code, emphasis, tables, lists) or nothing; entities decoded.
fn html_to_markdown(text: &str) -> String {
    // The version picker's controls say nothing as text.
    static CONTROLS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?s)<(select|script|style|button)\b.*?</(select|script|style|button)>")
            .unwrap()
    });
    let text = CONTROLS.replace_all(text, "");
    // Nor does an element a page hides (`hidden`, as the picker's box is until a script shows it).
    static HIDDEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?s)<(div|p|span|section)\b[^>]*\shidden\b[^>]*>.*?</(div|p|span|section)>")
            .unwrap()
    });
    let text = HIDDEN.replace_all(&text, "");
    // A table row is one line of Markdown, whatever lines its HTML spans.
    static ROW: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?s)<tr\b.*?</tr>").unwrap());
    static NEWLINE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s*\n\s*").unwrap());
    let text = ROW.replace_all(&text, |row: &Captures<'_>| {
        NEWLINE.replace_all(&row[0], " ").into_owned()
    });
    let mut hrefs: Vec<Option<String>> = Vec::new();
    let mut row_cells = 0usize;
    let mut rows = 0usize;
    let converted = TAG.replace_all(&text, |captures: &Captures<'_>| {
        let closing = !captures.get(1).map_or("", |m| m.as_str()).is_empty();
        let name = captures
            .get(2)
            .map_or("", |m| m.as_str())
            .to_ascii_lowercase();
        let attributes = captures.get(3).map_or("", |m| m.as_str());
        match (name.as_str(), closing) {
            ("a", false) => {
                let href = HREF
                    .captures(attributes)
                    .and_then(|c| c.get(1).or(c.get(2)));
                // An anchor without a link (`<a id=..>`) is a place, not text: nothing.
                let href = href
                    .map(|m| m.as_str().to_owned())
                    .filter(|href| !href.is_empty());
                let opening = if href.is_some() { "[" } else { "" };
                hrefs.push(href);
                opening.to_owned()
            }
            ("a", true) => match hrefs.pop() {
                Some(Some(href)) => format!("]({href})"),
                _ => String::new(),
            },
            ("code", _) => "`".to_owned(),
            ("strong" | "b", _) => "**".to_owned(),
            ("em" | "i", _) => "*".to_owned(),
            ("br", _) => {
                if row_cells > 0 {
                    "; ".to_owned()
                } else {
                    "\n".to_owned()
                }
            }
            ("tr", false) => {
                row_cells = 0;
                String::new()
            }
            ("td" | "th", false) => {
                row_cells += 1;
                "| ".to_owned()
            }
            ("td" | "th", true) => " ".to_owned(),
            ("tr", true) => {
                rows += 1;
                let cells = std::mem::take(&mut row_cells);
                match rows {
                    1 => format!("|\n{}|", "|---".repeat(cells)),
                    _ => "|".to_owned(),
                }
            }
            ("table", _) => {
                rows = 0;
                String::new()
            }
            ("li", false) => "- ".to_owned(),
            ("summary", true) | ("p" | "div" | "li" | "details" | "pre", true) => "\n".to_owned(),
            ("pre", false) => "\n".to_owned(),
            _ => String::new(),
        }
    });
    let mut text = converted.into_owned();
    for (entity, character) in [
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&nbsp;", " "),
        ("&amp;", "&"),
    ] {
        text = text.replace(entity, character);
    }
    // Table rows lose the indentation their HTML had.
    static ROW_SPACE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?m)^[ \t]+\|").unwrap());
    let text = ROW_SPACE.replace_all(&text, "|");
    // Nor blank lines between them (a `</thead>` and its `<tbody>`), which would end the table.
    static BETWEEN_ROWS: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?m)^(\|.*\|)[ \t]*\n(?:[ \t]*\n)+(\|)").unwrap());
    BETWEEN_ROWS.replace_all(&text, "$1\n$2").into_owned()
}

/// `](target)` links relative to the chapter -> links to the pages under `base`.
fn links(text: &str, chapter_path: &str, base: &str) -> String {
    static LINK: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"\]\(([^()\s]+)(\s+"[^"]*")?\)"#).unwrap());
    let directory = chapter_path
        .rsplit_once('/')
        .map_or("", |(directory, _)| directory);
    LINK.replace_all(text, |captures: &Captures<'_>| {
        let target = &captures[1];
        let title = captures.get(2).map_or("", |m| m.as_str());
        let scheme = target.split_once(':').is_some_and(|(scheme, _)| {
            scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        });
        if scheme || target.starts_with('/') {
            return captures[0].to_owned();
        }
        let (path, anchor) = target
            .split_once('#')
            .map_or((target, None), |(p, a)| (p, Some(a)));
        let resolved = if path.is_empty() {
            page_of(chapter_path)
        } else {
            let mut parts: Vec<&str> = directory.split('/').filter(|p| !p.is_empty()).collect();
            for part in path.split('/') {
                match part {
                    "." | "" => {}
                    ".." => {
                        parts.pop();
                    }
                    part => parts.push(part),
                }
            }
            page_of(&parts.join("/"))
        };
        let anchor = anchor
            .map(|anchor| format!("#{anchor}"))
            .unwrap_or_default();
        format!("]({base}{resolved}{anchor}{title})")
    })
    .into_owned()
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
