//! The protocol rules, checked against the in-process server (paused clock: timing costs no
//! real time). The same scenarios run over stdio in `stdio.rs`.

mod common;

use common::in_process;

every_rule_test!(in_process, #[tokio::test(start_paused = true)]);
