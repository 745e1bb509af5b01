//! The packages a generated crate builds from local source: the harness, each `dependencies`
//! entry with a `path`, and every path dependency of theirs, transitively: `path` entries of
//! `[dependencies]`, `[build-dependencies]` and their `[target.'cfg(..)'.*]` forms, and
//! `workspace = true` entries whose `[workspace.dependencies]` entry has a `path`, as cargo
//! reads them when it builds a dependency (dev-dependencies are not built for a dependent).
//! Their sources are part of the cache key, since `Cargo.lock` pins only the versions of
//! registry and git packages: a change to any file of one of them must build and run the
//! snippets again.
//!
//! Read from the manifests rather than through `cargo metadata`: `--no-deps` refuses a
//! dependency that sits inside a workspace which does not list it (cargo builds it all the
//! same), and a full resolution costs a quarter of a second on every warm run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// A package built from a directory on this machine.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct PathPackage {
    pub name: String,
    /// The directory of its `Cargo.toml`, canonical.
    pub dir: PathBuf,
}

/// Every package reached from the packages in `roots` (directories holding a `Cargo.toml`)
/// through path dependencies, the roots included, in name order.
pub(crate) fn path_packages(roots: &[PathBuf]) -> anyhow::Result<Vec<PathPackage>> {
    let mut found = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut queue: Vec<PathBuf> = roots.to_vec();
    while let Some(dir) = queue.pop() {
        let dir = std::fs::canonicalize(&dir)
            .with_context(|| format!("resolving the path dependency {}", dir.display()))?;
        if !seen.insert(dir.clone()) {
            continue;
        }
        let manifest = read_manifest(&dir.join("Cargo.toml"))?;
        let Some(name) = manifest
            .get("package")
            .and_then(|package| package.get("name"))
            .and_then(|name| name.as_str())
        else {
            anyhow::bail!(
                "{} has no `package.name` (a path dependency must be a package)",
                dir.join("Cargo.toml").display()
            );
        };
        let name = name.to_owned();
        queue.extend(dependency_dirs(&dir, &manifest)?);
        found.insert(PathPackage { name, dir });
    }
    Ok(found.into_iter().collect())
}

/// The nearest directory at or above `dir` whose manifest has a `[workspace]` table.
pub(crate) fn workspace_root(dir: &Path) -> anyhow::Result<Option<PathBuf>> {
    for dir in dir.ancestors() {
        let manifest = dir.join("Cargo.toml");
        if let Ok(text) = std::fs::read_to_string(&manifest) {
            let table: toml::Table =
                toml::from_str(&text).with_context(|| format!("parsing {}", manifest.display()))?;
            if table.contains_key("workspace") {
                return Ok(Some(dir.to_path_buf()));
            }
        }
    }
    Ok(None)
}

fn read_manifest(manifest: &Path) -> anyhow::Result<toml::Table> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    toml::from_str(&text).with_context(|| format!("parsing {}", manifest.display()))
}

/// The directories of the path dependencies the package in `dir` builds with.
fn dependency_dirs(dir: &Path, manifest: &toml::Table) -> anyhow::Result<Vec<PathBuf>> {
    let targets = manifest
        .get("target")
        .and_then(|targets| targets.as_table())
        .into_iter()
        .flat_map(|targets| targets.values().filter_map(|target| target.as_table()));
    let tables = std::iter::once(manifest).chain(targets).flat_map(|table| {
        ["dependencies", "build-dependencies", "build_dependencies"]
            .into_iter()
            .filter_map(|kind| table.get(kind).and_then(|kind| kind.as_table()))
    });
    // `workspace = true` entries, looked up once in the workspace's `[workspace.dependencies]`.
    let mut inherited: Option<BTreeMap<String, PathBuf>> = None;
    let mut dirs = Vec::new();
    for (name, spec) in tables.flatten() {
        if let Some(path) = spec.get("path").and_then(|path| path.as_str()) {
            dirs.push(dir.join(path));
        } else if spec.get("workspace").and_then(|value| value.as_bool()) == Some(true) {
            if inherited.is_none() {
                inherited = Some(workspace_paths(dir)?);
            }
            if let Some(path) = inherited.as_ref().and_then(|paths| paths.get(name)) {
                dirs.push(path.clone());
            }
        }
    }
    Ok(dirs)
}

/// The `path` entries of `[workspace.dependencies]` in the workspace `dir` belongs to, each
/// made absolute from the workspace root.
fn workspace_paths(dir: &Path) -> anyhow::Result<BTreeMap<String, PathBuf>> {
    let Some(root) = workspace_root(dir)? else {
        return Ok(BTreeMap::new());
    };
    let manifest = read_manifest(&root.join("Cargo.toml"))?;
    let Some(toml::Value::Table(dependencies)) = manifest
        .get("workspace")
        .and_then(|workspace| workspace.get("dependencies"))
    else {
        return Ok(BTreeMap::new());
    };
    Ok(dependencies
        .iter()
        .filter_map(|(name, spec)| {
            let path = spec.get("path")?.as_str()?;
            Some((name.clone(), root.join(path)))
        })
        .collect())
}

#[cfg(test)]
#[path = "path_packages_tests.rs"]
mod tests;
