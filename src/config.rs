//! What the verifier will do for one book: the `[preprocessor.snippets]` table of `book.toml`
//! (plus `[book] src` and `[rust] edition`), checked and resolved to absolute paths. Command-line
//! flags refine it afterwards (see `cli`); nothing else reads `book.toml`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};

/// Keys of `[preprocessor.snippets]` that belong to mdBook itself, not to us.
const MDBOOK_KEYS: &[&str] = &["command", "after", "before", "renderers", "optional"];
/// Keys of `[preprocessor.snippets]` that we own.
const OUR_KEYS: &[&str] = &[
    "harness",
    "default-attributes",
    "edition",
    "timeout",
    "output-limit",
    "jobs",
];

/// The resolved configuration of a verification run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The directory holding `book.toml`.
    pub book_root: PathBuf,
    /// `[book] src`, absolute (default `<book_root>/src`).
    pub src_dir: PathBuf,
    /// `harness = "snippets"`: the harness crate's directory, absolute.
    pub harness: Option<PathBuf>,
    /// `default-attributes = ["revision=2025-11-25"]`: merged under each snippet's own harness
    /// attributes (a snippet's own value for a key wins).
    pub default_attributes: Vec<String>,
    /// The edition of snippets without an `editionNNNN` attribute: `edition` here, else
    /// `[rust] edition`, else 2021 (what mdBook assumes).
    pub edition: String,
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
}

impl Config {
    /// Reads `<book_root>/book.toml`.
    pub fn from_book_toml(book_root: &Path) -> anyhow::Result<Config> {
        let path = book_root.join("book.toml");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        Config::from_book_toml_str(book_root, &text)
            .with_context(|| format!("in {}", path.display()))
    }

    /// Parses the text of a `book.toml` that lives in `book_root`.
    pub fn from_book_toml_str(book_root: &Path, text: &str) -> anyhow::Result<Config> {
        let document: toml::Table = toml::from_str(text).context("malformed book.toml")?;
        let src = match document.get("book").and_then(|book| book.get("src")) {
            Some(toml::Value::String(src)) => src.clone(),
            Some(other) => bail!("`book.src` must be a string, found {}", other.type_str()),
            None => "src".to_owned(),
        };
        let rust_edition = match document.get("rust").and_then(|rust| rust.get("edition")) {
            Some(toml::Value::String(edition)) => Some(edition.clone()),
            Some(other) => bail!(
                "`rust.edition` must be a string, found {}",
                other.type_str()
            ),
            None => None,
        };
        let empty = toml::Table::new();
        let table = match document
            .get("preprocessor")
            .and_then(|preprocessor| preprocessor.get("snippets"))
        {
            Some(toml::Value::Table(table)) => table,
            Some(other) => bail!(
                "`preprocessor.snippets` must be a table, found {}",
                other.type_str()
            ),
            None => &empty,
        };
        Config::from_table(book_root, Path::new(&src), rust_edition.as_deref(), table)
    }

