//! An MCP server on stdio whose tool stops as soon as its request is cancelled.
//!
//!     cargo run --release    (an MCP client starts it and speaks on its stdin and stdout)
//!
//! It logs to stderr: stdout carries the protocol.

use std::time::Duration;

use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use tokio_util::sync::CancellationToken;

// ANCHOR: tool
#[derive(Clone, Default)]
struct Archive;

#[tool_router]
impl Archive {
    #[tool(description = "Rebuild the index: three shards fetched in parallel, then a merge")]
    async fn rebuild(&self, ct: CancellationToken) -> Result<String, ErrorData> {
        let _lease = Lease::take(); // released on every way out, a cancel included
        let mut shards = tokio::task::JoinSet::new();
        for shard in 1..=3 {
            let ct = ct.child_token(); // cancelled with the request; cannot cancel it
            shards.spawn(async move {
                eprintln!("shard {shard}: fetching");
                tokio::select! {
                    () = fetch_shard(shard) => true,
                    () = ct.cancelled() => {
                        eprintln!("shard {shard}: stopped");
                        false
                    }
                }
            });
        }
        if !shards.join_all().await.into_iter().all(|fetched| fetched) {
            return Err(cancelled());
        }
        // Nothing can interrupt blocking code from outside: it checks the token between steps.
        let merge = tokio::task::spawn_blocking(move || {
            for chunk in 1..=5 {
                if ct.is_cancelled() {
                    eprintln!("merge: stopped before chunk {chunk}");
                    return false;
                }
                merge_chunk(chunk);
            }
            true
        });
        match merge.await {
            Ok(true) => Ok("rebuilt".to_owned()),
            Ok(false) => Err(cancelled()),
            Err(panic) => Err(ErrorData::internal_error(format!("merge: {panic}"), None)),
        }
    }
}

/// What a cancelled tool returns. Nobody sees it: rmcp sends nothing for a cancelled request.
fn cancelled() -> ErrorData {
    ErrorData::internal_error("cancelled", None)
}

/// The archive's write lease, held while the tool runs and given back when it is dropped.
struct Lease;

impl Lease {
    fn take() -> Lease {
        eprintln!("lease taken");
        Lease
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        eprintln!("lease released");
    }
}
// ANCHOR_END: tool

// ANCHOR: main
#[tool_handler]
impl ServerHandler for Archive {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // When the input ends, rmcp 3.11 gives calls still running 5 s, then cancels their `ct`.
    Archive
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
// ANCHOR_END: main

/// Stands for the real work of fetching one shard.
async fn fetch_shard(shard: u32) {
    tokio::time::sleep(Duration::from_secs(2)).await;
    eprintln!("shard {shard}: fetched");
}

/// Stands for one step of real blocking work (CPU or a blocking library).
fn merge_chunk(chunk: u32) {
    eprintln!("merge: chunk {chunk}");
    std::thread::sleep(Duration::from_millis(500));
}
