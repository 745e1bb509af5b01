//! What this repository's Python and TypeScript code runs with: `scripts/setup-languages.sh`
//! (the venv, the snippet helper's `node_modules`, the release test server), run once per test
//! process.

use std::path::PathBuf;
use std::sync::OnceLock;

use super::files::repo;

/// Installs what the book's Python and TypeScript snippets and templates run with (the venv,
/// the snippet helper's node_modules) and builds the release test server they start:
/// `scripts/setup-languages.sh`, once per test process.
pub(crate) fn set_up_languages() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let script = repo().join("scripts/setup-languages.sh");
        let output = std::process::Command::new(&script)
            .current_dir(repo())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap_or_else(|error| panic!("running {}: {error}", script.display()));
        assert!(
            output.status.success(),
            "{} failed ({}):\n{}{}",
            script.display(),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    });
}

/// The release test server binary `scripts/setup-languages.sh` builds.
pub(crate) fn test_server() -> PathBuf {
    set_up_languages();
    repo().join("target/release/mcp-testserver")
}

/// The Python of the venv `scripts/setup-languages.sh` makes (PyPI `mcp`, pinned).
pub(crate) fn python() -> PathBuf {
    set_up_languages();
    repo().join("target/interop/venv/bin/python")
}

/// The `node_modules` `scripts/setup-languages.sh` installs for the TypeScript snippets (the
/// pinned SDK, `tsx`).
pub(crate) fn typescript_node_modules() -> PathBuf {
    set_up_languages();
    repo().join("interop/snippets/typescript/node_modules")
}
