//! Markdown -> snippets, sans-IO. Walks a chapter with pulldown-cmark's offset iterator (the
//! parser rustdoc uses) and returns every code block rustdoc would test as Rust (a fence
//! without an info string, `rust`, `no_run`, ...; an indented block) and every fenced block of
//! a language the book declares, with its position, attributes and the expected-output block
//! (```` ```text,output ````) that directly follows it, if any. Blocks of other languages
//! (`text`, `toml`, undeclared ones) are not snippets.

use std::fmt;
use std::path::{Path, PathBuf};

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use super::info_string::{BlockKind, block_kind, parse_attributes, parse_language_attributes};

use crate::snippet::{ExpectedOutput, LanguageSyntax, Snippet, SourceSpan};

/// A chapter the verifier cannot read snippets from (a bad info string), or, as a warning, an
/// unterminated fence. It names the place so the author can fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExtractError {
    pub span: SourceSpan,
    pub message: String,
}

impl fmt::Display for ExtractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let SourceSpan { path, line, column } = &self.span;
        write!(f, "{}:{line}:{column}: {}", path.display(), self.message)
    }
}

impl std::error::Error for ExtractError {}

/// Returns the snippets of one chapter (Rust, and the `languages` the book declares), in order. `chapter_path` is the chapter's path
/// relative to the book root (`src/ch1.md`); it names the snippets (`src_ch1_md_1`, ...) and is
/// the path of every [`SourceSpan`]. Positions are those of `text`: when `text` had includes
/// expanded, the caller maps them back (see `include`).
pub(crate) fn extract(
    chapter_path: &Path,
    text: &str,
    languages: &[LanguageSyntax],
) -> Result<Vec<Snippet>, ExtractError> {
    // A byte-order mark is not part of the first line (CommonMark would not see a fence
    // there); offsets stay those of `text`, BOM included.
    let bom = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let lines = LineIndex::new(text, bom);
    let span = |offset: usize| lines.span(chapter_path, offset);
    let mut snippets: Vec<Snippet> = Vec::new();
    let mut open: Option<OpenBlock> = None;
    // Whether the previous event closed a snippet, so that an output block right after it is
    // its expected output.
    let mut after_snippet = false;

    for (event, range) in Parser::new(&text[bom..]).into_offset_iter() {
        let range = range.start + bom..range.end + bom;
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                open = Some(OpenBlock {
                    info: info.to_string(),
                    indented: false,
                    range: range.clone(),
                    content: String::new(),
                    content_range: None,
                    follows_snippet: after_snippet,
                });
            }
            // rustdoc tests an indented block as Rust, with no attributes.
            Event::Start(Tag::CodeBlock(CodeBlockKind::Indented)) => {
                open = Some(OpenBlock {
                    info: String::new(),
                    indented: true,
                    range: range.clone(),
                    content: String::new(),
                    content_range: None,
                    follows_snippet: after_snippet,
                });
            }
            Event::Text(content) if open.is_some() => {
                let block = open.as_mut().expect("checked by the guard");
                block.content.push_str(&content);
                let start = block
                    .content_range
                    .as_ref()
                    .map_or(range.start, |r| r.start);
                block.content_range = Some(start..range.end);
            }
            Event::End(TagEnd::CodeBlock) if open.is_some() => {
                let block = open.take().expect("checked by the guard");
                after_snippet = false;
                let kind = match block.indented {
                    true => BlockKind::Snippet,
                    false => block_kind(&block.info, languages),
                };
                match kind {
                    BlockKind::Snippet | BlockKind::Language(_) => {
                        let language = match kind {
                            BlockKind::Language(language) => Some(language),
                            _ => None,
                        };
                        let parsed = match language {
                            Some(_) => parse_language_attributes(&block.info),
                            None => parse_attributes(&block.info),
                        };
                        let attributes = parsed.map_err(|message| ExtractError {
                            span: span(block.range.start),
                            message,
                        })?;
                        snippets.push(Snippet {
                            id: snippet_id(chapter_path, snippets.len() + 1),
                            chapter_path: chapter_path.to_path_buf(),
                            span: span(block.range.start),
                            code: block.content,
                            info: block.info,
                            indented: block.indented,
                            language,
                            attributes,
                            block_range: block.range,
                            expected: None,
                        });
                        after_snippet = true;
                        continue;
                    }
                    BlockKind::ExpectedOutput if block.follows_snippet && !block.indented => {
                        let content_range = block.content_range.unwrap_or_else(|| {
                            let after_fence = line_end(text, block.range.start);
                            after_fence..after_fence
                        });
                        let last = snippets.last_mut().expect("follows a snippet");
                        last.expected = Some(ExpectedOutput {
                            text: block.content,
                            block_range: block.range.clone(),
                            content_range,
                            span: span(block.range.start),
                        });
                    }
                    BlockKind::ExpectedOutput | BlockKind::Other => {}
                }
            }
            _ if open.is_some() => {}
            _ => after_snippet = false,
        }
    }
    Ok(snippets)
}

