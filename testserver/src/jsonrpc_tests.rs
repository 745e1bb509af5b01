//! Unit tests of `jsonrpc.rs`.

use serde_json::json;

use super::{MAX_ID_KEY_BYTES, id_key};

/// A short id's key is its JSON text (so `"4"` and `4` differ); a long one's is bounded and
/// still tells two ids apart, including two that differ only at the end.
#[test]
fn a_long_id_is_keyed_by_its_digest_and_short_ones_by_their_text() {
    assert_eq!(id_key(&json!(4)), "4");
    assert_eq!(id_key(&json!("4")), "\"4\"");
    let edge = "x".repeat(MAX_ID_KEY_BYTES - 2);
    assert_eq!(
        id_key(&json!(edge)),
        format!("\"{edge}\""),
        "exactly at the limit"
    );
    let long = "i".repeat(3_900_000);
    let one = id_key(&json!(format!("{long}1")));
    let two = id_key(&json!(format!("{long}2")));
    assert_ne!(one, two);
    assert!(one.len() < 200, "{one}");
    assert!(
        one.starts_with("\"iiii") && one.contains("…[3900003 bytes, sha256 "),
        "{one}"
    );
    assert_eq!(
        one,
        id_key(&json!(format!("{long}1"))),
        "the same id, the same key"
    );
}
