use std::fmt::Write;

use anyhow::Context;
use expect_test::{Expect, expect};

use super::*;

/// Expands `chapter` (as `src/ch1.md`) against in-memory files, then shows each expanded line
/// with its origin.
fn check(files: &[(&str, &str)], chapter: &str, expect: Expect) {
    let read = |path: &Path| -> anyhow::Result<String> {
        files
            .iter()
            .find(|(name, _)| Path::new(name) == path)
            .map(|(_, content)| content.to_string())
            .with_context(|| format!("no file {}", path.display()))
    };
    let actual = match expand_includes(Path::new("src/ch1.md"), chapter, &read) {
        Ok((text, map)) => {
            let mut out = String::new();
            for (index, line) in text.lines().enumerate() {
                let span = map.locate(index + 1, 1);
                writeln!(out, "{}:{} | {line}", span.path.display(), span.line).unwrap();
            }
            out
        }
        Err(error) => format!("error: {error:#}\n"),
    };
    expect.assert_eq(&actual);
}

const LIB: &str = "use std::fmt;\n// ANCHOR: body\nfn body() {\n    nested();\n}\n// ANCHOR_END: body\nfn tail() {}\n";

#[test]
fn whole_file_and_ranges() {
    check(
        &[("src/code/lib.rs", LIB)],
        "intro\n```rust\n{{#include code/lib.rs:3:4}}\n```\nafter\n",
        expect![[r#"
            src/ch1.md:1 | intro
            src/ch1.md:2 | ```rust
            src/code/lib.rs:3 | fn body() {
            src/code/lib.rs:4 |     nested();
            src/ch1.md:4 | ```
            src/ch1.md:5 | after
        "#]],
    );
}

#[test]
fn anchors_and_rustdoc_include_hide_the_rest() {
    check(
        &[("src/code/lib.rs", LIB)],
        "```rust\n{{#rustdoc_include code/lib.rs:body}}\n```\n",
        expect![[r#"
            src/ch1.md:1 | ```rust
            src/code/lib.rs:1 | # use std::fmt;
            src/code/lib.rs:3 | fn body() {
            src/code/lib.rs:4 |     nested();
            src/code/lib.rs:5 | }
            src/code/lib.rs:7 | # fn tail() {}
            src/ch1.md:3 | ```
        "#]],
    );
}

#[test]
fn nested_includes_map_to_the_innermost_file() {
    check(
        &[
            ("src/a.md", "a1\n{{#include inner/b.rs}}\na3\n"),
            ("src/inner/b.rs", "b1\nb2\n"),
        ],
        "{{#include a.md}}\nend\n",
        expect![[r#"
            src/a.md:1 | a1
            src/inner/b.rs:1 | b1
            src/inner/b.rs:2 | b2
            src/a.md:3 | a3
            src/ch1.md:2 | end
        "#]],
    );
}

#[test]
fn escaped_and_foreign_directives_stay() {
    check(
        &[],
        "\\{{#include x.rs}} and {{#title T}}\n",
        expect![[r#"
            src/ch1.md:1 | {{#include x.rs}} and {{#title T}}
        "#]],
    );
}

#[test]
fn missing_file_and_anchor_are_errors() {
    check(
        &[],
        "x\n{{#include nope.rs}}\n",
        expect![[r#"
            error: src/ch1.md:2: {{#include nope.rs}}: no file src/nope.rs
        "#]],
    );
    check(
        &[("src/code/lib.rs", LIB)],
        "{{#include code/lib.rs:missing}}\n",
        expect![[r#"
            error: src/ch1.md:1: {{#include code/lib.rs:missing}}: no anchor named `missing`
        "#]],
    );
}
