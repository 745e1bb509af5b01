//! Loading a book from disk for `mdbook-snippets test`: the chapters SUMMARY.md links to, in
//! its order (or, without a SUMMARY.md, every `.md` file under the source directory, sorted),
//! each with its includes expanded and a source map back to the files. This is the CLI's edge;
//! the preprocessor gets its chapters from mdBook instead.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pulldown_cmark::{Event, Parser, Tag};

use crate::config::Config;
use crate::include::expand_includes;
use crate::verify::{BookSource, ChapterSource};

pub fn load(config: &Config) -> anyhow::Result<BookSource> {
    let summary = config.src_dir.join("SUMMARY.md");
    let chapter_files = if summary.is_file() {
        let text = read_text(&summary)?;
        summary_chapters(&text)
            .into_iter()
            .map(|link| config.src_dir.join(link))
            .collect()
    } else {
        let mut files = Vec::new();
        markdown_files(&config.src_dir, &mut files)?;
        files.sort();
        files
    };
    let read = |relative: &Path| read_text(&config.book_root.join(relative));
    let mut chapters = Vec::new();
    for file in chapter_files {
        let path = file
            .strip_prefix(&config.book_root)
            .unwrap_or(&file)
            .to_path_buf();
        let text = read_text(&file)?;
        let (text, source_map) = expand_includes(&path, &text, &read)?;
        chapters.push(ChapterSource {
            path,
            text,
            source_map: Some(source_map),
        });
    }
    Ok(BookSource { chapters })
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

fn markdown_files(dir: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for entry in entries {
        let path = entry
            .with_context(|| format!("reading {}", dir.display()))?
            .path();
        if path.is_dir() {
            markdown_files(&path, files)?;
        } else if path.extension().is_some_and(|extension| extension == "md") {
            files.push(path);
        }
    }
    Ok(())
}

fn read_text(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(error) => bail!(
            "{} is not UTF-8 (invalid byte at offset {})",
            path.display(),
            error.utf8_error().valid_up_to()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_links_in_order() {
        let summary = "# Summary\n\n[Intro](intro.md)\n\n- [One](part/one.md#top)\n  - [Draft]()\n- [Web](https://example.com)\n- [Again](intro.md)\n";
        assert_eq!(
            summary_chapters(summary),
            vec![PathBuf::from("intro.md"), PathBuf::from("part/one.md")]
        );
    }
}
