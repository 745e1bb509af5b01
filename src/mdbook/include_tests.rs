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
    let expanded = expand_includes(Path::new("src/ch1.md"), chapter, &read);
    let mut out = String::new();
    for (index, line) in expanded.text.lines().enumerate() {
        let span = expanded.source_map.locate(index + 1, 1);
        writeln!(out, "{}:{} | {line}", span.path.display(), span.line).unwrap();
    }
    for problem in &expanded.problems {
        let SourceSpan { path, line, column } = &problem.span;
        let effect = if problem.fails_snippet {
            "fails its snippet"
        } else {
            "warning"
        };
        let at = &expanded.text[problem.offset..];
        let at = at.lines().next().unwrap_or_default();
        writeln!(
            out,
            "{}:{line}:{column}: {} ({effect}; the text there: {at:?})",
            path.display(),
            problem.message
        )
        .unwrap();
    }
    expect.assert_eq(&out);
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
fn a_whole_file_keeps_its_anchor_lines_an_anchor_takes_its_first_section() {
    let twice =
        "// ANCHOR: a\none\n// ANCHOR_END: a\nmiddle\n// ANCHOR: a\ntwo\n// ANCHOR_END: a\n";
    check(
        &[("src/lib.rs", LIB), ("src/twice.rs", twice)],
        "{{#include lib.rs::3}}\n--\n{{#include twice.rs:a}}\n--\n{{#rustdoc_include twice.rs:a}}\n",
        expect![[r#"
            src/lib.rs:1 | use std::fmt;
            src/lib.rs:2 | // ANCHOR: body
            src/lib.rs:3 | fn body() {
            src/ch1.md:2 | --
            src/twice.rs:2 | one
            src/ch1.md:4 | --
            src/twice.rs:2 | one
            src/twice.rs:4 | # middle
            src/twice.rs:6 | two
        "#]],
    );
}

#[test]
fn line_forms() {
    let file = "1\n2\n3\n4\n5\n";
    check(
        &[("src/n.txt", file)],
        "[{{#include n.txt:2}}] [{{#include n.txt:4:}}] [{{#include n.txt:2:3}}] [{{#rustdoc_include n.txt:5}}]\n",
        expect![[r#"
            src/ch1.md:1 | [2] [4
            src/n.txt:5 | 5] [2
            src/n.txt:3 | 3] [# 1
            src/n.txt:2 | # 2
            src/n.txt:3 | # 3
            src/n.txt:4 | # 4
            src/n.txt:5 | 5]
        "#]],
    );
}

#[test]
fn playground_is_a_rust_fence_at_the_directive() {
    check(
        &[("src/code/main.rs", "fn main() {\n    println!(\"hi\");\n}")],
        "before\n{{#playground code/main.rs editable should_panic}}\nafter\n",
        expect![[r#"
            src/ch1.md:1 | before
            src/ch1.md:2 | ```rust,editable,should_panic
            src/code/main.rs:1 | fn main() {
            src/code/main.rs:2 |     println!("hi");
            src/code/main.rs:3 | }
            src/ch1.md:2 | ```
            src/ch1.md:2 | 
            src/ch1.md:3 | after
        "#]],
    );
}

#[test]
fn spacing_escapes_titles_and_inline_code_as_mdbook() {
    check(
        &[("src/v.txt", "1.0\n")],
        "{{ #title Other }}Version `{{ #include v.txt }}`; \\{{#include v.txt}} {{#include v.txt}} stays\n",
        expect![[r#"
            src/ch1.md:1 | Version `1.0`; {{#include v.txt}} {{#include v.txt}} stays
        "#]],
    );
}

#[test]
fn a_file_that_cannot_be_read_is_left_as_written() {
    check(
        &[],
        "x\nUse `{{#include nope.rs}}` like this.\n```rust\n{{#include gone.rs}}\n```\n",
        expect![[r#"
            src/ch1.md:1 | x
            src/ch1.md:2 | Use `{{#include nope.rs}}` like this.
            src/ch1.md:3 | ```rust
            src/ch1.md:4 | {{#include gone.rs}}
            src/ch1.md:5 | ```
            src/ch1.md:2:6: {{#include nope.rs}}: no file src/nope.rs (fails its snippet; the text there: "{{#include nope.rs}}` like this.")
            src/ch1.md:4:1: {{#include gone.rs}}: no file src/gone.rs (fails its snippet; the text there: "{{#include gone.rs}}")
        "#]],
    );
}

#[test]
fn a_missing_anchor_includes_nothing_with_a_warning() {
    check(
        &[("src/code/lib.rs", LIB)],
        "a\n{{#include code/lib.rs:missing}}\nb\n",
        expect![[r#"
            src/ch1.md:1 | a
            src/ch1.md:2 | 
            src/ch1.md:3 | b
            src/ch1.md:2:1: {{#include code/lib.rs:missing}}: no anchor named `missing` (nothing included, as mdBook does) (warning; the text there: "")
        "#]],
    );
}

#[test]
fn a_cycle_stops_at_mdbooks_depth() {
    let expanded = expand_includes(Path::new("src/ch1.md"), "{{#include self.md}}\n", &|_| {
        Ok("again {{#include self.md}}".to_owned())
    });
    assert_eq!(expanded.text, format!("{}\n", "again ".repeat(10)));
    let [problem] = expanded.problems.as_slice() else {
        panic!("one problem: {:?}", expanded.problems);
    };
    assert!(problem.fails_snippet);
    assert!(
        problem.message.contains("nested more than 10 deep"),
        "{problem:?}"
    );
}
