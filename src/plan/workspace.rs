//! Where the generated crate goes and what it links, worked out from the book's configuration
//! and the file system: the target dir, the harness crate's package and library names, the
//! harness workspace's `Cargo.lock` and `[profile]` tables, and the environment fingerprint the
//! cache keys start from (which hashes every package built from local source: `path_packages`).
//! What it finds is the generator's input besides the snippets ([`CrateSettings`], the harness
//! as [`HarnessDependency`], and as one snippet's code sees it, [`HarnessParts`]): made here, so
//! `build/` reads them and this stage never names `build/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::config::Config;
use crate::plan::package_book::library_less_dependencies;
use crate::plan::package_env::{documented_env, package_env};
use crate::plan::path_packages::{path_packages, workspace_root};
use crate::plan::toolchain::Toolchain;
use crate::plan::{cache, content_hash};

#[derive(Debug)]
pub(crate) struct Workspace {
    /// Where cargo builds: the target dir, or with `RUSTC_BOOTSTRAP` set a directory per value
    /// of it (`cargo_target_dir`).
    pub target_dir: PathBuf,
    /// `<target>/mdbook-snippets/<book key>/`: the generated crate, canonical (cargo reports
    /// paths that way, and they are compared with it).
    pub crate_dir: PathBuf,
    /// `<target>/mdbook-snippets/cache/`.
    pub cache_dir: PathBuf,
    pub settings: CrateSettings,
    /// The lock file of the workspace the harness (else the book) lives in, the starting point
    /// of the generated crate's own lock so versions match; `None` outside a workspace (the
    /// generated crate keeps a lock of its own).
    pub lock_file: Option<PathBuf>,
    /// The environment part of every cache key.
    pub fingerprint: String,
    /// What compiles the snippets (`toolchain.rs`).
    pub toolchain: Toolchain,
}

/// Everything that goes into the manifests besides the snippets.
#[derive(Debug, Clone)]
pub(crate) struct CrateSettings {
    /// Unique per book, so books sharing a target dir do not overwrite each other's binaries.
    pub package_name: String,
    pub harness: Option<HarnessDependency>,
    /// `[preprocessor.snippets.dependencies]`, paths already absolute.
    pub dependencies: BTreeMap<String, toml::Value>,
    /// Copied from the harness workspace (`[profile.*]` tables, as TOML text) so that shared
    /// dependencies are built once.
    pub profiles: String,
    /// Cargo's package variables the snippets compile with (`package_env.rs`): none for a
    /// plain book, as under `mdbook test`.
    pub package_env: Vec<(String, String)>,
    /// The edition of a book that is a package (`harness = "."`), for snippets when the book
    /// names none.
    pub package_edition: Option<String>,
}

/// The harness crate every snippet links, when the book has one; each part of its protocol is
/// optional.
#[derive(Debug, Clone)]
pub(crate) struct HarnessDependency {
    pub package_name: String,
    pub lib_name: String,
    /// Canonical path of the harness crate.
    pub path: PathBuf,
    /// It has a `prelude` module every snippet imports.
    pub prelude: bool,
    /// It has `snippet_main`, which runs snippets without their own `fn main`.
    pub snippet_main: bool,
    /// The harness package's edition (its own, or its workspace's), the edition of snippets
    /// written for it when the book names none.
    pub edition: Option<String>,
}

impl CrateSettings {
    pub(crate) fn harness_parts(&self) -> Option<HarnessParts<'_>> {
        self.harness.as_ref().map(|harness| HarnessParts {
            lib: &harness.lib_name,
            prelude: harness.prelude,
            snippet_main: harness.snippet_main,
            edition: harness.edition.as_deref(),
        })
    }
}

/// The harness as the code of one snippet sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HarnessParts<'a> {
    pub lib: &'a str,
    pub prelude: bool,
    pub snippet_main: bool,
    pub edition: Option<&'a str>,
}

