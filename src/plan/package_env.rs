//! Cargo's package variables for books that `cargo test --doc` would test: a book that uses a
//! package (`harness = "."`, or a harness crate) or declares crates is tested by its authors
//! with cargo, which sets `CARGO_PKG_*`, `CARGO_MANIFEST_*` and `CARGO_CRATE_NAME` for every
//! doctest (proc macros read them: `#[wasm_bindgen]` panics without `CARGO_PKG_NAME`). A book
//! with neither keeps `mdbook test`'s environment, where rustdoc sees none of them.

use std::path::Path;

use anyhow::Context;

use crate::plan::path_packages::workspace_root;

/// The package name the snippets see when a book declares crates but names no package:
/// rustdoc's name for a doctest's crate.
pub(crate) const DOCUMENTED_NAME: &str = "rust_out";

/// Variables as `NAME, VALUE` pairs.
pub(crate) type Variables = Vec<(String, String)>;

/// The variables `cargo test --doc` sets for the doctests of the package at `dir` (fields given
/// as `{ workspace = true }` taken from its workspace's `[workspace.package]`), and the
/// package's edition.
pub(crate) fn package_env(dir: &Path) -> anyhow::Result<(Variables, Option<String>)> {
    let manifest = dir.join("Cargo.toml");
    let package = read_table(&manifest)?
        .get("package")
        .and_then(toml::Value::as_table)
        .cloned()
        .unwrap_or_default();
    let inherited = match workspace_root(dir)? {
        Some(root) => read_table(&root.join("Cargo.toml"))?
            .get("workspace")
            .and_then(|workspace| workspace.get("package"))
            .and_then(toml::Value::as_table)
            .cloned()
            .unwrap_or_default(),
        None => toml::Table::new(),
    };
    let field = |key: &str| -> Option<toml::Value> {
        match package.get(key)? {
            toml::Value::Table(entry)
                if entry.get("workspace").and_then(toml::Value::as_bool) == Some(true) =>
            {
                inherited.get(key).cloned()
            }
            value => Some(value.clone()),
        }
    };
    let text = |key: &str| -> String {
        match field(key) {
            Some(toml::Value::String(text)) => text,
            Some(toml::Value::Array(items)) => items
                .iter()
                .filter_map(toml::Value::as_str)
                .collect::<Vec<_>>()
                .join(":"),
            _ => String::new(),
        }
    };
    let name = text("name");
    let version = match text("version") {
        version if version.is_empty() => "0.0.0".to_owned(),
        version => version,
    };
    let mut env = cargo_variables(&name, &version, dir);
    for (variable, key) in [
        ("CARGO_PKG_AUTHORS", "authors"),
        ("CARGO_PKG_DESCRIPTION", "description"),
        ("CARGO_PKG_HOMEPAGE", "homepage"),
        ("CARGO_PKG_REPOSITORY", "repository"),
        ("CARGO_PKG_LICENSE", "license"),
        ("CARGO_PKG_LICENSE_FILE", "license-file"),
        ("CARGO_PKG_RUST_VERSION", "rust-version"),
        ("CARGO_PKG_README", "readme"),
    ] {
        env.push((variable.to_owned(), text(key)));
    }
    let edition = Some(text("edition")).filter(|edition| !edition.is_empty());
    Ok((env, edition))
}

/// The variables for a book that declares crates without a package: `rust_out` 0.0.0, at the
/// book's root.
pub(crate) fn documented_env(book_root: &Path) -> Vec<(String, String)> {
    let mut env = cargo_variables(DOCUMENTED_NAME, "0.0.0", book_root);
    for variable in [
        "CARGO_PKG_AUTHORS",
        "CARGO_PKG_DESCRIPTION",
        "CARGO_PKG_HOMEPAGE",
        "CARGO_PKG_REPOSITORY",
        "CARGO_PKG_LICENSE",
        "CARGO_PKG_LICENSE_FILE",
        "CARGO_PKG_RUST_VERSION",
        "CARGO_PKG_README",
    ] {
        env.push((variable.to_owned(), String::new()));
    }
    env
}

/// The name, version (and its parts, as cargo splits it) and manifest variables.
fn cargo_variables(name: &str, version: &str, dir: &Path) -> Vec<(String, String)> {
    let (core, pre) = version.split_once('-').unwrap_or((version, ""));
    let core = core.split('+').next().unwrap_or(core);
    let mut parts = core.split('.');
    let mut part = || parts.next().unwrap_or("0").to_owned();
    let (major, minor, patch) = (part(), part(), part());
    let pre = pre.split('+').next().unwrap_or(pre);
    let owned = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    };
    let manifest = dir.join("Cargo.toml");
    owned(&[
        ("CARGO_PKG_NAME", name),
        ("CARGO_CRATE_NAME", &name.replace('-', "_")),
        ("CARGO_PKG_VERSION", version),
        ("CARGO_PKG_VERSION_MAJOR", &major),
        ("CARGO_PKG_VERSION_MINOR", &minor),
        ("CARGO_PKG_VERSION_PATCH", &patch),
        ("CARGO_PKG_VERSION_PRE", pre),
        ("CARGO_MANIFEST_DIR", &dir.to_string_lossy()),
        ("CARGO_MANIFEST_PATH", &manifest.to_string_lossy()),
    ])
}

fn read_table(manifest: &Path) -> anyhow::Result<toml::Table> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    toml::from_str(&text).with_context(|| format!("parsing {}", manifest.display()))
}

#[cfg(test)]
#[path = "package_env_tests.rs"]
mod tests;
