//! One snippet's code as a file rustc compiles, sans-IO, as rustdoc wraps a doctest: in
//! `fn main` unless it parses as items with a `fn main` among them; outer attributes and doc
//! comments that end the block attach to nothing and are blanked out, as rustdoc leaves them
//! out (the rest of each line stays where it was); crate-level lines
//! lifted to the first line of a crate root (`lifted_lines` says where), and no wrapper at all
//! in a crate root that declares `#![no_std]` (rustdoc inserts none there); the harness's
//! `prelude` and `snippet_main` used when it has them. The code starts at [`FIRST_CODE_LINE`]
//! of the file, so every line injected is accounted for.

use std::fmt::Write;

use crate::plan::HarnessParts;
use crate::source::unhide;

/// The function of a merged snippet's module that the dispatching binary calls: it calls the
/// snippet's `main`, which may return anything `Termination` (as a crate's `main` may).
pub(crate) const ENTRY_FUNCTION: &str = "__mdbook_snippets_entry";

/// Lines every snippet file starts with, before the user's code.
const PREFIX_LINES: usize = 3;

/// The 1-based line of a snippet file holding the snippet's first code line.
pub(crate) const FIRST_CODE_LINE: usize = PREFIX_LINES + 1;

/// What the snippet's file is to rustc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Root {
    /// A module of the dispatching binary.
    Module,
    /// The root of a binary crate: crate-level lines (`#![..]`, `extern crate`) are lifted out
    /// of the wrapper, as rustdoc does.
    Binary,
    /// The root of a test crate (`test_harness`): the code as written, never wrapped.
    Test,
}

/// How the user's code is wrapped, chosen the way rustdoc does: by whether it has its own
/// `fn main`, and by how it ends.
#[derive(Debug, PartialEq, Eq)]
enum Shape {
    OwnMain,
    /// A crate root that declares `#![no_std]`: rustdoc inserts no `fn main` (its `make.rs`
    /// checks the crate attributes for `![no_std]`, with a FIXME that it cannot handle such
    /// doctests yet), so the code is compiled as written and, without a `fn main` of its own,
    /// fails as under `mdbook test` (E0601).
    NoStd,
    /// Ends in an `Ok::<(), E>(..)` expression: that is the body's result, typed by the user.
    TypedOkTail,
    /// Ends in `Ok(..)` without a type: we give the error type.
    OkTail,
    /// Anything else: we append `Ok(())`.
    Statements,
}

/// One snippet's file: `PREFIX_LINES` lines, the code (hidden lines unhidden, so each code
/// line stays on its own line), then a suffix that closes the wrapper and, in a module, exposes
/// an entry point to the dispatcher.
pub(crate) fn snippet_module(code: &str, harness: Option<HarnessParts<'_>>, root: Root) -> String {
    let mut lines: Vec<String> = code.lines().map(unhide).collect();
    if root != Root::Test {
        blank_trailing_attributes(&mut lines);
    }
    let shape = match root {
        Root::Test => Shape::OwnMain,
        Root::Binary if declares_no_std(&lines) => Shape::NoStd,
        _ => shape(&lines),
    };
    let wrapped = !matches!(shape, Shape::OwnMain | Shape::NoStd);
    let mut out = String::from(ALLOW_LINE);
    if root == Root::Binary && wrapped {
        // Crate-level lines cannot sit inside `fn main`; they move to the first line (keeping
        // every other line where it was) and leave a blank line behind. `lifted_lines` says
        // where each one went, for positions.
        for line in &mut lines {
            if is_crate_level(line) {
                out.push(' ');
                out.push_str(line);
                line.clear();
            }
        }
    }
    out.push('\n');
    match harness {
        Some(HarnessParts {
            lib, prelude: true, ..
        }) => writeln!(out, "#[allow(unused_imports)] use ::{lib}::prelude::*;").unwrap(),
        _ => out.push_str("// (no harness prelude)\n"),
    }
    let harness_lib = harness
        .filter(|harness| harness.snippet_main)
        .map(|harness| harness.lib);
    let error =
        "::std::boxed::Box<dyn ::std::error::Error + ::std::marker::Send + ::std::marker::Sync>";
    let (open, close) = match (&shape, harness_lib) {
        (Shape::OwnMain, _) if root == Root::Test => (
            "// (a test crate: the code as written)".to_owned(),
            String::new(),
        ),
        (Shape::OwnMain, _) => ("// (the snippet's own fn main)".to_owned(), String::new()),
        (Shape::NoStd, _) => (
            "// (#![no_std]: no fn main inserted, as rustdoc inserts none)".to_owned(),
            String::new(),
        ),
        (Shape::TypedOkTail, Some(lib)) => (
            format!("pub fn main() {{ ::{lib}::snippet_main(|| async move {{"),
            "}) }".to_owned(),
        ),
        (Shape::OkTail | Shape::Statements, Some(lib)) => (
            format!(
                "pub fn main() {{ ::{lib}::snippet_main(|| async move {{ \
                 let __mdbook_snippets_result: ::std::result::Result<(), {error}> = {{"
            ),
            format!(
                "{}}}; __mdbook_snippets_result }}) }}",
                if shape == Shape::Statements {
                    ";\nOk(())\n"
                } else {
                    ""
                }
            ),
        ),
        (Shape::TypedOkTail | Shape::OkTail, None) => (
            "pub fn main() { fn _inner() -> ::std::result::Result<(), impl ::std::fmt::Debug> {"
                .to_owned(),
            "} _inner().unwrap() }".to_owned(),
        ),
        (Shape::Statements, None) => ("pub fn main() {".to_owned(), "}".to_owned()),
    };
    out.push_str(&open);
    out.push('\n');
    debug_assert_eq!(out.lines().count(), PREFIX_LINES);
    for line in &lines {
        out.push_str(line);
        out.push('\n');
    }
    if !close.is_empty() {
        out.push_str(&close);
        out.push('\n');
    }
    if root == Root::Module {
        write!(
            out,
            "#[allow(dead_code)]\npub(crate) fn {ENTRY_FUNCTION}() -> impl \
             ::std::process::Termination {{\n    main()\n}}\n",
        )
        .unwrap();
    }
    out
}

