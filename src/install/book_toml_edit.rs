//! What `mdbook-snippets install` changes in a `book.toml`, sans IO: the text in, the text out
//! and the changes in words. Only two things are added, `[preprocessor.snippets]` and the
//! stylesheet in `[output.html] additional-css`; everything else (comments, order, spacing,
//! quoting) stays byte for byte, through `toml_edit`. A book that has them already is left as
//! it is, so installing twice changes nothing.

use anyhow::{Context as _, bail};
use toml_edit::{Array, DocumentMut, Item, Table, Value};

/// The stylesheet's name, beside `book.toml` (and in `additional-css`, which mdBook resolves from
/// the book root).
pub(crate) const CSS_FILE: &str = "mdbook-snippets.css";

/// A `book.toml` after [`edit`]: its new text and the changes, each said as what to do
/// (`add ...`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Edited {
    pub text: String,
    pub changes: Vec<String>,
    /// Whether the book builds HTML, and so needs the stylesheet.
    pub html: bool,
}

/// `text` (a `book.toml`) with `[preprocessor.snippets]` and [`CSS_FILE`] in `[output.html]
/// additional-css` added where missing. A book whose `[output]` tables name other renderers
/// and not `html` builds no HTML, and gets no `[output.html]` (adding one would turn it on).
pub(crate) fn edit(text: &str) -> anyhow::Result<Edited> {
    let mut document: DocumentMut = text.parse().context("book.toml is not valid TOML")?;
    let mut changes = Vec::new();
    let mut html = true;
    if add_preprocessor(&mut document)? {
        changes.push("add [preprocessor.snippets] (command = \"mdbook-snippets\")".to_owned());
    }
    match add_css(&mut document)? {
        Css::Added => changes.push(format!(
            "add \"{CSS_FILE}\" to [output.html] additional-css"
        )),
        Css::Present => {}
        Css::NoHtml => html = false,
    }
    Ok(Edited {
        text: document.to_string(),
        changes,
        html,
    })
}

/// Adds `[preprocessor.snippets]` unless it is there; whether it did.
fn add_preprocessor(document: &mut DocumentMut) -> anyhow::Result<bool> {
    let preprocessors = document
        .entry("preprocessor")
        .or_insert_with(|| Item::Table(implicit_table()))
        .as_table_like_mut()
        .context("`preprocessor` in book.toml is not a table")?;
    if preprocessors.contains_key("snippets") {
        return Ok(false);
    }
    let mut table = Table::new();
    table.insert("command", toml_edit::value("mdbook-snippets"));
    preprocessors.insert("snippets", new_section(table));
    Ok(true)
}

enum Css {
    Added,
    Present,
    NoHtml,
}

/// Adds [`CSS_FILE`] to `[output.html] additional-css` unless it is there.
fn add_css(document: &mut DocumentMut) -> anyhow::Result<Css> {
    let outputs = document
        .entry("output")
        .or_insert_with(|| Item::Table(implicit_table()))
        .as_table_like_mut()
        .context("`output` in book.toml is not a table")?;
    if !outputs.contains_key("html") {
        if !outputs.is_empty() {
            return Ok(Css::NoHtml);
        }
        outputs.insert("html", new_section(Table::new()));
    }
    let html = outputs
        .get_mut("html")
        .and_then(Item::as_table_like_mut)
        .context("`output.html` in book.toml is not a table")?;
    let Some(css) = html.get_mut("additional-css") else {
        let mut files = Array::new();
        files.push(CSS_FILE);
        html.insert("additional-css", toml_edit::value(files));
        return Ok(Css::Added);
    };
    let Some(files) = css.as_array_mut() else {
        bail!("`additional-css` in [output.html] of book.toml is not an array of paths");
    };
    let named = |value: &Value| {
        value
            .as_str()
            .is_some_and(|path| path.trim_start_matches("./") == CSS_FILE)
    };
    if files.iter().any(named) {
        return Ok(Css::Present);
    }
    files.push(CSS_FILE);
    Ok(Css::Added)
}

/// A parent table that gets no header of its own (`[preprocessor]` stays unwritten when only
/// `[preprocessor.snippets]` is in it).
fn implicit_table() -> Table {
    let mut table = Table::new();
    table.set_implicit(true);
    table
}

/// A new `[section]`, set off from what comes before it by a blank line.
fn new_section(mut table: Table) -> Item {
    table.decor_mut().set_prefix("\n");
    Item::Table(table)
}

#[cfg(test)]
#[path = "book_toml_edit_tests.rs"]
mod tests;
