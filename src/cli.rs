//! The command line as typed (clap): `mdbook-snippets test [BOOK_DIR] ...`,
//! `mdbook-snippets install [BOOK_DIR]`, `mdbook-snippets supports RENDERER`, `mdbook-snippets llms`
//! (a renderer), and no subcommand for the preprocessor. Turning these
//! low-level arguments into what the program will do is [`TestArgs::apply`]'s job.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::config::Config;
use crate::plan::{Partition, Selection};

#[derive(Debug, Parser)]
#[command(name = "mdbook-snippets", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Tell mdBook whether the preprocessor supports a renderer (exit 0: yes, 1: no).
    Supports { renderer: String },
    /// Compile, run and check every Rust snippet of a book.
    Test(TestArgs),
    /// Write llms.txt and llms-full.txt, the book as a reader sees it (an mdBook renderer)
    Llms,
    /// Set a book up: write mdbook-snippets.css and add the preprocessor to book.toml.
    ///
    /// Writes the stylesheet of the outputs beside book.toml, and adds `[preprocessor.snippets]`
    /// and the stylesheet (`[output.html] additional-css`) to book.toml, the rest of it kept as
    /// written. Running it again changes nothing.
    Install {
        /// The directory holding book.toml.
        #[arg(default_value = ".")]
        book_dir: PathBuf,
        /// Only print what would change.
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Debug, clap::Args)]
pub(crate) struct TestArgs {
    /// The directory holding book.toml.
    #[arg(default_value = ".")]
    pub book_dir: PathBuf,
    /// Only the chapters whose path (relative to the book root, e.g. `src/part/ch1.md`)
    /// contains this text; repeat for several.
    #[arg(long, value_name = "PATTERN")]
    pub chapter: Vec<String>,
    /// Only one snippet or a few: `PATH:LINE` selects the snippet holding exactly that line
    /// (`ch1.md:3`, leading directories optional, never line 30); other text selects the
    /// snippets whose id contains it (`src_ch1_md_2`).
    #[arg(long)]
    pub filter: Option<String>,
    /// Verify only the K-th of N shares of the selected snippets, to split a large book across
    /// N CI jobs: snippets are dealt out in book order, round robin (the i-th, 0-based, goes to
    /// share i % N + 1), so the shares are disjoint, cover the book, and differ by at most one.
    #[arg(long, value_name = "K/N")]
    pub partition: Option<Partition>,
    /// Snippet processes run at once (default: `jobs` in book.toml, else the CPU count); 0 is
    /// refused.
    #[arg(long, short, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub jobs: Option<usize>,
    /// Seconds a snippet may run unless its fence says `timeout=N` (default: `timeout` in
    /// book.toml, else 60); 0 is refused.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
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
    /// Then run every passing snippet that carries `kills=NAME` once more per mutant it names,
    /// with MDBOOK_SNIPPETS_MUTANT=NAME and nothing rebuilt: a run that fails kills the
    /// mutant, one that passes lets it survive, which fails the verification.
    #[arg(long)]
    pub mutants: bool,
    /// No progress on stderr (by default a bar on a terminal, else a line per snippet).
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Human,
    Github,
}

impl TestArgs {
    /// Lets the flags override the book's configuration.
    pub(crate) fn apply(&self, config: &mut Config) {
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

    /// The snippets to verify.
    pub(crate) fn selection(&self) -> Selection {
        Selection {
            chapters: self.chapter.clone(),
            filter: self.filter.clone(),
            partition: self.partition,
        }
    }

    pub(crate) fn format(&self) -> Format {
        self.format.unwrap_or_else(|| {
            if std::env::var_os("GITHUB_ACTIONS").is_some_and(|value| value == "true") {
                Format::Github
            } else {
                Format::Human
            }
        })
    }
}
