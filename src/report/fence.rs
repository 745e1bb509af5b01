//! A code block's opening line, as the Markdown source has it: its fence (or, for an indented
//! block, its first line), where its info string ends, and the container prefix (list
//! indentation, `> `) that continues its block on a new line. Sans-IO. `render.rs` places a
//! snippet's output after it; `bless.rs` finds the closing fence from it.

use crate::snippet::Snippet;

/// Where the line that holds `position` starts.
pub(crate) fn line_start(text: &str, position: usize) -> usize {
    text[..position].rfind('\n').map_or(0, |i| i + 1)
}

/// The opening fence line of a code block.
pub(crate) struct OpeningFence {
    pub(crate) fence_char: char,
    pub(crate) fence_len: usize,
    /// Just past the line's newline (or the end of the text).
    pub(crate) line_end: usize,
    /// Where the info string ends (trailing whitespace excluded).
    pub(crate) info_end: usize,
    /// Whether the info string is empty (rustdoc's default: Rust).
    pub(crate) info_is_empty: bool,
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
}
