//! Expected output against actual stdout, with snapbox's wildcards: `[..]` inside a line matches
//! any text on that line, and a line that is just `...` matches any number of lines (none
//! included). Trailing whitespace on each line and trailing blank lines do not count, so the
//! Markdown block need not reproduce them.

use std::time::{Duration, Instant};

use similar::DiffTag;
use similar::algorithms::{Capture, myers};

/// `Ok(())` when `actual` matches `expected`, else a line diff fit to print (`-` expected,
/// `+` actual).
pub(crate) fn compare(expected: &str, actual: &str) -> Result<(), String> {
    let expected_lines = normalized_lines(expected);
    let actual_lines = normalized_lines(actual);
    if matches_lines(&expected_lines, &actual_lines) {
        Ok(())
    } else {
        Err(diff(&expected_lines, &actual_lines))
    }
}

fn normalized_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    while lines.last().is_some_and(|line| line.is_empty()) {
        lines.pop();
    }
    lines
}

/// Whether the expected lines match the actual ones, a `...` line standing for any run of lines.
fn matches_lines(expected: &[&str], actual: &[&str]) -> bool {
    matches_lines_counting(expected, actual, &mut 0)
}

/// [`matches_lines`], adding its work to `steps` (a line compared, or a 64-line word of
/// [`find_segment`]'s state updated), so a test can bound it by size rather than by time.
///
/// The lines between `...` lines are segments. The first must match at the start (unless the
/// expected text opens with `...`), the last at the end (unless it closes with `...`), each
/// other one anywhere after the one before: taking the leftmost place for each is right (a
/// later place never leaves more room for the segments after it), so no backtracking is needed
/// and the work is linear in the actual lines: per actual line, one hash lookup, a test per
/// `[..]` line of the segment sought, and a word per 64 lines of it.
fn matches_lines_counting(expected: &[&str], actual: &[&str], steps: &mut usize) -> bool {
    let segments: Vec<&[&str]> = expected.split(|line| *line == "...").collect();
    let [first, middle @ .., last] = segments.as_slice() else {
        // No `...`: line for line.
        *steps += expected.len().min(actual.len());
        return expected.len() == actual.len() && segment_at(expected, actual, 0, steps);
    };
    if first.len() + last.len() > actual.len()
        || !segment_at(first, actual, 0, steps)
        || !segment_at(last, actual, actual.len() - last.len(), steps)
    {
        return false;
    }
    let end = actual.len() - last.len();
    let mut position = first.len();
    for segment in middle {
        match find_segment(segment, &actual[position..end], steps) {
            Some(found) => position += found + segment.len(),
            None => return false,
        }
    }
    true
}

/// Whether `segment` matches `actual` line for line from `start`.
fn segment_at(segment: &[&str], actual: &[&str], start: usize, steps: &mut usize) -> bool {
    segment.iter().zip(&actual[start..]).all(|(pattern, line)| {
        *steps += 1;
        matches_line(pattern, line)
    }) && actual.len() - start >= segment.len()
}

/// Where `segment` first matches a run of `actual`'s lines: shift-and over lines, one bit per
/// segment line (bit `i` set after line `j`: the segment's first `i + 1` lines match the
/// lines ending at `j`). Which segment lines match an actual line is one hash lookup for the
/// lines without `[..]` plus a test per line with it.
fn find_segment(segment: &[&str], actual: &[&str], steps: &mut usize) -> Option<usize> {
    use std::collections::HashMap;
    if segment.is_empty() {
        return Some(0);
    }
    let words = segment.len().div_ceil(64);
    let mut exact: HashMap<&str, Vec<u64>> = HashMap::new();
    let mut wildcards: Vec<(usize, &str)> = Vec::new();
    for (index, line) in segment.iter().enumerate() {
        if line.contains("[..]") {
            wildcards.push((index, line));
        } else {
            exact.entry(line).or_insert_with(|| vec![0; words])[index / 64] |= 1 << (index % 64);
        }
    }
    let last_bit = (segment.len() - 1) % 64;
    let mut state = vec![0u64; words];
    let mut matching = vec![0u64; words];
    for (position, line) in actual.iter().enumerate() {
        *steps += 1 + wildcards.len() + words;
        matching.fill(0);
        if let Some(mask) = exact.get(line) {
            matching.copy_from_slice(mask);
        }
        for &(index, pattern) in &wildcards {
            if matches_line(pattern, line) {
                matching[index / 64] |= 1 << (index % 64);
            }
        }
        // state = ((state << 1) | 1) & matching, across words.
        let mut carry = 1;
        for (word, mask) in state.iter_mut().zip(&matching) {
            let next_carry = *word >> 63;
            *word = ((*word << 1) | carry) & mask;
            carry = next_carry;
        }
        if state[words - 1] >> last_bit & 1 == 1 {
            return Some(position + 1 - segment.len());
        }
    }
    None
}