    /// Builds a configuration from the `[preprocessor.snippets]` table (as the preprocessor gets
    /// it from mdBook's context: `ctx.config.get::<toml::Table>("preprocessor.snippets")`),
    /// `[book] src` and `[rust] edition`. Unknown keys are an error naming the key.
    pub fn from_table(
        book_root: &Path,
        src: &Path,
        rust_edition: Option<&str>,
        table: &toml::Table,
    ) -> anyhow::Result<Config> {
        for key in table.keys() {
            if !OUR_KEYS.contains(&key.as_str()) && !MDBOOK_KEYS.contains(&key.as_str()) {
                bail!(
                    "unknown key `{key}` in [preprocessor.snippets] (expected one of: {})",
                    OUR_KEYS.join(", ")
                );
            }
        }
        let book_root = absolute(book_root)?;
        let harness = match table.get("harness") {
            None => None,
            Some(toml::Value::String(path)) => Some(book_root.join(path)),
            Some(other) => bail!(
                "`harness` must be a path string, found {}",
                other.type_str()
            ),
        };
        let default_attributes = match table.get("default-attributes") {
            None => Vec::new(),
            Some(toml::Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    toml::Value::String(attribute) => Ok(attribute.clone()),
                    other => bail!(
                        "`default-attributes` must hold strings, found {}",
                        other.type_str()
                    ),
                })
                .collect::<anyhow::Result<_>>()?,
            Some(other) => bail!(
                "`default-attributes` must be an array of strings, found {}",
                other.type_str()
            ),
        };
        let edition = match table.get("edition") {
            Some(toml::Value::String(edition)) => edition.clone(),
            Some(other) => bail!("`edition` must be a string, found {}", other.type_str()),
            None => rust_edition.unwrap_or("2021").to_owned(),
        };
        check_edition(&edition)?;
        let timeout = Duration::from_secs(positive_integer(table, "timeout")?.unwrap_or(60));
        let output_limit = positive_integer(table, "output-limit")?.unwrap_or(1 << 20) as usize;
        let jobs = match positive_integer(table, "jobs")? {
            Some(jobs) => jobs as usize,
            None => std::thread::available_parallelism().map_or(1, |jobs| jobs.get()),
        };
        Ok(Config {
            src_dir: book_root.join(src),
            book_root,
            harness,
            default_attributes,
            edition,
            timeout,
            output_limit,
            jobs,
            target_dir: None,
            use_cache: true,
        })
    }
}

/// Accepts the editions cargo knows.
pub fn check_edition(edition: &str) -> anyhow::Result<()> {
    match edition {
        "2015" | "2018" | "2021" | "2024" => Ok(()),
        other => bail!("unknown edition `{other}` (expected 2015, 2018, 2021 or 2024)"),
    }
}

fn positive_integer(table: &toml::Table, key: &str) -> anyhow::Result<Option<u64>> {
    match table.get(key) {
        None => Ok(None),
        Some(toml::Value::Integer(value)) if *value > 0 => Ok(Some(*value as u64)),
        Some(other) => bail!("`{key}` must be a positive integer, found {other}"),
    }
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("resolving {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> String {
        match Config::from_book_toml_str(Path::new("/book"), text) {
            Ok(config) => format!(
                "src={} harness={:?} defaults={:?} edition={} timeout={:?}",
                config.src_dir.display(),
                config.harness,
                config.default_attributes,
                config.edition,
                config.timeout
            ),
            Err(error) => format!("error: {error:#}"),
        }
    }

    #[test]
    fn reads_our_table_and_mdbook_keys() {
        let text = r#"
[book]
src = "book"
[rust]
edition = "2024"
[preprocessor.snippets]
command = "mdbook-snippets"
after = ["links"]
harness = "snippets"
default-attributes = ["revision=2025-11-25"]
timeout = 5
"#;
        expect_test::expect![[r#"src=/book/book harness=Some("/book/snippets") defaults=["revision=2025-11-25"] edition=2024 timeout=5s"#]]
            .assert_eq(&parse(text));
    }

    #[test]
    fn defaults_without_a_table() {
        expect_test::expect!["src=/book/src harness=None defaults=[] edition=2021 timeout=60s"]
            .assert_eq(&parse("[book]\ntitle = \"t\"\n"));
    }

    #[test]
    fn unknown_key_is_named() {
        expect_test::expect!["error: unknown key `harnes` in [preprocessor.snippets] (expected one of: harness, default-attributes, edition, timeout, output-limit, jobs)"]
            .assert_eq(&parse("[preprocessor.snippets]\nharnes = \"x\"\n"));
    }

    #[test]
    fn malformed_toml_is_an_error() {
        let output = parse("[book\n");
        assert!(
            output.starts_with("error: malformed book.toml: "),
            "{output}"
        );
    }

    #[test]
    fn bad_values_are_errors() {
        expect_test::expect!["error: `timeout` must be a positive integer, found 0"]
            .assert_eq(&parse("[preprocessor.snippets]\ntimeout = 0\n"));
        expect_test::expect!["error: unknown edition `2022` (expected 2015, 2018, 2021 or 2024)"]
            .assert_eq(&parse("[preprocessor.snippets]\nedition = \"2022\"\n"));
    }
}
