//! What the verifier will do for one book: the `[preprocessor.snippets]` table of `book.toml`
//! (plus `[book] src` and `[rust] edition`), checked and resolved to absolute paths. Command-line
//! flags refine it afterwards (see `cli`); nothing else reads `book.toml`. Paths are made
//! canonical here, so `..`, absolute paths and symlinks all name the same files later. Two
//! tables inside it are concerns of their own: `dependencies` (`dependency_table`) and
//! `languages.NAME` (`language_table`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Deserialize;

use crate::config::book_toml::{existing_dir, normalize, table_error};
use crate::config::dependency_table;
use crate::config::language_table::{self, Language};

/// The resolved configuration of a verification run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Config {
    /// The directory holding `book.toml`, canonical (symlinks resolved), so every path derived
    /// from it compares equal to the paths cargo and rustc report.
    pub book_root: PathBuf,
    /// `[book] src`, absolute (default `<book_root>/src`), `..` resolved.
    pub src_dir: PathBuf,
    /// `harness = "snippets"`: the harness crate's directory, canonical.
    pub harness: Option<PathBuf>,
    /// `[preprocessor.snippets.dependencies]`: crates every snippet can use, in Cargo's
    /// dependency syntax, `path`s made canonical.
    pub dependencies: BTreeMap<String, toml::Value>,
    /// `default-attributes = ["revision=2025-11-25"]`: merged under each snippet's own harness
    /// attributes (a snippet's own value for a key wins).
    pub default_attributes: Vec<String>,
    /// `unknown-attributes = "error"`: a bare info-string word that is not an attribute fails
    /// its chapter instead of being ignored (rustdoc ignores it; default `"ignore"`).
    pub unknown_attributes: UnknownAttributes,
    /// The edition of snippets without an `editionNNNN` attribute, when the book names one:
    /// `edition` here, else `[rust] edition`. Without it, snippets take the harness crate's
    /// edition when there is a harness, else 2015 (mdBook's default: `mdbook test` then passes
    /// rustdoc no `--edition`, and rustdoc's default is 2015); see [`DEFAULT_EDITION`].
    pub edition: Option<String>,
    /// Per-snippet wall-clock limit (`timeout`, seconds; default 60).
    pub timeout: Duration,
    /// Bytes of stdout and of stderr kept per snippet; past it the snippet is stopped and fails
    /// (`output-limit`; default 1 MiB).
    pub output_limit: usize,
    /// Snippet processes run at once (`jobs`; default: the number of CPUs).
    pub jobs: usize,
    /// Where the generated crate, its build and the cache go; `None` means "work it out"
    /// (`CARGO_TARGET_DIR`, else the harness workspace's `target/`, else `<book_root>/target`).
    pub target_dir: Option<PathBuf>,
    /// Reuse results of unchanged snippets (see `cache`).
    pub use_cache: bool,
    /// `[preprocessor.snippets.languages.NAME]`: the other languages whose snippets are run, in
    /// name order.
    pub languages: Vec<Language>,
    /// `pass-env = ["NAME", ...]`: variables of the verifier's environment that snippets get
    /// besides those that pass by default (see `run`).
    pub pass_env: Vec<String>,
    /// `writable = ["PATH", ...]`: files and directories (canonical) a snippet may write
    /// besides its own temporary directory, where the sandbox restricts writing (Landlock; see
    /// `run/sandbox.rs`).
    pub writable: Vec<PathBuf>,
    /// `mutants = ["program", "args"...]`: what prints the mutants `kills=` may name, one
    /// `NAME<TAB>rule` line each (`mcp-testserver --list-mutants`); run from the book root
    /// under `test --mutants`. Without it `kills=` names are not checked
    /// (`run/mutant_list.rs`).
    pub mutants: Option<MutantsCommand>,
    /// The resource limits of every process the verifier runs (`process-limit`,
    /// `memory-limit`, `file-size-limit`, `scratch-limit`; `run/side_doors.rs`).
    pub limits: ResourceLimits,
    /// How long cargo may build the snippets (`build-timeout`, seconds; default 600): past it
    /// the build is stopped and its snippets fail.
    pub build_timeout: Duration,
    /// `backtrace = true`: snippets run with `RUST_BACKTRACE=1` (default: 0, so panics print
    /// the same text on every machine).
    pub backtrace: bool,
    /// `network = false`: snippets run in a network namespace with only a loopback, where
    /// namespaces are allowed (default true: the machine's network).
    pub network: bool,
}

/// The resource limits of `[preprocessor.snippets]`, with defaults every book tried passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ResourceLimits {
    /// `process-limit`: processes (threads) of a run (default 4096).
    pub processes: u64,
    /// `memory-limit`, MiB of address space per process (default 65536: virtual memory,
    /// which runtimes such as V8 reserve by gigabytes).
    pub memory_mib: u64,
    /// `file-size-limit`, MiB per file written (default 1024).
    pub file_size_mib: u64,
    /// `scratch-limit`, MiB of each private tmpfs: the working directory, `TMPDIR`, `/tmp`,
    /// `/dev/shm` (default 1024).
    pub scratch_mib: u64,
}

