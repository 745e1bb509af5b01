//! `[preprocessor.snippets.languages.NAME]`: the other languages a book declares, each checked
//! (an empty command, one without `{file}`, a program not found, an `inputs` or `setup-inputs`
//! path that is neither a regular file nor a directory are errors naming the key) and
//! its programs resolved (a `/` path from the book root, else `PATH`); their path, size and
//! mtime are the language's cache identity.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;

use crate::config::book_toml::{normalize, table_error};

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
    /// `setup-timeout = SECONDS`: how long the setup may run before it is stopped (with
    /// everything it started) and the run fails; default [`DEFAULT_SETUP_TIMEOUT`].
    pub timeout: std::time::Duration,
}

/// A setup's deadline when its language does not set `setup-timeout`: 30 minutes, twice what
/// the slowest setup we know takes from cold (this repository's own `scripts/setup-languages.sh`:
/// a venv with `pip install`, `npm ci`, a release build of the test server, about 15 minutes on
/// 2 cores), so a hanging setup ends a run without cutting a slow one short.
pub(crate) const DEFAULT_SETUP_TIMEOUT: std::time::Duration =
    std::time::Duration::from_secs(30 * 60);

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
    setup_timeout: Option<u64>,
}

/// `setup = "a shell command"` or `setup = ["program", "args"...]`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum SetupCommand {
    Shell(String),
    Words(Vec<String>),
}

/// Checks one `[preprocessor.snippets.languages.NAME]` table and resolves its programs.
pub(crate) fn language(
    book_root: &Path,
    name: String,
    spec: toml::Value,
) -> anyhow::Result<Language> {
    let table_name = format!("[preprocessor.snippets.languages.{name}]");
    let spec: LanguageTable = spec
        .try_into()
        .map_err(|error: toml::de::Error| table_error(&error, &table_name))?;
    let key = |field: &str| format!("`languages.{name}.{field}`");
    // A fence starting with one of these is Rust (rustdoc's attributes) or an expected block.
    let reserved = ["rust", "text", "output"];
    if reserved.contains(&name.as_str())
        || crate::snippet::ACTED_ON.contains(&name.as_str())
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
    // Inputs are hashed for the cache: a regular file (read as a stream) or a directory. A
    // FIFO would block the hash forever, `/dev/zero` never end it: refused here, at once.
    let existing = |paths: Option<Vec<String>>, field: &str| -> anyhow::Result<Vec<PathBuf>> {
        let mut canonical = Vec::new();
        for input in paths.unwrap_or_default() {
            let joined = book_root.join(&input);
            let path = std::fs::canonicalize(&joined).map_err(|_| {
                anyhow::anyhow!(
                    "{}: {} does not exist (relative paths start at the book root)",
                    key(field),
                    joined.display()
                )
            })?;
            let kind = std::fs::metadata(&path)
                .with_context(|| format!("{}: reading {}", key(field), path.display()))?
                .file_type();
            if !kind.is_file() && !kind.is_dir() {
                bail!(
                    "{}: {} is not a regular file or a directory (inputs are hashed for the \
                     cache; a FIFO or a device cannot be)",
                    key(field),
                    path.display()
                );
            }
            canonical.push(path);
        }
        Ok(canonical)
    };
    let inputs = existing(spec.inputs, "inputs")?;
    let setup_inputs = existing(spec.setup_inputs, "setup-inputs")?;
    let setup_timeout = match spec.setup_timeout {
        Some(0) => bail!(
            "{}: must be a positive integer, found 0",
            key("setup-timeout")
        ),
        Some(seconds) => std::time::Duration::from_secs(seconds),
        None => DEFAULT_SETUP_TIMEOUT,
    };
    let setup = match spec.setup {
        None if spec.setup_timeout.is_some() => {
            bail!("{}: given without `setup`", key("setup-timeout"))
        }
        None if setup_inputs.is_empty() => None,
        None => bail!("{}: given without `setup`", key("setup-inputs")),
        Some(SetupCommand::Shell(line)) if line.trim().is_empty() => {
            bail!("{}: the command is empty", key("setup"))
        }
        Some(SetupCommand::Shell(line)) => Some(Setup {
            command: vec!["sh".to_owned(), "-c".to_owned(), line.clone()],
            shown: line,
            inputs: setup_inputs,
            timeout: setup_timeout,
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
                timeout: setup_timeout,
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
pub(crate) fn find_program(book_root: &Path, program: &str) -> anyhow::Result<PathBuf> {
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
