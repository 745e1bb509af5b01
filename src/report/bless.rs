//! The overwrite mode (`mdbook-snippets test --bless`, or `SNAPSHOTS=overwrite` as snapbox
//! spells it): rewrites the content of the expected-output blocks whose snippet printed something
//! else, in the Markdown sources, with what it printed.
//!
//! Only the lines between an expected block's fences change; everything else, the fences
//! included, stays byte for byte (CRLF line endings and list or block-quote prefixes are kept on
//! the new lines). Expected blocks that matched stay as written, wildcards and all. A snippet
//! without an expected block gets none: adding blocks is an author's decision, and a snippet that
//! prints nothing meaningful would otherwise grow noise. Blocks are found by the line of their
//! opening fence, so a block in an included file is rewritten in that file.
//!
//! Only the block that ran is rewritten: the file is read again at the end of the run, and the
//! snippet and its expected block must still be there byte for byte, at their lines, as they
//! were when the run read the chapter. A block whose text changed (the chapter was edited
//! during the run, lines moved) is refused with a message naming it, and nothing of it is
//! touched; the other blocks are still blessed. A file that changes between that check and the
//! write is not written at all.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::report::fence::{OpeningFence, line_start};
use crate::snippet::{FailureKind, Outcome, Snippet, SnippetResult, SourceSpan};

/// One expected-output block to rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Blessing<'a> {
    /// 1-based line of the block's opening fence.
    pub fence_line: usize,
    /// What the snippet printed.
    pub output: &'a str,
}

/// Whether the overwrite mode is on: the `--bless` flag, or `SNAPSHOTS=overwrite`.
pub(crate) fn overwrite_requested(bless_flag: bool) -> bool {
    bless_flag || std::env::var("SNAPSHOTS").is_ok_and(|value| value == "overwrite")
}

/// What `--bless` did: the files it rewrote (relative to the book root, in order), and the
/// blocks it refused (`PATH:LINE: why`).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Blessed {
    pub changed: Vec<PathBuf>,
    pub refused: Vec<String>,
}

/// Rewrites, in the files under `book_root`, the expected block of every snippet whose output did
/// not match and whose text is still what ran: `chapters` holds each chapter's text as the run
/// read it (includes expanded), by chapter path. A block that cannot be rewritten safely (its
/// fence moved since extraction, or the new output would close the fence) is an error naming
/// the place, and no file is written; a block whose text changed since the run read it is
/// refused (see the module docs).
pub(crate) fn bless_book(
    book_root: &Path,
    snippets: &[Snippet],
    results: &[SnippetResult],
    chapters: &BTreeMap<&Path, &str>,
) -> anyhow::Result<Blessed> {
    let mut by_file: BTreeMap<&Path, Vec<Blessing<'_>>> = BTreeMap::new();
    let mut files = Files::new(book_root);
    let mut refused = Vec::new();
    for result in results {
        let Outcome::Failed(failure) = &result.outcome else {
            continue;
        };
        if failure.kind != FailureKind::OutputMismatch {
            continue;
        }
        let Some(snippet) = snippets.iter().find(|snippet| snippet.id == result.id) else {
            continue;
        };
        let Some(expected) = &snippet.expected else {
            continue;
        };
        let ran = chapters.get(snippet.chapter_path.as_path()).copied();
        let unchanged = ran.is_some_and(|ran| {
            files.holds(&snippet.span, ran, &snippet.block_range)
                && files.holds(&expected.span, ran, &expected.block_range)
        });
        if !unchanged {
            refused.push(format!(
                "{}:{}: not blessed: the chapter changed during the run, and this block is no \
                 longer the text that ran (nothing of it was touched; run --bless again)",
                expected.span.path.display(),
                expected.span.line
            ));
            continue;
        }
        by_file
            .entry(expected.span.path.as_path())
            .or_default()
            .push(Blessing {
                fence_line: expected.span.line,
                output: &result.stdout,
            });
    }

    let mut rewritten = Vec::new();
    for (path, blessings) in &by_file {
        let text = files.text(path)?;
        let blessed = bless_text(text, blessings)
            .map_err(|message| anyhow::anyhow!("{}:{message}", path.display()))?;
        if blessed != text {
            rewritten.push((path.to_path_buf(), text.to_owned(), blessed));
        }
    }
    // Write only once every file is known to be blessable, and only a file still as it was
    // read: an edit made meanwhile wins.
    let mut changed = Vec::new();
    for (path, read, blessed) in rewritten {
        let full_path = book_root.join(&path);
        let now = std::fs::read_to_string(&full_path)
            .with_context(|| format!("reading {}", full_path.display()))?;
        if now != read {
            refused.push(format!(
                "{}: not blessed: the file changed while its blocks were being blessed (nothing \
                 of it was touched; run --bless again)",
                path.display()
            ));
            continue;
        }
        std::fs::write(&full_path, blessed)
            .with_context(|| format!("writing {}", full_path.display()))?;
        changed.push(path);
    }
    Ok(Blessed { changed, refused })
}

