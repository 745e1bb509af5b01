//! The real `mdbook` 0.5 binary with the preprocessor on a fixture book: `mdbook build` shows
//! the outputs in the HTML and fails on a broken snippet; `mdbook test` passes without rustdoc
//! running the blocks we verified (the fixture's snippets are 2024 Rust, which rustdoc's default
//! edition rejects, as the last step shows by turning the preprocessor off for `test`). The
//! HTML renderer gets every fence as written: the `playground` fixture's page, built with and
//! without the preprocessor, differs only by the inserted outputs (Run buttons, editors, edition
//! classes and hidden lines kept). With `mdbook-snippets llms` as the `[output.llms]` renderer
//! beside the HTML one, `llms.txt` and `llms-full.txt` land beside the pages, as a reader sees
//! the book: the outputs as fenced text, no hidden line, no HTML tag, no attribute, no raw control
//! byte. And a `book.toml` mdBook rejects gets mdBook's message.

use std::path::Path;

use crate::support::{self, Book, Output, fixture};

/// Runs `mdbook ARGS` on `book`, with our binary first on PATH.
fn mdbook(book: &Book, args: &[&str]) -> Output {
    support::mdbook::run(book, args, &[])
}

/// Whether `needle` is in what `output` printed, stdout or stderr (mdBook prints the
/// preprocessor's and rustdoc's lines on either).
fn printed(output: &Output, needle: &str) -> bool {
    output.stdout.contains(needle) || output.stderr.contains(needle)
}

