//! `{{#include}}` and `{{#rustdoc_include}}`, expanded the way mdBook's links preprocessor
//! does, but with a [`SourceMap`] that remembers where every expanded line came from, so an
//! error in an included file is reported at that file's line. Sans-IO: files are read through a
//! callback. Supported forms: `FILE`, `FILE:N`, `FILE:N:`, `FILE::M`, `FILE:N:M`, `FILE:ANCHOR`;
//! `rustdoc_include` keeps the lines outside the range as hidden (`# `) lines; `ANCHOR:` and
//! `ANCHOR_END:` marker lines are dropped; `\{{#include ...}}` is left as written, minus the `\`.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use anyhow::{anyhow, bail};

use crate::snippet::SourceSpan;

/// An include that cannot be expanded, at the directive's line (in the chapter, or in the
/// included file that holds it).
#[derive(Debug)]
pub(crate) struct IncludeError {
    pub span: SourceSpan,
    pub error: anyhow::Error,
}

impl std::fmt::Display for IncludeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {:#}",
            self.span.path.display(),
            self.span.line,
            self.error
        )
    }
}

impl std::error::Error for IncludeError {}

/// Expanded line -> the file and line it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceMap {
    lines: Vec<(Arc<PathBuf>, usize)>,
}

impl SourceMap {
    /// Maps a 1-based line and column of the expanded text to its origin. Columns are kept as
    /// they are (an included line is included whole).
    pub(crate) fn locate(&self, line: usize, column: usize) -> SourceSpan {
        let (path, line) = self
            .lines
            .get(line.saturating_sub(1))
            .or(self.lines.last())
            .map(|(path, line)| (path.as_ref().clone(), *line))
            .unwrap_or_default();
        SourceSpan { path, line, column }
    }
}

const MAX_DEPTH: usize = 10;

/// Expands the includes of a chapter. `chapter_path` and the paths given to `read` are relative
/// to the book root.
pub(crate) fn expand_includes(
    chapter_path: &Path,
    text: &str,
    read: &dyn Fn(&Path) -> anyhow::Result<String>,
) -> Result<(String, SourceMap), IncludeError> {
    let mut out = Output::default();
    expand_into(
        &mut out,
        Arc::new(chapter_path.to_path_buf()),
        text,
        read,
        0,
    )?;
    Ok((out.text, SourceMap { lines: out.lines }))
}

#[derive(Default)]
struct Output {
    text: String,
    lines: Vec<(Arc<PathBuf>, usize)>,
}

impl Output {
    fn push(&mut self, piece: &str, path: &Arc<PathBuf>, line: usize) {
        if piece.is_empty() {
            return;
        }
        if self.text.is_empty() || self.text.ends_with('\n') {
            self.lines.push((path.clone(), line));
        }
        self.text.push_str(piece);
    }
}