impl Workspace {
    pub(crate) fn discover(config: &Config, toolchain: Toolchain) -> anyhow::Result<Workspace> {
        // A harness that is a package without a library (`harness = "."` in a book that is a
        // package): its dependencies are the snippets', and it places the build as a harness
        // crate does.
        let package_dependencies = match &config.harness {
            Some(path) if path.join("Cargo.toml").is_file() => library_less_dependencies(path)?,
            _ => None,
        };
        let harness = match &config.harness {
            Some(path) if package_dependencies.is_none() => Some(harness_dependency(path)?),
            _ => None,
        };
        let mut dependencies = config.dependencies.clone();
        for (name, spec) in package_dependencies.iter().flatten() {
            dependencies
                .entry(name.clone())
                .or_insert_with(|| spec.clone());
        }
        let workspace_root = match (&harness, &config.harness) {
            (Some(harness), _) => {
                Some(workspace_root(&harness.path)?.unwrap_or(harness.path.clone()))
            }
            (None, Some(package)) => Some(workspace_root(package)?.unwrap_or(package.clone())),
            (None, None) => workspace_root(&config.book_root)?,
        };
        let target_dir = match (&config.target_dir, std::env::var_os("CARGO_TARGET_DIR")) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dir)) => PathBuf::from(dir),
            (None, None) => workspace_root
                .as_deref()
                .unwrap_or(&config.book_root)
                .join("target"),
        };
        let book_key = &content_hash::hash_str(&config.book_root.to_string_lossy())[..10];
        let crate_dir = target_dir.join("mdbook-snippets").join(book_key);
        std::fs::create_dir_all(&crate_dir)
            .with_context(|| format!("creating {}", crate_dir.display()))?;
        let crate_dir = std::fs::canonicalize(&crate_dir)
            .with_context(|| format!("resolving {}", crate_dir.display()))?;
        let target_dir = std::fs::canonicalize(&target_dir)
            .with_context(|| format!("resolving {}", target_dir.display()))?;
        let lock_file = workspace_root
            .as_ref()
            .map(|root| root.join("Cargo.lock"))
            .filter(|lock| lock.is_file());
        let profiles = match &workspace_root {
            Some(root) => profiles(&root.join("Cargo.toml"))?,
            None => String::new(),
        };

        let mut fingerprint = format!(
            "mdbook-snippets {} {}\n",
            env!("CARGO_PKG_VERSION"),
            build_identity(
                &target_dir
                    .join("mdbook-snippets")
                    .join("cache")
                    .join("build-identity")
            )
        );
        fingerprint.push_str(&toolchain.version);
        // What changes what rustc accepts or emits: the flags (cargo reads
        // `CARGO_ENCODED_RUSTFLAGS` before `RUSTFLAGS`) and `RUSTC_BOOTSTRAP` (`#![feature]` on a
        // stable toolchain). `RUSTC` is in `rustc -vV`; `RUSTC_WRAPPER` (sccache) changes no
        // verdict.
        for name in ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "RUSTC_BOOTSTRAP"] {
            let value = std::env::var_os(name).map(|value| value.to_string_lossy().into_owned());
            fingerprint.push_str(&format!("{name}={value:?}\n"));
        }
        fingerprint.push_str(&profiles);
        // What a snippet can read of the verifier's environment (`pass-env`) can change what it
        // does; the values only as hashes.
        for name in &config.pass_env {
            let value = std::env::var_os(name).map(|value| value.to_string_lossy().into_owned());
            let value = value.as_deref().map(content_hash::hash_str);
            fingerprint.push_str(&format!("pass-env {name} = {value:?}\n"));
        }
        // Where a snippet may write (`writable`) can change what it does.
        fingerprint.push_str(&format!("writable {:?}\n", config.writable));
        // Every package built from local source, the harness's path dependencies' path
        // dependencies too: `Cargo.lock` pins only registry and git packages.
        let mut local_roots: Vec<PathBuf> =
            harness.iter().map(|harness| harness.path.clone()).collect();
        for (name, spec) in &dependencies {
            fingerprint.push_str(&format!("dependency {name} = {spec}\n"));
            if let Some(path) = spec.get("path").and_then(|path| path.as_str()) {
                local_roots.push(PathBuf::from(path));
            }
        }
        for package in path_packages(&local_roots)? {
            let hash = content_hash::hash_package(&package.dir)?;
            fingerprint.push_str(&format!("path package {} {hash}\n", package.name));
        }
        if let Some(lock) = &lock_file {
            let text = std::fs::read_to_string(lock)
                .with_context(|| format!("reading {}", lock.display()))?;
            fingerprint.push_str(&format!("lock {}\n", content_hash::hash_str(&text)));
        }

        // As `cargo test --doc` would see the book: the package's variables, or the
        // documented ones for declared crates; none for a plain book.
        let (package_env, package_edition) = match (&harness, &config.harness) {
            (Some(harness), _) => (package_env(&harness.path)?.0, None),
            (None, Some(package)) => package_env(package)?,
            (None, None) if !config.dependencies.is_empty() => {
                (documented_env(&config.book_root), None)
            }
            (None, None) => (Vec::new(), None),
        };
        for (name, value) in &package_env {
            fingerprint.push_str(&format!("env {name}={value:?}\n"));
        }

        Ok(Workspace {
            cache_dir: target_dir.join("mdbook-snippets").join("cache"),
            crate_dir,
            target_dir: cargo_target_dir(&target_dir),
            settings: CrateSettings {
                package_name: format!("snippets-{book_key}"),
                harness,
                dependencies,
                profiles,
                package_env,
                package_edition,
            },
            lock_file,
            fingerprint,
            toolchain,
        })
    }
}

