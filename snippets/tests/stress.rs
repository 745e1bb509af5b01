//! Stress: 10,000 concurrent `slow` calls from one rmcp client, a seeded random share of them
//! cancelled at a random moment (before the handler starts, while it runs, or after it finished:
//! the race). Every call must end exactly once on the server's wire: a response, or a cancel
//! with no response after it. No handler may keep running, no task may outlive its connection,
//! and live heap memory must not grow from one round to the next. The clock is paused, so the
//! virtual milliseconds cost nothing and the whole test runs in seconds in debug.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::HashMap;
use std::time::Duration;

use mcp_testserver::{Direction, Revision, TestServer};
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};

/// Counts live heap bytes per thread, so "memory flat" is measured exactly rather than through
/// RSS, and two rounds on two threads (each a current-thread runtime: a round's client, server
/// and tasks allocate and free on its thread alone) each count only their own.
struct Counting;

thread_local! {
    // Const-initialised and without a destructor: reading it never allocates, so the
    // allocator may use it.
    static LIVE_BYTES: Cell<isize> = const { Cell::new(0) };
}

/// Adds `change` to this thread's live bytes (nothing once the thread's locals are gone).
fn count(change: isize) {
    let _ = LIVE_BYTES.try_with(|live| live.set(live.get() + change));
}

/// This thread's live heap bytes.
fn live_bytes() -> isize {
    LIVE_BYTES.with(Cell::get)
}

// SAFETY: every call forwards to `System` with the caller's arguments unchanged; the counter
// only observes sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        // SAFETY: `pointer` came from `alloc` with this layout.
        unsafe { System.dealloc(pointer, layout) }
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(pointer, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const CALLS: usize = 10_000;
/// Allowed growth of live heap from the end of round 1 to the end of round 2: far below what
/// even a few bytes kept per call (10,000 calls) would add, far above allocator noise.
const FLAT_SLACK_BYTES: isize = 256 * 1024;

/// xorshift64*: a seeded generator, so every run cancels the same calls at the same moments.
struct Seeded(u64);

impl Seeded {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % bound
    }
}

/// How one call ended, as the client saw it.
enum Ending {
    Responded,
    Cancelled,
}

/// Runs one round on a fresh server and checks that every call ended exactly once.
async fn round(revision: Revision, seed: u64) {
    let server = TestServer::start_with(revision);
    let client = server.connect_rmcp().await.unwrap();
    let mut random = Seeded(seed);
    let mut calls = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let cancel_after = (random.below(3) == 0).then(|| Duration::from_millis(random.below(40)));
        let peer = client.peer().clone();
        calls.push(tokio::spawn(async move {
            let params = CallToolRequestParams::new("slow").with_arguments(
                json!({"steps": 3, "step_ms": 10})
                    .as_object()
                    .unwrap()
                    .clone(),
            );
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            let handle = peer
                .send_cancellable_request(request, PeerRequestOptions::no_options())
                .await
                .unwrap();
            match cancel_after {
                Some(delay) => {
                    tokio::time::sleep(delay).await;
                    handle.cancel(Some("stress".to_owned())).await.unwrap();
                    Ending::Cancelled
                }
                None => {
                    handle.await_response().await.unwrap();
                    Ending::Responded
                }
            }
        }));
    }
    let mut cancelled = 0;
    for call in calls {
        if let Ending::Cancelled = call.await.unwrap() {
            cancelled += 1;
        }
    }
    server.idle().await;
    assert!(
        cancelled > CALLS / 5 && cancelled < CALLS / 2,
        "{revision}: {cancelled} cancelled"
    );
    check_each_call_ended_once(&server, cancelled);
    assert_eq!(server.violations(), [], "{revision}");
    client.cancel().await.unwrap();
}

/// Walks the server's transcript: per request id, one response, or a cancel and no response
/// after it (a response before the cancel is the normal race).
fn check_each_call_ended_once(server: &TestServer, cancelled: usize) {
    #[derive(Default)]
    struct Seen {
        responses: usize,
        cancelled: bool,
        response_after_cancel: bool,
    }
    let mut calls: HashMap<String, Seen> = HashMap::new();
    for wire in server.transcript().messages() {
        let message = &wire.value();
        match (
            wire.direction,
            message.get("method").and_then(Value::as_str),
        ) {
            (Direction::In, Some("tools/call")) => {
                let previous = calls.insert(message["id"].to_string(), Seen::default());
                assert!(previous.is_none(), "rmcp reused id {}", message["id"]);
            }
            (Direction::In, Some("notifications/cancelled")) => {
                let seen = calls
                    .get_mut(&message["params"]["requestId"].to_string())
                    .expect("cancel for a sent id");
                seen.cancelled = true;
            }
            (Direction::Out, None) => {
                let Some(seen) = calls.get_mut(&message["id"].to_string()) else {
                    continue;
                };
                seen.responses += 1;
                seen.response_after_cancel |= seen.cancelled;
            }
            _ => {}
        }
    }
    assert_eq!(calls.len(), CALLS);
    assert_eq!(
        calls.values().filter(|seen| seen.cancelled).count(),
        cancelled
    );
    for (id, seen) in &calls {
        assert!(seen.responses <= 1, "id {id}: {} responses", seen.responses);
        assert!(
            !seen.response_after_cancel,
            "id {id}: a response after its cancel"
        );
        assert!(
            seen.cancelled || seen.responses == 1,
            "id {id}: neither answered nor cancelled"
        );
    }
    // Every handler that started also ended, once.
    let log = server.handler_log();
    let started = log.iter().filter(|line| line.ends_with(" started")).count();
    let ended = log
        .iter()
        .filter(|line| line.ends_with(" completed") || line.contains(" stopped by cancel"))
        .count();
    assert_eq!(started, ended, "handlers that started but never ended");
}

fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

/// Lets connection tasks notice EOF and finish (virtual time, free).
async fn settle() {
    tokio::time::sleep(Duration::from_secs(10)).await;
}

/// A current-thread runtime with its clock paused, as `#[tokio::test(start_paused = true)]`
/// makes one.
fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("building a runtime")
}

#[test]
fn ten_thousand_calls_with_random_cancels_end_exactly_once() {
    // Each revision on a runtime and a thread of its own, side by side (cargo runs this test
    // binary alone, so a second core would stand idle): two rounds, the thread's live heap taken
    // after each, which must not grow, and no task left over.
    std::thread::scope(|scope| {
        for (index, revision) in Revision::ALL.into_iter().enumerate() {
            scope.spawn(move || {
                paused_runtime().block_on(async move {
                    let tasks_before = alive_tasks();
                    let seed = 0x5EED + 2 * index as u64;
                    round(revision, seed).await;
                    settle().await;
                    let after_first = live_bytes();
                    round(revision, seed + 1).await;
                    settle().await;
                    let after_second = live_bytes();
                    assert_eq!(
                        alive_tasks(),
                        tasks_before,
                        "{revision}: tasks outlived the rounds"
                    );
                    let growth = after_second - after_first;
                    eprintln!(
                        "{revision}: live heap after round 1: {after_first} B, after round 2: \
                         {after_second} B, growth {growth} B"
                    );
                    assert!(
                        growth < FLAT_SLACK_BYTES,
                        "{revision}: live heap grew by {growth} bytes over one round of {CALLS} calls"
                    );
                });
            });
        }
    });
}
