//! Where the generated crate goes and what it links, worked out from the book's configuration
//! and the file system: the target dir, the harness crate's package and library names, the
//! harness workspace's `Cargo.lock` and `[profile]` tables, and the environment fingerprint the
//! cache keys start from.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use crate::cache;
use crate::config::Config;
use crate::generate::{CrateSettings, HarnessDependency};

#[derive(Debug)]
pub struct Workspace {
    pub target_dir: PathBuf,
    /// `<target>/mdbook-snippets/<book key>/`: the generated crate.
    pub crate_dir: PathBuf,
    /// `<target>/mdbook-snippets/cache/`.
    pub cache_dir: PathBuf,
    pub settings: CrateSettings,
    /// The harness workspace's lock file, copied next to the generated manifest so versions
    /// match.
    pub lock_file: Option<PathBuf>,
    /// The environment part of every cache key.
    pub fingerprint: String,
}

impl Workspace {
    pub fn discover(config: &Config) -> anyhow::Result<Workspace> {
        let harness = match &config.harness {
            Some(path) => Some(harness_dependency(path)?),
            None => None,
        };
        let workspace_root = match &harness {
            Some(harness) => workspace_root(&harness.path)?,
            None => config.book_root.clone(),
        };
        let target_dir = match (&config.target_dir, std::env::var_os("CARGO_TARGET_DIR")) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dir)) => PathBuf::from(dir),
            (None, None) => workspace_root.join("target"),
        };
        let target_dir = std::path::absolute(&target_dir)
            .with_context(|| format!("resolving {}", target_dir.display()))?;
        let book_key = &cache::hash_str(&config.book_root.to_string_lossy())[..10];
        let lock_file = Some(workspace_root.join("Cargo.lock")).filter(|lock| lock.is_file());
        let profiles = match &harness {
            Some(_) => profiles(&workspace_root.join("Cargo.toml"))?,
            None => String::new(),
        };

        let mut fingerprint = format!("mdbook-snippets {}\n", env!("CARGO_PKG_VERSION"));
        fingerprint.push_str(&rustc_version()?);
        fingerprint.push_str(&format!(
            "RUSTFLAGS={:?}\n",
            std::env::var("RUSTFLAGS").unwrap_or_default()
        ));
        fingerprint.push_str(&profiles);
        if let Some(harness) = &harness {
            fingerprint.push_str(&format!("harness {}\n", cache::hash_tree(&harness.path)?));
        }
        if let Some(lock) = &lock_file {
            let text = std::fs::read_to_string(lock)
                .with_context(|| format!("reading {}", lock.display()))?;
            fingerprint.push_str(&format!("lock {}\n", cache::hash_str(&text)));
        }

        Ok(Workspace {
            crate_dir: target_dir.join("mdbook-snippets").join(book_key),
            cache_dir: target_dir.join("mdbook-snippets").join("cache"),
            target_dir,
            settings: CrateSettings {
                package_name: format!("snippets-{book_key}"),
                harness,
                profiles,
            },
            lock_file,
            fingerprint,
        })
    }
}

/// An exclusive lock on a generated crate directory, held while the crate is written, built and
/// run: two runs on one book at once (`mdbook serve` and `mdbook-snippets test`, say) would
/// otherwise rewrite each other's module files mid-build. Released when dropped.
#[derive(Debug)]
pub struct CrateLock {
    _file: std::fs::File,
}

impl Workspace {
    /// Takes the lock on [`Workspace::crate_dir`], saying on stderr when another run holds it
    /// and this one waits.
    pub fn lock(&self) -> anyhow::Result<CrateLock> {
        lock_dir(&self.crate_dir)
    }
}

/// Locks `dir/.mdbook-snippets.lock` with `flock`, creating both as needed.
pub fn lock_dir(dir: &Path) -> anyhow::Result<CrateLock> {
    use std::os::fd::AsRawFd;

    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(".mdbook-snippets.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    let flock = |operation| {
        // SAFETY: flock only acts on the descriptor, which `file` keeps open.
        if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    };
    match flock(libc::LOCK_EX | libc::LOCK_NB) {
        Ok(()) => return Ok(CrateLock { _file: file }),
        Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => eprintln!(
            "waiting for {} (another mdbook-snippets run is building this book)",
            path.display()
        ),
        Err(error) => return Err(error).with_context(|| format!("locking {}", path.display())),
    }
    loop {
        match flock(libc::LOCK_EX) {
            Ok(()) => return Ok(CrateLock { _file: file }),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error).with_context(|| format!("locking {}", path.display())),
        }
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
    let lib_name = table
        .get("lib")
        .and_then(|lib| lib.get("name"))
        .and_then(|name| name.as_str())
        .map_or_else(|| package_name.replace('-', "_"), str::to_owned);
    Ok(HarnessDependency {
        package_name: package_name.to_owned(),
        lib_name,
        path: std::path::absolute(path).with_context(|| format!("resolving {}", path.display()))?,
    })
}

/// The nearest directory at or above `crate_dir` whose manifest has a `[workspace]` table, else
/// `crate_dir` itself.
fn workspace_root(crate_dir: &Path) -> anyhow::Result<PathBuf> {
    for dir in crate_dir.ancestors() {
        let manifest = dir.join("Cargo.toml");
        if let Ok(text) = std::fs::read_to_string(&manifest) {
            let table: toml::Table =
                toml::from_str(&text).with_context(|| format!("parsing {}", manifest.display()))?;
            if table.contains_key("workspace") {
                return Ok(dir.to_path_buf());
            }
        }
    }
    Ok(crate_dir.to_path_buf())
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

fn rustc_version() -> anyhow::Result<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .arg("-vV")
        .output()
        .with_context(|| format!("running {} -vV", rustc.to_string_lossy()))?;
    if !output.status.success() {
        bail!(
            "`rustc -vV` failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
