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
        "\u{feff}```text,output\r\none\r\n```\r\n\r\n- item\r\n\r\n  ```output\r\n  two\r\n\r\n  three\r\n  ```\r\n> ```output\r\n> four\r\n>\r\n> ```\r\n"
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
