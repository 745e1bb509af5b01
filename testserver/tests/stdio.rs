//! The protocol rules, checked through the `mcp-testserver` binary over stdio (real clock).
//! The same scenarios run in-process in `protocol.rs`.

use crate::{common, rules};

use common::{Conn, stdio_binary};
use mcp_testserver::Revision;

fn stdio(revision: Revision) -> Conn {
    stdio_binary(&[], revision)
}

crate::every_rule_test!(stdio, #[tokio::test]);
