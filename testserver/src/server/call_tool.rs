//! `tools/call` of a built-in tool (`tools.rs`): the request read and checked (tool, arguments,
//! progress token, task augmentation), registered in flight, then run on a task of its own or
//! as a task (`tasks.rs`), and answered through `finish`.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::calls::{Call, Outcome, ToolCallRequest};
use super::mutants::Mutant;
use super::session::{InFlight, Session};
use super::task_store::OnEnd;
use super::tasks;
use super::tools;
use crate::jsonrpc::{self, id_key};
use crate::revision::Revision;
use crate::violations::rules;

impl Session {
    pub(crate) fn call_tool(
        self: &Arc<Self>,
        id: Value,
        key: String,
        revision: Revision,
        params: Map<String, Value>,
    ) {
        let ToolCallRequest {
            name,
            arguments,
            progress_token,
            client_capabilities,
        } = self.tool_call_request(revision, &params);
        let tool = match tools::parse(&name, &arguments) {
            Ok(tool) => tool,
            Err(message) => {
                self.answer(id, revision, Err((jsonrpc::INVALID_PARAMS, message, None)));
                return;
            }
        };
        if let Some(token) = &progress_token
            && !jsonrpc::is_valid_id(token)
        {
            let message =
                "Invalid params: _meta.progressToken must be a string or an integer".to_owned();
            self.answer(id, revision, Err((jsonrpc::INVALID_PARAMS, message, None)));
            return;
        }
        let wants_task = match revision {
            Revision::V2025_11_25 => params.get("task").is_some(),
            Revision::V2026_07_28 => tasks::declares_extension(&params),
        };
        let task = wants_task && tool.supports_tasks();
        if wants_task && !task && revision == Revision::V2025_11_25 {
            let message =
                format!("Invalid params: tool `{name}` does not support task-augmented execution");
            self.answer(id, revision, Err((jsonrpc::INVALID_PARAMS, message, None)));
            return;
        }
        // The `progress-without-token` mutant reports progress under the request id.
        let progress_token = match progress_token {
            None if self.core.breaks(Mutant::ProgressWithoutToken) => Some(id.clone()),
            token => token,
        };
        // Progress is not supported on tasks under 2026-07-28 (SEP-2663; the
        // `task-progress-sent` mutant keeps the token); under 2025-11-25 a task keeps its
        // request's token until it is terminal (the `task-progress-dropped` mutant drops it
        // with the `CreateTaskResult`).
        let task_progress_token = if (revision == Revision::V2026_07_28
            && !self.core.breaks(Mutant::TaskProgressSent))
            || self.core.breaks(Mutant::TaskProgressDropped)
        {
            None
        } else {
            progress_token.clone()
        };
        let token = CancellationToken::new();
        let token_key = progress_token.as_ref().map(id_key);
        // Whether the token stays active after this request is answered: for a task whose
        // progress uses it, until the task is terminal (2025-11-25, basic/utilities/progress:
        // "The progress token remains valid and associated with the task until the task
        // reaches a terminal status"); a task without progress answers its request at once,
        // which ends the only request the token was active in.
        let task_holds_token = task && task_progress_token.is_some();
        {
            let mut state = self.lock();
            let in_use = token_key.as_ref().is_some_and(|token_key| {
                if !task || task_holds_token {
                    !state.active_tokens.insert(token_key.clone())
                } else {
                    state.active_tokens.contains(token_key)
                }
            });
            // The `reused-progress-token-unflagged` mutant records no reuse.
            if let Some(token_key) = token_key.as_ref().filter(|_| in_use)
                && !self.core.breaks(Mutant::ReusedProgressTokenUnflagged)
            {
                self.violation(
                    rules::REUSED_PROGRESS_TOKEN,
                    format!("progress token {token_key} is already used by an active request"),
                );
            }
            // A task's request is answered at once (`tasks::create` records it); its work is
            // cancelled with `tasks/cancel`, so it is not in flight.
            if !task {
                let entry = InFlight {
                    token: token.clone(),
                    progress_token: token_key.clone(),
                    cancelled: false,
                };
                state.in_flight.insert(key.clone(), entry);
            }
        }
        // What the handler needs of `_meta` (the progress token, the client capabilities) was
        // read above; the rest, whatever a client put there, is not kept while the call runs.
        let mut params = params;
        params.remove("_meta");
        let call = Call {
            session: self.clone(),
            label: format!("{name}#{key}"),
            id,
            key,
            revision,
            token,
            progress_token: if task {
                task_progress_token
            } else {
                progress_token
            },
            params,
            client_capabilities,
            task_number: None,
            last_progress: AtomicU64::new(0),
        };
        if task {
            let on_end = token_key.filter(|_| task_holds_token).map(|token_key| {
                let session = Arc::downgrade(self);
                Box::new(move || {
                    // The `progress-token-never-freed` mutant keeps it active.
                    if let Some(session) = session.upgrade()
                        && !session.core.breaks(Mutant::ProgressTokenNeverFreed)
                    {
                        session.lock().active_tokens.remove(&token_key);
                    }
                }) as OnEnd
            });
            tasks::start(call, tool, on_end);
        } else {
            self.core.handlers.start(tool.name());
            call.log("started");
            tokio::spawn(async move {
                let outcome = tool.run(&call).await;
                let ending = match &outcome {
                    Outcome::Result(_) => {
                        Some(("completed", "completed after a cancel; response suppressed"))
                    }
                    Outcome::Error(..) => Some((
                        "answered with an error",
                        "failed after a cancel; response suppressed",
                    )),
                    Outcome::Late(_) => Some(("completed; responded despite the cancel", "")),
                    // The handler logged why it stopped.
                    Outcome::Cancelled => None,
                };
                let sent = call
                    .session
                    .finish(&call.key, call.id.clone(), call.revision, outcome);
                if let Some((sent_text, suppressed_text)) = ending {
                    call.log(if sent { sent_text } else { suppressed_text });
                }
                if sent && call.session.core.breaks(Mutant::ProgressAfterResponse) {
                    call.progress_after_response();
                }
                call.session.core.handlers.stop(tool.name());
            });
        }
    }
}
