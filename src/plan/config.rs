//! What the verifier will do for one book: the `[preprocessor.snippets]` table of `book.toml`
//! (plus `[book] src` and `[rust] edition`), checked and resolved to absolute paths. Command-line
//! flags refine it afterwards (see `cli`); nothing else reads `book.toml`. Paths are made
//! canonical here, so `..`, absolute paths and symlinks all name the same files later.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Deserialize;

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
}

/// A language a book declares (`[preprocessor.snippets.languages.NAME]`): its snippets are
/// written to a file and run with `command`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Language {
    /// The first word of a fence that is a snippet of this language (`python`).
    pub name: String,
    /// `command = ["python3", "{file}"]`, the program resolved to an absolute path (a program
    /// with a `/` from the book root, else from `PATH`); `{file}` is the snippet's file.
    pub command: Vec<String>,
    /// `check = [...]`: what a `no_run` snippet runs instead (a syntax check, say); without it a
    /// `no_run` snippet is skipped.
    pub check: Option<Vec<String>>,
    /// `extension = "py"`: the snippet file's extension.
    pub extension: String,
    /// `hidden = "!!!"`: the prefix of hidden lines (mdBook's `hidelines`), default `!!!`.
    pub hidden: String,
    /// `inputs = ["helpers/"]`: files and directories (canonical) whose contents the snippets
    /// depend on, part of the cache key.
    pub inputs: Vec<PathBuf>,
    /// `error-position = "last"`: which of the positions in a failed snippet's stderr that
    /// name its file is the failure's line (Python prints the innermost frame last, Node.js
    /// first); default `"first"`.
    pub error_position: ErrorPosition,
    /// What identifies the programs of `command` and `check` for the cache: path, size and
    /// modification time of each.
    pub identity: String,
    /// `setup = ...`: what prepares the language's environment, run before the first snippet
    /// of the language that must run, and again only when its inputs change.
    pub setup: Option<Setup>,
}

/// A language's `setup` command and the files it depends on (`setup-inputs`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Setup {
    /// The command as `book.toml` writes it, for messages.
    pub shown: String,
    /// What runs, from the book root: `sh -c STRING` for a string; a list's program resolved
    /// as `command`'s is.
    pub command: Vec<String>,
    /// `setup-inputs = [paths]` (canonical): files and directories whose contents, with the
    /// command, decide whether the setup runs again. Part of the cache key of the language's
    /// snippets too.
    pub inputs: Vec<PathBuf>,
}

/// Which position in a traceback is the failure's line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ErrorPosition {
    #[default]
    First,
    Last,
}

/// The hidden-line prefix of a language that does not set `hidden`.
pub(crate) const DEFAULT_HIDDEN: &str = "!!!";

/// What `{file}` in a language's `command` is replaced with.
pub(crate) const FILE_PLACEHOLDER: &str = "{file}";

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
}

/// `[preprocessor.snippets.languages.NAME]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct LanguageTable {
    command: Vec<String>,
    check: Option<Vec<String>>,
    extension: String,
    hidden: Option<String>,
    inputs: Option<Vec<String>>,
    error_position: Option<ErrorPosition>,
    setup: Option<SetupCommand>,
    setup_inputs: Option<Vec<String>>,
}

/// `setup = "a shell command"` or `setup = ["program", "args"...]`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum SetupCommand {
    Shell(String),
    Words(Vec<String>),
}

/// A dependency given as a table, in Cargo's syntax; only the keys Cargo accepts for a
/// dependency of a binary crate.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[allow(dead_code)]
struct DetailedDependency {
    version: Option<String>,
    path: Option<String>,
    git: Option<String>,
    branch: Option<String>,
    tag: Option<String>,
    rev: Option<String>,
    features: Option<Vec<String>>,
    default_features: Option<bool>,
    #[serde(rename = "default_features")]
    default_features_underscore: Option<bool>,
    package: Option<String>,
    registry: Option<String>,
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
            dependencies.insert(name.clone(), dependency(&book_root, &name, spec)?);
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
            languages.push(language(&book_root, name, spec)?);
        }
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
        })
    }
}

