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

use super::fence::{OpeningFence, line_start};
use super::markdown_output::output_markdown;
pub(crate) use super::page_html::{failure_html, output_html};
use crate::snippet::{Outcome, Snippet, SnippetResult};

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
    let goes_on = !html.is_empty()
        && !next_line_is_blank(text, range.end)
        && continues_container(next_line(text, range.end), &opening.container);
    // Text of the same list item or quote follows. A blank line would end the HTML block but
    // make a tight list loose (a `<p>` in every `<li>`), so the HTML is one line that opens with
    // a comment: CommonMark ends such a block on the line that holds `-->`.
    if keep_lists_tight && goes_on && in_list_item(&opening.container) {
        leading.push_str(&opening.container);
        leading.push_str(ONE_LINE_BLOCK);
        leading.push_str(&html.concat());
        leading.push_str(opening.eol);
        return Edit {
            range,
            replacement: leading,
        };
    }
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

/// What opens an inserted HTML block written as one line, so that the line ends it.
const ONE_LINE_BLOCK: &str = "<!-- mdbook-snippets -->";

/// The two edits made to a snippet's opening line, at the end of its info string.
impl OpeningFence {
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

/// Whether a block whose lines start with `container` is in a list item: indentation beyond
/// what a block quote's `> ` needs.
fn in_list_item(container: &str) -> bool {
    let after_markers = &container[container.rfind('>').map_or(0, |at| at + 1)..];
    let quoted = container.contains('>');
    after_markers.len() > usize::from(quoted)
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
