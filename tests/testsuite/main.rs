//! The one integration test binary. Each module drives the built `mdbook-snippets` on books
//! in directories of their own (see `support`).

mod support;

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
mod templates;
mod test_command;
mod the_book;
mod the_guide;
