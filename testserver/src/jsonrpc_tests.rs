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

/// A long string id needing no escape is keyed without serializing it: the key is the one its
/// JSON text gives, and an id with something to escape (or a long id of another type) still
/// goes through its JSON text.
#[test]
fn a_long_string_id_gets_the_key_of_its_json_text() {
    fn by_text(id: &serde_json::Value) -> String {
        use sha2::Digest;
        let text = id.to_string();
        if text.len() <= MAX_ID_KEY_BYTES {
            return text;
        }
        let hex: String = sha2::Sha256::digest(text.as_bytes())
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        let start: String = text.chars().take(24).collect();
        format!("{start}…[{} bytes, sha256 {hex}]", text.len())
    }
    let long = "é".repeat(MAX_ID_KEY_BYTES);
    for id in [
        json!("x".repeat(MAX_ID_KEY_BYTES - 2)),
        json!("x".repeat(MAX_ID_KEY_BYTES - 1)),
        json!(long),
        json!(format!("{long}\u{7f}~")),
        json!(format!("{long}\"quoted\"")),
        json!(format!("{long}back\\slash")),
        json!(format!("{long}\ttab\u{1}")),
        json!([long]),
        json!(1e300),
    ] {
        assert_eq!(id_key(&id), by_text(&id), "{id}");
    }
}
