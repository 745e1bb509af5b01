//! `mdbook-snippets install [BOOK] [--dry-run]`: sets a book up for the preprocessor, as
//! mdbook-admonish's and mdbook-mermaid's `install` do. It writes the stylesheet of what the
//! preprocessor inserts into pages ([`CSS`], `book/theme/snippets.css` of this repository,
//! built into the binary) beside `book.toml`, and adds `[preprocessor.snippets]` and the
//! stylesheet to `book.toml` ([`book_toml_edit`], which keeps the rest of the file). Running it
//! again changes nothing, unless this version's stylesheet differs from the one written before.

pub(crate) mod book_toml_edit;

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;

use crate::install::book_toml_edit::CSS_FILE;

/// The stylesheet the pages need for the outputs the preprocessor inserts.
pub(crate) const CSS: &str = include_str!("../../book/theme/snippets.css");

/// Installs into the book at `book_dir`, or with `dry_run` only says what it would do. Prints
/// one line per change on stdout.
pub(crate) fn run(book_dir: &Path, dry_run: bool) -> anyhow::Result<ExitCode> {
    let book_toml = book_dir.join("book.toml");
    let text = std::fs::read_to_string(&book_toml).with_context(|| {
        format!(
            "reading {} (`install` takes the directory holding the book's book.toml)",
            book_toml.display()
        )
    })?;
    let edited =
        book_toml_edit::edit(&text).with_context(|| format!("editing {}", book_toml.display()))?;
    let css_path = book_dir.join(CSS_FILE);
    let css_change = match std::fs::read(&css_path) {
        Ok(old) if old == CSS.as_bytes() => None,
        Ok(_) => Some(format!("update {CSS_FILE} to this version's stylesheet")),
        Err(_) => Some(format!(
            "write {CSS_FILE} (the style of the outputs in the pages)"
        )),
    };
    let css_change = css_change.filter(|_| edited.html);
    let mut changes: Vec<String> = css_change.iter().cloned().collect();
    changes.extend(
        edited
            .changes
            .iter()
            .map(|change| format!("{change} in book.toml")),
    );
    if changes.is_empty() {
        println!(
            "{} already has mdbook-snippets: nothing to do",
            book_dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    for change in &changes {
        if dry_run {
            println!("would {change}");
        } else {
            println!("{}", past_tense(change));
        }
    }
    if !edited.html {
        println!("no stylesheet: this book's [output] tables build no HTML");
    }
    if dry_run {
        println!("dry run: nothing was written");
        return Ok(ExitCode::SUCCESS);
    }
    if css_change.is_some() {
        std::fs::write(&css_path, CSS)
            .with_context(|| format!("writing {}", css_path.display()))?;
    }
    if edited.text != text {
        std::fs::write(&book_toml, &edited.text)
            .with_context(|| format!("writing {}", book_toml.display()))?;
    }
    println!(
        "next: `mdbook-snippets test {}`; every `mdbook build` of this book now runs \
         mdbook-snippets too (it must be installed wherever the book is built)",
        book_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `add ...` as done: `added ...`.
fn past_tense(change: &str) -> String {
    let (verb, rest) = change.split_once(' ').unwrap_or((change, ""));
    let done = match verb {
        "add" => "added",
        "write" => "wrote",
        "update" => "updated",
        other => other,
    };
    format!("{done} {rest}")
}
