//! Which Rust toolchain compiles the snippets: the one `mdbook test` gets. mdBook runs
//! `rustdoc` in a temporary directory, so rustup picks its toolchain as it would outside the
//! book: `RUSTUP_TOOLCHAIN` when set, else the default (never a `rust-toolchain.toml` of the
//! book or its workspace). The verifier asks `rustc` for its sysroot from the temporary
//! directory too, and runs that toolchain's `cargo` with `RUSTC` set to its `rustc`, so a
//! toolchain file in the book cannot switch either. A `RUSTC` in the environment wins, as it
//! does for cargo. Choosing another: `RUSTUP_TOOLCHAIN=nightly mdbook-snippets test` (which
//! `mdbook test` honours the same way).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

#[derive(Debug, Clone)]
pub(crate) struct Toolchain {
    /// The `rustc` cargo is told to use (`RUSTC`).
    pub rustc: PathBuf,
    /// The `cargo` that builds the snippets.
    pub cargo: PathBuf,
    /// The toolchain's directory (`rustc --print sysroot`).
    pub sysroot: PathBuf,
    /// `rustc -vV`, part of every cache key.
    pub version: String,
}

impl Toolchain {
    /// The toolchain of `mdbook test`, or the one `RUSTC` names.
    pub(crate) fn resolve() -> anyhow::Result<Toolchain> {
        let outside = std::env::temp_dir();
        let chosen = std::env::var_os("RUSTC").map(PathBuf::from);
        let asked = chosen.clone().unwrap_or_else(|| PathBuf::from("rustc"));
        let sysroot = PathBuf::from(run(&asked, &["--print", "sysroot"], &outside)?.trim());
        let in_sysroot = |name: &str| {
            let path = sysroot.join("bin").join(name);
            path.is_file().then_some(path)
        };
        let rustc = chosen.unwrap_or_else(|| in_sysroot("rustc").unwrap_or(asked));
        let cargo = in_sysroot("cargo")
            .or_else(|| std::env::var_os("CARGO").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("cargo"));
        let version = run(&rustc, &["-vV"], &outside)?;
        Ok(Toolchain {
            rustc,
            cargo,
            sysroot,
            version,
        })
    }

    /// `rustc 1.95.0 (59807616e 2026-04-14)`: the first line of `rustc -vV`.
    pub(crate) fn release(&self) -> &str {
        self.version.lines().next().unwrap_or_default()
    }

    /// The line a run starts with: which toolchain compiles, where it is, and how to choose
    /// another; with a note when the book lies under a `rust-toolchain.toml`, which is not read.
    pub(crate) fn describe(&self, book_root: &Path) -> String {
        let mut line = format!(
            "compiling with {} from {} (the toolchain `mdbook test` uses here; RUSTUP_TOOLCHAIN \
             or RUSTC chooses another)",
            self.release(),
            self.sysroot.display()
        );
        if let Some(file) = toolchain_file(book_root) {
            line.push_str(&format!(
                "; {} is not read, as `mdbook test` does not read it",
                file.display()
            ));
        }
        line
    }
}

/// The `rust-toolchain.toml` (or `rust-toolchain`) rustup would read in `dir` or above.
fn toolchain_file(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().find_map(|dir| {
        ["rust-toolchain.toml", "rust-toolchain"]
            .iter()
            .map(|name| dir.join(name))
            .find(|path| path.is_file())
    })
}

fn run(program: &Path, args: &[&str], dir: &Path) -> anyhow::Result<String> {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .with_context(|| format!("running {} {}", program.display(), args.join(" ")))?;
    if !output.status.success() {
        bail!(
            "`{} {}` failed: {}",
            program.display(),
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
