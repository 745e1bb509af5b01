use expect_test::{Expect, expect};

use super::*;
use crate::snippet::{Artifact, ArtifactKind, SnippetResult};
use crate::source::extract::extract;

/// Renders `chapter` as if its snippets, in order, had passed and printed `outputs`.
fn check_with(chapter: &str, outputs: &[(&str, Vec<Artifact>)], expect: Expect) {
    let snippets = extract(std::path::Path::new("src/ch.md"), chapter, &[]).unwrap();
    assert_eq!(
        snippets.len(),
        outputs.len(),
        "fixture snippets: {snippets:#?}"
    );
    let results: Vec<SnippetResult> = snippets
        .iter()
        .zip(outputs)
        .map(|(snippet, (stdout, artifacts))| SnippetResult {
            id: snippet.id.clone(),
            span: snippet.span.clone(),
            outcome: Outcome::Passed,
            stdout: stdout.to_string(),
            stderr: String::new(),
            artifacts: artifacts.clone(),
            elapsed: None,
        })
        .collect();
    let verified: Vec<_> = snippets.iter().zip(&results).collect();
    expect.assert_eq(&render_chapter(
        chapter,
        &verified,
        &HashMap::new(),
        Reader::Rustdoc,
    ));
    // For a renderer, every fence that stays is the author's, byte for byte (an expected-output
    // block's fences go with the block), and only the `ignore` marks differ from rustdoc's.
    let for_renderer = render_chapter(chapter, &verified, &HashMap::new(), Reader::Renderer);
    let for_rustdoc = render_chapter(chapter, &verified, &HashMap::new(), Reader::Rustdoc);
    let mut authored = fence_lines(chapter).into_iter();
    for fence in fence_lines(&for_renderer) {
        assert!(
            authored.any(|line| line == fence),
            "{fence:?} is not the author's"
        );
    }
    assert_eq!(for_rustdoc.lines().count(), for_renderer.lines().count());
    for (rustdoc_line, renderer_line) in for_rustdoc.lines().zip(for_renderer.lines()) {
        assert!(
            rustdoc_line == renderer_line
                || rustdoc_line == format!("{renderer_line},ignore")
                || rustdoc_line == format!("{renderer_line}rust,ignore"),
            "{rustdoc_line:?} vs {renderer_line:?}"
        );
    }
}

/// The lines of `text` that open or close a fenced code block (inside a list or a quote too).
fn fence_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| {
            let bare = line.trim_start_matches(|c: char| c == '>' || c.is_whitespace());
            bare.starts_with("```") || bare.starts_with("~~~")
        })
        .collect()
}

fn check(chapter: &str, stdouts: &[&str], expect: Expect) {
    let outputs: Vec<_> = stdouts.iter().map(|s| (*s, Vec::new())).collect();
    check_with(chapter, &outputs, expect);
}

#[test]
fn chapter_without_rust_blocks_is_unchanged() {
    let chapter = "# Title\r\n\r\n```text\r\n<b>\r\n```\r\n\r\n```toml\r\nx = 1\r\n```\r\n";
    let verified: Vec<(&Snippet, &SnippetResult)> = Vec::new();
    assert_eq!(
        render_chapter(chapter, &verified, &HashMap::new(), Reader::Rustdoc),
        chapter
    );
    check(
        chapter,
        &[],
        expect!["# Title\r\n\r\n```text\r\n<b>\r\n```\r\n\r\n```toml\r\nx = 1\r\n```\r\n"],
    );
}