fn expand_into(
    out: &mut Output,
    path: Arc<PathBuf>,
    text: &str,
    read: &dyn Fn(&Path) -> anyhow::Result<String>,
    depth: usize,
) -> Result<(), IncludeError> {
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let line_number = index + 1;
        let mut rest = line;
        while let Some(start) = rest.find("{{#") {
            let Some(length) = rest[start..].find("}}") else {
                break;
            };
            let directive = &rest[start + 3..start + length];
            let escaped = rest[..start].ends_with('\\');
            let (kind, argument) = directive.split_once(' ').unwrap_or((directive, ""));
            if escaped || !matches!(kind, "include" | "rustdoc_include") {
                let keep = if escaped { start - 1 } else { start };
                out.push(&rest[..keep], &path, line_number);
                out.push(&rest[start..start + length + 2], &path, line_number);
                rest = &rest[start + length + 2..];
                continue;
            }
            out.push(&rest[..start], &path, line_number);
            let fail = |error: anyhow::Error| IncludeError {
                span: SourceSpan {
                    path: path.as_ref().clone(),
                    line: line_number,
                    column: line.len() - rest.len() + start + 1,
                },
                error,
            };
            if depth >= MAX_DEPTH {
                return Err(fail(anyhow!("includes nested too deeply")));
            }
            let (file, selection) = parse_argument(argument.trim());
            let included_path = Arc::new(normalize(
                &path.parent().unwrap_or(Path::new("")).join(file),
            ));
            let in_directive =
                |error: anyhow::Error| fail(error.context(format!("{{{{#{directive}}}}}")));
            let content = read(&included_path).map_err(in_directive)?;
            let selected = select(&content, selection).map_err(in_directive)?;
            for (included_line, text, inside) in selected {
                if !inside && kind == "include" {
                    continue;
                }
                let prefix = if inside { "" } else { "# " };
                let piece = format!("{prefix}{text}");
                // Nested includes inside an included file are expanded relative to it.
                let mut nested = Output::default();
                expand_into(&mut nested, included_path.clone(), &piece, read, depth + 1)?;
                for (line_index, nested_line) in nested.text.split_inclusive('\n').enumerate() {
                    let (origin, origin_line) = &nested.lines[line_index];
                    let origin_line = if Arc::ptr_eq(origin, &included_path) {
                        included_line
                    } else {
                        *origin_line
                    };
                    out.push(nested_line, origin, origin_line);
                }
            }
            rest = &rest[start + length + 2..];
            // The directive's own line break ends the last included line.
            if out.text.ends_with('\n') && rest == "\n" {
                rest = "";
            }
        }
        out.push(rest, &path, line_number);
    }
    Ok(())
}

enum Selection<'a> {
    All,
    Lines(usize, Option<usize>),
    Anchor(&'a str),
}

fn parse_argument(argument: &str) -> (&str, Selection<'_>) {
    let Some((file, selector)) = argument.split_once(':') else {
        return (argument, Selection::All);
    };
    let number = |text: &str| text.trim().parse::<usize>().ok();
    let selection = match selector.split_once(':') {
        Some((start, end)) => Selection::Lines(number(start).unwrap_or(1), number(end)),
        None => match number(selector) {
            Some(line) => Selection::Lines(line, Some(line)),
            None => Selection::Anchor(selector.trim()),
        },
    };
    (file, selection)
}

/// The file's lines as `(1-based line, text with its newline, inside the selection)`, without
/// anchor markers; the last line always ends in a newline.
fn select(content: &str, selection: Selection<'_>) -> anyhow::Result<Vec<(usize, String, bool)>> {
    let mut inside_anchor = false;
    let mut found_anchor = false;
    let mut lines = Vec::new();
    for (index, line) in content.split_inclusive('\n').enumerate() {
        let number = index + 1;
        if let Selection::Anchor(name) = selection {
            if marker(line, "ANCHOR:") == Some(name) {
                (inside_anchor, found_anchor) = (true, true);
            } else if marker(line, "ANCHOR_END:") == Some(name) {
                inside_anchor = false;
            }
        }
        if marker(line, "ANCHOR:").is_some() || marker(line, "ANCHOR_END:").is_some() {
            continue;
        }
        let inside = match selection {
            Selection::All => true,
            Selection::Lines(start, end) => number >= start && end.is_none_or(|end| number <= end),
            Selection::Anchor(_) => inside_anchor,
        };
        let mut text = line.to_owned();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        lines.push((number, text, inside));
    }
    if let Selection::Anchor(name) = selection
        && !found_anchor
    {
        bail!("no anchor named `{name}`");
    }
    Ok(lines)
}

fn marker<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let (_, after) = line.split_once(marker)?;
    after.split_whitespace().next()
}

/// `src/a/../b.rs` -> `src/b.rs`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut normalized = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir if normalized.file_name().is_some() => {
                normalized.pop();
            }
            Component::CurDir => {}
            other => normalized.push(other),
        }
    }
    normalized
}

#[cfg(test)]
#[path = "include_tests.rs"]
mod tests;