/// The module-safe id of the `ordinal`-th (1-based) snippet of a chapter.
pub(crate) fn snippet_id(chapter_path: &Path, ordinal: usize) -> String {
    let mut id: String = chapter_path
        .to_string_lossy()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if !id.starts_with(|c: char| c.is_ascii_alphabetic()) {
        id.insert_str(0, "s_");
    }
    format!("{id}_{ordinal}")
}

struct OpenBlock {
    info: String,
    /// An indented code block: no fences, its first line is its first code line.
    indented: bool,
    range: std::ops::Range<usize>,
    content: String,
    content_range: Option<std::ops::Range<usize>>,
    follows_snippet: bool,
}

/// The fences of a chapter that no line closes, at its top level: CommonMark lets such a block
/// run to the end of the chapter, and rustdoc (`mdbook test`) tests it and every block before
/// it, so the verifier does too; but the rest of the chapter became code, which is most likely a
/// mistake (an included file cut short, say), so each is a warning. (In a block quote or a list
/// item, the container's end closes a fence, as every CommonMark reader has it: no warning.)
pub(crate) fn unterminated_fences(chapter_path: &Path, text: &str) -> Vec<ExtractError> {
    let bom = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let lines = LineIndex::new(text, bom);
    let mut containers = 0usize;
    let mut unterminated = Vec::new();
    for (event, range) in Parser::new(&text[bom..]).into_offset_iter() {
        let range = range.start + bom..range.end + bom;
        match event {
            Event::Start(Tag::BlockQuote(_) | Tag::Item) => containers += 1,
            Event::End(TagEnd::BlockQuote(_) | TagEnd::Item) => containers -= 1,
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) if containers == 0 => {
                if let Err(message) = check_terminated(text, range.clone()) {
                    unterminated.push(ExtractError {
                        span: lines.span(chapter_path, range.start),
                        message,
                    });
                }
            }
            _ => {}
        }
    }
    unterminated
}

/// Whether the fenced block at `range` ends with a closing fence line.
fn check_terminated(text: &str, range: std::ops::Range<usize>) -> Result<(), String> {
    let block = &text[range];
    let strip = |line: &str| -> String {
        line.trim_start_matches(|c: char| c == '>' || c.is_whitespace())
            .trim_end()
            .to_owned()
    };
    let mut lines = block.lines();
    let opening = strip(lines.next().unwrap_or_default());
    let fence_char = opening.chars().next().unwrap_or('`');
    let fence_len = opening.chars().take_while(|&c| c == fence_char).count();
    let closed = block.lines().count() > 1
        && block.lines().last().is_some_and(|last| {
            let last = strip(last);
            last.len() >= fence_len && last.chars().all(|c| c == fence_char)
        });
    if closed {
        Ok(())
    } else {
        Err(format!(
            "unterminated code fence: no closing {} line, so the block runs to the end of the \
             chapter, as CommonMark and `mdbook test` read it",
            fence_char.to_string().repeat(fence_len)
        ))
    }
}

fn line_end(text: &str, offset: usize) -> usize {
    text[offset..]
        .find('\n')
        .map_or(text.len(), |newline| offset + newline + 1)
}

/// Byte offset -> 1-based line and column.
struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    /// `first_line_start` skips a byte-order mark, so columns of line 1 count from after it.
    fn new(text: &str, first_line_start: usize) -> LineIndex {
        let line_starts = std::iter::once(first_line_start)
            .chain(text.match_indices('\n').map(|(index, _)| index + 1))
            .collect();
        LineIndex { line_starts }
    }

    fn span(&self, path: &Path, offset: usize) -> SourceSpan {
        let line = self.line_starts.partition_point(|&start| start <= offset);
        SourceSpan {
            path: PathBuf::from(path),
            line,
            column: offset - self.line_starts[line - 1] + 1,
        }
    }
}

#[cfg(test)]
#[path = "extract_tests.rs"]
mod tests;