#[test]
fn output_goes_under_the_block_and_the_fence_gets_ignore() {
    check(
        r#"Text.

```rust
println!("<script>alert('hi') & \"x\"</script>");
println!("");
```
Next paragraph.
"#,
        &["<script>alert('hi') & \"x\"</script>\n\n"],
        expect![[r#"
            Text.

            ```rust,ignore
            println!("<script>alert('hi') & \"x\"</script>");
            println!("");
            ```
            <div class="mdbook-snippets-output">
            <pre class="mdbook-snippets-stdout">&lt;script&gt;alert(&#39;hi&#39;) &amp; &quot;x&quot;&lt;/script&gt;&#10;</pre>
            </div>

            Next paragraph.
        "#]],
    );
}

#[test]
fn expected_block_is_replaced_by_the_real_output() {
    check(
        r#"```rust,should_panic
println!("a");
```

```text,output
[..]
```

After.
"#,
        &["a\n"],
        expect![[r#"
            ```rust,should_panic,ignore
            println!("a");
            ```

            <div class="mdbook-snippets-output">
            <pre class="mdbook-snippets-stdout">a</pre>
            </div>

            After.
        "#]],
    );
}

#[test]
fn silent_snippet_gets_only_the_mark_and_loses_its_empty_expected_block() {
    check(
        "```rust\nlet x = 1;\n```\n\n```text,output\n```\nEnd",
        &[""],
        expect![[r#"
            ```rust,ignore
            let x = 1;
            ```

            End"#]],
    );
}

#[test]
fn list_and_block_quote_keep_their_container() {
    check(
        r#"- item

  ```rust
  println!("in list");
  ```
- next

> ~~~~rust edition2021
> println!("quoted");
> ~~~~
> more quote
"#,
        &["in list\n", "quoted\n"],
        expect![[r#"
            - item

              ```rust,ignore
              println!("in list");
              ```
              <div class="mdbook-snippets-output">
              <pre class="mdbook-snippets-stdout">in list</pre>
              </div>
            - next

            > ~~~~rust edition2021,ignore
            > println!("quoted");
            > ~~~~
            > <div class="mdbook-snippets-output">
            > <pre class="mdbook-snippets-stdout">quoted</pre>
            > </div>
            >
            > more quote
        "#]],
    );
}

#[test]
fn crlf_and_missing_final_newline() {
    let render = |chapter: &str| {
        let snippets = extract(std::path::Path::new("src/ch.md"), chapter, &[]).unwrap();
        let result = passed(&snippets[0], "x\r\n", Vec::new());
        render_chapter(
            chapter,
            &[(&snippets[0], &result)],
            &HashMap::new(),
            Reader::Rustdoc,
        )
    };
    let expected = "```rust,ignore\r\nprintln!(\"x\");\r\n```\r\n<div class=\"mdbook-snippets-output\">\r\n<pre class=\"mdbook-snippets-stdout\">x</pre>\r\n</div>\r\n";
    assert_eq!(render("```rust\r\nprintln!(\"x\");\r\n```"), expected);
    assert_eq!(render("```rust\r\nprintln!(\"x\");\r\n```\r\n"), expected);
}

#[test]
fn artifacts_render_as_details_and_images() {
    let artifacts = vec![
        Artifact {
            title: "wire transcript".to_string(),
            kind: ArtifactKind::Text,
            content: "-> {\"id\":1}\n\n<- <b>\n".to_string(),
        },
        Artifact {
            title: "sequence <diagram>".to_string(),
            kind: ArtifactKind::Svg,
            content: "<svg/>".to_string(),
        },
    ];
    check_with(
        "```rust\ncall().await?;\n```\n",
        &[("", artifacts)],
        expect![[r#"
            ```rust,ignore
            call().await?;
            ```
            <div class="mdbook-snippets-output">
            <details class="mdbook-snippets-artifact"><summary>wire transcript</summary><pre>-&gt; {&quot;id&quot;:1}&#10;&#10;&lt;- &lt;b&gt;</pre></details>
            <img class="mdbook-snippets-artifact" alt="sequence &lt;diagram&gt;" title="sequence &lt;diagram&gt;" src="data:image/svg+xml;base64,PHN2Zy8+">
            </div>
        "#]],
    );
}

#[test]
fn only_passed_snippets_are_touched() {
    let chapter = "```rust\nfoo();\n```\n\n```rust,ignore\nbar();\n```\n";
    let snippets = extract(std::path::Path::new("src/ch.md"), chapter, &[]).unwrap();
    let failed = failed(&snippets[0], "panicked: x");
    let mut skipped = passed(&snippets[1], "", Vec::new());
    skipped.outcome = Outcome::Skipped;
    let rendered = render_chapter(
        chapter,
        &[(&snippets[0], &failed), (&snippets[1], &skipped)],
        &HashMap::new(),
        Reader::Rustdoc,
    );
    assert_eq!(rendered, chapter);
}

fn failed(snippet: &Snippet, message: &str) -> SnippetResult {
    let mut result = passed(snippet, "x\n", Vec::new());
    result.outcome = Outcome::Failed(crate::snippet::Failure {
        kind: crate::snippet::FailureKind::Run,
        span: snippet.span.clone(),
        message: message.to_owned(),
    });
    result
}

#[test]
fn served_failures_show_their_report_in_a_box_under_the_block() {
    // A failure in a list item, one whose expected block stays as written, and one at the very
    // end of a chapter without a final newline.
    let chapter = "- step:\n  ```rust\n  boom();\n  ```\n  after\n\n```rust\nlet x = 1;\n```\n```text,output\n1\n```\n\n```rust\nlast();\n```";
    let snippets = extract(std::path::Path::new("src/ch.md"), chapter, &[]).unwrap();
    let results: Vec<SnippetResult> = snippets
        .iter()
        .map(|snippet| failed(snippet, "panicked"))
        .collect();
    let reports: HashMap<String, String> = results
        .iter()
        .enumerate()
        .map(|(index, result)| {
            let report = format!("error: snippet {index} <failed>\n\n  line & more\n");
            (result.id.clone(), report)
        })
        .collect();
    let verified: Vec<_> = snippets.iter().zip(&results).collect();
    expect![[r#"
        - step:
          ```rust
          boom();
          ```
          <!-- mdbook-snippets --><div class="mdbook-snippets-failure" role="alert" style="border: 2px solid #c62828; border-radius: 4px; background: #fdecea; color: #3b0a0a; padding: 0.75em 1em; margin: 1em 0"><p style="margin: 0 0 0.5em 0"><strong>mdbook-snippets: this failed.</strong> Shown only under <code>mdbook serve</code>; <code>mdbook build</code> and <code>mdbook test</code> fail on it.</p><pre style="margin: 0; padding: 0.5em; overflow-x: auto; background: #fff; color: #3b0a0a; font-size: 0.85em; white-space: pre">error: snippet 0 &lt;failed&gt;&#10;&#10;  line &amp; more</pre></div>
          after

        ```rust
        let x = 1;
        ```
        <div class="mdbook-snippets-failure" role="alert" style="border: 2px solid #c62828; border-radius: 4px; background: #fdecea; color: #3b0a0a; padding: 0.75em 1em; margin: 1em 0">
        <p style="margin: 0 0 0.5em 0"><strong>mdbook-snippets: this failed.</strong> Shown only under <code>mdbook serve</code>; <code>mdbook build</code> and <code>mdbook test</code> fail on it.</p>
        <pre style="margin: 0; padding: 0.5em; overflow-x: auto; background: #fff; color: #3b0a0a; font-size: 0.85em; white-space: pre">error: snippet 1 &lt;failed&gt;&#10;&#10;  line &amp; more</pre>
        </div>

        ```text,output
        1
        ```

        ```rust
        last();
        ```
        <div class="mdbook-snippets-failure" role="alert" style="border: 2px solid #c62828; border-radius: 4px; background: #fdecea; color: #3b0a0a; padding: 0.75em 1em; margin: 1em 0">
        <p style="margin: 0 0 0.5em 0"><strong>mdbook-snippets: this failed.</strong> Shown only under <code>mdbook serve</code>; <code>mdbook build</code> and <code>mdbook test</code> fail on it.</p>
        <pre style="margin: 0; padding: 0.5em; overflow-x: auto; background: #fff; color: #3b0a0a; font-size: 0.85em; white-space: pre">error: snippet 2 &lt;failed&gt;&#10;&#10;  line &amp; more</pre>
        </div>
    "#]].assert_eq(&render_chapter(chapter, &verified, &reports, Reader::Rustdoc));
    // Without reports (a build, a test), a failed snippet is left as written.
    assert_eq!(
        render_chapter(chapter, &verified, &HashMap::new(), Reader::Rustdoc),
        chapter
    );
}

fn passed(snippet: &Snippet, stdout: &str, artifacts: Vec<Artifact>) -> SnippetResult {
    SnippetResult {
        id: snippet.id.clone(),
        span: snippet.span.clone(),
        outcome: Outcome::Passed,
        stdout: stdout.to_string(),
        stderr: String::new(),
        artifacts,
        elapsed: None,
    }
}