/// serde's message about `table`, with an unknown field called what it is to the user: an
/// unknown key, named.
fn table_error(error: &toml::de::Error, table: &str) -> anyhow::Error {
    let message = error.message();
    match message
        .strip_prefix("unknown field ")
        .and_then(|rest| rest.split_once(", expected one of "))
    {
        Some((key, expected)) => {
            anyhow::anyhow!("unknown key {key} in {table} (expected one of: {expected})")
        }
        None => anyhow::anyhow!("in {table}: {message}"),
    }
}

/// Checks one entry of `[preprocessor.snippets.dependencies]` and makes its `path` canonical.
fn dependency(book_root: &Path, name: &str, spec: toml::Value) -> anyhow::Result<toml::Value> {
    let context = || format!("in [preprocessor.snippets.dependencies] `{name}`");
    match spec {
        toml::Value::String(_) => Ok(spec),
        toml::Value::Table(mut table) => {
            let checked: DetailedDependency = toml::Value::Table(table.clone())
                .try_into()
                .map_err(|error: toml::de::Error| {
                    table_error(
                        &error,
                        &format!("[preprocessor.snippets.dependencies] `{name}`"),
                    )
                })?;
            if checked.version.is_none() && checked.path.is_none() && checked.git.is_none() {
                bail!("{}: needs `version`, `path` or `git`", context());
            }
            if let Some(path) = checked.path {
                let key = format!("dependencies.{name}.path");
                let dir = existing_dir(book_root, &path, &key)?;
                if !dir.join("Cargo.toml").is_file() {
                    bail!("`{key}`: {} has no Cargo.toml", dir.display());
                }
                let dir = dir
                    .to_str()
                    .with_context(|| format!("`{key}`: {} is not valid UTF-8", dir.display()))?;
                table.insert("path".to_owned(), toml::Value::String(dir.to_owned()));
            }
            Ok(toml::Value::Table(table))
        }
        other => bail!(
            "{}: expected a version string or a table, found {}",
            context(),
            other.type_str()
        ),
    }
}

