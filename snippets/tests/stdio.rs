//! The protocol rules, checked through the `mcp-testserver` binary over stdio (real clock).
//! The same scenarios run in-process in `protocol.rs`.

mod common;

use common::stdio;

rule_tests!(stdio, #[tokio::test];
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
    invalid_request_and_unknown_method,
    unknown_tool_and_bad_arguments_are_invalid_params,
    giant_message_is_rejected_and_serving_continues,
    truncated_message_at_eof_is_answered_and_the_connection_ends,
    tools_echo_fail_and_gates,
    ignore_cancel_still_responds,
    ask_gets_input_per_revision,
    transcript_tool_elides_its_earlier_replies,
    tasks_2025_lifecycle,
    tasks_2026_extension,
    task_ids_are_opaque_and_deterministic,
);
