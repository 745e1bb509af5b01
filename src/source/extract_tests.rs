use std::fmt::Write;
use std::path::Path;

use expect_test::{Expect, expect};

use super::{extract, unterminated_fences};

/// Renders what `extract` found, one snippet per paragraph.
fn check(markdown: &str, expect: Expect) {
    let actual = match extract(Path::new("src/ch1.md"), markdown, &[]) {
        Ok(snippets) => {
            let mut out = String::new();
            for snippet in snippets {
                let span = &snippet.span;
                writeln!(out, "{} at {}:{}", snippet.id, span.line, span.column).unwrap();
                writeln!(out, "  info: {:?}", snippet.info).unwrap();
                writeln!(out, "  code: {:?}", snippet.code).unwrap();
                let block = &markdown[snippet.block_range.clone()];
                writeln!(out, "  block: {block:?}").unwrap();
                if let Some(expected) = &snippet.expected {
                    let content = &markdown[expected.content_range.clone()];
                    writeln!(
                        out,
                        "  expected at {}: {:?}",
                        expected.span.line, expected.text
                    )
                    .unwrap();
                    writeln!(out, "  expected content: {content:?}").unwrap();
                }
            }
            out
        }
        Err(error) => format!("error: {error}\n"),
    };
    expect.assert_eq(&actual);
}

#[test]
fn rust_blocks_with_positions_and_expected_output() {
    check(
        r#"# Title

```rust
println!("hi");
# let hidden = 1;
```

```text,output
hi
```

```toml
[not] = "rust"
```

```
plain
```

    indented();
"#,
        expect![[r#"
            src_ch1_md_1 at 3:1
              info: "rust"
              code: "println!(\"hi\");\n# let hidden = 1;\n"
              block: "```rust\nprintln!(\"hi\");\n# let hidden = 1;\n```"
              expected at 8: "hi\n"
              expected content: "hi\n"
            src_ch1_md_2 at 16:1
              info: ""
              code: "plain\n"
              block: "```\nplain\n```"
            src_ch1_md_3 at 20:5
              info: ""
              code: "indented();\n"
              block: "indented();\n"
        "#]],
    );
}

#[test]
fn output_block_must_follow_directly() {
    check(
        r#"```rust
fn main() {}
```

Some prose.

```text,output
not expected output of anything
```
"#,
        expect![[r#"
            src_ch1_md_1 at 1:1
              info: "rust"
              code: "fn main() {}\n"
              block: "```rust\nfn main() {}\n```"
        "#]],
    );
}

#[test]
fn nested_in_a_list_and_empty_expected_block() {
    check(
        r#"1. Step one:

   ```rust,should_panic
   panic!("boom");
   ```
   ```text,output
   ```
"#,
        expect![[r#"
            src_ch1_md_1 at 3:4
              info: "rust,should_panic"
              code: "panic!(\"boom\");\n"
              block: "```rust,should_panic\n   panic!(\"boom\");\n   ```"
              expected at 6: ""
              expected content: ""
        "#]],
    );
}

/// The end of a block quote (or a list item) closes a fence inside it, as CommonMark says and
/// rustdoc tests it; the prose after the quote stays prose.
#[test]
fn the_end_of_a_quote_closes_its_fence() {
    check(
        r#"> A quote:
>
> ```rust
> let quoted = 1;

- an item
  ```rust
  let listed = 2;

After.
"#,
        expect![[r#"
            src_ch1_md_1 at 3:3
              info: "rust"
              code: "let quoted = 1;\n"
              block: "```rust\n> let quoted = 1;\n"
            src_ch1_md_2 at 7:3
              info: "rust"
              code: "let listed = 2;\n\n"
              block: "```rust\n  let listed = 2;\n\n"
        "#]],
    );
}

#[test]
fn unterminated_fences_are_listed_for_a_warning_at_the_top_level_only() {
    let chapter = "> ```rust\n> let quoted = 1;\n\nProse.\n\n```rust\nlet open = 1;\n";
    let listed: Vec<String> = unterminated_fences(Path::new("src/ch1.md"), chapter)
        .iter()
        .map(ToString::to_string)
        .collect();
    expect![[r#"
        [
            "src/ch1.md:6:1: unterminated code fence: no closing ``` line, so the block runs to the end of the chapter, as CommonMark and `mdbook test` read it",
        ]
    "#]]
    .assert_debug_eq(&listed);
}

#[test]
fn an_unterminated_fence_runs_to_the_end_of_the_chapter_as_in_commonmark() {
    check(
        r#"Intro.

```rust
fn main() {}

More prose that would vanish into the block.
"#,
        expect![[r#"
            src_ch1_md_1 at 3:1
              info: "rust"
              code: "fn main() {}\n\nMore prose that would vanish into the block.\n"
              block: "```rust\nfn main() {}\n\nMore prose that would vanish into the block.\n"
        "#]],
    );
}

#[test]
fn longer_fences_and_tildes() {
    check(
        r#"````rust
```
````
~~~rust,no_run
loop {}
~~~
"#,
        expect![[r#"
            src_ch1_md_1 at 1:1
              info: "rust"
              code: "```\n"
              block: "````rust\n```\n````"
            src_ch1_md_2 at 4:1
              info: "rust,no_run"
              code: "loop {}\n"
              block: "~~~rust,no_run\nloop {}\n~~~"
        "#]],
    );
}

#[test]
fn bad_attribute_is_an_error_with_position() {
    check(
        "text\n\n```rust,shoud_panic\n```\n",
        expect![[r#"
            src_ch1_md_1 at 3:1
              info: "rust,shoud_panic"
              code: ""
              block: "```rust,shoud_panic\n```"
        "#]],
    );
}

#[test]
fn block_quote_and_nested_list() {
    check(
        "> Quoted:\n>\n> ```rust\n> let quoted = 1;\n> ```\n> ```text,output\n> out\n> ```\n\n- outer\n  1. inner\n\n     ~~~~rust,no_run\n     let deep = 2;\n     ~~~~\n",
        expect![[r#"
            src_ch1_md_1 at 3:3
              info: "rust"
              code: "let quoted = 1;\n"
              block: "```rust\n> let quoted = 1;\n> ```"
              expected at 6: "out\n"
              expected content: "out\n"
            src_ch1_md_2 at 13:6
              info: "rust,no_run"
              code: "let deep = 2;\n"
              block: "~~~~rust,no_run\n     let deep = 2;\n     ~~~~"
        "#]],
    );
}

#[test]
fn crlf_and_bom() {
    check(
        "\u{feff}```rust\r\nlet a = 1;\r\n```\r\n\r\n```text,output\r\nout\r\n```\r\n",
        expect![[r#"
            src_ch1_md_1 at 1:1
              info: "rust"
              code: "let a = 1;\n"
              block: "```rust\r\nlet a = 1;\r\n```"
              expected at 5: "out\n"
              expected content: "out\r\n"
        "#]],
    );
}

#[test]
fn fences_inside_other_fences_are_content() {
    check(
        "`````markdown\n````rust\n```rust\nnot a snippet\n```\n````\n`````\n\n~~~rust\n```\nlet inner = \"```\";\n~~~\n",
        expect![[r#"
            src_ch1_md_1 at 9:1
              info: "rust"
              code: "```\nlet inner = \"```\";\n"
              block: "~~~rust\n```\nlet inner = \"```\";\n~~~"
        "#]],
    );
}
