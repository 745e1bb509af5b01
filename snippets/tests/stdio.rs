//! The protocol rules, checked through the `mcp-testserver` binary over stdio (real clock).
//! The same scenarios run in-process in `protocol.rs`.

mod common;

use common::stdio;

every_rule_test!(stdio, #[tokio::test]);