/// Reads the harness crate's manifest for its package and library names.
fn harness_dependency(path: &Path) -> anyhow::Result<HarnessDependency> {
    let manifest = path.join("Cargo.toml");
    if !manifest.is_file() {
        bail!(
            "harness crate not found: {} does not exist (set by `harness` in [preprocessor.snippets])",
            manifest.display()
        );
    }
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let table: toml::Table =
        toml::from_str(&text).with_context(|| format!("parsing {}", manifest.display()))?;
    let Some(package_name) = table
        .get("package")
        .and_then(|package| package.get("name"))
        .and_then(|name| name.as_str())
    else {
        bail!("{} has no `package.name`", manifest.display());
    };
    let lib = table.get("lib");
    let lib_name = lib
        .and_then(|lib| lib.get("name"))
        .and_then(|name| name.as_str())
        .map_or_else(|| package_name.replace('-', "_"), str::to_owned);
    let lib_file = path.join(
        lib.and_then(|lib| lib.get("path"))
            .and_then(|path| path.as_str())
            .unwrap_or("src/lib.rs"),
    );
    let lib_text = std::fs::read_to_string(&lib_file)
        .with_context(|| format!("reading the harness library {}", lib_file.display()))?;
    let (prelude, snippet_main) = harness_parts(&lib_text);
    let edition = match table
        .get("package")
        .and_then(|package| package.get("edition"))
    {
        Some(toml::Value::String(edition)) => Some(edition.clone()),
        // `edition.workspace = true`: the workspace's `[workspace.package] edition`.
        Some(toml::Value::Table(_)) => workspace_edition(path)?,
        _ => None,
    };
    Ok(HarnessDependency {
        package_name: package_name.to_owned(),
        lib_name,
        path: path.to_path_buf(),
        prelude,
        snippet_main,
        edition,
    })
}

/// `[workspace.package] edition` of the workspace `dir` lives in.
fn workspace_edition(dir: &Path) -> anyhow::Result<Option<String>> {
    let Some(root) = workspace_root(dir)? else {
        return Ok(None);
    };
    let manifest = root.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let table: toml::Table =
        toml::from_str(&text).with_context(|| format!("parsing {}", manifest.display()))?;
    Ok(table
        .get("workspace")
        .and_then(|workspace| workspace.get("package"))
        .and_then(|package| package.get("edition"))
        .and_then(|edition| edition.as_str())
        .map(str::to_owned))
}

