use std::collections::HashMap;
use std::path::Path;

use expect_test::{Expect, expect};

use super::*;
use crate::report::render::{Reader, render_chapter};
use crate::snippet::{Artifact, Outcome};
use crate::source::extract::extract;

fn result(stdout: &str, artifacts: Vec<Artifact>) -> SnippetResult {
    SnippetResult {
        id: "ch-1".to_string(),
        span: crate::snippet::SourceSpan {
            path: "src/ch.md".into(),
            line: 1,
            column: 1,
        },
        outcome: Outcome::Passed,
        stdout: stdout.to_string(),
        stderr: String::new(),
        artifacts,
        elapsed: None,
    }
}

fn transcript(content: &str) -> Artifact {
    Artifact {
        title: "wire transcript".to_string(),
        kind: ArtifactKind::Text,
        content: content.to_string(),
    }
}

fn check(stdout: &str, artifacts: Vec<Artifact>, expect: Expect) {
    expect.assert_eq(&output_markdown(&result(stdout, artifacts)).join("\n"));
}

/// `chapter`'s snippets, in order, rendered for a Markdown reader as if each had passed with
/// `outputs`.
fn check_chapter(chapter: &str, outputs: &[(&str, Vec<Artifact>)], expect: Expect) {
    let snippets = extract(Path::new("src/ch.md"), chapter, &[]).unwrap();
    assert_eq!(snippets.len(), outputs.len(), "{snippets:#?}");
    let results: Vec<SnippetResult> = snippets
        .iter()
        .zip(outputs)
        .map(|(snippet, (stdout, artifacts))| SnippetResult {
            id: snippet.id.clone(),
            span: snippet.span.clone(),
            ..result(stdout, artifacts.clone())
        })
        .collect();
    let verified: Vec<_> = snippets.iter().zip(&results).collect();
    expect.assert_eq(&render_chapter(
        chapter,
        &verified,
        &HashMap::new(),
        Reader::Markdown,
    ));
}

#[test]
fn stdout_and_transcript_are_fenced_text_and_a_diagram_is_left_out() {
    let diagram = Artifact {
        title: "sequence".to_string(),
        kind: ArtifactKind::Svg,
        content: "<svg/>".to_string(),
    };
    check(
        "request 1 is in flight\n<b> & done\n",
        vec![transcript("-> {\"id\":1}\n\n<- {\"id\":1}\n"), diagram],
        expect![[r#"
            ```text
            request 1 is in flight
            <b> & done
            ```

            wire transcript:

            ```text
            -> {"id":1}

            <- {"id":1}
            ```"#]],
    );
}

#[test]
fn nothing_to_show_is_nothing() {
    check("", Vec::new(), expect![""]);
    check("\n", Vec::new(), expect![""]);
}

#[test]
fn a_fence_in_the_output_cannot_close_the_block() {
    check(
        "```\nnot the end\n````\r\n",
        Vec::new(),
        expect![[r#"
            `````text
            ```
            not the end
            ````
            `````"#]],
    );
    check(
        "",
        vec![transcript("x")],
        expect![[r#"
            wire transcript:

            ```text
            x
            ```"#]],
    );
}

#[test]
fn expected_block_is_replaced_and_a_list_keeps_its_output() {
    check_chapter(
        "Intro\n\n```rust\nprintln!(\"a\");\n```\n\n```text,output\na\n```\nAfter.\n\n- item\n\n  ```rust\n  println!(\"b\");\n  ```\n- next\n",
        &[
            ("a [real]\n", Vec::new()),
            ("b\n", vec![transcript("-> x\n")]),
        ],
        expect![[r#"
            Intro

            ```rust
            println!("a");
            ```

            ```text
            a [real]
            ```

            After.

            - item

              ```rust
              println!("b");
              ```
  
              ```text
              b
              ```
  
              wire transcript:
  
              ```text
              -> x
              ```

            - next
        "#]],
    );
}

/// A snippet's escapes reach a text renderer never raw: a colour and an OSC 8 hyperlink as
/// their text, any other control character as `\xNN`.
#[test]
fn escapes_in_output_are_shown_as_text() {
    let lines = output_markdown(&result(
        "\u{1b}[31mred\u{1b}[0m \u{1b}]8;;https://example.invalid\u{7}link\u{1b}]8;;\u{7} bell\u{7}\n",
        Vec::new(),
    ));
    let text = lines.join("\n");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text}"
    );
    assert!(text.contains("red link bell\\x07"), "{text}");
}
