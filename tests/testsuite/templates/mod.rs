//! The templates a reader copies (`templates/`, shown in `book/templates.md`), each run as a
//! reader runs it: the Rust ones built from their own folders with their own lock files, the
//! Python and TypeScript ones with the pinned SDKs. The clients call the test server binary, whose
//! wire transcript shows the cancels that crossed (`clients`); the servers are driven by rmcp's
//! client, with the wire recorded between them (`servers`, `task`). What each run shows is
//! compared with `runs/NAME.txt`, which the chapter includes under the code (`shown`).
//!
//! [`PROVES`] names the ledger claims each template's run proves; the claims ledger accepts a
//! `claim=` on the chapter's (ignored) block showing a template only if it is listed here.

mod build;
mod child;
mod clients;
mod readme;
mod served;
mod servers;
mod shown;
mod task;

/// The ledger claims (`book/ledger/claims.toml`) each template's test shows, by template.
pub(crate) const PROVES: &[(&str, &[&str])] = &[
    (
        "rmcp-client",
        &[
            "rmcp-reset-on-progress",
            "rmcp-max-total-timeout",
            "rmcp-timeout-cancels",
            "rmcp-ignores-late-response",
        ],
    ),
    ("python-client", &["python-cancel-scope-sends-cancel"]),
    (
        "typescript-client",
        &["typescript-abort-reason", "typescript-timeout-sends-cancel"],
    ),
    ("rmcp-server", &["rmcp-ct-cancelled-on-cancel"]),
    ("python-server", &["python-server-handler-cancelled"]),
    (
        "typescript-server",
        &[
            "typescript-server-signal-aborted",
            "typescript-signal-aborted-on-close",
        ],
    ),
    ("rmcp-task", &["rmcp-task-cancel-ack"]),
];
