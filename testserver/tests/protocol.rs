//! The protocol rules, checked against the in-process server (paused clock: timing costs no
//! real time). The same scenarios run over stdio in `stdio.rs`.

mod common;
#[path = "common/rules/mod.rs"]
mod rules;

use common::Conn;
use mcp_testserver::{Revision, TestServer};

fn in_process(revision: Revision) -> Conn {
    TestServer::start_with(revision).connect_raw()
}

every_rule_test!(in_process, #[tokio::test(start_paused = true)]);
