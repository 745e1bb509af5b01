//! Unit tests of `sessions.rs`.

use std::sync::Arc;
use std::time::Duration;

use super::{LegacySession, Limits, Sessions};
use crate::server::Core;

#[tokio::test]
async fn a_due_sweep_ends_the_expired_sessions_untouched_by_requests() {
    let limits = Limits {
        session_idle_timeout: Duration::from_millis(40),
        ..Limits::in_process()
    };
    let sessions = Sessions::new(&limits);
    let core = Arc::new(Core::default());
    for index in 0..3 {
        let session = Arc::new(LegacySession::new(core.clone()));
        sessions.insert(format!("s{index}"), session);
    }
    sessions.sweep_when_due();
    std::thread::sleep(Duration::from_millis(60));
    let fresh = Arc::new(LegacySession::new(core));
    sessions.insert("fresh".to_owned(), fresh);
    sessions.sweep_when_due();
    let left: Vec<_> = sessions.lock().keys().cloned().collect();
    assert_eq!(left, ["fresh"]);
}
