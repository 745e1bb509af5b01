//! A `harness` that is a Cargo package without a library: a book that is a package of its own
//! (`harness = "."`, its examples using the crates of its `Cargo.toml`), as the Rust Cookbook
//! is. Its `[dependencies]` become the snippets' own (as if listed under
//! `[preprocessor.snippets.dependencies]`), and the package's workspace gives the lock file
//! and the target directory, as for a harness crate: a user who has run `cargo build` there has
//! every dependency built already, with the same versions and the same artifacts.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, bail};

use crate::plan::path_packages::workspace_root;

/// The `[dependencies]` of the package at `dir` when it has no library (`None` when it has one:
/// a harness crate), with `path`s made absolute and `workspace = true` entries taken from the
/// workspace's `[workspace.dependencies]`; `optional` is dropped, since the snippets use every
/// dependency.
pub(crate) fn library_less_dependencies(
    dir: &Path,
) -> anyhow::Result<Option<BTreeMap<String, toml::Value>>> {
    let manifest = dir.join("Cargo.toml");
    let table = read_table(&manifest)?;
    if table.get("package").is_none() {
        return Ok(None);
    }
    if table.contains_key("lib") || dir.join("src/lib.rs").is_file() {
        return Ok(None);
    }
    let mut dependencies = BTreeMap::new();
    let Some(listed) = table.get("dependencies").and_then(toml::Value::as_table) else {
        return Ok(Some(dependencies));
    };
    let workspace_dependencies = inherited(dir)?;
    for (name, spec) in listed {
        let spec = match spec {
            toml::Value::Table(entry)
                if entry.get("workspace").and_then(toml::Value::as_bool) == Some(true) =>
            {
                let Some((inherited, root)) = workspace_dependencies
                    .as_ref()
                    .and_then(|(table, root)| Some((table.get(name)?, root.as_path())))
                else {
                    bail!(
                        "{}: `{name}.workspace = true`, but the workspace has no \
                         `[workspace.dependencies] {name}`",
                        manifest.display()
                    );
                };
                let mut merged = absolute_paths(inherited, root);
                if let (toml::Value::Table(merged), Some(features)) =
                    (&mut merged, entry.get("features"))
                {
                    merged.insert("features".to_owned(), features.clone());
                }
                merged
            }
            spec => absolute_paths(spec, dir),
        };
        dependencies.insert(name.clone(), without_optional(spec));
    }
    Ok(Some(dependencies))
}

/// `[workspace.dependencies]` of the workspace `dir` lives in, with that workspace's root.
fn inherited(dir: &Path) -> anyhow::Result<Option<(toml::Table, std::path::PathBuf)>> {
    let Some(root) = workspace_root(dir)? else {
        return Ok(None);
    };
    let table = read_table(&root.join("Cargo.toml"))?;
    Ok(table
        .get("workspace")
        .and_then(|workspace| workspace.get("dependencies"))
        .and_then(toml::Value::as_table)
        .map(|dependencies| (dependencies.clone(), root)))
}

/// A dependency with its `path` (relative to `base`) made absolute.
fn absolute_paths(spec: &toml::Value, base: &Path) -> toml::Value {
    let mut spec = spec.clone();
    if let toml::Value::Table(entry) = &mut spec
        && let Some(path) = entry.get("path").and_then(toml::Value::as_str)
    {
        let absolute = base.join(path);
        entry.insert(
            "path".to_owned(),
            toml::Value::String(absolute.to_string_lossy().into_owned()),
        );
    }
    spec
}

fn without_optional(mut spec: toml::Value) -> toml::Value {
    if let toml::Value::Table(entry) = &mut spec {
        entry.remove("optional");
    }
    spec
}

fn read_table(manifest: &Path) -> anyhow::Result<toml::Table> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    toml::from_str(&text).with_context(|| format!("parsing {}", manifest.display()))
}
