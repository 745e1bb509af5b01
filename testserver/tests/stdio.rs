//! The protocol rules, checked through the `mcp-testserver` binary over stdio (real clock).
//! The same scenarios run in-process in `protocol.rs`.

mod common;
#[path = "common/rules/mod.rs"]
mod rules;

use common::{Conn, stdio_binary};
use mcp_testserver::Revision;

fn stdio(revision: Revision) -> Conn {
    stdio_binary(&[], revision)
}

every_rule_test!(stdio, #[tokio::test]);
