//! Where every line of an expanded chapter came from: the [`SourceMap`] `include` builds while
//! it expands, and the text-with-origins it expands from (`Lines`, built by `LineBuilder`), so
//! an error in an included file is reported at that file's line.

use std::path::PathBuf;
use std::sync::Arc;

use crate::snippet::SourceSpan;

/// Expanded line -> the file and line it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceMap {
    pub(super) lines: Vec<Origin>,
}

pub(super) type Origin = (Arc<PathBuf>, usize);

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

/// Text to expand: its lines' origins, and the directory its directives are relative to.
pub(super) struct Lines {
    pub(super) text: String,
    /// One per line of `text` (a last line without a newline counts).
    origins: Vec<Origin>,
    pub(super) dir: PathBuf,
    /// Byte offset of each line's start.
    line_starts: Vec<usize>,
}

impl Lines {
    pub(super) fn new(text: String, origins: Vec<Origin>, dir: PathBuf) -> Lines {
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
    pub(super) fn line_index(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset) - 1
    }

    /// The origin of 0-based line `index` (the last line's for any beyond it).
    pub(super) fn origin(&self, index: usize) -> Origin {
        self.origins
            .get(index)
            .or(self.origins.last())
            .cloned()
            .unwrap_or_default()
    }

    /// The origin of the line holding byte `offset`, and the offset's 1-based column there.
    pub(super) fn origin_at(&self, offset: usize) -> (Origin, usize) {
        let index = self.line_index(offset);
        (self.origin(index), offset - self.line_starts[index] + 1)
    }
}

/// Lines joined by `\n`, without a final one (as mdBook joins them), with their origins.
pub(super) struct LineBuilder {
    path: Arc<PathBuf>,
    pub(super) text: String,
    origins: Vec<Origin>,
}

impl LineBuilder {
    pub(super) fn new(path: Arc<PathBuf>) -> LineBuilder {
        LineBuilder {
            path,
            text: String::new(),
            origins: Vec::new(),
        }
    }

    /// Adds `text` (no newline), line `number` (1-based) of the file.
    pub(super) fn line(&mut self, text: &str, number: usize) {
        self.line_from(text, (self.path.clone(), number));
    }

    /// Adds `text` (no newline), which comes from `origin`.
    pub(super) fn line_from(&mut self, text: &str, origin: Origin) {
        if !self.origins.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(text);
        self.origins.push(origin);
    }

    pub(super) fn finish(self, dir: PathBuf) -> Lines {
        Lines::new(self.text, self.origins, dir)
    }
}
