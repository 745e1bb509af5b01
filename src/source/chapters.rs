//! The stage between the chapters and the build: extraction of every chapter's snippets, with
//! their spans mapped back through the chapter's source map, the include problems attached to
//! the snippets that hold them, and ids made unique across the book; then what is known of a
//! snippet before anything is built (an include left as written, unknown info-string words),
//! and the note a block without a language gets when it does not compile.

use std::sync::Arc;

use crate::config::UnknownAttributes;
use crate::mdbook::BookSource;
use crate::snippet::{
    ChapterFailure, Failure, FailureKind, LanguageSyntax, Outcome, Snippet, SnippetResult,
    SourceSpan,
};
use crate::source::extract::{extract, unterminated_fences};
use crate::source::located::Located;

/// A snippet of a book that names no edition, failing on what Rust 2015 lacks (rustc then
/// suggests editing a `Cargo.toml` the author does not have): say where the edition is set.
/// `book_edition` is the edition the book (or its harness) names, if any.
pub(crate) fn note_default_edition(
    snippet: &Snippet,
    book_edition: Option<&str>,
    result: &mut SnippetResult,
) {
    let Outcome::Failed(failure) = &mut result.outcome else {
        return;
    };
    let defaulted = book_edition.is_none() && snippet.attributes.edition.is_none();
    if failure.kind != FailureKind::Compile
        || snippet.language.is_some()
        || !defaulted
        || !failure.message.contains("Rust 2015")
    {
        return;
    }
    failure.message.truncate(failure.message.trim_end().len());
    failure.message.push_str(
        "\nnote: this book names no edition, so its snippets are Rust 2015, as `mdbook test` \
         compiles them; set one in book.toml (`[rust]` `edition = \"2021\"`) or on the block \
         (```rust,edition2021)",
    );
}

/// A block with no language that does not compile is most likely not Rust at all: say why it
/// was taken for Rust, and what to write instead.
pub(crate) fn note_unmarked(snippet: &Snippet, result: &mut SnippetResult) {
    let Outcome::Failed(failure) = &mut result.outcome else {
        return;
    };
    if failure.kind != FailureKind::Compile || snippet.language.is_some() {
        return;
    }
    let what = match (snippet.indented, snippet.info.trim().is_empty()) {
        (true, _) => "an indented code block",
        (false, true) => "a fence with no language",
        (false, false) => return,
    };
    failure.message.truncate(failure.message.trim_end().len());
    failure.message.push_str(&format!(
        "\nnote: {what} is Rust, as rustdoc (`mdbook test`) reads it; if it is not Rust, write \
         its language (```text)"
    ));
}

/// What the info string's unknown words mean for a snippet: with `unknown-attributes =
/// "error"`, a failure at the fence naming them; otherwise nothing, after a warning on stderr
/// for each word that resembles an attribute we act on (the snippet is verified without it, as
/// rustdoc would).
pub(crate) fn unknown_words(snippet: &Snippet, mode: UnknownAttributes) -> Option<Failure> {
    let SourceSpan { path, line, .. } = &snippet.span;
    match mode {
        UnknownAttributes::Error if !snippet.attributes.unknown.is_empty() => {
            let words: Vec<String> = snippet
                .attributes
                .unknown
                .iter()
                .map(|word| word.describe())
                .collect();
            Some(Failure {
                kind: FailureKind::Attribute,
                span: snippet.span.clone(),
                message: format!(
                    "{} (this book sets `unknown-attributes = \"error\"`)",
                    words.join("; ")
                ),
            })
        }
        UnknownAttributes::Error => None,
        UnknownAttributes::Ignore => {
            for word in &snippet.attributes.unknown {
                if word.resembles.is_some() {
                    eprintln!(
                        "warning: {}:{line}: {} (verified without it)",
                        path.display(),
                        word.describe()
                    );
                }
            }
            None
        }
    }
}

/// The snippets of every chapter, and the chapters that failed (those `book` could not load,
/// then those whose Markdown cannot be read for snippets: a bad info string). An unterminated
/// fence is a warning on stderr, and its block and every other one are verified, as rustdoc
/// tests them. A snippet
/// that holds an include left as written fails at the directive; any other include problem is
/// a warning on stderr.
pub(crate) fn extract_book(
    book: &BookSource,
    languages: &[LanguageSyntax],
) -> (Vec<Located>, Vec<ChapterFailure>) {
    let mut located = Vec::new();
    let mut failures = book.failures.clone();
    for chapter in &book.chapters {
        let map = chapter.source_map.clone().map(Arc::new);
        let locate = |span: &SourceSpan| match &map {
            Some(map) => map.locate(span.line, span.column),
            None => span.clone(),
        };
        for unterminated in unterminated_fences(&chapter.path, &chapter.text) {
            let SourceSpan { path, line, column } = locate(&unterminated.span);
            eprintln!(
                "warning: {}:{line}:{column}: {}",
                path.display(),
                unterminated.message
            );
        }
        let snippets = match extract(&chapter.path, &chapter.text, languages) {
            Ok(snippets) => snippets,
            Err(error) => {
                failures.push(ChapterFailure {
                    chapter_path: chapter.path.clone(),
                    span: locate(&error.span),
                    message: error.message,
                });
                continue;
            }
        };
        let mut failing: Vec<Option<Failure>> = vec![None; snippets.len()];
        for problem in &chapter.include_problems {
            let holder = snippets
                .iter()
                .position(|snippet| snippet.block_range.contains(&problem.offset));
            match holder {
                Some(index) if problem.fails_snippet => {
                    failing[index].get_or_insert_with(|| Failure {
                        kind: FailureKind::Include,
                        span: problem.span.clone(),
                        message: problem.message.clone(),
                    });
                }
                _ => {
                    let SourceSpan { path, line, column } = &problem.span;
                    let left = if problem.fails_snippet {
                        " (left as written, as mdBook does)"
                    } else {
                        ""
                    };
                    eprintln!(
                        "warning: {}:{line}:{column}: {}{left}",
                        path.display(),
                        problem.message
                    );
                }
            }
        }
        for (mut snippet, include_failure) in snippets.into_iter().zip(failing) {
            // The line before the first code line, which for an indented block is no fence.
            let expanded_fence_line = snippet.span.line - usize::from(snippet.indented);
            snippet.span = locate(&snippet.span);
            if let Some(expected) = &mut snippet.expected {
                expected.span = locate(&expected.span);
            }
            let mut entry = Located::new(snippet, expanded_fence_line, map.clone());
            entry.include_failure = include_failure;
            located.push(entry);
        }
    }
    // Ids are per chapter path; two paths may still sanitize alike (`a-b.md`, `a_b.md`).
    let mut seen = std::collections::HashSet::new();
    for entry in &mut located {
        let mut id = entry.snippet.id.clone();
        let mut suffix = 2;
        while !seen.insert(id.clone()) {
            id = format!("{}_{suffix}", entry.snippet.id);
            suffix += 1;
        }
        entry.snippet.id = id;
    }
    (located, failures)
}
