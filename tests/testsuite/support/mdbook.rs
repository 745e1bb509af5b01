//! The real `mdbook` 0.5 binary, with our `mdbook-snippets` first on its PATH (mdBook runs the
//! preprocessor `snippets` as `mdbook-snippets`). A missing mdBook fails the test: it is never
//! skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::book::Book;
use super::output::Output;

/// `mdbook` from PATH, else `~/.cargo/bin`.
pub(crate) fn mdbook_binary() -> PathBuf {
    let candidates = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo/bin")));
    for dir in candidates {
        let candidate = dir.join("mdbook");
        if candidate.is_file() {
            let version = Command::new(&candidate).arg("--version").output();
            if let Ok(version) = version
                && String::from_utf8_lossy(&version.stdout).starts_with("mdbook v0.5.")
            {
                return candidate;
            }
        }
    }
    panic!(
        "mdBook 0.5 was not found on PATH or in ~/.cargo/bin; install it with \
         `scripts/install-mdbook.sh` (cargo install mdbook --version 0.5.4 --locked)"
    );
}

/// PATH with our binary's directory first.
fn path_with_our_binary() -> std::ffi::OsString {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_mdbook-snippets"));
    std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap()
}

/// `mdbook ARGS` with our binary first on PATH, not run yet (`mdbook serve` spawns it).
pub(crate) fn command(args: &[&str]) -> Command {
    let mut command = Command::new(mdbook_binary());
    command.args(args).env("PATH", path_with_our_binary());
    command
}

/// Runs `mdbook ARGS` on `book`, with `env` added.
pub(crate) fn run(book: &Book, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = command(args);
    // `mdbook test` runs rustdoc, which leaves a folder in TMPDIR when a block fails.
    command
        .env("TMPDIR", book.tmpdir())
        .envs(env.iter().copied());
    book.run(command)
}
