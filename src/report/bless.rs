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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::report::render::{OpeningFence, line_start};
use crate::snippet::{FailureKind, Outcome, Snippet, SnippetResult};

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

/// Rewrites, in the files under `book_root`, the expected block of every snippet whose output did
/// not match. Returns the files it changed, relative to `book_root`, in order. A block that
/// cannot be rewritten safely (its fence moved since extraction, or the new output would close
/// the fence) is an error naming the place, and no file is written.
pub(crate) fn bless_book(
    book_root: &Path,
    snippets: &[Snippet],
    results: &[SnippetResult],
) -> anyhow::Result<Vec<PathBuf>> {
    let mut by_file: BTreeMap<&Path, Vec<Blessing<'_>>> = BTreeMap::new();
    for result in results {
        let Outcome::Failed(failure) = &result.outcome else {
            continue;
        };
        if failure.kind != FailureKind::OutputMismatch {
            continue;
        }
        let Some(expected) = snippets
            .iter()
            .find(|snippet| snippet.id == result.id)
            .and_then(|snippet| snippet.expected.as_ref())
        else {
            continue;
        };
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
        let full_path = book_root.join(path);
        let text = std::fs::read_to_string(&full_path)
            .with_context(|| format!("reading {}", full_path.display()))?;
        let blessed = bless_text(&text, blessings)
            .map_err(|message| anyhow::anyhow!("{}:{message}", path.display()))?;
        if blessed != text {
            rewritten.push((full_path, path.to_path_buf(), blessed));
        }
    }
    // Write only once every file is known to be blessable.
    let mut changed = Vec::new();
    for (full_path, path, blessed) in rewritten {
        std::fs::write(&full_path, blessed)
            .with_context(|| format!("writing {}", full_path.display()))?;
        changed.push(path);
    }
    Ok(changed)
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

fn content_lines(output: &str, opening: &OpeningFence) -> Result<String, String> {
    let output = output.strip_suffix('\n').unwrap_or(output);
    let mut content = String::with_capacity(output.len() + 16);
    if output.is_empty() {
        return Ok(content);
    }
    for line in output.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
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
