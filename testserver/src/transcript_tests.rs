//! Unit tests of `transcript.rs`: the byte limit beside the message limit.

use serde_json::{Value, json};

use super::{Direction, Entry, Side, Transcript, entry_bytes};

fn message(text: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": text}})
}

/// The oldest messages go until the rest fit the byte limit; the marker counts them and names
/// both limits; the newest stays even when it alone is over the limit.
#[test]
fn the_byte_limit_drops_the_oldest_and_keeps_the_newest() {
    let transcript = Transcript::new(Side::Server);
    transcript.set_limit(100);
    let size = entry_bytes(&Entry::Message(message(&"a".repeat(1000))));
    transcript.set_byte_limit(3 * size);
    for letter in ["a", "b", "c", "d", "e"] {
        transcript.record(Direction::In, message(&letter.repeat(1000)));
    }
    assert_eq!(transcript.len(), 3);
    assert_eq!(transcript.bytes(), 3 * size);
    assert_eq!(transcript.dropped(), 2);
    let kept = transcript.messages();
    let marker = kept[0].value();
    assert_eq!(marker["dropped"], 2);
    assert_eq!(marker["byteLimit"], 3 * size);
    assert_eq!(
        marker["detail"],
        format!(
            "2 earlier messages dropped: the transcript keeps the last 100 messages, at most {} bytes",
            3 * size
        )
    );
    assert!(
        kept[1].value()["params"]["data"]
            .as_str()
            .unwrap()
            .starts_with('c')
    );
    // One message larger than the whole limit: it alone stays.
    transcript.record(Direction::Out, message(&"z".repeat(10_000)));
    assert_eq!(transcript.len(), 1);
    assert_eq!(transcript.dropped(), 5);
    assert!(
        transcript.messages()[1].value()["params"]["data"]
            .as_str()
            .unwrap()
            .starts_with('z')
    );
}

/// A byte limit set on a transcript that already holds messages counts them, and trims at once.
#[test]
fn a_byte_limit_set_late_counts_what_is_there() {
    let transcript = Transcript::new(Side::Server);
    for _ in 0..10 {
        transcript.record(Direction::In, message(&"x".repeat(100)));
    }
    let size = entry_bytes(&Entry::Message(message(&"x".repeat(100))));
    assert_eq!(
        size,
        serde_json::to_string(&message(&"x".repeat(100)))
            .unwrap()
            .len()
    );
    transcript.set_byte_limit(4 * size + 1);
    assert_eq!((transcript.len(), transcript.dropped()), (4, 6));
    let detail = format!(
        "6 earlier messages dropped: the transcript keeps at most {} bytes",
        4 * size + 1
    );
    assert_eq!(transcript.messages()[0].value()["detail"], detail);
}

/// Without a byte limit nothing is counted or dropped (in-process servers keep everything).
#[test]
fn without_limits_everything_is_kept() {
    let transcript = Transcript::new(Side::Client);
    for _ in 0..50 {
        transcript.record(Direction::Out, message(&"y".repeat(10_000)));
    }
    assert_eq!(
        (transcript.len(), transcript.dropped(), transcript.bytes()),
        (50, 0, 0)
    );
}
