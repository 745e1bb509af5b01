//! `mdbook-snippets`: an mdBook preprocessor and CLI that verifies every Rust snippet of a book.

mod snippet;

fn main() {}
