//! Response bodies: a whole JSON message, an empty acknowledgement, or a Server-Sent Events
//! stream of JSON-RPC messages that ends after the response to the request that opened it. A
//! stream knows how it ended: completed (the response was handed to hyper) or abandoned (hyper
//! dropped it because the client closed the connection), and reports that once.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Full, combinators::BoxBody};
use hyper::body::{Body, Frame};
use hyper::{Response, StatusCode, header};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::jsonrpc::{self, id_key};

/// Every response body this endpoint sends.
pub(super) type HttpBody = BoxBody<Bytes, Infallible>;

/// How a request's response stream ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// The response to the request was handed to the connection.
    Completed,
    /// The stream was dropped before the response: the client closed it.
    Abandoned,
}

/// Called exactly once with how a stream ended.
pub(super) type OnEnd = Box<dyn FnOnce(Ending) + Send + Sync>;

/// Reports `Abandoned` when dropped before `complete` was called, so a client that closes the
/// connection while the server still works is noticed wherever hyper drops the request: in the
/// service future (before the head) or in the body (while streaming).
pub(super) struct EndGuard {
    on_end: Option<OnEnd>,
}

impl EndGuard {
    pub(super) fn new(on_end: OnEnd) -> EndGuard {
        EndGuard {
            on_end: Some(on_end),
        }
    }

    /// The response was delivered.
    pub(super) fn complete(&mut self) {
        if let Some(on_end) = self.on_end.take() {
            on_end(Ending::Completed);
        }
    }
}

impl Drop for EndGuard {
    fn drop(&mut self) {
        if let Some(on_end) = self.on_end.take() {
            on_end(Ending::Abandoned);
        }
    }
}

/// The messages bound for one request's HTTP response, and how to report its end.
pub(super) struct ResponseStream {
    /// The JSON-RPC id of the request (as an id key) whose response ends the stream.
    pub request_key: String,
    pub messages: mpsc::UnboundedReceiver<Value>,
    pub guard: EndGuard,
}

/// Whether `message` is the response (result or error) to the request with `request_key`.
pub(super) fn is_response_to(message: &Value, request_key: &str) -> bool {
    jsonrpc::is_response(message)
        && message
            .get("id")
            .is_some_and(|id| id_key(id) == request_key)
}

impl ResponseStream {
    /// Waits for the first message: when it is the response, answers with one JSON object
    /// (`status` picks the HTTP status from it); otherwise opens an SSE stream that starts with
    /// it. A stream that ends without any message answers 202 (nothing is owed, e.g. after a
    /// `DELETE` ended the session).
    pub(super) async fn into_response(
        mut self,
        status: fn(&Value) -> StatusCode,
        headers: &[(&'static str, String)],
    ) -> Response<HttpBody> {
        let Some(first) = self.messages.recv().await else {
            self.guard.complete();
            return with_headers(empty(StatusCode::ACCEPTED), headers);
        };
        if is_response_to(&first, &self.request_key) {
            self.guard.complete();
            return with_headers(json(status(&first), &first), headers);
        }
        let body = SseBody {
            first: Some(first),
            stream: Some(self),
        };
        let response = Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "text/event-stream")
            .header(header::CACHE_CONTROL, "no-cache")
            .header("x-accel-buffering", "no")
            .body(body.boxed())
            .expect("a valid SSE response");
        with_headers(response, headers)
    }
}

/// An SSE stream of JSON-RPC messages (`event: message`), ending after the response.
struct SseBody {
    first: Option<Value>,
    /// `None` once the response went out.
    stream: Option<ResponseStream>,
}

impl Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        let Some(stream) = this.stream.as_mut() else {
            return Poll::Ready(None);
        };
        let message = match this.first.take() {
            Some(message) => message,
            None => match stream.messages.poll_recv(context) {
                Poll::Ready(Some(message)) => message,
                Poll::Ready(None) => {
                    // The sender went away without a response (the session ended).
                    if let Some(mut stream) = this.stream.take() {
                        stream.guard.complete();
                    }
                    return Poll::Ready(None);
                }
                Poll::Pending => return Poll::Pending,
            },
        };
        if is_response_to(&message, &stream.request_key)
            && let Some(mut stream) = this.stream.take()
        {
            stream.guard.complete();
        }
        Poll::Ready(Some(Ok(Frame::data(sse_event(&message)))))
    }
}

/// One SSE event carrying a JSON-RPC message.
pub(super) fn sse_event(message: &Value) -> Bytes {
    Bytes::from(format!("event: message\ndata: {message}\n\n"))
}

/// A response with one JSON body.
pub(super) fn json(status: StatusCode, message: &Value) -> Response<HttpBody> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(message.to_string())).boxed())
        .expect("a valid JSON response")
}

/// A response without a body.
pub(super) fn empty(status: StatusCode) -> Response<HttpBody> {
    Response::builder()
        .status(status)
        .body(Empty::new().boxed())
        .expect("a valid empty response")
}

/// Adds extra headers (e.g. `Mcp-Session-Id`) to a response.
pub(super) fn with_headers(
    mut response: Response<HttpBody>,
    headers: &[(&'static str, String)],
) -> Response<HttpBody> {
    for (name, value) in headers {
        if let Ok(value) = header::HeaderValue::from_str(value) {
            response.headers_mut().insert(*name, value);
        }
    }
    response
}

/// A standalone SSE stream (the 2025-11-25 GET stream): every message sent on `messages`, until
/// the sender is dropped; `on_close` runs when it ends either way.
pub(super) fn standalone_stream(
    messages: mpsc::UnboundedReceiver<Value>,
    on_close: EndGuard,
) -> Response<HttpBody> {
    let body = StandaloneBody {
        messages,
        _on_close: on_close,
    };
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .header("x-accel-buffering", "no")
        .body(body.boxed())
        .expect("a valid SSE response")
}

struct StandaloneBody {
    messages: mpsc::UnboundedReceiver<Value>,
    _on_close: EndGuard,
}

impl Body for StandaloneBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.messages
            .poll_recv(context)
            .map(|message| message.map(|message| Ok(Frame::data(sse_event(&message)))))
    }
}
