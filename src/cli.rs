//! The command line as typed (clap): `mdbook-snippets test [BOOK_DIR] ...`,
//! `mdbook-snippets supports RENDERER`, and no subcommand for the preprocessor. Turning these
//! low-level arguments into what the program will do is [`TestArgs::apply`]'s job.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::config::Config;

#[derive(Debug, Parser)]
#[command(name = "mdbook-snippets", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Tell mdBook whether the preprocessor supports a renderer (exit 0: yes, 1: no).
    Supports { renderer: String },
    /// Compile, run and check every Rust snippet of a book.
    Test(TestArgs),
}

#[derive(Debug, clap::Args)]
pub struct TestArgs {
    /// The directory holding book.toml.
    #[arg(default_value = ".")]
    pub book_dir: PathBuf,
    /// Only snippets whose id or `PATH:LINE` contains this text.
    #[arg(long)]
    pub filter: Option<String>,
    /// Snippet processes run at once (default: `jobs` in book.toml, else the CPU count).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Seconds a snippet may run (default: `timeout` in book.toml, else 60).
    #[arg(long)]
    pub timeout: Option<u64>,
    /// Verify every snippet again, ignoring cached results.
    #[arg(long)]
    pub no_cache: bool,
    /// Where the generated crate and its build go (default: CARGO_TARGET_DIR, else the harness
    /// workspace's target/, else BOOK_DIR/target).
    #[arg(long)]
    pub target_dir: Option<PathBuf>,
    /// Also write a JUnit XML report to this file.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Report format on stdout; `github` adds workflow annotations (default when GITHUB_ACTIONS
    /// is set).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Rewrite the expected-output blocks that did not match with what the snippets printed
    /// (also on with `SNAPSHOTS=overwrite`).
    #[arg(long)]
    pub bless: bool,
    /// No per-snippet progress lines on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Github,
}

impl TestArgs {
    /// Lets the flags override the book's configuration.
    pub fn apply(&self, config: &mut Config) {
        if let Some(jobs) = self.jobs {
            config.jobs = jobs.max(1);
        }
        if let Some(timeout) = self.timeout {
            config.timeout = std::time::Duration::from_secs(timeout.max(1));
        }
        if self.no_cache {
            config.use_cache = false;
        }
        if let Some(target_dir) = &self.target_dir {
            config.target_dir = Some(target_dir.clone());
        }
    }

    pub fn format(&self) -> Format {
        self.format.unwrap_or_else(|| {
            if std::env::var_os("GITHUB_ACTIONS").is_some_and(|value| value == "true") {
                Format::Github
            } else {
                Format::Human
            }
        })
    }
}
