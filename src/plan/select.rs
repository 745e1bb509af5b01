//! Which snippets a run verifies: a chapter filter (`--chapter`), a name filter (`--filter`)
//! and a CI partition (`--partition K/N`). Sans-IO: a pure function of the snippets in book
//! order. A snippet left out is reported as skipped, never silently dropped.

use std::path::Path;

use crate::snippet::ChapterFailure;
use crate::source::Located;

/// What the command line asked for; the default selects every snippet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Selection {
    /// Only chapters whose path (relative to the book root, e.g. `src/part/ch1.md`) contains
    /// one of these texts; empty means every chapter.
    pub chapters: Vec<String>,
    /// `PATH:LINE` selects the snippet holding that line of that file (the opening fence or any
    /// of its code lines, included files too; PATH may leave out leading directories, so
    /// `ch1.md:3` selects `src/ch1.md:3` but never line 30). Any other text selects the
    /// snippets whose id contains it (`src_ch1_md_2`).
    pub filter: Option<String>,
    /// This job's share of the selected snippets.
    pub partition: Option<Partition>,
}

/// `--partition K/N`: the K-th (1-based) of N disjoint shares. The snippets that pass the other
/// filters and are not `ignore` are dealt out in book order, round robin: the i-th (0-based)
/// goes to share `i % N + 1`. Every job of a CI matrix sees the same book, so the shares are
/// disjoint, cover every snippet, and differ in size by at most one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Partition {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Partition {
    type Err = String;

    fn from_str(text: &str) -> Result<Partition, String> {
        let usage = || format!("expected K/N with 1 <= K <= N, found `{text}`");
        let (index, count) = text.split_once('/').ok_or_else(usage)?;
        let index: usize = index.trim().parse().map_err(|_| usage())?;
        let count: usize = count.trim().parse().map_err(|_| usage())?;
        if index == 0 || index > count {
            return Err(usage());
        }
        Ok(Partition { index, count })
    }
}

/// One flag per snippet, same order: `true` for the snippets to verify. `ignore` snippets are
/// never selected (they are skipped whatever the filters say).
pub(crate) fn select(located: &[Located], selection: &Selection) -> Vec<bool> {
    let mut dealt = 0;
    located
        .iter()
        .map(|located| {
            let snippet = &located.snippet;
            if snippet.attributes.ignore
                || !chapter_matches(&snippet.chapter_path, &selection.chapters)
                || !selection
                    .filter
                    .as_deref()
                    .is_none_or(|filter| filter_matches(located, filter))
            {
                return false;
            }
            let share = dealt;
            dealt += 1;
            selection
                .partition
                .is_none_or(|partition| share % partition.count + 1 == partition.index)
        })
        .collect()
}

/// A selection that leaves nothing to verify in a book that has snippets is a usage error (a
/// typo in `--filter` would otherwise pass as `0 passed, 0 failed`); the message says which
/// option matched nothing. Snippets that match but are `ignore` count as matched: they are
/// reported as skipped.
pub(crate) fn check_selection(located: &[Located], selection: &Selection) -> Result<(), String> {
    if located.is_empty() {
        return Ok(());
    }
    let in_chapters: Vec<&Located> = located
        .iter()
        .filter(|located| chapter_matches(&located.snippet.chapter_path, &selection.chapters))
        .collect();
    if in_chapters.is_empty() {
        let patterns: Vec<String> = selection
            .chapters
            .iter()
            .map(|pattern| format!("`{pattern}`"))
            .collect();
        return Err(format!(
            "--chapter {} matched no chapter with snippets (the book has {} snippet(s))",
            patterns.join(", "),
            located.len()
        ));
    }
    let matched: Vec<&Located> = in_chapters
        .into_iter()
        .filter(|located| {
            selection
                .filter
                .as_deref()
                .is_none_or(|filter| filter_matches(located, filter))
        })
        .collect();
    if let (true, Some(filter)) = (matched.is_empty(), &selection.filter) {
        let scope = if selection.chapters.is_empty() {
            "the book"
        } else {
            "the chapters --chapter selects"
        };
        return Err(format!(
            "--filter `{filter}` matched no snippet in {scope} (a `PATH:LINE` must name the \
             opening fence or a code line; other text is matched against snippet ids)"
        ));
    }
    let runnable = matched
        .iter()
        .filter(|located| !located.snippet.attributes.ignore)
        .count();
    if let Some(partition) = selection.partition
        && runnable > 0
        && runnable < partition.index
    {
        return Err(format!(
            "--partition {}/{} matched no snippet: only {runnable} snippet(s) to share out",
            partition.index, partition.count
        ));
    }
    Ok(())
}

/// Whether a chapter that failed as a whole belongs in this run's report: it does when
/// `--chapter` selects it, and with `--partition` only in share 1, so that a CI matrix reports
/// it once.
pub(crate) fn selection_reports(selection: &Selection, failure: &ChapterFailure) -> bool {
    chapter_matches(&failure.chapter_path, &selection.chapters)
        && selection
            .partition
            .is_none_or(|partition| partition.index == 1)
}

fn chapter_matches(chapter_path: &Path, chapters: &[String]) -> bool {
    let path = chapter_path.to_string_lossy();
    chapters.is_empty()
        || chapters
            .iter()
            .any(|pattern| path.contains(pattern.as_str()))
}

fn filter_matches(located: &Located, filter: &str) -> bool {
    match place(filter) {
        Some((path, line)) => {
            let snippet = &located.snippet;
            let code_lines = snippet.code.lines().count();
            std::iter::once(snippet.span.clone())
                .chain((0..code_lines).map(|code_line| located.code_span(code_line, 1)))
                .any(|span| span.line == line && span.path.ends_with(path))
        }
        None => located.snippet.id.contains(filter),
    }
}

/// `src/ch1.md:12` -> (`src/ch1.md`, 12).
fn place(filter: &str) -> Option<(&Path, usize)> {
    let (path, line) = filter.rsplit_once(':')?;
    let line = line.parse().ok()?;
    (!path.is_empty()).then(|| (Path::new(path), line))
}

#[cfg(test)]
#[path = "select_tests.rs"]
mod tests;