#[test]
fn mdbook_build_and_test_with_the_preprocessor() {
    let dir = fixture("green");
    let root = dir.path();

    let output = mdbook(&dir, &["build"]);
    assert!(output.success(), "{output}");
    assert!(
        printed(&output, "mdbook-snippets: 4 passed, 0 failed, 1 skipped"),
        "{output}"
    );
    let page = std::fs::read_to_string(root.join("book/output.html")).unwrap();
    assert!(page.contains(
        r#"<pre class="mdbook-snippets-stdout">&lt;script&gt;alert('hi')&lt;/script&gt;</pre>"#
    ));
    assert!(
        !page.contains("<script>alert"),
        "a snippet's output must never become markup"
    );
    assert!(page.contains(r#"<pre class="mdbook-snippets-stdout">answer = 42</pre>"#));
    assert!(page.contains(r#"<pre class="mdbook-snippets-stdout">total = 10</pre>"#));
    // The renderer gets the fence as written: highlighting, hidden lines and the Run button;
    // only `mdbook test` (below) gets the blocks marked `ignore`.
    assert!(
        page.contains(
            r#"<pre class="playground"><code class="language-rust"><span class="boring">"#
        )
    );
    // Only the block its author marked `ignore` is.
    assert_eq!(
        page.matches(r#"class="language-rust ignore""#).count(),
        1,
        "{page}"
    );
    let included = std::fs::read_to_string(root.join("book/included.html")).unwrap();
    assert!(included.contains(r#"<pre class="mdbook-snippets-stdout">words = 3</pre>"#));

    let output = mdbook(&dir, &["test"]);
    assert!(output.success(), "{output}");
    assert!(
        printed(&output, "mdbook-snippets: 4 passed, 0 failed, 1 skipped"),
        "{output}"
    );

    // Without the preprocessor under `test`, rustdoc runs the 2024 snippet itself and fails:
    // so the pass above is ours, not rustdoc's.
    let book_toml = root.join("book.toml");
    let text = std::fs::read_to_string(&book_toml).unwrap();
    std::fs::write(
        &book_toml,
        text.replace(
            "[preprocessor.snippets]",
            "[preprocessor.snippets]\nrenderers = [\"html\"]",
        ),
    )
    .unwrap();
    let output = mdbook(&dir, &["test"]);
    assert!(!output.success(), "{output}");
    assert!(
        printed(&output, "test output.md - Output (line 16) ... FAILED"),
        "{output}"
    );
}

#[test]
fn mdbook_build_publishes_llms_text_beside_the_pages() {
    // The verifier's own renderer: with the HTML renderer beside it, mdBook builds each into
    // `book/NAME/`, and the two files go beside the pages. The preprocessor runs for both:
    // outputs as HTML in the pages, as fenced text in llms-full.txt.
    let dir = fixture("green");
    let root = dir.path();
    let book_toml = root.join("book.toml");
    let text = std::fs::read_to_string(&book_toml).unwrap();
    std::fs::write(
        &book_toml,
        format!(
            "{text}\n[output.html]\nsite-url = \"/green/\"\n\n[output.llms]\ncommand = \"mdbook-snippets llms\"\n"
        ),
    )
    .unwrap();
    // What a reader does not see: hidden lines, tab scaffolding, HTML, an info string's
    // attributes, terminal colours in an output.
    let plain = root.join("src/plain.md");
    let text = std::fs::read_to_string(&plain).unwrap();
    std::fs::write(&plain, format!("{text}{SEEN_DIFFERENTLY}")).unwrap();

    let output = mdbook(&dir, &["build"]);
    assert!(output.success(), "{output}");
    let html = root.join("book/html");
    assert!(
        page(&html, "included.html")
            .contains(r#"<pre class="mdbook-snippets-stdout">words = 3</pre>"#)
    );
    let index = std::fs::read_to_string(html.join("llms.txt")).unwrap();
    assert!(index.starts_with("# Fixture: a green book\n"), "{index}");
    assert!(
        index.contains("- [Included](/green/included.html)\n"),
        "{index}"
    );
    assert!(index.contains("(/green/llms-full.txt)"), "{index}");
    let full = std::fs::read_to_string(html.join("llms-full.txt")).unwrap();
    assert!(full.contains("```text\nwords = 3\n```\n"), "{full}");
    assert!(
        full.contains("```text\n<script>alert('hi')</script>\n```\n"),
        "{full}"
    );
    assert!(
        full.contains("```rust\nlet shown = 2;\nprintln!(\"{shown}\");\n```\n"),
        "{full}"
    );
    assert!(full.contains("```text\n2\nred 2\n```\n"), "{full}");
    assert!(
        full.contains("Proves: [it](/green/output.html#top)."),
        "{full}"
    );
    check_as_a_reader_sees_it(&full);
    check_as_a_reader_sees_it(&index);
}

/// Appended to a chapter: what the llms files must show as a reader sees it.
const SEEN_DIFFERENTLY: &str = r#"
<div class="snippet-tabs"></div>

```rust,edition2024
# let hidden = 1;
let shown = 2;
println!("{shown}");
# println!("\x1b[31mred\x1b[0m {}", hidden + 1);
```

<small>Proves: <a href="output.md#top">it</a>.</small>
"#;

/// No hidden line (Rust's `# `, `!!!`), no info string with more than the language, no HTML
/// tag outside code, no raw control byte.
fn check_as_a_reader_sees_it(text: &str) {
    let tag = regex::Regex::new(r"<[a-zA-Z/][a-zA-Z0-9-]*(\s[^>]*)?>").unwrap();
    let inline_code = regex::Regex::new(r"`[^`]*`").unwrap();
    let mut fence: Option<(String, String)> = None;
    for (number, line) in text.lines().enumerate() {
        let place = format!("line {}: {line:?}", number + 1);
        assert!(
            !line.contains(|c: char| c.is_control() && c != '\t'),
            "{place}: a control character"
        );
        let marker: String = line
            .trim_start()
            .chars()
            .take_while(|c| *c == '`')
            .collect();
        match &fence {
            None if marker.len() >= 3 => {
                let info = line.trim_start()[marker.len()..].trim().to_owned();
                assert!(
                    !info.contains([',', '=', ' ', '{']),
                    "{place}: an info string with more than the language"
                );
                fence = Some((marker, info));
            }
            None => assert!(
                !tag.is_match(&inline_code.replace_all(line, "")),
                "{place}: an HTML tag"
            ),
            Some((open, _)) if marker.len() >= open.len() && line.trim() == marker => fence = None,
            Some((_, language)) => {
                let trimmed = line.trim_start();
                assert!(!trimmed.starts_with("!!!"), "{place}: a hidden line");
                if language == "rust" {
                    assert!(
                        trimmed != "#" && !trimmed.starts_with("# "),
                        "{place}: a hidden line"
                    );
                }
            }
        }
    }
}

#[test]
fn mdbook_build_fails_on_a_broken_snippet_with_its_place() {
    let dir = fixture("green");
    let root = dir.path();
    let listing = root.join("listings/count.rs");
    let text = std::fs::read_to_string(&listing).unwrap();
    std::fs::write(&listing, text.replace("count()", "count() + \"one\"")).unwrap();

    let output = mdbook(&dir, &["build"]);
    assert!(!output.success(), "{output}");
    // The included file and its line, not the chapter.
    assert!(printed(&output, "listings/count.rs:1"), "{output}");
    assert!(
        printed(&output, "3 passed, 1 failed, 1 skipped"),
        "{output}"
    );
    assert!(
        !root.join("book/included.html").exists(),
        "no page is written from a failed build\n{output}"
    );

    // What `mdbook serve` sets, set by hand in a CI job or in book.toml, never turns a build into
    // one that shows the failure and passes.
    let by_environment = [("MDBOOK_OUTPUT__HTML__LIVE_RELOAD_ENDPOINT", "__livereload")];
    let output = support::mdbook::run(&dir, &["build"], &by_environment);
    assert!(!output.success(), "{output}");
    assert!(!printed(&output, "shown in its pages"), "{output}");
    let book_toml = root.join("book.toml");
    let text = std::fs::read_to_string(&book_toml).unwrap();
    std::fs::write(
        &book_toml,
        format!("{text}\n[output.html]\nlive-reload-endpoint = \"__livereload\"\n"),
    )
    .unwrap();
    let output = mdbook(&dir, &["build"]);
    assert!(!output.success(), "{output}");
    assert!(!printed(&output, "shown in its pages"), "{output}");
    assert!(!root.join("book/included.html").exists(), "{output}");
}

/// The page of `chapter` that the real `mdbook build` wrote into `build_dir`.
fn page(build_dir: &Path, chapter: &str) -> String {
    std::fs::read_to_string(build_dir.join(chapter)).unwrap()
}

#[test]
fn the_html_renderer_gets_every_fence_as_written() {
    let dir = fixture("playground");
    let root = dir.path();
    let output = support::mdbook::run(&dir, &["build"], &[("MDBOOK_BUILD__BUILD_DIR", "with")]);
    assert!(output.success(), "{output}");
    assert!(
        printed(&output, "mdbook-snippets: 4 passed, 0 failed"),
        "{output}"
    );
    // The same book.toml, the preprocessor run for no renderer.
    let output = support::mdbook::run(
        &dir,
        &["build"],
        &[
            ("MDBOOK_BUILD__BUILD_DIR", "without"),
            ("MDBOOK_PREPROCESSOR__SNIPPETS__RENDERERS", "[]"),
        ],
    );
    assert!(output.success(), "{output}");
    assert!(!printed(&output, "mdbook-snippets:"), "{output}");

    let with = page(&root.join("with"), "playground.html");
    let without = page(&root.join("without"), "playground.html");
    // What mdBook does with a runnable block, each kept: the Run button's `<pre>`, the editor,
    // the book's and the block's own edition class, the hidden `fn main` wrapper and the
    // author's hidden line.
    for markup in [
        r#"<pre class="playground"><code class="language-rust edition2021"><span class="boring">#![allow(unused)]"#,
        r#"<pre class="playground"><code class="language-rust editable edition2021"><span class="boring">let hidden = "editable";"#,
        r#"<pre class="playground"><code class="language-rust edition2018">"#,
        r#"<pre><code class="language-rust noplayground">"#,
    ] {
        assert!(with.contains(markup), "{markup}\nnot in\n{with}");
    }
    assert_eq!(with.matches(r#"<pre class="playground">"#).count(), 3);
    for stdout in ["plain", "editable", "edition 2018", "no playground"] {
        assert!(
            with.contains(&format!(
                r#"<pre class="mdbook-snippets-stdout">{stdout}</pre>"#
            )),
            "{stdout}\n{with}"
        );
    }
    // The only difference is the inserted output.
    let inserted =
        regex::Regex::new(r#"(?s)<div class="mdbook-snippets-output">.*?</div>\n\n?"#).unwrap();
    assert_eq!(inserted.find_iter(&with).count(), 4);
    // The search index holds the outputs' text, so its file name (a hash) differs.
    let index = regex::Regex::new(r"searchindex-[0-9a-f]+\.js").unwrap();
    let with = inserted.replace_all(&with, "");
    assert_eq!(
        index.replace_all(&with, "searchindex-HASH.js"),
        index.replace_all(&without, "searchindex-HASH.js")
    );
}

/// What `mdbook build` (the real binary) says about `book_toml`, and what `mdbook-snippets test`
/// says: (exit success, the stderr line that names the problem) of each.
fn both_read(book_toml: &str) -> [(bool, String); 2] {
    let dir = support::book(&[
        ("book.toml", book_toml),
        ("src/SUMMARY.md", "- [A](a.md)\n"),
        ("src/a.md", "# A\n\n```rust\nprintln!(\"a\");\n```\n"),
    ]);
    let mdbook_output = mdbook(&dir, &["build"]);
    let ours = dir.test(&["--quiet"]);
    let reason = |stderr: &str| {
        let headline = stderr.contains("Invalid configuration file");
        stderr
            .lines()
            .find(|line| headline && line.contains("unknown field"))
            .map(|line| line.trim().to_owned())
            .unwrap_or_default()
    };
    let mdbook_reason = reason(&mdbook_output.stderr);
    let our_reason = reason(&ours.stderr);
    eprintln!("{mdbook_output}\n--- ours\n{ours}");
    [
        (mdbook_output.success(), mdbook_reason),
        (ours.success(), our_reason),
    ]
}

#[test]
fn book_toml_gets_mdbooks_answer_with_mdbooks_message() {
    for (key, field) in [
        ("edition = \"2021\"", "edition"),
        ("multilingual = false", "multilingual"),
        ("author = \"me\"", "author"),
    ] {
        let book_toml = format!("[book]\ntitle = \"t\"\n{key}\n");
        let [(mdbook_ok, mdbook_reason), (our_ok, our_reason)] = both_read(&book_toml);
        assert!(!mdbook_ok && !our_ok, "{book_toml}");
        let expected = format!("unknown field `{field}`");
        assert!(mdbook_reason.contains(&expected), "mdbook: {mdbook_reason}");
        assert!(our_reason.contains(&expected), "ours: {our_reason}");
        assert_eq!(our_reason, mdbook_reason);
    }
    // What mdBook accepts, we accept: its own keys, any renderer's table.
    let [(mdbook_ok, _), (our_ok, _)] = both_read(
        "[book]\ntitle = \"t\"\nauthors = [\"me\"]\nlanguage = \"en\"\n[rust]\nedition = \"2021\"\n\
         [output.html]\nanything = 1\n",
    );
    assert!(mdbook_ok && our_ok);
}
