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

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, LazyLock};

use regex::Regex;

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

/// Expanded line -> the file and line it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceMap {
    lines: Vec<Origin>,
}

type Origin = (Arc<PathBuf>, usize);

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

/// Text to expand: its lines' origins, and the directory its directives are relative to.
struct Lines {
    text: String,
    /// One per line of `text` (a last line without a newline counts).
    origins: Vec<Origin>,
    dir: PathBuf,
    /// Byte offset of each line's start.
    line_starts: Vec<usize>,
}

impl Lines {
    fn new(text: String, origins: Vec<Origin>, dir: PathBuf) -> Lines {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        Lines {
            text,
            origins,
            dir,
            line_starts,
        }
    }

    /// The 0-based line holding byte `offset`.
    fn line_index(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset) - 1
    }

    /// The origin of 0-based line `index` (the last line's for any beyond it).
    fn origin(&self, index: usize) -> Origin {
        self.origins
            .get(index)
            .or(self.origins.last())
            .cloned()
            .unwrap_or_default()
    }

    /// The origin of the line holding byte `offset`, and the offset's 1-based column there.
    fn origin_at(&self, offset: usize) -> (Origin, usize) {
        let index = self.line_index(offset);
        (self.origin(index), offset - self.line_starts[index] + 1)
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

enum Directive<'a> {
    Include {
        file: &'a str,
        selection: Selection,
    },
    RustdocInclude {
        file: &'a str,
        selection: Selection,
    },
    Playground {
        file: &'a str,
        attributes: Vec<&'a str>,
    },
    Title,
}

enum Selection {
    /// 0-based, half open, as mdBook's ranges.
    Lines(Option<usize>, Option<usize>),
    Anchor(String),
}

impl Selection {
    fn contains(&self, index: usize) -> bool {
        match *self {
            Selection::Lines(start, end) => {
                start.is_none_or(|start| index >= start) && end.is_none_or(|end| index < end)
            }
            Selection::Anchor(_) => false,
        }
    }
}

/// What a directive expands to: its lines (with their origins, relative to the included
/// file), or nothing (`title`); and the anchor it named that the file does not have.
struct Rendered {
    lines: Option<Lines>,
    missing_anchor: Option<String>,
}

impl<'a> Directive<'a> {
    fn parse(kind: &str, target: &'a str) -> Option<Directive<'a>> {
        let mut words = target.split_whitespace();
        if kind == "title" {
            return Some(Directive::Title);
        }
        let argument = words.next()?;
        Some(match kind {
            "include" => {
                let (file, selection) = parse_argument(argument);
                Directive::Include { file, selection }
            }
            "rustdoc_include" => {
                let (file, selection) = parse_argument(argument);
                Directive::RustdocInclude { file, selection }
            }
            "playground" | "playpen" => Directive::Playground {
                file: argument,
                attributes: words.collect(),
            },
            _ => return None,
        })
    }

    /// `at` is the directive's own line: a playground's fences are there.
    fn render(
        &self,
        dir: &Path,
        read: &dyn Fn(&Path) -> anyhow::Result<String>,
        at: &Origin,
    ) -> anyhow::Result<Rendered> {
        let file = match self {
            Directive::Title => {
                return Ok(Rendered {
                    lines: None,
                    missing_anchor: None,
                });
            }
            Directive::Include { file, .. }
            | Directive::RustdocInclude { file, .. }
            | Directive::Playground { file, .. } => *file,
        };
        let path = Arc::new(normalize(&dir.join(file)));
        let content = read(&path)?;
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut lines = LineBuilder::new(path.clone());
        let mut missing_anchor = None;
        match self {
            Directive::Title => unreachable!("returned above"),
            Directive::Include { selection, .. } => {
                missing_anchor = take_lines(&content, selection, &mut lines);
            }
            Directive::RustdocInclude { selection, .. } => {
                missing_anchor = take_rustdoc_lines(&content, selection, &mut lines);
            }
            Directive::Playground { attributes, .. } => {
                // The fences are written at the directive's line; the code is the file's.
                let info = match attributes.as_slice() {
                    [] => "rust".to_owned(),
                    attributes => format!("rust,{}", attributes.join(",")),
                };
                lines.line_from(&format!("```{info}"), at.clone());
                for (index, line) in content.split_inclusive('\n').enumerate() {
                    lines.line(line.strip_suffix('\n').unwrap_or(line), index + 1);
                }
                lines.line_from("```", at.clone());
                lines.text.push('\n');
            }
        }
        Ok(Rendered {
            lines: Some(lines.finish(dir)),
            missing_anchor,
        })
    }
}

/// Lines joined by `\n`, without a final one (as mdBook joins them), with their origins.
struct LineBuilder {
    path: Arc<PathBuf>,
    text: String,
    origins: Vec<Origin>,
}

impl LineBuilder {
    fn new(path: Arc<PathBuf>) -> LineBuilder {
        LineBuilder {
            path,
            text: String::new(),
            origins: Vec::new(),
        }
    }

