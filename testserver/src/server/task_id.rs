//! Task ids: receiver-generated strings that must not be mistaken for request ids, in one of
//! two forms ([`TaskIds`]).
//!
//! - Random (the `mcp-testserver` binary): `tsk-` and 32 hex digits, 128 bits from the
//!   operating system's CSPRNG (`getrandom`), since a client that can guess another's task id
//!   could reach it where no context binds it ("If context-binding is unavailable, receivers
//!   MUST generate cryptographically secure task IDs with enough entropy to prevent guessing",
//!   2025-11-25 basic/utilities/tasks; "Servers MUST generate them with sufficient entropy that a
//!   third party cannot enumerate or guess them", SEP-2663 *Security Considerations*).
//! - Deterministic (an in-process core, the harness the book's snippets run on, where the only
//!   client is the snippet itself): a task's number (1, 2, … in creation order) goes through a
//!   fixed 32-bit permutation and is shown as `tsk-` and eight hex digits (task 1 is
//!   `tsk-a0565851`), so ids are the same on every run yet share no digits with the request ids
//!   of a simple flow. The permutation is invertible, so a task id maps back to its number.

/// The fixed seed mixed into every id (any value: it only has to stay the same).
const SEED: u32 = 0x5EED_7A5C;
/// An odd multiplier (so multiplying is a bijection modulo 2^32) and its inverse.
const MULTIPLIER: u32 = 0x9E37_79B1;
#[cfg(test)]
const INVERSE: u32 = inverse(MULTIPLIER);
const PREFIX: &str = "tsk-";

/// How a server makes its task ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskIds {
    /// From the task's number: the same on every run (in-process servers).
    Deterministic,
    /// 128 random bits each (the binary).
    Random,
}

impl TaskIds {
    /// The id of the task numbered `number`; `None` when a deterministic id cannot number it.
    pub(crate) fn id(self, number: u64) -> Option<String> {
        match self {
            TaskIds::Deterministic => u32::try_from(number).ok().map(encode),
            TaskIds::Random => {
                let mut bits = [0u8; 16];
                getrandom::fill(&mut bits)
                    .expect("the operating system's random source is available");
                let hex: String = bits.iter().map(|byte| format!("{byte:02x}")).collect();
                Some(format!("{PREFIX}{hex}"))
            }
        }
    }
}

/// The id of the task numbered `number`.
pub(crate) fn encode(number: u32) -> String {
    format!("{PREFIX}{:08x}", scramble(number))
}

/// The number behind a deterministic task id, else `None`.
#[cfg(test)]
pub(crate) fn decode(text: &str) -> Option<u32> {
    let digits = text.strip_prefix(PREFIX)?;
    if digits.len() != 8 || !digits.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok().map(unscramble)
}

fn scramble(number: u32) -> u32 {
    let mut x = number.wrapping_mul(MULTIPLIER) ^ SEED;
    x ^= x >> 16;
    x = x.wrapping_mul(MULTIPLIER);
    x ^ (x >> 16)
}

#[cfg(test)]
fn unscramble(mut x: u32) -> u32 {
    // `x ^= x >> 16` is its own inverse on 32 bits.
    x ^= x >> 16;
    x = x.wrapping_mul(INVERSE);
    x ^= x >> 16;
    (x ^ SEED).wrapping_mul(INVERSE)
}

/// The inverse of an odd number modulo 2^32, by Newton's iteration (each step doubles the
/// correct low bits: `odd` is its own inverse to 3 bits, then 6, 12, 24, 48).
#[cfg(test)]
const fn inverse(odd: u32) -> u32 {
    let mut inverse = odd;
    let mut step = 0;
    while step < 4 {
        inverse = inverse.wrapping_mul(2u32.wrapping_sub(odd.wrapping_mul(inverse)));
        step += 1;
    }
    inverse
}

#[cfg(test)]
#[path = "task_id_tests.rs"]
mod tests;