/// `[..]` matches any run of characters within the line.
fn matches_line(pattern: &str, line: &str) -> bool {
    let mut pieces = pattern.split("[..]");
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else {
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(index) => rest = &rest[index + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// At most this many changed lines are shown; a flood of output is summarised after them.
const SHOWN_CHANGES: usize = 200;

/// How long the diff may search for the smallest edit before settling for a coarser one.
const DIFF_DEADLINE: Duration = Duration::from_secs(1);

/// An expected line: equal to an actual line when it matches it (`[..]` wildcards).
#[derive(Debug)]
struct Pattern<'a>(&'a str);

/// An actual line of stdout.
#[derive(Debug)]
struct Line<'a>(&'a str);

impl PartialEq<Pattern<'_>> for Line<'_> {
    fn eq(&self, pattern: &Pattern<'_>) -> bool {
        matches_line(pattern.0, self.0)
    }
}

/// A line diff (Myers, from `similar`: linear memory, time bounded by [`DIFF_DEADLINE`]), with
/// the lines that match shown as context.
fn diff(expected: &[&str], actual: &[&str]) -> String {
    let patterns: Vec<Pattern<'_>> = expected.iter().map(|line| Pattern(line)).collect();
    let lines: Vec<Line<'_>> = actual.iter().map(|line| Line(line)).collect();
    let mut capture = Capture::new();
    let deadline = Instant::now().checked_add(DIFF_DEADLINE);
    myers::diff_deadline_raw(
        &mut capture,
        patterns.as_slice(),
        0..patterns.len(),
        lines.as_slice(),
        0..lines.len(),
        deadline,
    )
    .expect("capturing a diff cannot fail");
    let mut out = String::from("output differs from the expected block (-expected +actual):\n");
    let mut changes = 0;
    let mut hidden = 0;
    let mut show = |out: &mut String, sign: char, line: &str| {
        if sign != ' ' {
            changes += 1;
            if changes > SHOWN_CHANGES {
                hidden += 1;
                return;
            }
        } else if changes > SHOWN_CHANGES {
            return;
        }
        out.push(sign);
        out.push(' ');
        out.push_str(line);
        out.push('\n');
    };
    // In each run of changes, as the label reads and as `diff -u` prints them: the expected
    // lines (`-`), then the actual ones (`+`); Myers may find the insertions first.
    let mut added: Vec<usize> = Vec::new();
    for op in capture.ops() {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                added.drain(..).for_each(|j| show(&mut out, '+', actual[j]));
                new.for_each(|j| show(&mut out, ' ', actual[j]));
            }
            DiffTag::Insert => added.extend(new),
            DiffTag::Delete => old.for_each(|i| show(&mut out, '-', expected[i])),
            DiffTag::Replace => {
                old.for_each(|i| show(&mut out, '-', expected[i]));
                added.extend(new);
            }
        }
    }
    added.drain(..).for_each(|j| show(&mut out, '+', actual[j]));
    if hidden > 0 {
        out.push_str(&format!("({hidden} more changed lines not shown)\n"));
    }
    out
}

#[cfg(test)]
#[path = "compare_tests.rs"]
mod tests;
