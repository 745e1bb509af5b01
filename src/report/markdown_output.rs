//! What a passed snippet shows under it, as Markdown, for a renderer that writes the book as text
//! (`Reader::Markdown`: the `llms` renderer, whose `llms-full.txt` a coding assistant reads): its
//! stdout in a fenced `text` block, and each text artifact (the wire transcript) under a line that
//! names it, in a fenced block of its own. Sans-IO, like `render.rs`, which places the lines.
//!
//! A diagram (an SVG artifact) is left out: as text it is markup, and the transcript beside it
//! says the same. Each fence is longer than any run of backticks in what it holds, so no output
//! can close it early. Terminal colours and OSC 8 links become their text, other control
//! characters `\xNN` ([`plain_text`], which the llms renderer uses too).

use crate::snippet::{ArtifactKind, SnippetResult};

/// The Markdown shown under a snippet: its stdout, then each text artifact, one line per element
/// (`render.rs` adds the container prefix); empty when there is nothing to show.
pub(crate) fn output_markdown(result: &SnippetResult) -> Vec<String> {
    let mut lines = Vec::new();
    let stdout = result.stdout.strip_suffix('\n').unwrap_or(&result.stdout);
    let stdout = stdout.strip_suffix('\r').unwrap_or(stdout);
    if !stdout.is_empty() {
        fenced(stdout, &mut lines);
    }
    for artifact in &result.artifacts {
        if artifact.kind != ArtifactKind::Text {
            continue;
        }
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(format!("{}:", artifact.title));
        lines.push(String::new());
        let content = artifact
            .content
            .strip_suffix('\n')
            .unwrap_or(&artifact.content);
        fenced(content, &mut lines);
    }
    lines
}

/// `content` in a fenced `text` block whose fence no line of it can close.
fn fenced(content: &str, lines: &mut Vec<String>) {
    let longest_run = content
        .split(|character| character != '`')
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest_run.max(2) + 1);
    lines.push(format!("{fence}text"));
    lines.extend(
        content
            .split('\n')
            // No raw ESC or OSC 8 (a terminal hyperlink) reaches a text renderer's output: a
            // reader that prints `llms-full.txt` in a terminal would obey them.
            .map(|line| plain_text(line.strip_suffix('\r').unwrap_or(line))),
    );
    lines.push(fence);
}

#[cfg(test)]
#[path = "markdown_output_tests.rs"]
mod tests;

/// Terminal colours and OSC 8 hyperlinks reduced to their text; every other control character
/// but tab and newline written as `\xNN`.
pub(crate) fn plain_text(text: &str) -> String {
    static SEQUENCES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\x1b\[[0-9;:?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)").unwrap()
    });
    let text = SEQUENCES.replace_all(text, "");
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        if character.is_control() && character != '\n' && character != '\t' {
            out.push_str(&format!("\\x{:02x}", u32::from(character)));
        } else {
            out.push(character);
        }
    }
    out
}
