//! What the preprocessor makes of chapters: real output under each verified snippet, escaped;
//! harness artifacts as `<details>` and `<img>`; everything it does not own byte for byte.

use base64::Engine as _;
use expect_test::expect;

use crate::support;
use crate::support::harness_dir;
use crate::support::preprocessor::{self, chapter};

/// A book in a directory of its own: `book.toml` with `[preprocessor.snippets]` = `table`, and
/// one chapter per `(file, content)`, written byte for byte.
fn book(table: &str, chapters: &[(&str, &str)]) -> support::Book {
    let book_toml = format!("[book]\ntitle = \"render\"\n\n[preprocessor.snippets]\n{table}\n");
    let mut summary = "# Summary\n\n".to_owned();
    for (file, _) in chapters {
        summary.push_str(&format!("- [{file}]({file})\n"));
    }
    let chapter_files: Vec<(String, &str)> = chapters
        .iter()
        .map(|(file, content)| (format!("src/{file}"), *content))
        .collect();
    let mut files = vec![
        ("book.toml", book_toml.as_str()),
        ("src/SUMMARY.md", summary.as_str()),
    ];
    files.extend(
        chapter_files
            .iter()
            .map(|(file, content)| (file.as_str(), *content)),
    );
    support::book(&files)
}

const UNTOUCHED: &str = "\u{feff}# Not ours\r\n\r\n<div class=\"raw\">\r\n\r\n```text\r\nnot Rust\r\n```\r\n\r\n```rust,ignore\r\nnot checked\r\n```\r\n\r\n~~~text,output\r\norphan output\r\n~~~\r\n\tlet indented_passes_and_has_no_fence_to_mark = 1;\r\n";

#[test]
fn crlf_lists_expected_blocks_and_escaping() {
    let tricky = "# Tricky\r\n\r\n```rust\r\nprintln!(\"<script>alert(1)</script> & 'q'\");\r\nprintln!();\r\nprintln!(\"after a blank line\");\r\n```\r\n\r\n```text,output\r\n<script>[..]\r\n...\r\n```\r\nA paragraph right after.\r\n\r\n1. In a list:\r\n\r\n   ````rust\r\n   # let hidden = 2;\r\n   println!(\"{}\", hidden * 21);\r\n   ````\r\n2. Next item.\r\n";
    let dir = book("", &[("tricky.md", tricky), ("untouched.md", UNTOUCHED)]);
    let (input, rendered) = preprocessor::rendered(dir.path(), &[]);

    assert_eq!(
        chapter(&rendered, "untouched.md"),
        chapter(&input, "untouched.md")
    );
    let tricky = chapter(&rendered, "tricky.md")
        .content
        .replace("\r\n", "⏎\n");
    expect![[r##"
        # Tricky⏎
        ⏎
        ```rust⏎
        println!("<script>alert(1)</script> & 'q'");⏎
        println!();⏎
        println!("after a blank line");⏎
        ```⏎
        ⏎
        <div class="mdbook-snippets-output">⏎
        <pre class="mdbook-snippets-stdout">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#39;q&#39;&#10;&#10;after a blank line</pre>⏎
        </div>⏎
        ⏎
        A paragraph right after.⏎
        ⏎
        1. In a list:⏎
        ⏎
           ````rust⏎
           # let hidden = 2;⏎
           println!("{}", hidden * 21);⏎
           ````⏎
           <div class="mdbook-snippets-output">⏎
           <pre class="mdbook-snippets-stdout">42</pre>⏎
           </div>⏎
        ⏎
        2. Next item.⏎
    "##]]
    .assert_eq(&tricky);
}

#[test]
fn harness_snippets_show_their_transcript_and_diagram() {
    let harness = harness_dir();
    let wire = "# Wire\n\n```rust\nlet server = TestServer::start();\nlet client = server.connect_rmcp().await?;\nlet tools = client.list_all_tools().await?;\nprintln!(\"{} tool(s) <listed>\", tools.len());\nclient.cancel().await?;\n```\n";
    let table = format!("harness = {:?}", harness.display().to_string());
    let dir = book(&table, &[("wire.md", wire)]);
    let (_, rendered) = preprocessor::rendered(dir.path(), &[]);
    let content = &chapter(&rendered, "wire.md").content;

    let lines: Vec<&str> = content.lines().collect();
    // The renderer gets the fence as written (only `mdbook test`'s gets `ignore`).
    assert_eq!(lines[2], "```rust", "{content}");
    assert!(
        lines[10].starts_with(r#"<pre class="mdbook-snippets-stdout">"#)
            && lines[10].ends_with(" tool(s) &lt;listed&gt;</pre>"),
        "{content}"
    );
    let transcript = lines
        .iter()
        .find(|line| line.starts_with(r#"<details class="mdbook-snippets-artifact"><summary>wire transcript</summary><pre>"#))
        .unwrap_or_else(|| panic!("no transcript\n{content}"));
    assert!(transcript.ends_with("</pre></details>"), "{transcript}");
    assert!(transcript.contains("initialize"), "{transcript}");
    let text = &transcript
        [transcript.find("<pre>").unwrap() + 5..transcript.len() - "</pre></details>".len()];
    assert!(!text.contains(['<', '>', '"', '\n']), "not escaped: {text}");
    let image = lines
        .iter()
        .find_map(|line| line.split_once(r#"src="data:image/svg+xml;base64,"#))
        .unwrap_or_else(|| panic!("no diagram\n{content}"))
        .1;
    let svg = base64::engine::general_purpose::STANDARD
        .decode(image.trim_end_matches("\">"))
        .unwrap();
    assert!(String::from_utf8(svg).unwrap().starts_with("<svg"));
    // The HTML block ends before the end of the chapter, with no blank line inside it.
    let block: Vec<&&str> = lines[9..]
        .iter()
        .take_while(|line| !line.is_empty())
        .collect();
    assert_eq!(
        block.last().map(|line| line.as_ref()),
        Some("</div>"),
        "{content}"
    );
}
