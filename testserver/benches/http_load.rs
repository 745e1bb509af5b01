//! Load over Streamable HTTP on loopback (not a timed test; `cargo bench -p mcp-testserver
//! --bench http_load`). Many concurrent 2026-07-28 clients issue `tools/call` requests; a
//! seeded share of them is cancelled by closing the response stream mid-call. Reports throughput,
//! latency percentiles and the process RSS per round, and checks that the server keeps serving,
//! that every request of each round ended exactly once (one handler start, one ending, at most
//! one response), that no handler is left running, and that memory stays flat: the server keeps
//! the last `HISTORY_LIMIT` transcript messages and handler log lines, as the binary does
//! (`--transcript-limit`), so once the warm-up rounds have filled that ring, RSS must not grow by
//! more than `RSS_TOLERANCE_MIB`. Bounded: `CLIENTS` x `CALLS` per round, `ROUNDS` rounds, and a
//! time limit per request.

#[path = "../tests/common/tools_call_2026.rs"]
mod tools_call_2026;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use mcp_testserver::{Direction, HttpServer, Revision, TestServer};
use serde_json::{Value, json};
use tools_call_2026::tools_call_2026_with;

const CLIENTS: usize = 64;
const CALLS: usize = 100;
const ROUNDS: usize = 6;
/// Rounds that fill the history ring (a round records about 2 x CLIENTS x CALLS entries) and
/// warm the allocator before memory is measured.
const WARM_UP_ROUNDS: usize = 2;
/// The history the server keeps: more than one round, so each round can be checked whole.
const HISTORY_LIMIT: usize = 16_384;
/// How much RSS may grow after the warm-up before memory counts as not flat.
const RSS_TOLERANCE_MIB: u64 = 16;
/// One request in `CANCEL_EVERY` is a `slow` call cancelled by closing its stream.
const CANCEL_EVERY: u64 = 4;
const REQUEST_LIMIT: Duration = Duration::from_secs(30);

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(run());
}

async fn run() {
    let http = TestServer::start_with(Revision::V2026_07_28)
        .serve_http()
        .await
        .expect("serving HTTP");
    http.limit_history(HISTORY_LIMIT);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(CLIENTS)
        .build()
        .unwrap();
    println!(
        "http_load: {CLIENTS} clients x {CALLS} calls x {ROUNDS} rounds, 1 in {CANCEL_EVERY} cancelled by closing the stream"
    );
    let mut all_latencies = Vec::new();
    let mut rss_after_warm_up = 0;
    let mut rss_peak = 0;
    for round in 0..ROUNDS {
        let started = Instant::now();
        let mut tasks = Vec::new();
        for client_index in 0..CLIENTS {
            let client = client.clone();
            let url = http.url();
            tasks.push(tokio::spawn(async move {
                let mut latencies = Vec::new();
                let mut seed =
                    (round * CLIENTS + client_index) as u64 * 6_364_136_223_846_793_005 + 1;
                for call in 0..CALLS {
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let id = format!("r{round}-c{client_index}-{call}");
                    let cancel = (seed >> 33).is_multiple_of(CANCEL_EVERY);
                    let began = Instant::now();
                    if cancel {
                        // A long call, abandoned after 1-4 ms: the closed stream is the cancel.
                        let request = post(
                            &client,
                            &url,
                            &id,
                            "slow",
                            json!({"steps": 1000, "step_ms": 1}),
                        );
                        let wait = Duration::from_millis(1 + (seed >> 40) % 4);
                        let _ = tokio::time::timeout(wait, request).await;
                    } else {
                        let request = post(&client, &url, &id, "echo", json!({"text": id}));
                        let body = tokio::time::timeout(REQUEST_LIMIT, request)
                            .await
                            .expect("a response within the limit")
                            .expect("an HTTP response");
                        assert_eq!(body["result"]["content"][0]["text"], id, "{body}");
                        latencies.push(began.elapsed());
                    }
                }
                latencies
            }));
        }
        let mut latencies = Vec::new();
        for task in tasks {
            latencies.extend(task.await.expect("a client task"));
        }
        let elapsed = started.elapsed();
        tokio::time::timeout(REQUEST_LIMIT, http.idle())
            .await
            .expect("handlers stop after the round");
        let requests = CLIENTS * CALLS;
        let rss_mib = rss_kib() / 1024;
        println!(
            "round {round}: {requests} requests in {:.2} s = {:.0} req/s; echo latency {}; RSS {rss_mib} MiB; transcript {} kept, {} dropped",
            elapsed.as_secs_f64(),
            requests as f64 / elapsed.as_secs_f64(),
            percentiles(&mut latencies),
            http.transcript().len(),
            http.transcript().dropped(),
        );
        check_exactly_once(&http, round);
        if round + 1 == WARM_UP_ROUNDS {
            rss_after_warm_up = rss_mib;
        }
        rss_peak = rss_peak.max(rss_mib);
        all_latencies.extend(latencies);
    }
    let growth = rss_peak.saturating_sub(rss_after_warm_up);
    println!(
        "memory: RSS {rss_after_warm_up} MiB after {WARM_UP_ROUNDS} warm-up rounds, peak {rss_peak} MiB over the next {}: growth {growth} MiB (limit {RSS_TOLERANCE_MIB} MiB)",
        ROUNDS - WARM_UP_ROUNDS
    );
    assert!(
        growth <= RSS_TOLERANCE_MIB,
        "memory is not flat: RSS grew {growth} MiB after the warm-up"
    );
    let body = post(
        &reqwest::Client::new(),
        &http.url(),
        "final",
        "echo",
        json!({"text": "still serving"}),
    )
    .await
    .expect("the server still answers");
    assert_eq!(body["result"]["content"][0]["text"], "still serving");
    println!(
        "all rounds: echo latency {}",
        percentiles(&mut all_latencies)
    );
    println!(
        "http_load: ok (every request ended exactly once, no handler left running, memory flat, server still serving)"
    );
}

