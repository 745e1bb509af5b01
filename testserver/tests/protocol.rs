//! The protocol rules, checked against the in-process server (paused clock: timing costs no
//! real time). The same scenarios run over stdio in `stdio.rs`.

use crate::{common, rules};

use common::Conn;
use mcp_testserver::{Revision, TestServer};

fn in_process(revision: Revision) -> Conn {
    TestServer::start_with(revision).connect_raw()
}

crate::every_rule_test!(in_process, #[tokio::test(start_paused = true)]);