impl Default for ResourceLimits {
    fn default() -> ResourceLimits {
        ResourceLimits {
            processes: 4096,
            memory_mib: 65536,
            file_size_mib: 1024,
            scratch_mib: 1024,
        }
    }
}

/// The `mutants` command.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MutantsCommand {
    /// As `book.toml` writes it, for messages.
    pub shown: String,
    /// What runs: the program resolved as a language's `command` (a `/` path from the book
    /// root, else `PATH`), then the arguments.
    pub command: Vec<String>,
}

impl Config {
    /// The declared languages as extraction needs them.
    pub(crate) fn language_syntaxes(&self) -> Vec<crate::snippet::LanguageSyntax> {
        self.languages
            .iter()
            .map(|language| crate::snippet::LanguageSyntax {
                name: language.name.clone(),
                hidden: language.hidden.clone(),
            })
            .collect()
    }
}

/// `[preprocessor.snippets]` as written. mdBook's own keys are accepted and left alone.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Table {
    // mdBook's keys.
    #[allow(dead_code)]
    command: Option<toml::Value>,
    #[allow(dead_code)]
    after: Option<toml::Value>,
    #[allow(dead_code)]
    before: Option<toml::Value>,
    #[allow(dead_code)]
    renderers: Option<toml::Value>,
    #[allow(dead_code)]
    optional: Option<toml::Value>,
    // Ours.
    harness: Option<String>,
    dependencies: Option<BTreeMap<String, toml::Value>>,
    default_attributes: Option<Vec<String>>,
    unknown_attributes: Option<UnknownAttributes>,
    edition: Option<String>,
    timeout: Option<u64>,
    output_limit: Option<u64>,
    jobs: Option<u64>,
    languages: Option<toml::Value>,
    pass_env: Option<Vec<String>>,
    writable: Option<Vec<String>>,
    mutants: Option<Vec<String>>,
    process_limit: Option<u64>,
    memory_limit: Option<u64>,
    file_size_limit: Option<u64>,
    scratch_limit: Option<u64>,
    build_timeout: Option<u64>,
    backtrace: Option<bool>,
    network: Option<bool>,
}

impl Config {
    /// Reads `<book_root>/book.toml`.
    pub(crate) fn from_book_toml(book_root: &Path) -> anyhow::Result<Config> {
        let path = book_root.join("book.toml");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        Config::from_book_toml_str(book_root, &text)
            .with_context(|| format!("in {}", path.display()))
    }

    /// Parses the text of a `book.toml` that lives in `book_root` the way mdBook 0.5 reads it:
    /// with its own configuration type (so a file `mdbook build` rejects, say an unknown `[book]`
    /// key, is rejected here with mdBook's message, "Invalid configuration file" and the reason),
    /// then its `MDBOOK_*` environment overrides.
    pub(crate) fn from_book_toml_str(book_root: &Path, text: &str) -> anyhow::Result<Config> {
        let mut book_config: mdbook_preprocessor::config::Config = text.parse()?;
        book_config.update_from_env()?;
        Config::from_mdbook(book_root, &book_config)
    }

    /// The verifier's configuration from mdBook's: `[preprocessor.snippets]`, `[book] src` and
    /// `[rust] edition`, for `mdbook-snippets test` and for the preprocessor (whose context holds
    /// the configuration mdBook read).
    pub(crate) fn from_mdbook(
        book_root: &Path,
        book_config: &mdbook_preprocessor::config::Config,
    ) -> anyhow::Result<Config> {
        let table: toml::Table = book_config
            .get("preprocessor.snippets")
            .context("reading [preprocessor.snippets]")?
            .unwrap_or_default();
        let rust_edition = book_config
            .rust
            .edition
            .map(|edition| serde_json::to_value(edition).context("reading [rust] edition"))
            .transpose()?
            .and_then(|value| value.as_str().map(str::to_owned));
        Config::from_table(
            book_root,
            &book_config.book.src,
            rust_edition.as_deref(),
            &table,
        )
    }

