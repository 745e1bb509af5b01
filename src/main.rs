//! `mdbook-snippets`: an mdBook preprocessor and CLI that verifies every Rust snippet of a book.
//! `main` only dispatches: errors reach stderr once, `{:#}`-formatted, and pick the exit code
//! (0 every snippet passed, 1 some snippet failed, 2 the tool could not do its job).

mod build;
mod cli;
mod config;
mod install;
mod llms;
mod mdbook;
mod plan;
mod preprocessor;
mod process_table;
mod progress;
mod report;
mod run;
mod snippet;
mod source;
mod test_command;
mod verify;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Run by cargo as the snippets' rustc wrapper: become rustc.
    if let Some(code) = build::rustc_wrapper::run_if_wrapper() {
        return code;
    }
    // Started as a snippet's sandbox launcher or its PID namespace's init (`__sandbox ...`,
    // twice per snippet): its own arguments, without clap's command tree.
    if let Some(code) = run::launcher::run_if_launcher() {
        return code;
    }
    let cli = cli::Cli::parse();
    let result = match cli.command {
        Some(cli::Command::Test(args)) => test_command::run(&args),
        Some(cli::Command::Llms) => llms::run(),
        Some(cli::Command::Install { book_dir, dry_run }) => install::run(&book_dir, dry_run),
        Some(cli::Command::Supports { renderer }) => {
            Ok(preprocessor::supports_exit_code(&renderer))
        }
        None => preprocessor::run(),
    };
    run::containment::hold_exit_while_stopping();
    // Which containment the run's snippets and setups had, whatever the outcome (once: `test`
    // says it before its report).
    test_command::say_containment();
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}
