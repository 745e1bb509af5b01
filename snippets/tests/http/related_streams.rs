//! 2025-11-25 sessions route what a handler sends before its answer to the stream of the request
//! it belongs to (basic/transports, Streamable HTTP: such messages "SHOULD relate to the
//! originating client request"): two `ask` calls running at once on one session, through raw
//! HTTP, each read from its own SSE stream, with the standalone GET stream open beside them.

use futures_util::StreamExt;
use mcp_testserver::Revision;
use serde_json::{Value, json};
use sse_stream::SseStream;

use super::{start, within};

/// A response's SSE events, read as they arrive (parsed by `sse-stream`, so an event or a
/// character split across chunks is put together again).
struct Events {
    stream: SseStream<reqwest::Body>,
}

impl Events {
    fn new(response: reqwest::Response) -> Events {
        let kind = response.headers().get("content-type").cloned();
        assert_eq!(
            kind.as_ref().and_then(|kind| kind.to_str().ok()),
            Some("text/event-stream"),
            "status {}",
            response.status()
        );
        let response: hyper::Response<reqwest::Body> = response.into();
        Events {
            stream: SseStream::new(response.into_body()),
        }
    }

    /// The next event's JSON-RPC message; `None` once the stream has ended.
    async fn next(&mut self) -> Option<Value> {
        loop {
            let event = within("an SSE event", self.stream.next())
                .await?
                .expect("reading the stream");
            // Events without data (a priming event, a comment) carry no message.
            if let Some(data) = event.data {
                return Some(serde_json::from_str(&data).expect("JSON data"));
            }
        }
    }

    /// Every message still to come, until the stream ends.
    async fn rest(&mut self) -> Vec<Value> {
        let mut messages = Vec::new();
        while let Some(message) = self.next().await {
            messages.push(message);
        }
        messages
    }
}

fn post(url: &str, session: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
    let request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string());
    match session {
        Some(session) => request.header("mcp-session-id", session),
        None => request,
    }
}

fn ask(id: u64, question: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "ask", "arguments": {"question": question}}})
}

/// The `elicitation/create` a stream carried first: its server-side id, after checking it asks
/// `question`.
fn elicitation_id(message: Option<Value>, question: &str) -> Value {
    let message = message.expect("an elicitation before the answer");
    assert_eq!(message["method"], "elicitation/create", "{message}");
    assert_eq!(message["params"]["message"], question, "{message}");
    message["id"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_asks_each_get_their_elicitation_on_their_own_stream() {
    let http = start(Revision::V2025_11_25).await;
    let url = http.url();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let reply = within("initialize", post(&url, None, &initialize).send())
        .await
        .unwrap();
    assert_eq!(reply.status().as_u16(), 200);
    let session_id = reply.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let session = Some(session_id.as_str());
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = within("initialized", post(&url, session, &initialized).send())
        .await
        .unwrap();
    assert_eq!(reply.status().as_u16(), 202);
    // With the GET stream open too, "the only open POST stream, else the GET stream" would send
    // the second call's elicitation to the GET stream; it must go to the call's own stream.
    let get = reqwest::Client::new()
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session_id)
        .send();
    let mut standalone = Events::new(within("GET", get).await.unwrap());

    let (first, second) = within("both asks", async {
        tokio::join!(
            post(&url, session, &ask(2, "first?")).send(),
            post(&url, session, &ask(3, "second?")).send(),
        )
    })
    .await;
    let (mut first, mut second) = (Events::new(first.unwrap()), Events::new(second.unwrap()));
    let first_asks = elicitation_id(first.next().await, "first?");
    let second_asks = elicitation_id(second.next().await, "second?");
    assert_ne!(first_asks, second_asks);

    // Answered in the other order than asked: each answer reaches the call that asked.
    for (id, answer) in [(&second_asks, "two"), (&first_asks, "one")] {
        let reply = json!({"jsonrpc": "2.0", "id": id, "result": {
            "action": "accept", "content": {"answer": answer}}});
        let reply = within("an answer", post(&url, session, &reply).send())
            .await
            .unwrap();
        assert_eq!(reply.status().as_u16(), 202);
    }
    let result = |id: u64, text: &str| {
        json!({"jsonrpc": "2.0", "id": id, "result": {
            "content": [{"type": "text", "text": text}]}})
    };
    assert_eq!(first.rest().await, vec![result(2, "answer: one")]);
    assert_eq!(second.rest().await, vec![result(3, "answer: two")]);
    within("idle", http.idle()).await;
    let mut log = http.handler_log();
    log.sort();
    assert_eq!(
        log,
        vec![
            "ask#2 completed",
            "ask#2 started",
            "ask#3 completed",
            "ask#3 started"
        ]
    );

    // Ending the session ends the GET stream; nothing was sent on it.
    let delete = reqwest::Client::new()
        .delete(&url)
        .header("mcp-session-id", &session_id)
        .send();
    assert_eq!(
        within("DELETE", delete).await.unwrap().status().as_u16(),
        200
    );
    assert_eq!(standalone.rest().await, Vec::<Value>::new());
    assert!(http.violations().is_empty(), "{:?}", http.violations());
}