    /// Builds a configuration from the `[preprocessor.snippets]` table (as the preprocessor gets
    /// it from mdBook's context: `ctx.config.get::<toml::Table>("preprocessor.snippets")`),
    /// `[book] src` and `[rust] edition`. Unknown keys are an error naming the key; so is a
    /// path (`harness`, a dependency's `path`) that does not exist.
    pub(crate) fn from_table(
        book_root: &Path,
        src: &Path,
        rust_edition: Option<&str>,
        table: &toml::Table,
    ) -> anyhow::Result<Config> {
        let table: Table = toml::Value::Table(table.clone())
            .try_into()
            .map_err(|error: toml::de::Error| table_error(&error, "[preprocessor.snippets]"))?;
        let book_root = std::fs::canonicalize(book_root)
            .with_context(|| format!("resolving the book root {}", book_root.display()))?;
        let harness = match &table.harness {
            None => None,
            Some(path) => Some(existing_dir(&book_root, path, "harness")?),
        };
        let mut dependencies = BTreeMap::new();
        for (name, spec) in table.dependencies.unwrap_or_default() {
            dependencies.insert(
                name.clone(),
                dependency_table::dependency(&book_root, &name, spec)?,
            );
        }
        let edition = table.edition.or(rust_edition.map(str::to_owned));
        if let Some(edition) = &edition {
            check_edition(edition)?;
        }
        let positive = |value: Option<u64>, key: &str| match value {
            Some(0) => bail!("`{key}` must be a positive integer, found 0"),
            other => Ok(other),
        };
        let timeout = Duration::from_secs(positive(table.timeout, "timeout")?.unwrap_or(60));
        let output_limit =
            positive(table.output_limit, "output-limit")?.unwrap_or(1 << 20) as usize;
        let jobs = match positive(table.jobs, "jobs")? {
            Some(jobs) => jobs as usize,
            None => std::thread::available_parallelism().map_or(1, |jobs| jobs.get()),
        };
        let mut languages = Vec::new();
        let declared = match table.languages {
            None => toml::Table::new(),
            Some(toml::Value::Table(declared)) => declared,
            Some(other) => bail!(
                "`languages` must be a table of [preprocessor.snippets.languages.NAME] tables, \
                 found {}",
                other.type_str()
            ),
        };
        for (name, spec) in declared {
            languages.push(language_table::language(&book_root, name, spec)?);
        }
        let mut writable = Vec::new();
        for path in table.writable.unwrap_or_default() {
            let joined = book_root.join(&path);
            writable.push(std::fs::canonicalize(&joined).map_err(|_| {
                anyhow::anyhow!(
                    "`writable`: {} does not exist (a snippet may write only where something \
                     exists; relative paths start at the book root)",
                    joined.display()
                )
            })?);
        }
        let defaults = ResourceLimits::default();
        let limits = ResourceLimits {
            processes: positive(table.process_limit, "process-limit")?
                .unwrap_or(defaults.processes),
            memory_mib: positive(table.memory_limit, "memory-limit")?
                .unwrap_or(defaults.memory_mib),
            file_size_mib: positive(table.file_size_limit, "file-size-limit")?
                .unwrap_or(defaults.file_size_mib),
            scratch_mib: positive(table.scratch_limit, "scratch-limit")?
                .unwrap_or(defaults.scratch_mib),
        };
        let build_timeout =
            Duration::from_secs(positive(table.build_timeout, "build-timeout")?.unwrap_or(600));
        let mutants = table
            .mutants
            .map(|command| mutants_command(&book_root, command))
            .transpose()?;
        Ok(Config {
            languages,
            src_dir: normalize(&book_root.join(src)),
            book_root,
            harness,
            dependencies,
            default_attributes: table.default_attributes.unwrap_or_default(),
            unknown_attributes: table.unknown_attributes.unwrap_or_default(),
            edition,
            timeout,
            output_limit,
            jobs,
            target_dir: None,
            use_cache: true,
            pass_env: table.pass_env.unwrap_or_default(),
            writable,
            mutants,
            limits,
            build_timeout,
            backtrace: table.backtrace.unwrap_or(false),
            network: table.network.unwrap_or(true),
        })
    }
}

/// `mutants = [...]`, its program resolved (a `/` path from the book root, else `PATH`).
fn mutants_command(book_root: &Path, mut command: Vec<String>) -> anyhow::Result<MutantsCommand> {
    let shown = command.join(" ");
    let Some(program) = command.first() else {
        bail!(
            "`mutants`: the command is empty (expected a program that prints the mutants, one \
             `NAME<TAB>rule` line each, and its arguments)"
        );
    };
    let resolved = language_table::find_program(book_root, program)
        .with_context(|| format!("`mutants`: program `{program}`"))?;
    command[0] = resolved.to_string_lossy().into_owned();
    Ok(MutantsCommand { shown, command })
}

/// The edition of a book that names none and has no harness: mdBook's and rustdoc's.
pub(crate) const DEFAULT_EDITION: &str = "2015";

/// Accepts the editions cargo knows.
pub(crate) fn check_edition(edition: &str) -> anyhow::Result<()> {
    match edition {
        "2015" | "2018" | "2021" | "2024" => Ok(()),
        other => bail!("unknown edition `{other}` (expected 2015, 2018, 2021 or 2024)"),
    }
}

/// What a bare info-string word the verifier does not know does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum UnknownAttributes {
    /// As rustdoc: the word is ignored; one that resembles an attribute we act on
    /// (`should-panic`) is a warning naming the line.
    #[default]
    Ignore,
    /// Every unknown word is an error naming the line (for books that own all their words).
    Error,
}

#[cfg(test)]
#[path = "snippets_table_tests.rs"]
mod tests;
