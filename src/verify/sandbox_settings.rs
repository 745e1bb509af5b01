//! What every process a verification starts shares in the sandbox (`run/sandbox.rs`
//! `Settings`): the book's resource limits, the cache directories no process may see (its
//! secret and entries), and the paths a private `/tmp` must keep (the book, the target
//! directory).

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::run::sandbox::Settings;

/// The settings before the workspace is known (the `mutants` command runs first): every cache
/// directory this book's runs could use, where it exists.
pub(super) fn before_workspace(config: &Config) -> Settings {
    let mut targets: Vec<PathBuf> = config.target_dir.iter().cloned().collect();
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        targets.push(PathBuf::from(dir));
    }
    targets.extend(config.book_root.ancestors().map(|dir| dir.join("target")));
    let hidden = targets
        .iter()
        .map(|target| cache_dir(target))
        .filter_map(|dir| std::fs::canonicalize(dir).ok())
        .collect();
    settings(config, hidden, Vec::new())
}

/// The settings once the workspace is known: its cache directory (made now, so there is
/// something to hide) and its target directory.
pub(super) fn with_workspace(
    config: &Config,
    cache_dir: &Path,
    target_dir: &Path,
) -> anyhow::Result<Settings> {
    use anyhow::Context;
    std::fs::create_dir_all(cache_dir)
        .with_context(|| format!("creating {}", cache_dir.display()))?;
    let cache_dir = std::fs::canonicalize(cache_dir)
        .with_context(|| format!("resolving {}", cache_dir.display()))?;
    Ok(settings(
        config,
        vec![cache_dir],
        vec![target_dir.to_owned()],
    ))
}

/// Where a target directory keeps the cache (`plan/workspace.rs`).
fn cache_dir(target: &Path) -> PathBuf {
    target.join("mdbook-snippets").join("cache")
}

fn settings(config: &Config, hidden: Vec<PathBuf>, mut keep: Vec<PathBuf>) -> Settings {
    // The build's deadline is the build stage's own (`build/deadline.rs`).
    crate::build::deadline::set_build_timeout(Some(config.build_timeout));
    const MIB: u64 = 1 << 20;
    keep.push(config.book_root.clone());
    let limits = &config.limits;
    Settings {
        hidden,
        keep,
        process_limit: Some(limits.processes),
        memory_limit: Some(limits.memory_mib.saturating_mul(MIB)),
        file_size_limit: Some(limits.file_size_mib.saturating_mul(MIB)),
        scratch_limit: Some(limits.scratch_mib.saturating_mul(MIB)),
        pass_env: config.pass_env.clone(),
        backtrace: config.backtrace,
        no_network: !config.network,
    }
}

/// What can change a verdict besides the snippet and the build (`plan/workspace.rs` keys
/// those), for every cache key: the containment (a verdict from a weaker one is never reused
/// under a stronger), the limits, the output limit, `backtrace`, and the values (hashed) of the
/// variables every snippet gets: `LANG`, `LANGUAGE`, `TZ`, `LC_*`, `MDBOOK_SNIPPETS_*`
/// (`pass-env` is keyed with the workspace).
pub(super) fn verdict_inputs(config: &Config) -> String {
    let containment = crate::run::sandbox::containment()
        .map(|containment| containment.summary.clone())
        .unwrap_or_else(|error| format!("{error:#}"));
    let mut inputs = format!(
        "{containment}\nlimits {:?}\noutput-limit {}\nbacktrace {}\nnetwork {}\n",
        config.limits, config.output_limit, config.backtrace, config.network
    );
    let mut passed: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(name, value)| {
            let name = name.into_string().ok()?;
            let keyed = ["LANG", "LANGUAGE", "TZ"].contains(&name.as_str())
                || name.starts_with("LC_")
                || name.starts_with("MDBOOK_SNIPPETS_");
            keyed.then(|| {
                let value = crate::plan::hash_str(&value.to_string_lossy());
                (name, value)
            })
        })
        .collect();
    passed.sort();
    for (name, value) in passed {
        inputs.push_str(&format!("env {name} = {value}\n"));
    }
    inputs
}
