//! Lengths, for the example book's snippets.

/// A length in metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metres(pub f64);

impl Metres {
    /// The same length in feet.
    pub fn to_feet(self) -> f64 {
        self.0 / 0.3048
    }
}