/// The book's files as they are now, each read once.
struct Files<'a> {
    book_root: &'a Path,
    read: BTreeMap<PathBuf, Option<String>>,
}

impl<'a> Files<'a> {
    fn new(book_root: &'a Path) -> Files<'a> {
        Files {
            book_root,
            read: BTreeMap::new(),
        }
    }

    fn text(&mut self, path: &Path) -> anyhow::Result<&str> {
        let full_path = self.book_root.join(path);
        self.lookup(path)
            .with_context(|| format!("reading {}", full_path.display()))
    }

    fn lookup(&mut self, path: &Path) -> Option<&str> {
        self.read
            .entry(path.to_path_buf())
            .or_insert_with(|| std::fs::read_to_string(self.book_root.join(path)).ok())
            .as_deref()
    }

    /// Whether the file of `span` holds, from `span`'s line on, the bytes `range` of `ran` (the
    /// chapter's text as the run read it), placed in their line as they were there.
    fn holds(&mut self, span: &SourceSpan, ran: &str, range: &Range<usize>) -> bool {
        let Some(block) = ran.get(range.clone()) else {
            return false;
        };
        let in_line = range.start - line_start(ran, range.start);
        let Some(now) = self.lookup(&span.path) else {
            return false;
        };
        let Some(start) = nth_line_start(now, span.line) else {
            return false;
        };
        now.get(start + in_line..)
            .is_some_and(|rest| rest.starts_with(block))
    }
}

/// Where 1-based line `line` of `text` starts.
fn nth_line_start(text: &str, line: usize) -> Option<usize> {
    match line.checked_sub(1)? {
        0 => Some(0),
        skip => text
            .match_indices('\n')
            .nth(skip - 1)
            .map(|(index, _)| index + 1),
    }
}

/// Returns `text` with the content of each blessed block replaced. Errors are `LINE: message`.
pub(crate) fn bless_text(text: &str, blessings: &[Blessing<'_>]) -> Result<String, String> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(index, _)| index + 1))
        .filter(|&start| start < text.len() || start == 0)
        .collect();
    let mut edits = Vec::new();
    for blessing in blessings {
        let line = blessing.fence_line;
        let start = *line
            .checked_sub(1)
            .and_then(|index| line_starts.get(index))
            .ok_or_else(|| format!("{line}: no such line"))?;
        let opening = OpeningFence::find(text, start)
            .ok_or_else(|| format!("{line}: expected an output block's fence here"))?;
        let closing = closing_fence(text, &opening)
            .ok_or_else(|| format!("{line}: the output block has no closing fence"))?;
        let content = content_lines(blessing.output, &opening)
            .map_err(|message| format!("{line}: {message}"))?;
        edits.push((opening.line_end..closing, content));
    }
    edits.sort_by_key(|(range, _)| range.start);
    edits.dedup_by_key(|(range, _)| range.start);

    let mut blessed = String::with_capacity(text.len());
    let mut copied_to = 0;
    for (range, content) in edits {
        blessed.push_str(&text[copied_to..range.start]);
        blessed.push_str(&content);
        copied_to = range.end;
    }
    blessed.push_str(&text[copied_to..]);
    Ok(blessed)
}

/// The start of the closing fence's line, if the block has one.
fn closing_fence(text: &str, opening: &OpeningFence) -> Option<usize> {
    let mut position = opening.line_end;
    while position < text.len() {
        let end = text[position..]
            .find('\n')
            .map_or(text.len(), |i| position + i + 1);
        if closes(&text[position..end], opening) {
            return Some(line_start(text, position));
        }
        position = end;
    }
    None
}

fn closes(line: &str, opening: &OpeningFence) -> bool {
    let stripped = line
        .trim_start_matches(|c: char| c == '>' || c.is_whitespace())
        .trim_end();
    stripped.chars().count() >= opening.fence_len
        && stripped.chars().all(|c| c == opening.fence_char)
}

/// The block's new lines. Trailing whitespace (at the end of a line, blank lines at the end) is
/// left out: the comparison ignores it (`run/compare.rs`), and editors and linters strip it.
fn content_lines(output: &str, opening: &OpeningFence) -> Result<String, String> {
    let output = output.trim_end();
    let mut content = String::with_capacity(output.len() + 16);
    if output.is_empty() {
        return Ok(content);
    }
    for line in output.split('\n') {
        let line = line.trim_end();
        if closes(line, opening) {
            return Err(format!(
                "the output line {line:?} would close the block's fence; lengthen the fence"
            ));
        }
        if line.is_empty() {
            content.push_str(opening.container.trim_end());
        } else {
            content.push_str(&opening.container);
            content.push_str(line);
        }
        content.push_str(opening.eol);
    }
    Ok(content)
}

#[cfg(test)]
#[path = "bless_tests.rs"]
mod tests;
