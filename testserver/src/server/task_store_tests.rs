//! Unit tests of `task_store.rs`.

#[test]
fn timestamps_start_at_the_fixed_epoch() {
    assert_eq!(super::timestamp(0), "2026-01-01T00:00:00.000Z");
    assert_eq!(
        super::timestamp(86_400_000 * 59 + 1_500),
        "2026-03-01T00:00:01.500Z"
    );
}

/// `on_end` runs the first time a task becomes terminal, whichever way (completed, failed,
/// cancelled), and never again: a cancelled task the `cancelled-task-completes` mutant lets
/// complete later does not free its progress token twice.
#[test]
fn on_end_runs_once_when_a_task_first_becomes_terminal() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::{Entry, Status};
    for status in [Status::Completed, Status::Failed, Status::Cancelled] {
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = runs.clone();
        let mut entry = Entry {
            id: "tsk-1".into(),
            context: crate::context::Context::SERVER,
            created_ms: 0,
            status: Status::Working,
            created: String::new(),
            updated: String::new(),
            ttl: None,
            end: None,
            pending: serde_json::Map::new(),
            responses: serde_json::Map::new(),
            token: tokio_util::sync::CancellationToken::new(),
            on_end: Some(Box::new(move || {
                counted.fetch_add(1, Ordering::SeqCst);
            })),
        };
        entry.pending.insert("k".into(), serde_json::json!({}));
        entry.end_as(status, "later".into());
        assert_eq!(runs.load(Ordering::SeqCst), 1, "{}", status.as_str());
        assert_eq!((entry.status, entry.updated.as_str()), (status, "later"));
        assert!(entry.pending.is_empty());
        entry.end_as(Status::Completed, "again".into());
        assert_eq!(runs.load(Ordering::SeqCst), 1, "once: {}", status.as_str());
    }
}