/// Which parts of the harness protocol a harness library's root file provides: a `prelude`
/// module, and `snippet_main` (defined or re-exported there). A harness with neither is just a
/// dependency. Read from the source, before building, so the generated code can rely on it.
fn harness_parts(lib_text: &str) -> (bool, bool) {
    let code: String = lib_text
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let prelude = code.contains("mod prelude") || code.contains(" as prelude");
    let re_exported = code.contains("pub use")
        && code
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == "snippet_main");
    let snippet_main = code.contains("fn snippet_main") || re_exported;
    (prelude, snippet_main)
}

/// The `[profile.*]` tables of a workspace manifest, as TOML text.
fn profiles(manifest: &Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let table: toml::Table =
        toml::from_str(&text).with_context(|| format!("parsing {}", manifest.display()))?;
    let Some(profile) = table.get("profile") else {
        return Ok(String::new());
    };
    let mut only_profiles = toml::Table::new();
    only_profiles.insert("profile".to_owned(), profile.clone());
    toml::to_string(&only_profiles).context("writing the profile tables")
}

/// Where cargo builds the generated crate: `target` itself, or with `RUSTC_BOOTSTRAP` set, a
/// directory per value of it, `<target>/mdbook-snippets/rustc-bootstrap-<hash>/`. Cargo
/// fingerprints `RUSTFLAGS` but not `RUSTC_BOOTSTRAP`, so in one target dir a binary built with
/// it (a `#![feature]` accepted) is reused without it. A target dir per value builds the
/// dependencies once more, the first time; the alternative that keeps them shared (other
/// package names) would not stay cheap: the build scripts of proc-macro2, anyhow and thiserror
/// probe for nightly and rerun on a change of `RUSTC_BOOTSTRAP`, so every switch would build
/// them and what depends on them (syn, every derive) again, where two directories build nothing.
fn cargo_target_dir(target_dir: &Path) -> PathBuf {
    match std::env::var_os("RUSTC_BOOTSTRAP") {
        None => target_dir.to_owned(),
        Some(value) => target_dir.join("mdbook-snippets").join(format!(
            "rustc-bootstrap-{}",
            &content_hash::hash_str(&value.to_string_lossy())[..8]
        )),
    }
}

/// This build of the tool, so results recorded by another build (an upgrade, a rebuild from
/// changed sources at the same version) are not taken for its own: a SHA-256 of the
/// executable's content, so a reinstall of the same build (a CI job that installs the tool on
/// every run) keeps the cache. Hashing costs tens of milliseconds, so the hash is remembered in
/// `memo` (in the cache directory, out of every sandboxed process's reach) beside the
/// executable's size, modification time and inode, and made again only when one changed.
/// Empty when the executable cannot be read (the version alone then keys the cache).
fn build_identity(memo: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let Ok(executable) = std::env::current_exe() else {
        return String::new();
    };
    let Ok(metadata) = std::fs::metadata(&executable) else {
        return String::new();
    };
    let stamp = format!(
        "{} {} {} {}",
        metadata.len(),
        metadata.mtime(),
        metadata.mtime_nsec(),
        metadata.ino()
    );
    if let Some(file) = cache::open_regular(memo, 4096) {
        let mut text = String::new();
        if std::io::Read::read_to_string(&mut std::io::Read::take(file, 4096), &mut text).is_ok()
            && let Some((remembered, hash)) = text.trim_end().rsplit_once(' ')
            && remembered == stamp
        {
            return format!("build {hash}");
        }
    }
    let Ok(hash) = content_hash::hash_path(&executable) else {
        return String::new();
    };
    if let Some(dir) = memo.parent()
        && std::fs::create_dir_all(dir).is_ok()
        && let Ok(mut partial) = tempfile::NamedTempFile::with_prefix_in(".partial-", dir)
        && std::io::Write::write_all(&mut partial, format!("{stamp} {hash}\n").as_bytes()).is_ok()
    {
        let _ = partial.persist(memo);
    }
    format!("build {hash}")
}
