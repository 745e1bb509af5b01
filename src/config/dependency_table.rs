//! `[preprocessor.snippets.dependencies]`: crates every snippet can use, in Cargo's dependency
//! syntax; an entry Cargo would not accept for a binary crate is an error naming it, and a
//! `path` is made canonical.

use std::path::Path;

use anyhow::{Context, bail};
use serde::Deserialize;

use crate::config::book_toml::{existing_dir, table_error};

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

/// Checks one entry of `[preprocessor.snippets.dependencies]` and makes its `path` canonical.
pub(crate) fn dependency(
    book_root: &Path,
    name: &str,
    spec: toml::Value,
) -> anyhow::Result<toml::Value> {
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
