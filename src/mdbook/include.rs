//! `{{#include}}`, `{{#rustdoc_include}}`, `{{#playground}}` (and its old name `playpen`) and
//! `{{#title}}`, expanded as mdBook 0.5's `links` preprocessor expands them, so the chapter we
//! verify is the chapter mdBook renders and `mdbook test` tests, plus a [`SourceMap`] that
//! remembers where every expanded line came from, so an error in an included file is reported
//! at that file's line. Sans-IO: files are read through a callback.
//!
//! As in mdBook: a directive is found anywhere in the text (prose and inline code included);
//! `\{{#...}}` is left as written minus the `\`; selections are `FILE`, `FILE:N`, `FILE:N:`,
//! `FILE::M`, `FILE:N:M` and `FILE:ANCHOR`; a whole-file or line-range `include` keeps
//! `ANCHOR:` marker lines, an anchored one drops them and takes the first section only;
//! `rustdoc_include` keeps the lines outside the selection as hidden (`# `) lines. A directive
//! that cannot be expanded (a file that cannot be read, includes nested too deeply) does not
//! stop the chapter: mdBook logs it and leaves the directive as written, and so do we, with an
//! [`IncludeProblem`] at its place; a snippet holding one fails there, one in prose is a
//! warning. An anchor that is not in the file selects nothing, as in mdBook, with a warning.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use regex::Regex;

use crate::mdbook::include_directive::Directive;
use crate::mdbook::source_map::{Lines, Origin, SourceMap};
use crate::snippet::SourceSpan;

/// A directive that did not expand as written, at its place in the expanded text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IncludeProblem {
    /// Byte offset of the directive (left as written) in the expanded text.
    pub offset: usize,
    /// The directive's position in the file that holds it.
    pub span: SourceSpan,
    /// `{{#include x.rs}}: reading src/x.rs: No such file or directory (os error 2)`.
    pub message: String,
    /// Whether a snippet holding it fails: true when the directive could not be expanded,
    /// false when it expanded to what mdBook makes of it (an anchor that is not there: nothing).
    pub fails_snippet: bool,
}

/// A chapter with its directives expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expanded {
    pub text: String,
    pub source_map: SourceMap,
    pub problems: Vec<IncludeProblem>,
}

/// mdBook's nesting limit: directives found this deep are not expanded.
const MAX_DEPTH: usize = 10;

/// Expands the directives of a chapter. `chapter_path` and the paths given to `read` are
/// relative to the book root (an absolute directive path stays absolute).
pub(crate) fn expand_includes(
    chapter_path: &Path,
    text: &str,
    read: &dyn Fn(&Path) -> anyhow::Result<String>,
) -> Expanded {
    let path = Arc::new(chapter_path.to_path_buf());
    let origins = (1..=text.split_inclusive('\n').count().max(1))
        .map(|line| (path.clone(), line))
        .collect();
    let dir = chapter_path.parent().unwrap_or(Path::new("")).to_path_buf();
    let source = Lines::new(text.to_owned(), origins, dir);
    let mut out = Output::default();
    expand_into(&mut out, &source, read, 0);
    Expanded {
        text: out.text,
        source_map: SourceMap { lines: out.lines },
        problems: out.problems,
    }
}

#[derive(Default)]
struct Output {
    text: String,
    lines: Vec<Origin>,
    problems: Vec<IncludeProblem>,
}

impl Output {
    /// Appends `piece`, whose lines come from `origin_of(0-based line of piece)`.
    fn push(&mut self, piece: &str, origin_of: &dyn Fn(usize) -> Origin) {
        for (index, line) in piece.split_inclusive('\n').enumerate() {
            if self.text.is_empty() || self.text.ends_with('\n') {
                self.lines.push(origin_of(index));
            }
            self.text.push_str(line);
        }
    }

    /// Appends the verbatim `range` of `source`.
    fn push_verbatim(&mut self, source: &Lines, range: std::ops::Range<usize>) {
        if range.is_empty() {
            return;
        }
        let first = source.line_index(range.start);
        self.push(&source.text[range], &|index| source.origin(first + index));
    }

    /// Appends an expansion, moving its problems to their place in this text.
    fn append(&mut self, nested: Output) {
        let shift = self.text.len();
        self.problems
            .extend(nested.problems.into_iter().map(|mut problem| {
                problem.offset += shift;
                problem
            }));
        let lines = nested.lines;
        self.push(&nested.text, &|index| lines[index].clone());
    }
}

/// mdBook's directive syntax: an escaped directive runs to the last `}}` of its line; a
/// directive is `{{`, optional white space, `#`, a name, white space, and a target up to `}}`.
static DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\\\{\{#.*\}\}|\{\{\s*#([a-zA-Z0-9_]+)\s+([^}]+)\}\}")
        .expect("the directive pattern is valid")
});

fn expand_into(
    out: &mut Output,
    source: &Lines,
    read: &dyn Fn(&Path) -> anyhow::Result<String>,
    depth: usize,
) {
    let mut written = 0;
    for captures in DIRECTIVE.captures_iter(&source.text) {
        let whole = captures.get(0).expect("group 0 is the match");
        let (Some(kind), Some(target)) = (captures.get(1), captures.get(2)) else {
            // Escaped: as written, without the backslash.
            out.push_verbatim(source, written..whole.start());
            out.push_verbatim(source, whole.start() + 1..whole.end());
            written = whole.end();
            continue;
        };
        let directive = Directive::parse(kind.as_str(), target.as_str());
        let Some(directive) = directive else {
            continue; // Not one of mdBook's: left as written.
        };
        out.push_verbatim(source, written..whole.start());
        let ((path, line), column) = source.origin_at(whole.start());
        let span = SourceSpan {
            path: path.as_ref().clone(),
            line,
            column,
        };
        let problem = |message: String, fails_snippet: bool, offset: usize| IncludeProblem {
            offset,
            span: span.clone(),
            message: format!("{}: {message}", whole.as_str()),
            fails_snippet,
        };
        match directive.render(&source.dir, read, &(path.clone(), line)) {
            Err(error) => {
                // Left as written, as mdBook does.
                out.problems
                    .push(problem(format!("{error:#}"), true, out.text.len()));
                written = whole.start();
            }
            Ok(rendered) => {
                if let Some(anchor) = rendered.missing_anchor {
                    out.problems.push(problem(
                        format!("no anchor named `{anchor}` (nothing included, as mdBook does)"),
                        false,
                        out.text.len(),
                    ));
                }
                if depth < MAX_DEPTH {
                    let mut nested = Output::default();
                    if let Some(lines) = rendered.lines {
                        expand_into(&mut nested, &lines, read, depth + 1);
                    }
                    out.append(nested);
                } else {
                    out.problems.push(problem(
                        format!("includes nested more than {MAX_DEPTH} deep (a cycle?)"),
                        true,
                        out.text.len(),
                    ));
                }
                written = whole.end();
            }
        }
    }
    out.push_verbatim(source, written..source.text.len());
}

#[cfg(test)]
#[path = "include_tests.rs"]
mod tests;
