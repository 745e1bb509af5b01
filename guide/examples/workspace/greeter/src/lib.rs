//! The project's crate; its book is in `docs/`.

/// A greeting for `name`.
pub fn greet(name: &str) -> String {
    format!("hello, {name}")
}
