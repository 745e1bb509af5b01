//! What every integration test needs: a book in a directory of its own (from a fixture folder
//! or inline files), a way to run `mdbook-snippets` on it, and an output that prints command,
//! working directory, stdout and stderr when an assertion about it fails. Snippet crates are
//! built into one shared target directory, so dependencies are built once for the whole suite.
//!
//! One helper per concern, used by every module (CONTRIBUTING.md, "Write an integration test"):
//! - a book: [`book`] (inline files), [`fixture`] (a folder of `tests/testsuite/fixtures/`),
//!   [`sh_book`] (`sh` snippets, no build);
//! - a run: [`Book::test`] (`mdbook-snippets test`), [`Book::test_command`] + [`Book::run`]
//!   when the command needs an environment variable, [`Output`] for what it printed;
//! - a `book.toml` the tool must refuse: [`check_bad_config`] (exit 2, nothing runs, the message);
//! - the preprocessor protocol: [`preprocessor`]; the real mdBook: [`mdbook`];
//! - a run watched while it runs (its stderr as it comes, its peak memory, a deadline):
//!   [`Book::start`];
//! - a JUnit report: [`junit`]; a full disk: [`tmpfs`]; a process a snippet left: [`Tagged`]
//!   (by a token in its command line, which works in a PID namespace too), under each
//!   [`containment::Containment`];
//! - files: [`repo`] (this repository), [`read`], [`copy_tree`], [`keep_modified`], [`files_under`];
//! - the Python venv, TypeScript `node_modules` and release test server the book's other
//!   languages and templates run with: [`set_up_languages`], [`python`],
//!   [`typescript_node_modules`], [`test_server`].

mod bad_config;
mod book;
pub(crate) mod containment;
mod files;
pub(crate) mod junit;
mod languages;
pub(crate) mod mdbook;
mod output;
pub(crate) mod preprocessor;
mod process;
mod running;
pub(crate) mod tmpfs;

pub(crate) use bad_config::check_bad_config;
pub(crate) use book::{Book, book, book_key, builds_of, fixture, sh_book, write_bytes};
pub(crate) use files::{
    copy_tree, files_under, harness_dir, keep_modified, read, repo, snippets_target_dir,
};
pub(crate) use languages::{python, set_up_languages, test_server, typescript_node_modules};
pub(crate) use output::Output;
pub(crate) use process::Tagged;
