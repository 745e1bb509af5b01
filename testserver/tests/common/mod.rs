//! The one support module of the server's tests (`tests/main.rs` declares it first; each test
//! module uses a part of it): the connection is the crate's own peer (`RawClient`, here `Conn`), in-process
//! (the conformance fixtures' core: `conformance`) or over the stdio binary (`stdio_binary`),
//! and two readers of a response; the binary as a process (`process`: a scratch directory,
//! `--http` and the address it prints, SIGTERM, the exit code); a core over Streamable HTTP on a
//! loopback port (`loopback`). The rule scenarios live in `rules/` (included by `protocol.rs`
//! and `stdio.rs`, which run every one of them through `every_rule_test!`).

pub(crate) mod listening;
pub(crate) mod loopback;
pub(crate) mod process;
pub(crate) mod tools_call_2026;

use std::sync::Arc;

pub(crate) use mcp_testserver::RawClient as Conn;
use mcp_testserver::Revision;
use mcp_testserver::server::Core;
use serde_json::Value;

/// The `mcp-testserver` binary this package builds.
pub(crate) const BINARY: &str = env!("CARGO_BIN_EXE_mcp-testserver");

/// The `_meta` key of a 2026-07-28 request's client capabilities.
pub(crate) const CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// The binary over stdio, speaking `revision`, started with `args`.
pub(crate) fn stdio_binary(args: &[&str], revision: Revision) -> Conn {
    Conn::spawn(BINARY, args, revision)
}

/// A raw client of a fresh in-process core that serves the conformance fixtures, as
/// `mcp-testserver --conformance` builds it.
pub(crate) fn conformance(revision: Revision) -> Conn {
    Conn::serve(Arc::new(Core::with_conformance_fixtures()), revision)
}

/// Runs the binary with `args` and stdin from `/dev/null`, and checks that it refused them before
/// serving anything: exit code 2, `expected` on stderr, nothing on stdout.
pub(crate) fn assert_refused(args: &[&str], expected: &str) {
    let output = std::process::Command::new(BINARY)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("running mcp-testserver");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(expected), "{args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{args:?}: nothing served");
}

/// The text of the first content block of a `tools/call` response.
pub(crate) fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
}

/// The error code of an error response.
pub(crate) fn code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

/// Declares one test per rule scenario for a transport: `rule_tests!(connect_fn, #[attr]; a, b)`.
#[macro_export]
macro_rules! rule_tests {
    ($connect:path, #[$attr:meta]; $($name:ident),* $(,)?) => {
        $(
            #[$attr]
            async fn $name() {
                rules::$name($connect).await;
            }
        )*
    };
}

/// Declares the test of every rule scenario for a transport: `every_rule_test!(connect_fn,
/// #[attr])`. The one list of scenarios, so each transport's binary runs all of them.
#[macro_export]
macro_rules! every_rule_test {
    ($connect:path, #[$attr:meta]) => {
        $crate::rule_tests!($connect, #[$attr];
            initialize_negotiates_the_handshake_revision,
            discover_advertises_2026_07_28_without_initialize,
            requests_without_version_or_initialize_are_rejected,
            requests_without_client_capabilities_are_invalid_params,
            unsupported_version_gets_32022,
            ping_exists_only_under_2025,
            ids_are_echoed_with_their_json_type,
            null_id_is_an_invalid_request,
            reused_id_is_a_violation_per_revision,
            server_requests_use_their_own_id_space,
            cancel_stops_the_handler_and_no_response_follows,
            cancel_of_unknown_id_is_a_violation_and_finished_ids_are_ignored,
            cancelling_initialize_is_a_violation,
            tasks_are_cancelled_only_with_tasks_cancel,
            progress_only_with_token_strictly_increasing_never_after_response,
            reused_progress_token_is_a_violation,
            parse_error_answers_null_id_and_keeps_serving,
            a_violation_flood_is_kept_bounded,
            invalid_request_and_unknown_method,
            unknown_tool_and_bad_arguments_are_invalid_params,
            giant_message_is_rejected_and_serving_continues,
            truncated_message_at_eof_is_answered_and_the_connection_ends,
            tools_echo_fail_and_gates,
            ignore_cancel_still_responds,
            ask_gets_input_per_revision,
            ask_in_url_mode_waits_for_its_gate,
            transcript_tool_elides_its_earlier_replies,
            handler_log_tool_reports_what_the_handlers_did,
            tasks_2025_lifecycle,
            tasks_2026_extension,
            task_progress_follows_the_revision,
            a_terminal_task_frees_its_progress_token,
            a_2026_task_request_frees_its_progress_token_once_answered,
            task_ids_are_opaque_and_deterministic,
        );
    };
}
