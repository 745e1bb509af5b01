use super::{Hidden, chapter_text};

fn check(input: &str, expected: &str) {
    let hidden = Hidden::of(&[("python", "!!!")]);
    let actual = chapter_text(input, "part/chapter.md", "/site/", &hidden);
    assert_eq!(actual, expected, "\n--- got ---\n{actual}");
}

#[test]
fn hidden_lines_go_and_info_strings_keep_the_language() {
    check(
        "Text.\n\n```rust,ignore,claim=x,kills=y\n# use a::b;\nlet x = 1;\n##[attr]\n#[derive(Debug)]\n```\n\n```python,revision=2026-07-28\n!!!import sys\nprint(1)\n```\n\n```text,output\nout\n```\n",
        "Text.\n\n```rust\nlet x = 1;\n#[attr]\n#[derive(Debug)]\n```\n\n```python\nprint(1)\n```\n\n```text\nout\n```\n",
    );
}

#[test]
fn html_becomes_markdown_or_text() {
    check(
        "<a id=\"here\"></a>\n<div class=\"snippet-tabs\"></div>\n\nSince <span class=\"sdk-mark\" data-since=\"3.6\">3.6</span>, see <a href=\"other.md#x\">there</a>; `Vec<u8>` stays.\n\n<small>Proves: <a href=\"claims.md#a\">a</a>.</small>\n",
        "\n\nSince 3.6, see [there](/site/part/other.html#x); `Vec<u8>` stays.\n\nProves: [a](/site/part/claims.html#a).\n",
    );
}

#[test]
fn a_table_becomes_a_markdown_table() {
    check(
        "<div class=\"picker\" hidden><p>Choose</p></div>\n<table>\n<thead>\n  <tr><th>SDK</th><th>stdio</th></tr>\n</thead>\n\n<tbody>\n  <tr><td><code>rmcp</code></td><td>sent<br>late</td></tr>\n</tbody>\n</table>\n",
        "\n\n| SDK | stdio |\n|---|---|\n| `rmcp` | sent; late |\n\n",
    );
}

#[test]
fn control_characters_are_escaped_and_colours_dropped() {
    check(
        "```text\n\x1b[31mred\x1b[0m \x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\ bell\x07\n```\n",
        "```text\nred link bell\\x07\n```\n",
    );
}

#[test]
fn chapter_links_become_page_links() {
    check(
        "[a](../b.md) [c](#d) [e](https://x.org/f.md) [g](g.md \"title\")\n",
        "[a](/site/b.html) [c](/site/part/chapter.html#d) [e](https://x.org/f.md) [g](/site/part/g.html \"title\")\n",
    );
}

#[test]
fn a_block_in_a_block_quote_keeps_its_quote_and_closes_once() {
    check(
        "> In a quote:\n>\n> ```rust,edition2021\n> # let hidden = 1;\n> let x = 1;\n> ```\n>\n> ```text\n> 1\n> ```\n\nAfter.\n",
        "> In a quote:\n>\n> ```rust\n> let x = 1;\n> ```\n>\n> ```text\n> 1\n> ```\n\nAfter.\n",
    );
}
