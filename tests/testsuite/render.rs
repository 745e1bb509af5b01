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

/// The page the real `mdbook build` writes for `file` of `dir`, which must build.
fn built_page(dir: &support::Book, file: &str) -> String {
    let output = support::mdbook::run(dir, &["build"], &[]);
    assert!(output.success(), "{output}");
    let page = dir.path().join("book").join(file.replace(".md", ".html"));
    std::fs::read_to_string(&page).unwrap_or_else(|error| panic!("{}: {error}", page.display()))
}

/// Outputs inside a tight list keep it tight (no `<p>` in its items, as without the
/// preprocessor), and a snippet's ANSI colours become HTML colours, never raw escape bytes in the
/// page (both found on public books).
#[test]
fn a_tight_list_stays_tight_and_ansi_colours_are_rendered() {
    let chapter = "# List\n\n\
        - First:\n  ```rust\n  println!(\"one\");\n  ```\n\
        - Second item.\n\
        - Third:\n  ```rust\n  println!(\"\\x1b[1;31mred\\x1b[0m and \\x1b[32mgreen\\x1b[0m <b>\");\n  ```\n\
        - Fourth item.\n";
    let dir = book("", &[("list.md", chapter)]);
    let page = built_page(&dir, "list.md");
    let first = page.find("First:").expect("the list's first item");
    let start = page[..first].rfind("<ul>").expect("its list");
    let end = first + page[first..].find("</ul>").expect("its end");
    let list = &page[start..end];
    assert!(!list.contains("<p>"), "the list turned loose:\n{list}");
    assert!(list.contains("<li>Second item.</li>"), "{list}");
    assert!(
        list.contains(r#"<pre class="mdbook-snippets-stdout">one</pre>"#),
        "{list}"
    );
    assert!(!page.contains('\u{1b}'), "raw escapes in the page:\n{list}");
    assert!(!page.contains("[31m"), "escape sequences as text:\n{list}");
    assert!(
        list.contains(r#"<b><span style="color:var(--red,#a00)">red</span></b> and <span style="color:var(--green,#0a0)">green</span> &lt;b&gt;"#),
        "{list}"
    );
}

/// Under `mdbook serve`, the failure box under a failed indented code block (here one whose
/// text is a fence, as in a guide that shows Markdown) is HTML in the page, not text in a code
/// block (it was indented as the code was, so mdBook showed `<div class=...>` as code).
#[test]
fn a_failure_box_after_an_indented_block_is_html_under_serve() {
    let chapter =
        "# Indented\n\nWrite a fence:\n\n    ```rust\n    fn main() {}\n    ```\n\nAfter.\n";
    let dir = book("", &[("indented.md", chapter)]);
    let (mut ctx, input) = preprocessor::book_input(dir.path(), "html");
    // What only `mdbook serve` hands a preprocessor.
    ctx.config
        .set("output.html.live-reload-endpoint", "__livereload")
        .unwrap();
    let json = serde_json::to_vec(&(&ctx, &input)).unwrap();
    let output = preprocessor::run_preprocessor(dir.path(), &json, &[]);
    assert!(output.success(), "{output}");
    let served: mdbook_preprocessor::book::Book = serde_json::from_str(&output.stdout).unwrap();
    let markdown = chapter_of(&served, "indented.md");
    // The served chapter, rendered by the real mdBook (without the preprocessor).
    let plain = support::book(&[
        ("book.toml", "[book]\ntitle = \"served\"\n"),
        ("src/SUMMARY.md", "- [indented.md](indented.md)\n"),
        ("src/indented.md", &markdown),
    ]);
    let page = built_page(&plain, "indented.md");
    assert!(
        page.contains(r#"<div class="mdbook-snippets-failure" role="alert""#),
        "{markdown}\n{page}"
    );
    assert!(!page.contains("&lt;div class"), "the box is text:\n{page}");
    assert!(page.contains("<p>After.</p>"), "{page}");
}

fn chapter_of(book: &mdbook_preprocessor::book::Book, name: &str) -> String {
    chapter(book, name).content.clone()
}

/// An item that goes on after its code block keeps a tight list tight: the output under the
/// block ends its HTML block on its own line (a blank line there would make every item a
/// paragraph, `<li><p>one</p>`).
#[test]
fn a_tight_list_stays_tight_when_an_item_goes_on_after_its_block() {
    let chapter = "# List\n\n\
        - one\n\
        - two, for example:\n  ```rust\n  println!(\"two\");\n  ```\n  Here the item goes on.\n\
        - three\n";
    let dir = book("", &[("list.md", chapter)]);
    let page = built_page(&dir, "list.md");
    let first = page.find("one").expect("the list's first item");
    let start = page[..first].rfind("<ul>").expect("its list");
    let end = first + page[first..].find("</ul>").expect("its end");
    let list = &page[start..end];
    assert!(!list.contains("<p>"), "the list turned loose:\n{list}");
    assert!(list.contains("<li>one</li>"), "{list}");
    assert!(list.contains("<li>three</li>"), "{list}");
    assert!(list.contains("Here the item goes on."), "{list}");
    assert!(
        list.contains(r#"<pre class="mdbook-snippets-stdout">two</pre>"#),
        "{list}"
    );
}