/// The first line of every snippet file, before any lifted crate-level line.
const ALLOW_LINE: &str = "#![allow(unused, redundant_semicolons, unreachable_code)]";

/// Whether the code declares `#![no_std]` among its crate attributes, as rustdoc tests it: the
/// text `![no_std]` in an inner attribute (so `#![cfg_attr(x, no_std)]` is not one).
fn declares_no_std(lines: &[String]) -> bool {
    lines.iter().any(|line| {
        let line = line.trim_start();
        line.starts_with("#![") && line.contains("![no_std]")
    })
}

/// A line rustdoc moves out of its `fn main` wrapper to the crate's top.
fn is_crate_level(line: &str) -> bool {
    line.starts_with("#![")
        || line.starts_with("extern crate ")
        || (line.starts_with("#[macro_use]") && line.contains("extern crate "))
}

/// Where the crate-level lines of `code` are when a snippet file lifts them onto its first line
/// (a binary's root without its own `fn main`): for each, its 0-based code line, the 1-based
/// column where it starts on the file's first line, and its text as compiled. A position on
/// the first line past the `#![allow(..)]` is in one of them.
pub(crate) fn lifted_lines(code: &str) -> Vec<(usize, usize, String)> {
    let mut column = ALLOW_LINE.len() + 1;
    let mut lifted = Vec::new();
    for (index, line) in code.lines().map(unhide).enumerate() {
        if is_crate_level(&line) {
            column += 1;
            let width = line.chars().count();
            lifted.push((index, column, line));
            column += width;
        }
    }
    lifted
}

