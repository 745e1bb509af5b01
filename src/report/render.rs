//! Rendering: puts, under each snippet that passed, what it printed and the artifacts its harness
//! left (a wire transcript, a diagram), as HTML in the chapter's Markdown. Sans-IO: a function of
//! the chapter text, its snippets and their results.
//!
//! Only three kinds of edit are made, so content the verifier does not own passes through byte
//! for byte: under `mdbook test` alone (the chapter goes to rustdoc, not to a renderer), `,ignore`
//! is appended to a passed Rust snippet's info string, so that rustdoc skips a block we already
//! ran; for every renderer a Rust fence stays exactly as the author wrote it, since mdBook's HTML
//! renderer reads it for the Run button, `editable`, the edition class and the hidden `fn main`
//! wrapper, and gives an `ignore` block none of them; a snippet of another language keeps its fence,
//! except that `,hidelines=PREFIX` is appended when it has hidden lines and does not name the
//! prefix itself (so mdBook hides them); the snippet's expected-output block, if any, is
//! replaced by the real output; otherwise the output is inserted after the closing fence.
//!
//! The inserted HTML never contains a blank line, since a blank line ends a Markdown HTML block:
//! newlines inside a `<pre>` are written as `&#10;`. Each inserted line carries the snippet's
//! container prefix (list indentation, `> `) so that a snippet inside a list or a block quote
//! keeps its output inside it. For a renderer that publishes the Markdown as text
//! (`Reader::Markdown`), the output is Markdown instead (`markdown_output.rs`): fenced blocks,
//! placed the same way, blank lines allowed.

use std::collections::HashMap;
use std::ops::Range;

use base64::Engine as _;

use super::markdown_output::output_markdown;
use crate::snippet::{ArtifactKind, Outcome, Snippet, SnippetResult};

/// Returns `text` with the output of every passed snippet of `verified` rendered under it, and
/// under each failed snippet whose id is in `failure_reports` that report (as the terminal shows
/// it) in a visible box: what `mdbook serve` shows an author. The snippets' byte ranges must be
/// ranges of `text`. Other failures and skipped snippets leave the text untouched (a failure
/// stops a strict build before rendering; a skipped snippet renders as written). `reader` is
/// who reads the result: only rustdoc gets passed Rust snippets marked `ignore`.
pub(crate) fn render_chapter(
    text: &str,
    verified: &[(&Snippet, &SnippetResult)],
    failure_reports: &HashMap<String, String>,
    reader: Reader,
) -> String {
    let mut edits = Vec::new();
    for (snippet, result) in verified {
        match &result.outcome {
            Outcome::Passed => edits.extend(snippet_edits(text, snippet, result, reader)),
            Outcome::Failed(_) => {
                if let Some(report) = failure_reports.get(&result.id) {
                    edits.extend(failure_edit(text, snippet, report));
                }
            }
            Outcome::Skipped => {}
        }
    }
    apply_edits(text, edits)
}

/// Who reads a rendered chapter, as mdBook tells a preprocessor: `PreprocessorContext::renderer`
/// is the renderer's name, and `mdbook test` runs the preprocessors for a renderer it names
/// `test` (mdBook 0.5.4, `mdbook-driver/src/mdbook.rs`, `test_chapter`) before handing each
/// chapter to `rustdoc --test`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reader {
    /// `mdbook test`: rustdoc, which must skip the blocks already verified.
    Rustdoc,
    /// `html` or any other renderer: fences reach it as written.
    Renderer,
    /// A renderer of `MARKDOWN_RENDERERS`, which writes the chapters' Markdown as text: fences
    /// reach it as written, and outputs are Markdown blocks (`markdown_output.rs`), not HTML.
    Markdown,
}

/// The renderers that publish the book's Markdown as text rather than HTML: `llms` (the
/// `[output.llms]` of `mdbook-llms`, or a book's own command of that name), which writes
/// `llms.txt` and `llms-full.txt` for coding assistants.
pub(crate) const MARKDOWN_RENDERERS: &[&str] = &["llms"];

impl Reader {
    /// The reader for mdBook's renderer `name`.
    pub(crate) fn of_renderer(name: &str) -> Reader {
        if name == "test" {
            Reader::Rustdoc
        } else if MARKDOWN_RENDERERS.contains(&name) {
            Reader::Markdown
        } else {
            Reader::Renderer
        }
    }
}

