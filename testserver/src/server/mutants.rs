//! Mutants: named, deliberate breakages of one server-side rule each, so that a proof can show
//! it would fail if the server behaved differently (`mcp-testserver --mutant NAME`, or
//! `MDBOOK_SNIPPETS_MUTANT=NAME` for the binary and the harness's in-process servers). This
//! module owns the list, the names, the rule each breaks and the parsing; the core asks
//! `Core::breaks` at the few points where a mutant changes behaviour,
//! and nowhere else. A mutant changes what the server *does* only: the transcript, the handler
//! log and the violation log still record truthfully what was sent and received. Where the rule
//! is one the server *judges* (a client reusing an id, cancelling `initialize`, ...), the
//! judgement is the behaviour: those mutants (`*-unflagged`, `initialize-cancel-honoured`,
//! `late-cancel-flagged`) change the violation log, and only it.

use std::ffi::OsString;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// The environment variable naming the mutant (the verifier's `--mutants` mode sets it).
pub const MUTANT_VAR: &str = "MDBOOK_SNIPPETS_MUTANT";

/// One deliberate breakage of one rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mutant {
    /// The handler keeps running after `notifications/cancelled` (its answer is still held back).
    CancelIgnored,
    /// The handler stops on a cancel, but the request is answered anyway.
    CancelStillAnswered,
    /// stdio: end of input stops sending but leaves every running handler running.
    EofKeepsHandlers,
    /// 2026-07-28 Streamable HTTP: a closed response stream does not stop the handler.
    DisconnectNotCancel,
    /// 2025-11-25 Streamable HTTP: a closed response stream stops the handler, as a cancel would.
    LegacyDisconnectCancels,
    /// 2025-11-25 Streamable HTTP: a `DELETE` ends the session but leaves its handlers running.
    DeleteKeepsHandlers,
    /// 2026-07-28: a complete result goes out without its `resultType`.
    ResultTypeOmitted,
    /// The server numbers its own requests after the client's highest id, one counter for both.
    SharedIdSpace,
    /// One more progress notification after the response.
    ProgressAfterResponse,
    /// The progress token echoed with another JSON type (`0` becomes `"0"`, `"5"` becomes `5`).
    ProgressTokenRetyped,
    /// Progress counts down instead of up.
    ProgressBackwards,
    /// Progress is sent for a request without a token, with the request id as the token.
    ProgressWithoutToken,
    /// A progress token already used by an active request is accepted again without a record.
    ReusedProgressTokenUnflagged,
    /// A request's progress token stays active after its answer, so a later request using it
    /// again is recorded as a reuse.
    ProgressTokenNeverFreed,
    /// 2025-11-25: a task drops its request's progress token once the `CreateTaskResult` is sent.
    TaskProgressDropped,
    /// 2026-07-28: a task keeps its request's progress token and reports progress on it.
    TaskProgressSent,
    /// 2025-11-25 `tasks/cancel` on a terminal task succeeds instead of failing with -32602.
    TaskCancelTerminalAccepted,
    /// 2025-11-25 `tasks/cancel` answers with the task as it was (still `working`) and moves it
    /// to `cancelled` only after the response.
    TaskCancelledAfterResponse,
    /// A cancelled task whose work runs on to its end takes that end's status (`completed`,
    /// `failed`) instead of staying `cancelled`.
    CancelledTaskCompletes,
    /// 2025-11-25: a `tasks/result` waiting on a task that gets cancelled is never answered.
    TaskResultLeftWaiting,
    /// 2025-11-25: a `tasks/result` for a task already terminal is answered with the task (as
    /// `tasks/get` would), not with the result of the request that created it.
    TaskResultNotFinal,
    /// 2026-07-28: `tasks/cancel` naming a task the server does not know is acknowledged with
    /// the empty result instead of a JSON-RPC error.
    UnknownTaskCancelAcked,
    /// A task's `CreateTaskResult` names it with an integer (its number) instead of a string.
    TaskIdInteger,
    /// A task's `CreateTaskResult` names it with the id of the request that created it (as a
    /// string): an id the requestor chose, not the receiver.
    TaskIdFromRequest,
    /// Every task's `CreateTaskResult` names it with the first task's id.
    TaskIdsRepeat,
    /// 2025-11-25: a request id reused within the session is not recorded.
    ReusedIdUnflagged,
    /// A request reusing the id of one still in flight is served as a new request instead of
    /// being rejected with -32600 (the reuse is still recorded). It takes over the id's place in
    /// the ledger, so the first request's answer is lost, as python-sdk#2655 reports of a server.
    InFlightIdAccepted,
    /// A cancel naming `initialize` is treated as an ordinary late cancel, unflagged.
    InitializeCancelHonoured,
    /// 2026-07-28: `notifications/cancelled` without the `_meta` version stamp is dropped.
    CancelNeedsMeta,
    /// 2026-07-28: a cancel that stops a request is answered with a `notifications/cancelled`
    /// of the server's own naming that request.
    ServerCancelEchoed,
    /// 2026-07-28: `ping`, removed in that revision, is answered as under 2025-11-25.
    PingStillServed,
    /// 2026-07-28: a request missing a required `_meta` field is served instead of rejected
    /// with -32602 (the client's violation is still recorded).
    MetaFieldsOptional,
    /// A cancel that crossed its response is recorded as a violation of the client.
    LateCancelFlagged,
    /// 2025-11-25: `notifications/cancelled` naming a task's request is not recorded.
    CancelledTaskUnflagged,
    /// A cancel naming an id the client never sent is not recorded.
    UnknownCancelUnflagged,
    /// 2026-07-28: the "still waiting" answer of a url-mode `ask` carries neither
    /// `inputRequests` nor `requestState`.
    StillWaitingWithoutState,
}