    /// Adds `text` (no newline), line `number` (1-based) of the file.
    fn line(&mut self, text: &str, number: usize) {
        self.line_from(text, (self.path.clone(), number));
    }

    /// Adds `text` (no newline), which comes from `origin`.
    fn line_from(&mut self, text: &str, origin: Origin) {
        if !self.origins.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(text);
        self.origins.push(origin);
    }

    fn finish(self, dir: PathBuf) -> Lines {
        Lines::new(self.text, self.origins, dir)
    }
}

/// mdBook's `FILE:...` forms: `N` (one line), `N:M`, `N:`, `:M`, or an anchor name.
fn parse_argument(argument: &str) -> (&str, Selection) {
    let Some((file, selector)) = argument.split_once(':') else {
        return (argument, Selection::Lines(None, None));
    };
    let mut parts = selector.splitn(2, ':');
    let first = parts.next().unwrap_or_default();
    let end = parts.next().map(|end| end.parse::<usize>());
    let start = match first.parse::<usize>() {
        Ok(start) => Some(start.saturating_sub(1)),
        Err(_) if first.is_empty() => None,
        Err(_) => return (file, Selection::Anchor(first.to_owned())),
    };
    let selection = match (start, end) {
        (Some(start), None) => Selection::Lines(Some(start), Some(start + 1)),
        (start, Some(Ok(end))) => Selection::Lines(start, Some(end)),
        (start, Some(Err(_)) | None) => Selection::Lines(start, None),
    };
    (file, selection)
}

/// `include`: the selected lines; an anchored selection takes the first section named so,
/// without marker lines. Returns the anchor's name when the file has no such anchor.
fn take_lines(content: &str, selection: &Selection, out: &mut LineBuilder) -> Option<String> {
    let lines = content.lines().enumerate();
    let Selection::Anchor(anchor) = selection else {
        for (index, line) in lines.filter(|(index, _)| selection.contains(*index)) {
            out.line(line, index + 1);
        }
        return None;
    };
    let mut found = false;
    for (index, line) in lines {
        if found {
            match anchor_name(line, AnchorKind::End) {
                Some(name) if name == anchor => break,
                Some(_) => {}
                None if anchor_name(line, AnchorKind::Start).is_none() => out.line(line, index + 1),
                None => {}
            }
        } else if anchor_name(line, AnchorKind::Start) == Some(anchor) {
            found = true;
        }
    }
    (!found).then(|| anchor.clone())
}

/// `rustdoc_include`: every line, those outside the selection hidden behind `# `; an anchored
/// selection shows every section so named and drops all marker lines.
fn take_rustdoc_lines(
    content: &str,
    selection: &Selection,
    out: &mut LineBuilder,
) -> Option<String> {
    let lines = content.lines().enumerate();
    let Selection::Anchor(anchor) = selection else {
        for (index, line) in lines {
            let number = index + 1;
            match selection.contains(index) {
                true => out.line(line, number),
                false => out.line(&format!("# {line}"), number),
            }
        }
        return None;
    };
    let mut inside = false;
    let mut found = false;
    for (index, line) in lines {
        let number = index + 1;
        if inside {
            match anchor_name(line, AnchorKind::End) {
                Some(name) if name == anchor => inside = false,
                Some(_) => {}
                None if anchor_name(line, AnchorKind::Start).is_none() => out.line(line, number),
                None => {}
            }
        } else if let Some(name) = anchor_name(line, AnchorKind::Start) {
            if name == anchor {
                (inside, found) = (true, true);
            }
        } else if anchor_name(line, AnchorKind::End).is_none() {
            out.line(&format!("# {line}"), number);
        }
    }
    (!found).then(|| anchor.clone())
}

#[derive(Clone, Copy)]
enum AnchorKind {
    Start,
    End,
}

/// The name of the `ANCHOR:` (or `ANCHOR_END:`) marker on `line`: after the marker and
/// optional white space, a run of word characters and `-`.
fn anchor_name(line: &str, kind: AnchorKind) -> Option<&str> {
    static START: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"ANCHOR:\s*([\w-]+)").expect("valid"));
    static END: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"ANCHOR_END:\s*([\w-]+)").expect("valid"));
    let pattern = match kind {
        AnchorKind::Start => &START,
        AnchorKind::End => &END,
    };
    Some(pattern.captures(line)?.get(1)?.as_str())
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
