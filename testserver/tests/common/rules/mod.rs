//! One scenario per protocol rule, written against the wire only. Each takes a `connect`
//! function, so the same scenario runs in-process (`tests/protocol.rs`) and over stdio
//! (`tests/stdio.rs`).

mod cancellation;
mod tools;
mod url_mode;
mod wire;

use std::time::Duration;

use mcp_testserver::Revision;
use serde_json::Value;

use crate::common::Conn;

// Each test binary uses its own subset.
#[allow(unused_imports)]
pub(crate) use cancellation::*;
#[allow(unused_imports)]
pub(crate) use tools::*;
#[allow(unused_imports)]
pub(crate) use url_mode::*;
use wire::params_for;
#[allow(unused_imports)]
pub(crate) use wire::*;

pub(crate) type Connect = fn(Revision) -> Conn;

/// Long enough for a wrong message to show up, short enough for the stdio tests.
const QUIET: Duration = Duration::from_millis(300);

async fn ready(connect: Connect, revision: Revision) -> Conn {
    let mut conn = connect(revision);
    let initialized = conn.initialize().await;
    if revision == Revision::V2025_11_25 {
        assert_eq!(
            initialized["protocolVersion"], "2025-11-25",
            "{initialized}"
        );
    }
    conn
}

/// Everything that arrives within `QUIET`.
async fn drain(conn: &mut Conn) -> Vec<Value> {
    let mut messages = Vec::new();
    while let Some(message) = conn.try_recv(QUIET).await {
        messages.push(message);
    }
    messages
}