impl Mutant {
    /// Every mutant, in the order `--list-mutants` prints them.
    pub const ALL: [Mutant; 36] = [
        Mutant::CancelIgnored,
        Mutant::CancelStillAnswered,
        Mutant::EofKeepsHandlers,
        Mutant::DisconnectNotCancel,
        Mutant::LegacyDisconnectCancels,
        Mutant::DeleteKeepsHandlers,
        Mutant::ResultTypeOmitted,
        Mutant::SharedIdSpace,
        Mutant::ProgressAfterResponse,
        Mutant::ProgressTokenRetyped,
        Mutant::ProgressBackwards,
        Mutant::ProgressWithoutToken,
        Mutant::ReusedProgressTokenUnflagged,
        Mutant::ProgressTokenNeverFreed,
        Mutant::TaskProgressDropped,
        Mutant::TaskProgressSent,
        Mutant::TaskCancelTerminalAccepted,
        Mutant::TaskCancelledAfterResponse,
        Mutant::CancelledTaskCompletes,
        Mutant::TaskResultLeftWaiting,
        Mutant::TaskResultNotFinal,
        Mutant::UnknownTaskCancelAcked,
        Mutant::TaskIdInteger,
        Mutant::TaskIdFromRequest,
        Mutant::TaskIdsRepeat,
        Mutant::ReusedIdUnflagged,
        Mutant::InFlightIdAccepted,
        Mutant::InitializeCancelHonoured,
        Mutant::CancelNeedsMeta,
        Mutant::ServerCancelEchoed,
        Mutant::PingStillServed,
        Mutant::MetaFieldsOptional,
        Mutant::LateCancelFlagged,
        Mutant::CancelledTaskUnflagged,
        Mutant::UnknownCancelUnflagged,
        Mutant::StillWaitingWithoutState,
    ];

