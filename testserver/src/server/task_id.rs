//! Task ids: receiver-generated strings that must not be mistaken for request ids. A task's
//! number (1, 2, … in creation order) goes through a fixed 32-bit permutation and is shown as
//! `tsk-` and eight hex digits (task 1 is `tsk-a0565851`), so ids are the same on every run yet share no
//! digits with the request ids of a simple flow. The permutation is invertible, so a task id
//! maps back to its number without a second table.

/// The fixed seed mixed into every id (any value: it only has to stay the same).
const SEED: u32 = 0x5EED_7A5C;
/// An odd multiplier (so multiplying is a bijection modulo 2^32) and its inverse.
const MULTIPLIER: u32 = 0x9E37_79B1;
const INVERSE: u32 = inverse(MULTIPLIER);
const PREFIX: &str = "tsk-";

/// The id of the task numbered `number`.
pub(crate) fn encode(number: u32) -> String {
    format!("{PREFIX}{:08x}", scramble(number))
}

/// The number behind a task id this server could have given, else `None`.
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

fn unscramble(mut x: u32) -> u32 {
    // `x ^= x >> 16` is its own inverse on 32 bits.
    x ^= x >> 16;
    x = x.wrapping_mul(INVERSE);
    x ^= x >> 16;
    (x ^ SEED).wrapping_mul(INVERSE)
}

/// The inverse of an odd number modulo 2^32, by Newton's iteration (each step doubles the
/// correct low bits: `odd` is its own inverse to 3 bits, then 6, 12, 24, 48).
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
