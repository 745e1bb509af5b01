//! The test server's integration tests, in one binary (`[[test]] name = "testserver"` in
//! Cargo.toml, `autotests = false`): one module per concern, each the file it was when every
//! file was a binary of its own. One binary compiles `common/` and links tokio, hyper and the
//! server once instead of once per file (CONTRIBUTING, "The loop's time"). Filter as before by
//! module: `cargo test -p mcp-testserver --test testserver hostile::`.

// First: `every_rule_test!` and `rule_tests!` (`#[macro_export]`) are defined here, and a
// macro's textual scope covers only the modules declared after it.
mod common;
// The rule scenarios, which `protocol` (in-process) and `stdio` (the binary) both run.
#[path = "common/rules/mod.rs"]
mod rules;

mod artifacts;
mod cli;
mod fixtures;
mod fuzz;
mod hostile;
mod mutants;
mod protocol;
mod record;
mod stdio;
mod task_fixtures;