    /// The mutant's name: lower-case kebab-case, what `--mutant` and `kills=` take.
    pub fn name(self) -> &'static str {
        self.describe().0
    }

    /// The rule the mutant breaks, with its revision, spec page and section.
    pub fn rule(self) -> &'static str {
        self.describe().1
    }

    fn describe(self) -> (&'static str, &'static str) {
        match self {
            Mutant::CancelIgnored => (
                "cancel-ignored",
                "a receiver of notifications/cancelled SHOULD stop processing the cancelled request \
                 (2025-11-25, basic/utilities/cancellation, Behavior Requirements; 2026-07-28, \
                 basic/patterns/cancellation, Behavior Requirements)",
            ),
            Mutant::CancelStillAnswered => (
                "cancel-still-answered",
                "a receiver SHOULD not send a response for the cancelled request (2025-11-25, \
                 basic/utilities/cancellation, Behavior Requirements); the server MUST NOT send any \
                 further messages for it (2026-07-28, basic/transports/stdio, Cancellation)",
            ),
            Mutant::EofKeepsHandlers => (
                "eof-keeps-handlers",
                "closing the server's input stream is the stdio shutdown: servers SHOULD exit \
                 promptly when their standard input is closed, so every running handler stops \
                 (2025-11-25, basic/lifecycle, Shutdown; 2026-07-28, basic/transports/stdio, \
                 Shutdown)",
            ),
            Mutant::DisconnectNotCancel => (
                "disconnect-not-cancel",
                "closing the SSE response stream MUST be treated by the server as cancellation of \
                 that request (2026-07-28, basic/transports/streamable-http, Cancellation)",
            ),
            Mutant::LegacyDisconnectCancels => (
                "legacy-disconnect-cancels",
                "a disconnection SHOULD NOT be interpreted as the client cancelling its request; to \
                 cancel, the client sends notifications/cancelled (2025-11-25, basic/transports, \
                 Sending Messages to the Server)",
            ),
            Mutant::DeleteKeepsHandlers => (
                "delete-keeps-handlers",
                "a client that no longer needs a session SHOULD send an HTTP DELETE to explicitly \
                 terminate it: the session's requests end with it, so its running handlers stop \
                 (2025-11-25, basic/transports, Session Management)",
            ),
            Mutant::ResultTypeOmitted => (
                "result-type-omitted",
                "the result MUST include a resultType field to indicate the type of the result \
                 (2026-07-28, basic/index, Result Responses)",
            ),
            Mutant::SharedIdSpace => (
                "shared-id-space",
                "the server numbers its own requests in its own id space, independent of the \
                 client's (2025-11-25, basic/index, Requests: the id is unique per requestor; \
                 basic/utilities/cancellation: requests are issued in a direction)",
            ),
            Mutant::ProgressAfterResponse => (
                "progress-after-response",
                "progress notifications MUST stop after completion (2025-11-25, \
                 basic/utilities/progress, Implementation Notes; 2026-07-28, basic/patterns/progress, \
                 Implementation Notes)",
            ),
            Mutant::ProgressTokenRetyped => (
                "progress-token-retyped",
                "progress notifications MUST only reference tokens that were provided in an active \
                 request: the token as sent, string or integer (2025-11-25, basic/utilities/progress, \
                 Behavior Requirements)",
            ),
            Mutant::ProgressBackwards => (
                "progress-backwards",
                "the progress value MUST increase with each notification (2025-11-25, \
                 basic/utilities/progress, Progress Flow; 2026-07-28, basic/patterns/progress, \
                 Progress Flow)",
            ),
            Mutant::ProgressWithoutToken => (
                "progress-without-token",
                "progress notifications MUST only reference tokens that were provided in an active \
                 request: no token, no progress (2025-11-25, basic/utilities/progress, Behavior \
                 Requirements; 2026-07-28, basic/patterns/progress, Behavior Requirements)",
            ),
            Mutant::ReusedProgressTokenUnflagged => (
                "reused-progress-token-unflagged",
                "progress tokens MUST be unique across all active requests; the server records a \
                 token reused while its request is active (2025-11-25, basic/utilities/progress, \
                 Progress Flow; 2026-07-28, basic/patterns/progress, Progress Flow)",
            ),
            Mutant::ProgressTokenNeverFreed => (
                "progress-token-never-freed",
                "senders and receivers SHOULD track active progress tokens: a token is active \
                 until its request completes, and free again after (2025-11-25, \
                 basic/utilities/progress, Implementation Notes; 2026-07-28, \
                 basic/patterns/progress, Implementation Notes)",
            ),
            Mutant::TaskProgressDropped => (
                "task-progress-dropped",
                "for task-augmented requests, the progressToken provided in the original request \
                 MUST continue to be used for progress notifications throughout the task's \
                 lifetime, even after the CreateTaskResult has been returned (2025-11-25, \
                 basic/utilities/progress, Behavior Requirements)",
            ),
            Mutant::TaskProgressSent => (
                "task-progress-sent",
                "notifications/progress MUST NOT be sent on the subscriptions/listen stream for a \
                 task, and are not supported on tasks in general (2026-07-28, \
                 seps/2663-tasks-extension, Task Status Notifications)",
            ),
            Mutant::TaskCancelTerminalAccepted => (
                "task-cancel-terminal-accepted",
                "receivers MUST reject cancellation requests for tasks already in a terminal status \
                 with -32602 (2025-11-25, basic/utilities/tasks, Behavior Requirements, Task \
                 Cancellation)",
            ),
            Mutant::TaskCancelledAfterResponse => (
                "task-cancelled-after-response",
                "receivers MUST transition the task to cancelled status before sending the response \
                 to tasks/cancel (2025-11-25, basic/utilities/tasks, Behavior Requirements, Task \
                 Cancellation)",
            ),
            Mutant::CancelledTaskCompletes => (
                "cancelled-task-completes",
                "once a task is cancelled, it MUST remain in cancelled status even if execution \
                 continues to completion or fails; a terminal task MUST NOT transition to any \
                 other status (2025-11-25, basic/utilities/tasks, Behavior Requirements, Task \
                 Cancellation and Task Status Lifecycle)",
            ),
            Mutant::TaskResultLeftWaiting => (
                "task-result-left-waiting",
                "a tasks/result for a non-terminal task MUST block the response until the task \
                 reaches a terminal status, and then answers: cancelled is terminal, so a waiting \
                 tasks/result is answered (-32602 here) when its task is cancelled (2025-11-25, \
                 basic/utilities/tasks, Behavior Requirements, Result Retrieval)",
            ),
            Mutant::TaskResultNotFinal => (
                "task-result-not-final",
                "when a receiver receives a tasks/result request for a task in a terminal status, \
                 it MUST return the final result of the underlying request (2025-11-25, \
                 basic/utilities/tasks, Behavior Requirements, Result Retrieval)",
            ),
            Mutant::UnknownTaskCancelAcked => (
                "unknown-task-cancel-acked",
                "servers SHOULD return a JSON-RPC error if the taskId of a tasks/cancel does not \
                 correspond to a known task (2026-07-28, seps/2663-tasks-extension, Task \
                 Cancellation, Response)",
            ),
            Mutant::TaskIdInteger => (
                "task-id-integer",
                "task IDs MUST be a string value (2025-11-25, basic/utilities/tasks, Behavior \
                 Requirements, Task ID Requirements)",
            ),
            Mutant::TaskIdFromRequest => (
                "task-id-from-request",
                "task IDs MUST be generated by the receiver when creating a task, not taken from \
                 the requestor's request id (2025-11-25, basic/utilities/tasks, Behavior \
                 Requirements, Task ID Requirements)",
            ),
            Mutant::TaskIdsRepeat => (
                "task-ids-repeat",
                "task IDs MUST be unique among all tasks controlled by the receiver (2025-11-25, \
                 basic/utilities/tasks, Behavior Requirements, Task ID Requirements)",
            ),
            Mutant::ReusedIdUnflagged => (
                "reused-id-unflagged",
                "the request ID MUST NOT have been previously used by the requestor within the same \
                 session; the server records a reuse (2025-11-25, basic/index, Requests)",
            ),
            Mutant::InFlightIdAccepted => (
                "in-flight-id-accepted",
                "the request ID MUST NOT match the ID of any other request the sender has issued and \
                 not yet received a response for; the server rejects such a request with -32600 \
                 (2026-07-28, basic/index, Requests)",
            ),
            Mutant::InitializeCancelHonoured => (
                "initialize-cancel-honoured",
                "the initialize request MUST NOT be cancelled by clients; the server records the \
                 attempt (2025-11-25, basic/utilities/cancellation, Behavior Requirements)",
            ),
            Mutant::CancelNeedsMeta => (
                "cancel-needs-meta",
                "the _meta protocol version is required on requests only, so a \
                 notifications/cancelled without it still cancels (2026-07-28, basic/index, _meta; \
                 go-sdk#1212)",
            ),
            Mutant::ServerCancelEchoed => (
                "server-cancel-echoed",
                "a server sends notifications/cancelled only to tear down a subscriptions/listen \
                 stream; servers MUST NOT send notifications/cancelled for any other purpose \
                 (2026-07-28, basic/patterns/cancellation, opening section)",
            ),
            Mutant::PingStillServed => (
                "ping-still-served",
                "ping is removed, so a 2026-07-28 ping is a method the server does not have: \
                 -32601 (2026-07-28, changelog, Major changes, item 5)",
            ),
            Mutant::MetaFieldsOptional => (
                "meta-fields-optional",
                "a request missing any required _meta field (protocol version, client \
                 capabilities) is malformed; the server MUST reject it with -32602 (2026-07-28, \
                 basic/index, _meta)",
            ),
            Mutant::LateCancelFlagged => (
                "late-cancel-flagged",
                "a cancel may arrive after the response was sent; both parties MUST handle the race \
                 gracefully, and such a cancel SHOULD be ignored (2025-11-25, \
                 basic/utilities/cancellation, Timing Considerations, Error Handling)",
            ),
            Mutant::CancelledTaskUnflagged => (
                "cancelled-task-unflagged",
                "for task-augmented requests tasks/cancel MUST be used instead of \
                 notifications/cancelled; the server records the mistake (2025-11-25, \
                 basic/utilities/cancellation, Behavior Requirements)",
            ),
            Mutant::UnknownCancelUnflagged => (
                "unknown-cancel-unflagged",
                "cancellation notifications MUST only reference requests previously issued in the \
                 same direction; the server records one that names no request (2025-11-25, \
                 basic/utilities/cancellation, Behavior Requirements)",
            ),
            Mutant::StillWaitingWithoutState => (
                "still-waiting-without-state",
                "Servers MUST include at least one of inputRequests or requestState in every \
                 InputRequiredResult response (2026-07-28, basic/patterns/mrtr, Server Requirements)",
            ),
        }
    }
}