/// Outer attributes at the end of a snippet attach to nothing, and rustdoc (1.95) leaves them
/// out of what it compiles, with a `fn main` of the block's own or without: a block of only
/// `/// x` or `#[tracing::instrument(..)]`, or `fn f() {}` / `let x = 1;` followed by `/// x` or
/// `#[inline]`, passes. Compiled, they would come before our wrapper's closing `}` (E0585,
/// "expected statement after outer attribute") or attach to the next item of the file, so
/// they are blanked out and every other character stays where it was: a doc comment becomes a
/// plain comment of the same length (`/// x` -> `//  x`, `/** x */` -> `/*  x */`), any other
/// attribute spaces. Found with the tokenizer, so a `///` or `#[` inside a string is never
/// touched; code that does not tokenize is left as it is (rustc will say why).
fn blank_trailing_attributes(lines: &mut [String]) {
    use proc_macro2::{Delimiter, TokenTree};
    let Ok(tokens) = lines.join("\n").parse::<proc_macro2::TokenStream>() else {
        return;
    };
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut end = tokens.len();
    let mut blanks = Vec::new();
    while end >= 2 {
        let (TokenTree::Punct(pound), TokenTree::Group(group)) =
            (&tokens[end - 2], &tokens[end - 1])
        else {
            break;
        };
        if pound.as_char() != '#' || group.delimiter() != Delimiter::Bracket {
            break;
        }
        let start = pound.span().start();
        let Some(line) = lines.get(start.line.wrapping_sub(1)) else {
            break;
        };
        let Some((byte, _)) = line.char_indices().nth(start.column) else {
            break;
        };
        let written = &line[byte..];
        let blank = if (written.starts_with("///") && !written.starts_with("////"))
            || (written.starts_with("/**")
                && !written.starts_with("/***")
                && !written.starts_with("/**/"))
        {
            // The third character of `///` or `/**`, an ASCII one.
            Blank::DocComment(start.line - 1, byte)
        } else if written.starts_with('#') {
            let finish = group.span().end();
            Blank::Attribute(
                (start.line - 1, start.column),
                (finish.line - 1, finish.column),
            )
        } else {
            // An inner doc comment (`//!`, `/*!`): not an outer attribute.
            break;
        };
        blanks.push(blank);
        end -= 2;
    }
    for blank in blanks {
        match blank {
            Blank::DocComment(line, byte) => lines[line].replace_range(byte + 2..byte + 3, " "),
            Blank::Attribute((first_line, first_column), (last_line, last_column)) => {
                for (index, line) in lines
                    .iter_mut()
                    .enumerate()
                    .take(last_line + 1)
                    .skip(first_line)
                {
                    let from = if index == first_line { first_column } else { 0 };
                    let to = if index == last_line {
                        last_column
                    } else {
                        usize::MAX
                    };
                    *line = line
                        .chars()
                        .enumerate()
                        .map(|(column, c)| if (from..to).contains(&column) { ' ' } else { c })
                        .collect();
                }
            }
        }
    }
}

/// What [`blank_trailing_attributes`] does to one attribute: a doc comment's third character
/// (line, byte), or an attribute's characters from (line, column) up to (line, column).
enum Blank {
    DocComment(usize, usize),
    Attribute((usize, usize), (usize, usize)),
}

/// What the top level of a snippet's code is, parsed as rustdoc parses it.
#[derive(Debug, PartialEq, Eq)]
enum TopLevel {
    /// Items only; `has_main` when one of them is `fn main`.
    Items { has_main: bool },
    /// Statements or expressions (beside any items): rustdoc wraps it all in a `fn main`, and a
    /// `fn main` of the snippet's own is then an inner function that nothing calls.
    Statements,
    /// Neither parses (a syntax error, or syntax `syn` does not know): decided by the lines.
    Unknown,
}

fn top_level(code: &str) -> TopLevel {
    if let Ok(file) = syn::parse_file(code) {
        let has_main = file
            .items
            .iter()
            .any(|item| matches!(item, syn::Item::Fn(function) if function.sig.ident == "main"));
        return TopLevel::Items { has_main };
    }
    match syn::parse_str::<syn::Block>(&format!("{{\n{code}\n}}")) {
        Ok(block)
            if block
                .stmts
                .iter()
                .any(|stmt| !matches!(stmt, syn::Stmt::Item(_))) =>
        {
            TopLevel::Statements
        }
        _ => TopLevel::Unknown,
    }
}

fn shape(lines: &[String]) -> Shape {
    let has_main = match top_level(&lines.join("\n")) {
        TopLevel::Items { has_main } => has_main,
        TopLevel::Statements => false,
        TopLevel::Unknown => lines.iter().any(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("pub ").unwrap_or(line);
            let line = line.strip_prefix("async ").unwrap_or(line);
            line.strip_prefix("fn main")
                .is_some_and(|rest| rest.trim_start().starts_with('('))
        }),
    };
    if has_main {
        return Shape::OwnMain;
    }
    let last = lines
        .iter()
        .map(|line| line.trim())
        .rfind(|line| !line.is_empty() && !line.starts_with("//"))
        .unwrap_or_default();
    if last.ends_with(';') || last.ends_with('}') {
        Shape::Statements
    } else if last.starts_with("Ok::<") {
        Shape::TypedOkTail
    } else if last.starts_with("Ok(") {
        Shape::OkTail
    } else {
        Shape::Statements
    }
}

#[cfg(test)]
#[path = "wrap_tests.rs"]
mod tests;
