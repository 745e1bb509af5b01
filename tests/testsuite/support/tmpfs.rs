//! A full disk: `mdbook-snippets test` with its target dir on a small tmpfs, mounted in a mount
//! namespace of its own (so it vanishes with it). Needs root or user namespaces; without them
//! the caller is told, and says which check did not run.

use std::process::{Command, Stdio};

use super::book::Book;
use super::output::Output;

/// Runs `mdbook-snippets test BOOK --quiet --target-dir $MOUNT/target` with a tmpfs of `size`
/// (`mount -o size=`) at `$MOUNT`, first filled up when `fill`, then the shell command `then`
/// (`$MOUNT` set, its output after the verifier's); the exit code is the verifier's. `None`
/// when this machine cannot mount one (no root and no user namespaces).
pub(crate) fn test_on_tmpfs(book: &Book, size: &str, fill: bool, then: &str) -> Option<Output> {
    let mount = tempfile::tempdir().unwrap();
    let fill = if fill {
        "(dd if=/dev/zero of=\"$MOUNT/fill\" bs=4k 2>/dev/null; true) && "
    } else {
        ""
    };
    let script = format!(
        "mount -t tmpfs -o size={size} tmpfs \"$MOUNT\" && mkdir \"$MOUNT/target\" && {fill}\
         {verifier} test {book} --quiet --target-dir \"$MOUNT/target\"; code=$?; {then}; exit $code",
        verifier = env!("CARGO_BIN_EXE_mdbook-snippets"),
        book = book.path().display(),
    );
    let mut command = in_mount_namespace()?;
    command
        .args(["sh", "-c", &script])
        .env("MOUNT", mount.path());
    let output = command.output().unwrap();
    Some(Output::of(script, book.path(), &output))
}

/// `unshare` into a mount namespace as root (mapped, when we are not); `None` when this machine
/// cannot.
fn in_mount_namespace() -> Option<Command> {
    let unshare = || {
        let mut command = Command::new("unshare");
        if !is_root() {
            command.arg("--map-root-user");
        }
        command.arg("--mount");
        command
    };
    let probe = unshare().arg("true").stderr(Stdio::null()).status();
    probe.is_ok_and(|status| status.success()).then(unshare)
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find(|line| line.starts_with("Uid:"))
            .is_some_and(|line| line.split_whitespace().nth(1) == Some("0"))
    })
}
