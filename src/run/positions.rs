//! Where a position in the generated crate stands in the Markdown: rewrites every
//! `src/e2021/<id>.rs:LINE:COLUMN` in a compiler's or a panic's message to the snippet's
//! `file.md:LINE:COLUMN` (hidden lines and crate-level lines lifted to the file's first line
//! included), and renumbers the gutter of rustc's excerpts with the Markdown's line numbers.
//! Sans-IO; `judge.rs` applies it to every message it reports (its tests cover both).

use std::path::Path;

use crate::build::{FIRST_CODE_LINE, lifted_lines};
use crate::snippet::SourceSpan;
use crate::source::Located;

/// Replaces every `MODULE_FILE:LINE:COLUMN` in `text` with the Markdown position it stands for,
/// and returns the first such position (the panic or the error's primary place).
pub(crate) fn remap(
    text: &str,
    module_file: &Path,
    located: &Located,
) -> (String, Option<SourceSpan>) {
    let needle = format!("{}:", module_file.display());
    let mut out = String::new();
    let mut first = None;
    let mut rest = text;
    while let Some(start) = rest.find(&needle) {
        out.push_str(&rest[..start]);
        let after = &rest[start + needle.len()..];
        let digits = |s: &str| s.chars().take_while(char::is_ascii_digit).count();
        let line_len = digits(after);
        let line: usize = after[..line_len].parse().unwrap_or(0);
        let (column, consumed) = match after[line_len..].strip_prefix(':') {
            Some(tail) if digits(tail) > 0 => {
                let column_len = digits(tail);
                (
                    tail[..column_len].parse().unwrap_or(1),
                    line_len + 1 + column_len,
                )
            }
            _ => (1, line_len),
        };
        if line_len == 0 {
            out.push_str(&needle);
            rest = after;
            continue;
        }
        let code_lines = located.snippet.code.lines().count();
        let span = if line >= FIRST_CODE_LINE && line - FIRST_CODE_LINE < code_lines {
            located.code_span(line - FIRST_CODE_LINE, column)
        } else if let Some((code_line, column)) = lifted_at(located, line, column) {
            located.code_span(code_line, column)
        } else {
            located.snippet.span.clone()
        };
        out.push_str(&format!(
            "{}:{}:{}",
            span.path.display(),
            span.line,
            span.column
        ));
        first.get_or_insert(span);
        rest = &after[consumed..];
    }
    out.push_str(rest);
    (out, first)
}

/// For rustc's excerpt of the generated file's first line, whose caret line is `carets` (its
/// gutter `width` wide): the Markdown line, the text of the lifted line the carets point at, and
/// the carets moved under that text. `None` when they point at no lifted line.
fn lifted_excerpt(
    located: &Located,
    width: usize,
    carets: &str,
) -> Option<(usize, String, String)> {
    let after_bar = carets.get(width..)?.strip_prefix(" | ")?;
    let marks = after_bar.find(['^', '-'])?;
    let (code_line, column) = lifted_at(located, 1, marks + 1)?;
    let (_, _, text) = lifted_lines(&located.snippet.code)
        .into_iter()
        .find(|(line, _, _)| *line == code_line)?;
    let moved = format!("{}{}", " ".repeat(column - 1), &after_bar[marks..]);
    Some((located.code_span(code_line, 1).line, text, moved))
}

/// The 0-based code line and the column in it of a position on the generated file's first line
/// that falls in a crate-level line lifted there (`# #![feature(..)]`).
fn lifted_at(located: &Located, file_line: usize, column: usize) -> Option<(usize, usize)> {
    if file_line != 1 {
        return None;
    }
    lifted_lines(&located.snippet.code)
        .into_iter()
        .find(|(_, start, text)| (*start..start + text.chars().count().max(1)).contains(&column))
        .map(|(code_line, start, _)| (code_line, column - start + 1))
}

/// rustc's excerpts number the lines of the generated file (`4 | let x = ...`); this puts the
/// Markdown line numbers there instead, widening the gutter when they need more digits.
pub(crate) fn renumber_gutter(rendered: &str, located: &Located) -> String {
    let code_lines = located.snippet.code.lines().count();
    let markdown_line = |file_line: usize| {
        (file_line >= FIRST_CODE_LINE && file_line - FIRST_CODE_LINE < code_lines)
            .then(|| located.code_span(file_line - FIRST_CODE_LINE, 1).line)
    };
    // A gutter line is `  12 | code`, `     | `, `   --> `, `    = note`, or `   ::: `.
    let gutter = |line: &str| -> Option<(usize, Option<usize>)> {
        let indent = line.len() - line.trim_start().len();
        let rest = &line[indent..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let after = &rest[digits..];
        if digits > 0 && (after.starts_with(" |") || after == " |") {
            Some((indent + digits, rest[..digits].parse().ok()))
        } else if indent > 0
            && ["|", "-->", "= ", ":::"]
                .iter()
                .any(|start| rest.starts_with(start))
        {
            Some((indent, None))
        } else {
            None
        }
    };
    let numbers: Vec<usize> = rendered
        .lines()
        .filter_map(gutter)
        .filter_map(|(_, number)| number)
        .collect();
    let digits = |number: usize| number.to_string().len();
    let old_digits = numbers
        .iter()
        .map(|&number| digits(number))
        .max()
        .unwrap_or(0);
    let new_digits = numbers
        .iter()
        .map(|&number| digits(markdown_line(number).unwrap_or(number)))
        .max()
        .unwrap_or(0);
    let delta = new_digits.saturating_sub(old_digits);
    let mut out = String::new();
    let mut lines = rendered.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if let Some((width, Some(1))) = gutter(line)
            && let Some(next) = lines.peek()
            && let Some((markdown_line, text, carets)) = lifted_excerpt(located, width, next)
        {
            // The first line holds lifted crate-level lines: show the one rustc points at, as
            // the author wrote it, at its Markdown line.
            let width = width + delta;
            out.push_str(&format!("{markdown_line:>width$} | {text}\n"));
            out.push_str(&format!("{} | {carets}", " ".repeat(width)));
            lines.next();
            continue;
        }
        match gutter(line) {
            Some((width, Some(number))) => {
                let shown = markdown_line(number).unwrap_or(number);
                let width = width + delta;
                out.push_str(&format!("{shown:>width$}{}", &line[width - delta..]));
            }
            Some((_, None)) => {
                out.push_str(&" ".repeat(delta));
                out.push_str(line);
            }
            None => out.push_str(line),
        }
    }
    out
}