/// The box that shows a failure in the page: the report in a `<pre>`, styled inline so that it
/// stands out whatever the book's theme. One element per line, no line blank.
pub(crate) fn failure_html(report: &str) -> Vec<String> {
    vec![
        format!(
            r#"<div class="mdbook-snippets-failure" role="alert" style="{FAILURE_BOX_STYLE}">"#
        ),
        format!(
            r#"<p style="margin: 0 0 0.5em 0"><strong>mdbook-snippets: this failed.</strong> Shown only under <code>mdbook serve</code>; <code>mdbook build</code> and <code>mdbook test</code> fail on it.</p>"#
        ),
        format!(
            r#"<pre style="{FAILURE_PRE_STYLE}">{}</pre>"#,
            terminal_text_html(report.trim_end())
        ),
        "</div>".to_string(),
    ]
}

/// A red frame on a pale background, readable in the light and the dark themes alike.
const FAILURE_BOX_STYLE: &str = "border: 2px solid #c62828; border-radius: 4px; \
    background: #fdecea; color: #3b0a0a; padding: 0.75em 1em; margin: 1em 0";
const FAILURE_PRE_STYLE: &str = "margin: 0; padding: 0.5em; overflow-x: auto; \
    background: #fff; color: #3b0a0a; font-size: 0.85em; white-space: pre";