impl fmt::Display for Mutant {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// A mutant name nobody knows; its message lists the known ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMutant(pub String);

impl fmt::Display for UnknownMutant {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = Mutant::ALL.iter().map(|mutant| mutant.name()).collect();
        write!(
            formatter,
            "unknown mutant `{}`; known mutants: {}",
            self.0,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownMutant {}

impl FromStr for Mutant {
    type Err = UnknownMutant;

    fn from_str(name: &str) -> Result<Mutant, UnknownMutant> {
        Mutant::ALL
            .into_iter()
            .find(|mutant| mutant.name() == name)
            .ok_or_else(|| UnknownMutant(name.to_owned()))
    }
}

/// `--list-mutants`: one line per mutant, `NAME<TAB>RULE`.
pub fn listing() -> String {
    Mutant::ALL
        .iter()
        .map(|mutant| format!("{}\t{}\n", mutant.name(), mutant.rule()))
        .collect()
}

/// The mutant `$MDBOOK_SNIPPETS_MUTANT` names: `None` when unset or empty.
pub fn from_env() -> Result<Option<Mutant>, UnknownMutant> {
    from_var(std::env::var_os(MUTANT_VAR))
}

/// The mutant a value of `$MDBOOK_SNIPPETS_MUTANT` names: `None` when unset or blank; around the
/// name, white space is ignored.
pub fn from_var(value: Option<OsString>) -> Result<Option<Mutant>, UnknownMutant> {
    let Some(value) = value else {
        return Ok(None);
    };
    // Not Unicode: no mutant has such a name, and the error shows it lossily.
    let name = value.to_string_lossy();
    match name.trim() {
        "" => Ok(None),
        name => name.parse().map(Some),
    }
}

static PROCESS_MUTANT: OnceLock<Option<Mutant>> = OnceLock::new();

/// Sets the mutant every [`Core::default`](super::Core) of this process breaks: the binary
/// calls it once at start-up, before it serves. Returns `false` (and changes nothing) when a
/// mutant was already installed. In-process servers use [`Core::with_mutant`](super::Core::with_mutant)
/// instead, so tests in one process can differ.
pub fn install_for_process(mutant: Option<Mutant>) -> bool {
    PROCESS_MUTANT.set(mutant).is_ok()
}

/// The mutant installed for this process, if any.
pub(crate) fn process_mutant() -> Option<Mutant> {
    PROCESS_MUTANT.get().copied().flatten()
}

#[cfg(test)]
#[path = "mutants_tests.rs"]
mod tests;
