//! The snippets see the compile-time environment `mdbook test` gives them: rustdoc compiles a
//! doctest with the environment it was started in, where cargo sets nothing, so
//! `env!("CARGO_PKG_VERSION")` and `env!("CARGO_MANIFEST_DIR")` do not compile and
//! `option_env!` gives `None`. Cargo sets those for every crate it builds; so this binary is the
//! generated packages' `RUSTC_WORKSPACE_WRAPPER` (dependencies are built as cargo builds them),
//! and as one it runs rustc without them. A book that uses a package or declares crates is
//! tested with `cargo test --doc` instead, which sets them: for such a book the wrapper sets
//! the package's (`plan/package_env.rs`), passed in [`PACKAGE_ENV`].

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

/// Set on the cargo command so that this binary, run by cargo as a wrapper, knows it is one.
pub(crate) const WRAPPER_MARKER: &str = "MDBOOK_SNIPPETS_RUSTC_WRAPPER";

/// Set on the cargo command to the package variables the snippets compile with, as JSON
/// (`[[NAME, VALUE], ...]`); absent for a plain book.
pub(crate) const PACKAGE_ENV: &str = "MDBOOK_SNIPPETS_PACKAGE_ENV";

/// What cargo sets for rustc that rustdoc under `mdbook test` does not have.
fn set_by_cargo(name: &str) -> bool {
    const PREFIXES: [&str; 3] = ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_BIN_"];
    const NAMES: [&str; 6] = [
        "CARGO",
        "CARGO_CRATE_NAME",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_TARGET_TMPDIR",
        "CARGO_RUSTC_CURRENT_DIR",
        "CARGO_SBOM_PATH",
    ];
    PREFIXES.iter().any(|prefix| name.starts_with(prefix)) || NAMES.contains(&name)
}

/// When this process is cargo's wrapper (`WRAPPER_MARKER` set, `rustc ARGS...` as arguments),
/// replaces it with rustc, without cargo's variables; returns only on failure to start rustc.
/// `None` when it is not a wrapper.
pub(crate) fn run_if_wrapper() -> Option<ExitCode> {
    std::env::var_os(WRAPPER_MARKER)?;
    let mut args = std::env::args_os().skip(1);
    let Some(rustc) = args.next() else {
        eprintln!("error: {WRAPPER_MARKER} is set, but no rustc was given to run");
        return Some(ExitCode::from(2));
    };
    let mut command = Command::new(&rustc);
    command
        .args(args)
        .env_remove(WRAPPER_MARKER)
        .env_remove(PACKAGE_ENV);
    let cargo_set: Vec<OsString> = std::env::vars_os()
        .map(|(name, _)| name)
        .filter(|name| name.to_str().is_some_and(set_by_cargo))
        .collect();
    for name in cargo_set {
        command.env_remove(name);
    }
    let package: Vec<(String, String)> = std::env::var(PACKAGE_ENV)
        .ok()
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default();
    command.envs(package);
    let error = command.exec();
    eprintln!("error: running {}: {error}", rustc.to_string_lossy());
    Some(ExitCode::from(2))
}
