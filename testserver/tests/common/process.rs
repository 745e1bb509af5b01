//! The `mcp-testserver` binary as a process: a scratch directory per test, the binary over
//! Streamable HTTP (optionally under a wrapper such as `prlimit`) with the address it prints,
//! SIGTERM (std's `Child::kill` only sends SIGKILL), and its exit code. Every wait is bounded by
//! [`LIMIT`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use super::BINARY;
use super::listening::spawn_listening;

/// The longest any single wait may take before the test fails.
pub(crate) const LIMIT: Duration = Duration::from_secs(10);

/// A fresh, empty directory of this test's own: unique within the process too, since every
/// module's tests run in one binary, at once (two tests that both asked for `stdio-term` once
/// shared a directory, and one removed the other's artifacts).
pub(crate) fn scratch(name: &str) -> PathBuf {
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let count = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let directory = std::env::temp_dir().join(format!(
        "mcp-testserver-test-{name}-{}-{count}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).expect("creating a scratch directory");
    directory
}

/// `PREFIX... mcp-testserver --http 127.0.0.1:0 ARGS` (`prefix` empty: the binary itself) with
/// `stdin`; the child and the address it printed. Its stderr is drained, so the server never
/// blocks on it.
pub(crate) async fn spawn_http(
    prefix: &[&str],
    args: &[&str],
    stdin: Stdio,
) -> (tokio::process::Child, SocketAddr) {
    spawn_http_with(prefix, args, stdin, &[]).await
}

/// [`spawn_http`] with the environment variables `envs` set for the child.
pub(crate) async fn spawn_http_with(
    prefix: &[&str],
    args: &[&str],
    stdin: Stdio,
    envs: &[(&str, &str)],
) -> (tokio::process::Child, SocketAddr) {
    let (program, prefix_args) = match prefix.split_first() {
        Some((program, rest)) => (*program, rest),
        None => (BINARY, &[][..]),
    };
    let mut command = tokio::process::Command::new(program);
    command.args(prefix_args);
    if !prefix.is_empty() {
        command.arg(BINARY);
    }
    command.args(["--http", "127.0.0.1:0"]).args(args);
    command.envs(envs.iter().copied()).stdin(stdin);
    spawn_listening(command, LIMIT).await
}

/// Sends SIGTERM to `pid`.
pub(crate) fn sigterm(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("running kill");
    assert!(status.success());
}

/// The exit code of `child`, which must exit within [`LIMIT`].
pub(crate) async fn exit_code(child: &mut tokio::process::Child) -> Option<i32> {
    tokio::time::timeout(LIMIT, child.wait())
        .await
        .expect("the server exits in time")
        .unwrap()
        .code()
}
