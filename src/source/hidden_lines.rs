//! rustdoc's hidden lines in a Rust snippet: what the compiler sees of a line the reader does
//! not. Positions (`located`), placement and the generated crate all read a snippet's code
//! through this one rule.

/// rustdoc's hidden lines: `# code` and a lone `#` are shown to the compiler without the
/// marker; `##` escapes a literal `#`.
pub(crate) fn unhide(line: &str) -> String {
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    if trimmed == "#" {
        String::new()
    } else if let Some(rest) = trimmed.strip_prefix("# ") {
        format!("{indent}{rest}")
    } else if let Some(rest) = trimmed.strip_prefix("##") {
        format!("{indent}#{rest}")
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
#[path = "hidden_lines_tests.rs"]
mod tests;
