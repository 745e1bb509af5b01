//! rustc's messages about a snippet, as the book's author reads them (sans-IO): nothing of the
//! generated crate shows. An error about the entry point the generator adds to a merged snippet
//! (its `fn main`'s return type, or an `async fn main`) becomes rustc's own error about a crate's
//! `fn main`, at the snippet's `fn main`; notes pointing into another snippet's file (an item of
//! a neighbour in the same binary) are left out, as each doctest is a crate of its own under
//! rustdoc; and rustc's advice to edit a `Cargo.toml` the author does not have points at
//! `book.toml`.

use std::path::{Path, PathBuf};

use crate::build::wrap::{ENTRY_FUNCTION, FIRST_CODE_LINE};
use crate::source::unhide;

/// A compile error of the generated crate, as cargo reports it (`cargo.rs` reads them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CompileError {
    /// The cargo target being compiled.
    pub target: String,
    /// The primary span's file, relative to the generated crate's root; `None` when the error
    /// has no span (a linker error, say).
    pub file: Option<PathBuf>,
    pub line: usize,
    pub column: usize,
    /// `E0425`, when rustc gave one.
    pub code: Option<String>,
    /// The one-line message.
    pub message: String,
    /// rustc's full rendering, source excerpt included.
    pub rendered: String,
}

/// Rewrites `error`, an error in the file of the snippet whose code is `code` (`None`: an error
/// in no snippet's file).
pub(crate) fn for_the_book(error: &mut CompileError, code: Option<&str>) {
    if let (Some(file), Some(code)) = (error.file.clone(), code) {
        if error.rendered.contains(ENTRY_FUNCTION) {
            entry_point_error(error, &file, code);
        }
        error.rendered = without_neighbours_notes(&error.rendered, &file);
    }
    error.rendered = book_toml_advice(&error.rendered);
}

/// The error rustc gives a crate whose `fn main` is `async` or returns what is not
/// `Termination`, at the snippet's `fn main`, in place of the one it gives about the generated
/// entry point that calls it.
fn entry_point_error(error: &mut CompileError, file: &Path, code: &str) {
    let Some((line, column, is_async)) = own_main(code) else {
        return;
    };
    let file_line = FIRST_CODE_LINE + line;
    let place = format!(" --> {}:{file_line}:{column}\n", file.display());
    let (code, message, help) = if is_async {
        (
            "E0752",
            "`main` function is not allowed to be `async`".to_owned(),
            "`main` cannot be `async`: start a runtime in it (or use one's `#[main]` attribute)",
        )
    } else {
        let returned = error
            .message
            .strip_prefix("the trait bound `")
            .and_then(|rest| rest.strip_suffix(": Termination` is not satisfied"))
            .map(|returned| format!(" `{returned}`"))
            .unwrap_or_default();
        (
            "E0277",
            format!("`main` has invalid return type{returned}"),
            "`main` can only return types that implement `Termination`: consider using `()`, or a `Result`",
        )
    };
    error.rendered = format!("error[{code}]: {message}\n{place}  |\n  = help: {help}\n");
    error.code = Some(code.to_owned());
    error.message = message;
    error.line = file_line;
    error.column = column;
}

/// The 0-based line of the snippet's own `fn main` (at the start of a line, after `pub` or
/// `async`), its 1-based column, and whether it is `async`.
fn own_main(code: &str) -> Option<(usize, usize, bool)> {
    code.lines()
        .map(unhide)
        .enumerate()
        .find_map(|(index, line)| {
            let text = line.trim_start();
            let column = line.len() - text.len() + 1;
            let rest = text.strip_prefix("pub ").unwrap_or(text);
            let (is_async, rest) = match rest.strip_prefix("async ") {
                Some(rest) => (true, rest),
                None => (false, rest),
            };
            let after = rest.strip_prefix("fn main")?;
            after
                .trim_start()
                .starts_with(['(', '<'])
                .then_some((index, column, is_async))
        })
}

/// `rendered` without its sections (`note: ...` and the lines under it) that point into a
/// generated file other than `own_file`: another snippet of the same binary.
fn without_neighbours_notes(rendered: &str, own_file: &Path) -> String {
    let own = own_file.to_string_lossy();
    let mut sections: Vec<Vec<&str>> = Vec::new();
    for line in rendered.split_inclusive('\n') {
        let starts_section = !sections.is_empty() && starts_message(line);
        match sections.last_mut() {
            Some(section) if !starts_section => section.push(line),
            _ => sections.push(vec![line]),
        }
    }
    let is_neighbours = |section: &Vec<&str>| {
        section.iter().skip(1).any(|line| {
            line.trim_start()
                .strip_prefix("--> ")
                .or_else(|| line.trim_start().strip_prefix("::: "))
                .is_some_and(|place| is_generated(place) && !place.starts_with(own.as_ref()))
        })
    };
    sections
        .iter()
        .enumerate()
        .filter(|(index, section)| *index == 0 || !is_neighbours(section))
        .flat_map(|(_, section)| section.iter().copied())
        .collect()
}

/// Whether `line` starts a message or one of its sub-diagnostics (`error[E0425]: ...`,
/// `note: ...`), rather than continuing one (a `-->` line, an excerpt's `12 | code`).
fn starts_message(line: &str) -> bool {
    ["error", "warning", "note", "help"].iter().any(|level| {
        line.strip_prefix(level)
            .is_some_and(|rest| rest.starts_with([':', '[']))
    })
}

/// A place in a generated file: `e2021/src/...`, relative (dependencies and std are absolute).
fn is_generated(place: &str) -> bool {
    let Some(rest) = place.strip_prefix('e') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with("/src/")
}

/// rustc's `help:` lines that tell the author to edit a `Cargo.toml` or a command line,
/// pointing at `book.toml` instead: the edition (`set `edition = "2024"` in `Cargo.toml``, or
/// outside cargo `pass `--edition 2024` to `rustc``) and a crate it cannot find (`use `cargo
/// add tokio` to add it to your `Cargo.toml``).
fn book_toml_advice(rendered: &str) -> String {
    rendered
        .split_inclusive('\n')
        .map(|line| {
            let end = if line.ends_with('\n') { "\n" } else { "" };
            let in_cargo_toml = line
                .split_once("set `edition = \"")
                .and_then(|(before, rest)| {
                    Some((before, rest.split_once("\"` in `Cargo.toml`")?.0))
                });
            // What rustc says outside cargo, as under rustdoc.
            let on_the_command_line = || {
                line.split_once("pass `--edition ")
                    .and_then(|(before, rest)| Some((before, rest.split_once("` to `rustc`")?.0)))
            };
            if let Some((before, edition)) = in_cargo_toml.or_else(on_the_command_line) {
                return format!(
                    "{before}set `edition = \"{edition}\"` in book.toml's `[rust]` table, or on \
                     the block (```rust,edition{edition}){end}"
                );
            }
            if let Some((before, rest)) = line.split_once("use `cargo add ")
                && let Some((name, _)) = rest.split_once("` to add it to your `Cargo.toml`")
            {
                return format!(
                    "{before}add `{name}` to `[preprocessor.snippets.dependencies]` in \
                     book.toml{end}"
                );
            }
            line.to_owned()
        })
        .collect()
}

#[cfg(test)]
#[path = "messages_tests.rs"]
mod tests;
