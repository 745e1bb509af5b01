//! Unit tests of `request_state.rs`.

use super::*;

const ORIGIN: Origin<'static> = Origin {
    method: "tools/call",
    name: "tool",
};

#[test]
fn request_state_round_trips_and_rejects_tampering() {
    let state = sign(ORIGIN, json!({"round": 2}));
    assert_eq!(verify(ORIGIN, &state), Ok(json!({"round": 2})));
    let tampered = format!("{state}-TAMPERED");
    assert!(verify(ORIGIN, &tampered).is_err());
    let (payload, tag) = state.split_once('.').unwrap();
    let forged = URL_SAFE_NO_PAD.encode(
        String::from_utf8(URL_SAFE_NO_PAD.decode(payload).unwrap())
            .unwrap()
            .replace("2", "3"),
    );
    assert!(verify(ORIGIN, &format!("{forged}.{tag}")).is_err());
    let other = Origin {
        method: "prompts/get",
        name: "tool",
    };
    assert!(
        verify(other, &state)
            .unwrap_err()
            .contains("another request")
    );
}
