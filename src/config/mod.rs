//! Reading `book.toml`: the `[preprocessor.snippets]` table (`snippets_table`) and the two
//! tables inside it that are concerns of their own, `dependencies` (`dependency_table`) and
//! `languages.NAME` (`language_table`), checked and resolved into one `Config`. The lowest
//! stage after the snippet data: loading a book already needs it.

pub(crate) mod book_toml;
pub(crate) mod dependency_table;
pub(crate) mod language_table;
pub(crate) mod snippets_table;

// What the other stages use; inside the stage, files name each other directly.
pub(crate) use book_toml::normalize;
pub(crate) use language_table::{ErrorPosition, FILE_PLACEHOLDER, Language, Setup};
pub(crate) use snippets_table::{Config, DEFAULT_EDITION, MutantsCommand, UnknownAttributes};
