use expect_test::{Expect, expect};

use super::*;

/// Blesses the blocks whose opening fence is on `lines` with `outputs`.
fn check(text: &str, blessings: &[(usize, &str)], expect: Expect) {
    let blessings: Vec<Blessing<'_>> = blessings
        .iter()
        .map(|&(fence_line, output)| Blessing { fence_line, output })
        .collect();
    let actual = match bless_text(text, &blessings) {
        Ok(blessed) => blessed,
        Err(message) => format!("error: {message}"),
    };
    expect.assert_eq(&actual);
}

#[test]
fn rewrites_only_the_content() {
    check(
        r#"# Title

```rust
println!("new");
```

```text,output
old
[..] wildcard
```
After, untouched.
"#,
        &[(7, "new\n\nlines\n")],
        expect![[r#"
            # Title

            ```rust
            println!("new");
            ```

            ```text,output
            new

            lines
            ```
            After, untouched.
        "#]],
    );
}

#[test]
fn several_blocks_empty_blocks_and_empty_output() {
    check(
        "```text,output\n```\nmid\n~~~~ output\nx\n~~~~\n",
        &[(4, ""), (1, "a\nb")],
        expect![[r#"
            ```text,output
            a
            b
            ```
            mid
            ~~~~ output
            ~~~~
        "#]],
    );
}

#[test]
fn crlf_bom_and_containers_are_kept() {
    let text = "\u{feff}```text,output\r\nold\r\n```\r\n\r\n- item\r\n\r\n  ```output\r\n  old\r\n  ```\r\n> ```output\r\n> old\r\n> ```\r\n";
    let blessings = [
        Blessing {
            fence_line: 1,
            output: "one\r\n",
        },
        Blessing {
            fence_line: 7,
            output: "two\n\nthree\n",
        },
        Blessing {
            fence_line: 10,
            output: "four\n\n",
        },
    ];
    assert_eq!(
        bless_text(text, &blessings).unwrap(),
        "\u{feff}```text,output\r\none\r\n```\r\n\r\n- item\r\n\r\n  ```output\r\n  two\r\n\r\n  three\r\n  ```\r\n> ```output\r\n> four\r\n> ```\r\n"
    );
}

#[test]
fn unsafe_rewrites_are_errors() {
    check(
        "text\n```output\nx\n```\n",
        &[(1, "y")],
        expect!["error: 1: expected an output block's fence here"],
    );
    check(
        "```output\nx\n",
        &[(1, "y")],
        expect!["error: 1: the output block has no closing fence"],
    );
    check(
        "```output\nx\n```\n",
        &[(1, "a\n````\n")],
        expect![[
            r#"error: 1: the output line "````" would close the block's fence; lengthen the fence"#
        ]],
    );
    check(
        "```output\n```\n",
        &[(9, "y")],
        expect!["error: 9: no such line"],
    );
}

#[test]
fn nothing_to_bless_is_the_identity() {
    let text = "```rust\r\nfn main() {}\r\n```\r\n";
    assert_eq!(bless_text(text, &[]).unwrap(), text);
}

const CHAPTER: &str = "# Ch\n\n- item\n\n  ```rust\n  println!(\"new\");\n  ```\n  ```output\n  old\n  ```\n\n\
                       ```rust\nprintln!(\"two\");\n```\n\n```output\nstale\n```\n";

/// Blesses both snippets of `CHAPTER` (the run read it as written) in a book whose chapter
/// file holds `on_disk` at the end of the run: the file afterwards, then each refusal.
fn bless_on_disk(on_disk: &str) -> String {
    use crate::snippet::Failure;
    let dir = tempfile::tempdir().unwrap();
    let path = Path::new("src/ch.md");
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join(path), on_disk).unwrap();
    let snippets = crate::source::extract::extract(path, CHAPTER, &[]).unwrap();
    let results: Vec<SnippetResult> = snippets
        .iter()
        .zip(["new\n", "two\n"])
        .map(|(snippet, stdout)| SnippetResult {
            id: snippet.id.clone(),
            span: snippet.span.clone(),
            outcome: Outcome::Failed(Failure {
                kind: FailureKind::OutputMismatch,
                span: snippet.span.clone(),
                message: "output differs".to_owned(),
            }),
            stdout: stdout.to_owned(),
            stderr: String::new(),
            artifacts: Vec::new(),
            elapsed: None,
        })
        .collect();
    let chapters = BTreeMap::from([(path, CHAPTER)]);
    let blessed = bless_book(dir.path(), &snippets, &results, &chapters).unwrap();
    let after = std::fs::read_to_string(dir.path().join(path)).unwrap();
    format!("{after}---\n{}\n", blessed.refused.join("\n"))
}

#[test]
fn a_block_that_is_still_what_ran_is_blessed() {
    expect![[r#"
        # Ch

        - item

          ```rust
          println!("new");
          ```
          ```output
          new
          ```

        ```rust
        println!("two");
        ```

        ```output
        two
        ```
        ---

    "#]]
    .assert_eq(&bless_on_disk(CHAPTER));
    // Text added after the blocks moves nothing: they are still blessed.
    assert!(bless_on_disk(&format!("{CHAPTER}\nMore prose.\n")).ends_with("---\n\n"));
}

/// The chapter edited during the run: a section added at the top puts a hand-written block
/// where the first expected block was. It is not touched, nor is anything else.
#[test]
fn a_chapter_edited_during_the_run_is_not_overwritten() {
    let edited = CHAPTER.replace(
        "# Ch\n\n",
        "# Ch\n\n```text\nhand-written\n```\n\n```text\nkept\n```\n\n",
    );
    expect![[r#"
        # Ch

        ```text
        hand-written
        ```

        ```text
        kept
        ```

        - item

          ```rust
          println!("new");
          ```
          ```output
          old
          ```

        ```rust
        println!("two");
        ```

        ```output
        stale
        ```
        ---
        src/ch.md:8: not blessed: the chapter changed during the run, and this block is no longer the text that ran (nothing of it was touched; run --bless again)
        src/ch.md:16: not blessed: the chapter changed during the run, and this block is no longer the text that ran (nothing of it was touched; run --bless again)
    "#]]
    .assert_eq(&bless_on_disk(&edited));
    // The snippet's code changed, its expected block did not: what ran is not what is there.
    let recoded = CHAPTER.replace("println!(\"two\")", "println!(\"three\")");
    let blessed = bless_on_disk(&recoded);
    assert!(
        blessed.contains("println!(\"three\");\n```\n\n```output\nstale\n```"),
        "{blessed}"
    );
    assert!(blessed.contains("  ```output\n  new\n  ```"), "{blessed}");
    assert!(
        blessed.ends_with("---\nsrc/ch.md:16: not blessed: the chapter changed during the run, and this block is no longer the text that ran (nothing of it was touched; run --bless again)\n"),
        "{blessed}"
    );
}

/// What the comparison ignores is not written: no space at a line's end, no blank line at the
/// block's end (a table padded with spaces, a trailing `println!()`).
#[test]
fn writes_no_trailing_whitespace() {
    check(
        "```text,output\nold\n```\n",
        &[(1, "| a   | b   |\n   \nvalue  \t\n\n\n")],
        expect![[r#"
            ```text,output
            | a   | b   |

            value
            ```
        "#]],
    );
}
