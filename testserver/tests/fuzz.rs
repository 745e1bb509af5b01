//! Fuzzing the server with random and mutated JSON-RPC lines (a seeded xorshift PRNG, so every
//! run feeds the same lines): no panic, no hang, and a well-formed error for each bad line. After
//! each line a sentinel request proves the server is still serving and bounds what the line
//! produced.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{Conn, stdio_binary};
use mcp_testserver::Revision;
use serde_json::{Value, json};

static PANICS: AtomicUsize = AtomicUsize::new(0);

/// xorshift64*: small, seeded, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Well-formed messages the mutations start from.
fn seeds() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}}),
        json!({"jsonrpc": "2.0", "id": "a", "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "slow", "arguments": {"steps": 2, "step_ms": 5}, "_meta": {"progressToken": 3}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "x"}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/get", "params": {"taskId": "task-1"}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "server/discover", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
        json!({"jsonrpc": "2.0", "id": 7, "result": {"action": "accept"}}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "fail", "arguments": {"message": "m"}}}),
    ]
}

const FRAGMENTS: &[&str] = &[
    "null",
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "0",
    "-1",
    "1e999",
    "\"id\"",
    "\\u0000",
    "true",
    "{}",
    "[]",
    "\u{fffd}",
    "\"method\"",
];

/// One line (no `\n`) built from a seed by a random mutation, or random bytes.
fn line(rng: &mut Rng) -> Vec<u8> {
    let seed = rng.pick(&seeds()).to_string().into_bytes();
    let mut bytes = seed.clone();
    match rng.below(7) {
        0 => {
            // Flip a few bytes.
            for _ in 0..=rng.below(4) {
                let at = rng.below(bytes.len());
                bytes[at] = rng.next() as u8;
            }
        }
        1 => bytes.truncate(rng.below(bytes.len())),
        2 => {
            let at = rng.below(bytes.len());
            let fragment = rng.pick(FRAGMENTS).as_bytes().to_vec();
            bytes.splice(at..at, fragment);
        }
        3 => {
            // Replace a value inside the JSON with a random one.
            let mut value: Value = serde_json::from_slice(&seed).unwrap();
            let key = *rng.pick(&["id", "method", "params", "jsonrpc", "result"]);
            let replacement = rng
                .pick(&[
                    json!(null),
                    json!(1.5),
                    json!([]),
                    json!({}),
                    json!("x"),
                    json!(-7),
                    json!(true),
                ])
                .clone();
            value[key] = replacement;
            bytes = value.to_string().into_bytes();
        }
        4 => bytes = (0..rng.below(64)).map(|_| rng.next() as u8).collect(),
        5 => {
            let value = rng
                .pick(&[
                    json!(null),
                    json!(1),
                    json!("s"),
                    json!([1, 2]),
                    json!([]),
                    json!({"jsonrpc": "2.0"}),
                ])
                .clone();
            bytes = value.to_string().into_bytes();
        }
        _ => {} // the seed unchanged
    }
    bytes.retain(|byte| *byte != b'\n');
    bytes
}

fn well_formed(message: &Value) -> bool {
    message["jsonrpc"] == "2.0"
        && (message.get("method").is_some_and(Value::is_string)
            || (message.get("id").is_some()
                && (message.get("result").is_some() ^ message.get("error").is_some())))
}

/// What one line must produce before the sentinel's response.
enum Expect {
    Nothing,
    ParseError,
    InvalidRequest,
    Anything,
}

fn expectation(bytes: &[u8]) -> Expect {
    let trimmed = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if trimmed.iter().all(u8::is_ascii_whitespace) {
        return Expect::Nothing;
    }
    match serde_json::from_slice::<Value>(bytes) {
        Err(_) => Expect::ParseError,
        Ok(Value::Object(object))
            if object.contains_key("method")
                || object.contains_key("result")
                || object.contains_key("error") =>
        {
            Expect::Anything
        }
        Ok(_) => Expect::InvalidRequest,
    }
}

async fn fuzz(mut conn: Conn, seed: u64, lines: usize) {
    let mut rng = Rng(seed);
    conn.initialize().await;
    for index in 0..lines {
        let bytes = line(&mut rng);
        conn.send_bytes(&[bytes.as_slice(), b"\n"].concat()).await;
        let sentinel = json!(format!("sentinel-{index}"));
        conn.send_request(sentinel.clone(), "ping", json!({})).await;
        let answer = conn.response(&sentinel).await;
        assert!(
            answer.get("result").is_some() || answer.get("error").is_some(),
            "sentinel: {answer}"
        );
        let produced: Vec<Value> = conn.take_backlog();
        let shown = String::from_utf8_lossy(&bytes);
        assert!(
            produced.iter().all(well_formed),
            "line {index} {shown:?} produced {produced:?}"
        );
        // -32700 always carries a null id; -32600 echoes the id when one could be read.
        let has_error = |code: i64| {
            produced
                .iter()
                .any(|m| m["error"]["code"] == code && (code != -32700 || m["id"].is_null()))
        };
        match expectation(&bytes) {
            // Answers of earlier lines' spawned handlers may still arrive here; errors may not.
            Expect::Nothing => assert!(
                !has_error(-32700) && !has_error(-32600),
                "blank line {index} produced {produced:?}"
            ),
            Expect::ParseError => assert!(
                has_error(-32700),
                "line {index} {shown:?}: no -32700 in {produced:?}"
            ),
            Expect::InvalidRequest => assert!(
                has_error(-32600),
                "line {index} {shown:?}: no -32600 in {produced:?}"
            ),
            Expect::Anything => {}
        }
    }
    assert_eq!(conn.finish().await.unwrap_or(0), 0);
}

#[tokio::test(start_paused = true)]
async fn random_and_mutated_lines_in_process() {
    std::panic::set_hook(Box::new(|info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        eprintln!("{info}");
    }));
    for seed in [1, 0x5eed, 0xdead_beef] {
        let conn = mcp_testserver::TestServer::start_with(Revision::V2025_11_25).connect_raw();
        tokio::time::timeout(Duration::from_secs(3600), fuzz(conn, seed, 1500))
            .await
            .expect("no hang");
    }
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "a server task panicked");
}

#[tokio::test]
async fn random_and_mutated_lines_over_stdio() {
    let conn = stdio_binary(&[], Revision::V2025_11_25);
    tokio::time::timeout(Duration::from_secs(120), fuzz(conn, 42, 400))
        .await
        .expect("no hang");
}