/// Checks one `[preprocessor.snippets.languages.NAME]` table and resolves its programs.
fn language(book_root: &Path, name: String, spec: toml::Value) -> anyhow::Result<Language> {
    let table_name = format!("[preprocessor.snippets.languages.{name}]");
    let spec: LanguageTable = spec
        .try_into()
        .map_err(|error: toml::de::Error| table_error(&error, &table_name))?;
    let key = |field: &str| format!("`languages.{name}.{field}`");
    // A fence starting with one of these is Rust (rustdoc's attributes) or an expected block.
    let reserved = ["rust", "text", "output"];
    if reserved.contains(&name.as_str())
        || crate::source::info_string::ACTED_ON.contains(&name.as_str())
        || name.is_empty()
        || name.contains(|c: char| c == ',' || c.is_whitespace())
    {
        bail!(
            "{table_name}: `{name}` cannot name a language (not `rust`, `text`, `output` or a \
             rustdoc attribute such as `no_run`; no commas or spaces: it is the first word of a \
             fence)"
        );
    }
    let mut identity = String::new();
    let mut resolve = |command: Vec<String>, field: &str| -> anyhow::Result<Vec<String>> {
        let Some(program) = command.first() else {
            bail!(
                "{}: the command is empty (expected a program and its arguments, one of them \
                 `{FILE_PLACEHOLDER}`)",
                key(field)
            );
        };
        if !command.iter().any(|word| word.contains(FILE_PLACEHOLDER)) {
            bail!(
                "{}: no argument is `{FILE_PLACEHOLDER}` (replaced with the snippet's file), in {:?}",
                key(field),
                command
            );
        }
        let resolved = find_program(book_root, program)
            .with_context(|| format!("{}: program `{program}`", key(field)))?;
        let metadata = std::fs::metadata(&resolved)
            .with_context(|| format!("{}: reading {}", key(field), resolved.display()))?;
        let modified = metadata
            .modified()
            .ok()
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |since| since.as_nanos());
        identity.push_str(&format!(
            "{} {} {modified}\n",
            resolved.display(),
            metadata.len()
        ));
        let mut command = command;
        command[0] = resolved.to_string_lossy().into_owned();
        Ok(command)
    };
    let command = resolve(spec.command, "command")?;
    let check = spec
        .check
        .map(|check| resolve(check, "check"))
        .transpose()?;
    let extension = spec.extension.trim_start_matches('.').to_owned();
    if extension.is_empty() || extension.contains(['/', '\\']) {
        bail!(
            "{}: `{}` is not a file extension (e.g. \"py\")",
            key("extension"),
            spec.extension
        );
    }
    let hidden = spec.hidden.unwrap_or_else(|| DEFAULT_HIDDEN.to_owned());
    if hidden.is_empty() || hidden.contains(|c: char| c == ',' || c.is_whitespace()) {
        bail!(
            "{}: `{hidden}` cannot be a hidden-line prefix (not empty, no commas or spaces: \
             mdBook reads it from the info string as `hidelines=PREFIX`)",
            key("hidden")
        );
    }
    let existing = |paths: Option<Vec<String>>, field: &str| -> anyhow::Result<Vec<PathBuf>> {
        let mut canonical = Vec::new();
        for input in paths.unwrap_or_default() {
            let joined = book_root.join(&input);
            canonical.push(std::fs::canonicalize(&joined).map_err(|_| {
                anyhow::anyhow!(
                    "{}: {} does not exist (relative paths start at the book root)",
                    key(field),
                    joined.display()
                )
            })?);
        }
        Ok(canonical)
    };
    let inputs = existing(spec.inputs, "inputs")?;
    let setup_inputs = existing(spec.setup_inputs, "setup-inputs")?;
    let setup = match spec.setup {
        None if setup_inputs.is_empty() => None,
        None => bail!("{}: given without `setup`", key("setup-inputs")),
        Some(SetupCommand::Shell(line)) if line.trim().is_empty() => {
            bail!("{}: the command is empty", key("setup"))
        }
        Some(SetupCommand::Shell(line)) => Some(Setup {
            command: vec!["sh".to_owned(), "-c".to_owned(), line.clone()],
            shown: line,
            inputs: setup_inputs,
        }),
        Some(SetupCommand::Words(words)) => {
            let Some(program) = words.first() else {
                bail!("{}: the command is empty", key("setup"));
            };
            let resolved = find_program(book_root, program)
                .with_context(|| format!("{}: program `{program}`", key("setup")))?;
            let mut command = words.clone();
            command[0] = resolved.to_string_lossy().into_owned();
            Some(Setup {
                shown: words.join(" "),
                command,
                inputs: setup_inputs,
            })
        }
    };
    Ok(Language {
        name,
        command,
        check,
        extension,
        hidden,
        inputs,
        error_position: spec.error_position.unwrap_or_default(),
        identity,
        setup,
    })
}

/// The absolute path of `program`: a path with a `/` is taken from the book root, a bare name
/// is looked up on `PATH`. It must be an executable file.
fn find_program(book_root: &Path, program: &str) -> anyhow::Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        std::fs::metadata(path)
            .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let path = normalize(&book_root.join(program));
        return if executable(&path) {
            Ok(path)
        } else {
            bail!(
                "{} does not exist or is not executable (relative paths start at the book root)",
                path.display()
            )
        };
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path_var)
        .map(|dir| dir.join(program))
        .find(|candidate| executable(candidate))
        .with_context(|| "not found on PATH".to_owned())
}

/// `path` (relative to the book root, or absolute, maybe through symlinks) as a canonical
/// directory, or an error naming `key`.
fn existing_dir(book_root: &Path, path: &str, key: &str) -> anyhow::Result<PathBuf> {
    let joined = book_root.join(path);
    match std::fs::canonicalize(&joined) {
        Ok(dir) if dir.is_dir() => Ok(dir),
        Ok(dir) => bail!("`{key}`: {} is not a directory", dir.display()),
        Err(_) => bail!(
            "`{key}`: {} does not exist (set in [preprocessor.snippets] of book.toml; \
             relative paths start at the book root)",
            joined.display()
        ),
    }
}

/// Resolves `.` and `..` without touching the file system (the path may not exist yet).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
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

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