/// The HTML shown under a snippet: its stdout in a `<pre>`, each text artifact in a collapsible
/// `<details>`, each SVG artifact as an `<img>` with a data URI. One element per line, no line
/// blank; empty when there is nothing to show.
pub(crate) fn output_html(result: &SnippetResult) -> Vec<String> {
    let stdout = result.stdout.strip_suffix('\n').unwrap_or(&result.stdout);
    let stdout = stdout.strip_suffix('\r').unwrap_or(stdout);
    if stdout.is_empty() && result.artifacts.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![r#"<div class="mdbook-snippets-output">"#.to_string()];
    if !stdout.is_empty() {
        lines.push(format!(
            r#"<pre class="mdbook-snippets-stdout">{}</pre>"#,
            terminal_text_html(stdout)
        ));
    }
    for artifact in &result.artifacts {
        let title = escape_html(&artifact.title);
        lines.push(match artifact.kind {
            ArtifactKind::Text => format!(
                r#"<details class="mdbook-snippets-artifact"><summary>{title}</summary><pre>{}</pre></details>"#,
                terminal_text_html(artifact.content.strip_suffix('\n').unwrap_or(&artifact.content))
            ),
            ArtifactKind::Svg => format!(
                r#"<img class="mdbook-snippets-artifact" alt="{title}" title="{title}" src="data:image/svg+xml;base64,{}">"#,
                base64::engine::general_purpose::STANDARD.encode(&artifact.content)
            ),
        });
    }
    lines.push("</div>".to_string());
    lines
}

/// What a program printed, as HTML: escaped, and its ANSI escape sequences (a coloured log
/// line, `cargo`-style bold) rendered as the colours and styles they stand for, through
/// `ansi-to-html` (which drops the sequences it has no HTML for), never published as raw bytes.
/// Newlines are written as `&#10;` (see the module docs).
pub(crate) fn terminal_text_html(text: &str) -> String {
    if !text.contains('\u{1b}') {
        return escape_html(text);
    }
    let converted = ansi_to_html::Converter::new()
        .convert(text)
        .unwrap_or_else(|_| escape_html(&text.replace('\u{1b}', "")));
    converted.replace('\n', "&#10;").replace('\r', "&#13;")
}

/// Escapes text for HTML content and attribute values, newlines included (see the module docs).
pub(crate) fn escape_html(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            '\n' => escaped.push_str("&#10;"),
            '\r' => escaped.push_str("&#13;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// A replacement of `range` of the chapter text.
struct Edit {
    range: Range<usize>,
    replacement: String,
}

fn snippet_edits(
    text: &str,
    snippet: &Snippet,
    result: &SnippetResult,
    reader: Reader,
) -> Vec<Edit> {
    let Some(opening) = OpeningFence::of(text, snippet) else {
        // Not a fence where the snippet says: leave the chapter alone rather than guess.
        return Vec::new();
    };
    let mut edits: Vec<Edit> = match &snippet.language {
        // An indented block has no info string to mark: rustdoc runs it again.
        None if reader == Reader::Rustdoc && !snippet.indented => vec![opening.ignore_edit()],
        None => Vec::new(),
        // rustdoc runs only Rust; another language's fence stays as written, except that
        // mdBook must learn its hidden-line prefix when the block has hidden lines.
        Some(language) => {
            let hides = snippet
                .code
                .lines()
                .any(|line| line.trim_start().starts_with(&language.hidden));
            (hides && !language.hidden_in_info)
                .then(|| opening.append_edit(&format!(",hidelines={}", language.hidden)))
                .into_iter()
                .collect()
        }
    };

    let html = match reader {
        // A blank line between the closing fence and the output reads better as text.
        Reader::Markdown => match output_markdown(result) {
            lines if lines.is_empty() || snippet.expected.is_some() => lines,
            lines => std::iter::once(String::new()).chain(lines).collect(),
        },
        Reader::Rustdoc | Reader::Renderer => output_html(result),
    };
    let (range, leading) = match &snippet.expected {
        Some(expected) => (
            line_start(text, expected.block_range.start)..line_end(text, expected.block_range.end),
            String::new(),
        ),
        None => {
            let at = line_end(text, snippet.block_range.end);
            let leading = if at == text.len() && !text.is_empty() && !text.ends_with('\n') {
                opening.eol.to_string()
            } else {
                String::new()
            };
            (at..at, leading)
        }
    };
    if html.is_empty() && snippet.expected.is_none() {
        return edits;
    }
    let tight = reader != Reader::Markdown;
    edits.push(insertion(text, &opening, range, leading, &html, tight));
    edits
}

/// The failure box inserted after a failed snippet's closing fence (its expected-output block,
/// if any, stays as written).
fn failure_edit(text: &str, snippet: &Snippet, report: &str) -> Option<Edit> {
    let opening = OpeningFence::of(text, snippet)?;
    let at = line_end(text, snippet.block_range.end);
    let leading = if at == text.len() && !text.is_empty() && !text.ends_with('\n') {
        opening.eol.to_string()
    } else {
        String::new()
    };
    Some(insertion(
        text,
        &opening,
        at..at,
        leading,
        &failure_html(report),
        true,
    ))
}

/// Replaces `range` with `leading` and the `html` lines, each carrying the block's container
/// prefix, and keeps the text that follows out of the HTML block.
fn insertion(
    text: &str,
    opening: &OpeningFence,
    range: Range<usize>,
    mut leading: String,
    html: &[String],
    keep_lists_tight: bool,
) -> Edit {
    for line in html {
        // A blank line carries no trailing spaces: the container's indentation alone is not
        // needed to continue a list item or a quote.
        if line.is_empty() {
            leading.push_str(opening.container.trim_end());
        } else {
            leading.push_str(&opening.container);
        }
        leading.push_str(line);
        leading.push_str(opening.eol);
    }
    // An HTML block runs until a blank line: keep the following text out of it. A line the
    // block's container does not hold (the next item of a list, a line after a quote) ends it
    // already, and a blank line there would make a tight list loose (a `<p>` in every `<li>`);
    // Markdown read as text (`keep_lists_tight: false`) reads better with it.
    if !html.is_empty()
        && !next_line_is_blank(text, range.end)
        && (!keep_lists_tight
            || continues_container(next_line(text, range.end), &opening.container))
    {
        leading.push_str(opening.container.trim_end());
        leading.push_str(opening.eol);
    }
    Edit {
        range,
        replacement: leading,
    }
}

/// The opening fence line of a code block (shared with `bless`, which finds the closing fence).
pub(crate) struct OpeningFence {
    pub(crate) fence_char: char,
    pub(crate) fence_len: usize,
    /// Just past the line's newline (or the end of the text).
    pub(crate) line_end: usize,
    /// Where the info string ends (trailing whitespace excluded).
    info_end: usize,
    /// Whether the info string is empty (rustdoc's default: Rust).
    info_is_empty: bool,
    /// What continues the block's container on a new line: the text before the fence with list
    /// markers turned into spaces (`- ` -> `  `, `> 1. ` -> `>    `).
    pub(crate) container: String,
    pub(crate) eol: &'static str,
}

impl OpeningFence {
    /// The opening of `snippet`'s block: its fence, or for an indented code block its first
    /// line, whose container is what precedes the block's four columns of indentation (the
    /// HTML inserted after it must not be indented as code, or it shows as text).
    pub(crate) fn of(text: &str, snippet: &Snippet) -> Option<OpeningFence> {
        if !snippet.indented {
            return OpeningFence::find(text, snippet.block_range.start);
        }
        let start = line_start(text, snippet.block_range.start);
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line = &text[start..end];
        let eol = if line.ends_with('\r') { "\r\n" } else { "\n" };
        let prefix: String = line
            .chars()
            .take_while(|c| *c == '>' || c.is_whitespace())
            .filter(|c| *c != '\r')
            .map(|c| if c == '>' || c == '\t' { c } else { ' ' })
            .collect();
        let code_indent = prefix.trim_start_matches('>').len().min(4);
        let container = prefix[..prefix.len() - code_indent].to_owned();
        Some(OpeningFence {
            fence_char: ' ',
            fence_len: 0,
            line_end: (end + 1).min(text.len()),
            info_end: start,
            info_is_empty: true,
            container,
            eol,
        })
    }

    /// Parses the line that contains `block_start`; `None` when it holds no fence.
    pub(crate) fn find(text: &str, block_start: usize) -> Option<OpeningFence> {
        let start = line_start(text, block_start);
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line_end = (end + 1).min(text.len());
        let line = &text[start..end];
        let eol = if line.ends_with('\r') { "\r\n" } else { "\n" };
        let line = line.strip_suffix('\r').unwrap_or(line);
        let fence_at = line.find(['`', '~'])?;
        let fence_char = line[fence_at..].chars().next()?;
        let fence_len = line[fence_at..]
            .chars()
            .take_while(|c| *c == fence_char)
            .count();
        if fence_len < 3 {
            return None;
        }
        let info = &line[fence_at + fence_len..];
        let container = line[..fence_at]
            .chars()
            .filter(|c| *c != '\u{feff}')
            .map(|c| if c == '>' || c == '\t' { c } else { ' ' })
            .collect();
        Some(OpeningFence {
            fence_char,
            fence_len,
            line_end,
            info_end: start + fence_at + fence_len + info.trim_end().len(),
            info_is_empty: info.trim().is_empty(),
            container,
            eol,
        })
    }

    fn append_edit(&self, text: &str) -> Edit {
        Edit {
            range: self.info_end..self.info_end,
            replacement: text.to_owned(),
        }
    }

    fn ignore_edit(&self) -> Edit {
        Edit {
            range: self.info_end..self.info_end,
            replacement: if self.info_is_empty {
                "rust,ignore".to_string()
            } else {
                ",ignore".to_string()
            },
        }
    }
}

fn apply_edits(text: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|edit| (edit.range.start, edit.range.end));
    let mut rendered = String::with_capacity(text.len());
    let mut copied_to = 0;
    for edit in edits {
        if edit.range.start < copied_to {
            // Overlapping edits mean the snippets' ranges are not this text's: skip, never corrupt.
            continue;
        }
        rendered.push_str(&text[copied_to..edit.range.start]);
        rendered.push_str(&edit.replacement);
        copied_to = edit.range.end;
    }
    rendered.push_str(&text[copied_to..]);
    rendered
}

pub(crate) fn line_start(text: &str, position: usize) -> usize {
    text[..position].rfind('\n').map_or(0, |i| i + 1)
}

/// The start of the line after the one `position` ends: `position` itself when it follows a
/// newline, else just past the next newline (or the end of the text).
fn line_end(text: &str, position: usize) -> usize {
    if position > 0 && text.as_bytes()[position - 1] == b'\n' {
        return position;
    }
    text[position..]
        .find('\n')
        .map_or(text.len(), |i| position + i + 1)
}

/// The line that starts at `position`, without its newline.
fn next_line(text: &str, position: usize) -> &str {
    let line = text[position..].split('\n').next().unwrap_or("");
    line.strip_suffix('\r').unwrap_or(line)
}

/// Whether `line` is inside a block whose lines start with `container` (list indentation,
/// `> `): then it would continue an HTML block inserted there. At the top level every line is.
fn continues_container(line: &str, container: &str) -> bool {
    let markers = |text: &str| {
        text.chars()
            .take_while(|c| *c == '>' || c.is_whitespace())
            .filter(|c| *c == '>')
            .count()
    };
    // What follows the last `>` of the prefix: the indentation a list item needs.
    let indent_after_markers = |text: &str| {
        let prefix_len = text
            .find(|c: char| c != '>' && !c.is_whitespace())
            .unwrap_or(text.len());
        let prefix = &text[..prefix_len];
        prefix.len() - prefix.rfind('>').map_or(0, |at| at + 1)
    };
    let wanted = markers(container);
    if markers(line) < wanted {
        return false;
    }
    let needed = indent_after_markers(container);
    let needed = if wanted > 0 {
        // `> ` continues a quote; more is a list item's indentation inside it.
        needed.saturating_sub(1)
    } else {
        needed
    };
    indent_after_markers(line) >= needed
}

fn next_line_is_blank(text: &str, position: usize) -> bool {
    let rest = &text[position..];
    let line = rest.split('\n').next().unwrap_or("");
    rest.is_empty()
        || line
            .trim_matches(|c: char| c == '>' || c.is_whitespace())
            .is_empty()
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
