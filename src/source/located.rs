//! A snippet together with where its code lines came from: the chapter text as extracted
//! (includes expanded) and the source map back to the files, so a position in the generated
//! code becomes a `PATH:LINE:COLUMN` of the book.

use std::sync::Arc;

use crate::mdbook::SourceMap;
use crate::snippet::{Failure, Snippet, SourceSpan};

/// A snippet, its spans mapped to the source files, and how to map its code lines.
pub(crate) struct Located {
    pub snippet: Snippet,
    /// An include in the snippet that could not be expanded (left as written, as mdBook leaves
    /// it): the snippet fails there without being built.
    pub include_failure: Option<Failure>,
    /// The opening fence's line in the chapter text as extracted (includes expanded).
    expanded_fence_line: usize,
    source_map: Option<Arc<SourceMap>>,
}

impl Located {
    /// A snippet extracted at `expanded_fence_line` of a chapter whose lines `source_map` maps
    /// back to their files (`None`: the chapter itself).
    pub(crate) fn new(
        snippet: Snippet,
        expanded_fence_line: usize,
        source_map: Option<Arc<SourceMap>>,
    ) -> Located {
        Located {
            snippet,
            include_failure: None,
            expanded_fence_line,
            source_map,
        }
    }

    /// The source position of 0-based code line `code_line`, 1-based `column` of the code as
    /// compiled (hidden-line markers removed).
    pub(crate) fn code_span(&self, code_line: usize, column: usize) -> SourceSpan {
        let original = self.snippet.code.lines().nth(code_line).unwrap_or_default();
        let shown = original.trim_start();
        let marker = if shown == "#" || shown.starts_with("# ") || shown.starts_with("##") {
            original.len() - crate::source::hidden_lines::unhide(original).len()
        } else {
            0
        };
        let column = column + marker + self.snippet.span.column - 1;
        let line = self.expanded_fence_line + 1 + code_line;
        match &self.source_map {
            Some(map) => map.locate(line, column),
            None => SourceSpan {
                path: self.snippet.chapter_path.clone(),
                line,
                column,
            },
        }
    }
}