async fn post(
    client: &reqwest::Client,
    url: &str,
    id: &str,
    tool: &str,
    arguments: Value,
) -> reqwest::Result<Value> {
    tools_call_2026_with(client, url, json!(id), tool, arguments)
        .send()
        .await?
        .json()
        .await
}

/// Every handler of `round` started once and ended once; no request of it got two responses.
/// The server's history holds more than a round, so the whole round is still there.
fn check_exactly_once(http: &HttpServer, round: usize) {
    let prefix = format!("\"r{round}-");
    let log: Vec<String> = http
        .handler_log()
        .into_iter()
        .filter(|line| line.contains(&prefix))
        .collect();
    let mut endings: HashMap<String, (usize, usize)> = HashMap::new();
    for line in &log {
        let (label, what) = line.split_once(' ').expect("`label what` log lines");
        let entry = endings.entry(label.to_owned()).or_default();
        if what == "started" {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
    }
    let broken: Vec<_> = endings
        .iter()
        .filter(|(_, counts)| **counts != (1, 1))
        .collect();
    assert!(
        broken.is_empty(),
        "handlers not started and ended exactly once: {broken:?}"
    );
    let mut responses: HashMap<String, usize> = HashMap::new();
    for wire in http.transcript().messages() {
        let in_round = wire.value()["id"]
            .as_str()
            .is_some_and(|id| id.starts_with(&prefix[1..]));
        if in_round && wire.direction == Direction::Out && wire.value().get("method").is_none() {
            *responses.entry(wire.value()["id"].to_string()).or_default() += 1;
        }
    }
    let doubled: Vec<_> = responses.iter().filter(|(_, count)| **count > 1).collect();
    assert!(doubled.is_empty(), "requests answered twice: {doubled:?}");
    let cancelled = log
        .iter()
        .filter(|line| line.contains("stopped by cancel"))
        .count();
    println!(
        "  checked round {round}: {} handlers, each started and ended once ({cancelled} stopped by a closed stream)",
        endings.len()
    );
}

fn percentiles(latencies: &mut [Duration]) -> String {
    if latencies.is_empty() {
        return "n/a".to_owned();
    }
    latencies.sort();
    let at = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize].as_secs_f64() * 1000.0;
    format!(
        "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    )
}

/// Resident set size of this process (server and clients), in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0)
}
