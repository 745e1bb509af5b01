//! The page's HTML: what goes under a snippet in the rendered page (its stdout, its artifacts:
//! text in a collapsible `<details>`, SVG as an `<img>`) and the failure box `mdbook serve`
//! shows, each element one line with no blank line (a blank line ends a Markdown HTML block;
//! newlines inside a `<pre>` are `&#10;`). Sans-IO. Where it goes in the chapter is
//! `render.rs`'s.

use base64::Engine as _;

use crate::snippet::{ArtifactKind, SnippetResult};

/// The box that shows a failure in the page: the report in a `<pre>`, styled inline so that it
/// stands out whatever the book's theme. One element per line, no line blank.
pub(crate) fn failure_html(report: &str) -> Vec<String> {
    vec![
        format!(
            r#"<div class="mdbook-snippets-failure" role="alert" style="{FAILURE_BOX_STYLE}">"#
        ),
        format!(
            r#"<p style="margin: 0 0 0.5em 0"><strong>mdbook-snippets: this failed.</strong> Shown only under <code>mdbook serve</code>; <code>mdbook build</code> and <code>mdbook test</code> fail on it.</p>"#
        ),
        format!(
            r#"<pre style="{FAILURE_PRE_STYLE}">{}</pre>"#,
            terminal_text_html(report.trim_end())
        ),
        "</div>".to_string(),
    ]
}

/// A red frame on a pale background, readable in the light and the dark themes alike.
const FAILURE_BOX_STYLE: &str = "border: 2px solid #c62828; border-radius: 4px; \
    background: #fdecea; color: #3b0a0a; padding: 0.75em 1em; margin: 1em 0";
const FAILURE_PRE_STYLE: &str = "margin: 0; padding: 0.5em; overflow-x: auto; \
    background: #fff; color: #3b0a0a; font-size: 0.85em; white-space: pre";

/// The HTML shown under a snippet: its stdout in a `<pre>`, its stderr (when it wrote any) in
/// a block of its own marked `stderr` (class `mdbook-snippets-stderr`), each text artifact in a
/// collapsible `<details>`, each SVG artifact as an `<img>` with a data URI. One element per
/// line, no line blank; empty when there is nothing to show.
pub(crate) fn output_html(result: &SnippetResult) -> Vec<String> {
    let stdout = without_final_newline(&result.stdout);
    let stderr = without_final_newline(&result.stderr);
    if stdout.is_empty() && stderr.is_empty() && result.artifacts.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![r#"<div class="mdbook-snippets-output">"#.to_string()];
    if !stdout.is_empty() {
        lines.push(format!(
            r#"<pre class="mdbook-snippets-stdout">{}</pre>"#,
            terminal_text_html(stdout)
        ));
    }
    if !stderr.is_empty() {
        lines.push(format!(
            r#"<div class="mdbook-snippets-stderr"><small>stderr</small><pre>{}</pre></div>"#,
            terminal_text_html(stderr)
        ));
    }
    for artifact in &result.artifacts {
        let title = escape_html(&artifact.title);
        lines.push(match artifact.kind {
            ArtifactKind::Text => format!(
                r#"<details class="mdbook-snippets-artifact"><summary>{title}</summary><pre>{}</pre></details>"#,
                terminal_text_html(artifact.content.strip_suffix('\n').unwrap_or(&artifact.content))
            ),
            ArtifactKind::Svg => format!(
                r#"<img class="mdbook-snippets-artifact" alt="{title}" title="{title}" src="data:image/svg+xml;base64,{}">"#,
                base64::engine::general_purpose::STANDARD.encode(&artifact.content)
            ),
        });
    }
    lines.push("</div>".to_string());
    lines
}

fn without_final_newline(text: &str) -> &str {
    let text = text.strip_suffix('\n').unwrap_or(text);
    text.strip_suffix('\r').unwrap_or(text)
}

/// What a program printed, as HTML: escaped, and its ANSI escape sequences (a coloured log
/// line, `cargo`-style bold) rendered as the colours and styles they stand for, through
/// `ansi-to-html` (which drops the sequences it has no HTML for), never published as raw bytes.
/// Newlines are written as `&#10;` (see the module docs).
pub(crate) fn terminal_text_html(text: &str) -> String {
    if !text.contains('\u{1b}') {
        return escape_html(text);
    }
    let converted = ansi_to_html::Converter::new()
        .convert(text)
        .unwrap_or_else(|_| escape_html(&text.replace('\u{1b}', "")));
    converted.replace('\n', "&#10;").replace('\r', "&#13;")
}

/// Escapes text for HTML content and attribute values, newlines included (see the module docs).
pub(crate) fn escape_html(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            '\n' => escaped.push_str("&#10;"),
            '\r' => escaped.push_str("&#13;"),
            other => escaped.push(other),
        }
    }
    escaped
}

#[cfg(test)]
#[path = "page_html_tests.rs"]
mod tests;
