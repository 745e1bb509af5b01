//! One `{{#...}}` directive as mdBook 0.5's `links` preprocessor reads it (`include`,
//! `rustdoc_include`, `playground`/`playpen`, `title`): its `FILE:...` selection (lines, a range,
//! an anchor) and what it expands to, with each line's origin. `include` finds the directives
//! and stitches their expansions together.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, LazyLock};

use regex::Regex;

use crate::mdbook::source_map::{LineBuilder, Lines, Origin};

pub(super) enum Directive<'a> {
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

pub(super) enum Selection {
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
pub(super) struct Rendered {
    pub(super) lines: Option<Lines>,
    pub(super) missing_anchor: Option<String>,
}

impl<'a> Directive<'a> {
    pub(super) fn parse(kind: &str, target: &'a str) -> Option<Directive<'a>> {
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
    pub(super) fn render(
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
