//! The one integration test binary. Each module drives the built `mdbook-snippets` on books
//! in directories of their own (see `support`).

mod support;

/// The long tests (the repository's own book with its mutants, its guide, the templates a reader
/// copies), started first. libtest starts tests in name order, two at a time on two cores: named
/// `templates`, `the_book` and `the_guide` they started last, behind every short test, and one
/// core stood idle while the last of them ran. This module's name sorts before every other, so
/// they start first and the short tests fill the other core beside them. Their names keep
/// `templates`, `the_book` and `the_guide`: `cargo test --test testsuite the_book` still selects
/// them.
/// (`#[path = "."]`: their files stay where they are, beside this one.)
#[path = "."]
mod a_long_first {
    pub(crate) mod templates;
    mod the_book;
    mod the_guide;
}
use a_long_first::templates;

mod adoption;
mod artifacts;
mod bless;
mod book_errors;
mod cache;
mod compat;
mod harness;
mod hostile;
mod isolation;
mod languages;
mod ledger;
mod mdbook;
mod mutants;
mod options;
mod preprocessor;
mod render;
mod semantics;
mod serve;
mod test_command;
