//! Loading a book from disk for `mdbook-snippets test`: the chapters SUMMARY.md links to, in
//! its order (or, without a SUMMARY.md, every `.md` file under the source directory, sorted),
//! each with its includes expanded and a source map back to the files. This is the CLI's edge;
//! the preprocessor gets its chapters from mdBook instead. A chapter that cannot be read (not
//! UTF-8) is a [`ChapterFailure`], not an error: the other chapters are still verified. An
//! include that cannot be expanded is left as written, as mdBook leaves it, and travels with
//! the chapter as an [`IncludeProblem`].

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pulldown_cmark::{Event, Parser, Tag};

use crate::config::Config;
use crate::mdbook::include::{IncludeProblem, expand_includes};
use crate::mdbook::source_map::SourceMap;
use crate::snippet::{ChapterFailure, SourceSpan};

/// The chapters to verify.
#[derive(Debug, Clone, Default)]
pub(crate) struct BookSource {
    pub chapters: Vec<ChapterSource>,
    /// The chapters that could not be loaded (not UTF-8).
    pub failures: Vec<ChapterFailure>,
}

#[derive(Debug, Clone)]
pub(crate) struct ChapterSource {
    /// Relative to the book root, e.g. `src/ch1.md`.
    pub path: PathBuf,
    /// The chapter's Markdown, includes expanded.
    pub text: String,
    /// Where each line of `text` came from, when includes were expanded here; `None` means
    /// line `n` of `text` is line `n` of `path`.
    pub source_map: Option<SourceMap>,
    /// The directives of `text` left as written or expanded to nothing, at their offsets.
    pub include_problems: Vec<IncludeProblem>,
}

pub(crate) fn load(config: &Config) -> anyhow::Result<BookSource> {
    let summary = config.src_dir.join("SUMMARY.md");
    let chapter_files = if summary.is_file() {
        let text = read_text(&summary, &summary)?;
        summary_chapters(&text)
            .into_iter()
            // `./vec/layout.md` and `vec/layout.md` are one chapter, named the second way.
            .map(|link| crate::config::normalize(&config.src_dir.join(link)))
            .collect()
    } else {
        let mut files = Vec::new();
        markdown_files(&config.src_dir, &mut files)?;
        files.sort();
        files
    };
    let read = |relative: &Path| read_text(&config.book_root.join(relative), relative);
    let mut book = BookSource::default();
    for file in chapter_files {
        let path = file
            .strip_prefix(&config.book_root)
            .unwrap_or(&file)
            .to_path_buf();
        match load_chapter(&file, &path, &read) {
            Ok(chapter) => book.chapters.push(chapter),
            Err(failure) => book.failures.push(failure),
        }
    }
    Ok(book)
}

/// Reads the chapter at `file` (`path` relative to the book root) and expands its includes.
fn load_chapter(
    file: &Path,
    path: &Path,
    read: &dyn Fn(&Path) -> anyhow::Result<String>,
) -> Result<ChapterSource, ChapterFailure> {
    let failure = |span: SourceSpan, message: String| ChapterFailure {
        chapter_path: path.to_path_buf(),
        span,
        message,
    };
    let bytes = std::fs::read(file).map_err(|error| {
        failure(
            first_line(path),
            format!("cannot read {}: {error}", path.display()),
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|error| {
        let valid = &error.as_bytes()[..error.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&byte| byte == b'\n').count() + 1;
        let column = valid.len()
            - valid
                .iter()
                .rposition(|&byte| byte == b'\n')
                .map_or(0, |at| at + 1)
            + 1;
        failure(
            SourceSpan {
                path: path.to_path_buf(),
                line,
                column,
            },
            format!(
                "{} is not UTF-8 (invalid byte at offset {})",
                path.display(),
                valid.len()
            ),
        )
    })?;
    let expanded = expand_includes(path, &text, read);
    Ok(ChapterSource {
        path: path.to_path_buf(),
        text: expanded.text,
        source_map: Some(expanded.source_map),
        include_problems: expanded.problems,
    })
}

fn first_line(path: &Path) -> SourceSpan {
    SourceSpan {
        path: path.to_path_buf(),
        line: 1,
        column: 1,
    }
}

/// The link targets of SUMMARY.md that are chapters (not drafts, not external links),
/// without duplicates.
fn summary_chapters(summary: &str) -> Vec<PathBuf> {
    let mut chapters: Vec<PathBuf> = Vec::new();
    for event in Parser::new(summary) {
        if let Event::Start(Tag::Link { dest_url, .. }) = event {
            let target = dest_url.split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") {
                continue;
            }
            let target = PathBuf::from(target);
            if !chapters.contains(&target) {
                chapters.push(target);
            }
        }
    }
    chapters
}

/// Every `.md` file under `dir`. A symbolic link to a directory is never followed, whether it
/// leads out of the tree or back into it (a cycle would never end): mdBook itself reads no
/// directory without SUMMARY.md, so only the book's own tree is scanned. A link to a file is
/// read like the file.
fn markdown_files(dir: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let path = entry.path();
        let file_type = entry
            .file_type()
            .with_context(|| format!("reading {}", path.display()))?;
        if file_type.is_dir() {
            markdown_files(&path, files)?;
        } else if file_type.is_symlink() && path.is_dir() {
            continue;
        } else if path.extension().is_some_and(|extension| extension == "md") {
            files.push(path);
        }
    }
    Ok(())
}

/// Reads `path` as UTF-8; errors name it as `shown` (relative to the book root where it can).
fn read_text(path: &Path, shown: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", shown.display()))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(error) => bail!(
            "{} is not UTF-8 (invalid byte at offset {})",
            shown.display(),
            error.utf8_error().valid_up_to()
        ),
    }
}

#[cfg(test)]
#[path = "book_tests.rs"]
mod tests;
