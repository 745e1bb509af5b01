//! What rustdoc and mdBook read from Markdown: info-string words of other tools (ignored, a
//! near-miss warned about, or an error when the book says so), and `include` and
//! `playground` directives expanded as mdBook expands them.

use expect_test::expect;

use super::{tail_from, warnings};
use crate::support::{book, junit};

const WORDS_OF_OTHER_TOOLS: &str = r#"# Words

```rust,does_not_compile,not_desired_behavior
let v = vec![1, 2, 3];
println!("{}", v.len());
```

```text,output
3
```

```rust,panics,hide-boring
panic!("this one really panics");
```

```rust,should-panic
panic!("a near-miss: verified without should_panic, so this fails");
```

```rust,edition2O21,no-run
let fine = 1;
```

```rust,edition2018
let async_is_not_a_keyword_yet = 1;
```
"#;

#[test]
fn unknown_words_are_ignored_and_near_misses_warn() {
    let book = book(&[("src/a.md", WORDS_OF_OTHER_TOOLS)]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        warning: src/a.md:16: unknown attribute `should-panic`; did you mean `should_panic`? (verified without it)
        warning: src/a.md:20: unknown attribute `edition2O21`; did you mean `edition2021`? (verified without it)
        warning: src/a.md:20: unknown attribute `no-run`; did you mean `no_run`? (verified without it)
    "#]]
    .assert_eq(&warnings(&output));
    output.stdout_contains("failures:\n    src/a.md:12 (failed at run time, src_a_md_2, error at line 13)\n    src/a.md:16 (failed at run time, src_a_md_3, error at line 17)\n");
    output.stdout_contains("3 passed, 2 failed\n");
}

#[test]
fn a_book_can_make_unknown_words_errors() {
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[preprocessor.snippets]\nunknown-attributes = \"error\"\n",
        ),
        ("src/a.md", WORDS_OF_OTHER_TOOLS),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        failures:
            src/a.md:3 (unknown attribute, src_a_md_1)
            src/a.md:12 (unknown attribute, src_a_md_2)
            src/a.md:16 (unknown attribute, src_a_md_3)
            src/a.md:20 (unknown attribute, src_a_md_4)

        finished in [TIME]
        1 passed, 4 failed
    "#]]
    .assert_eq(&tail_from(&output.stdout(), "failures:"));
    output.stdout_contains(
        "unknown attribute `edition2O21`; did you mean `edition2021`?; unknown attribute \
         `no-run`; did you mean `no_run`? (this book sets `unknown-attributes = \"error\"`)",
    );
}

#[test]
fn includes_and_playgrounds_expand_as_mdbook_expands_them() {
    let book = book(&[
        ("src/SUMMARY.md", "- [A](a.md)\n"),
        (
            "src/a.md",
            "# A\n\nWrite `{{#include missing.rs}}` to include a file.\n\n\
             {{#playground listing.rs}}\n\n```rust\n{{#include gone.rs}}\n```\n\n\
             {{ #include part.md }}\n",
        ),
        (
            "src/listing.rs",
            "fn main() {\n    println!(\"from the playground\");\n}\n",
        ),
        ("src/part.md", "```rust\nlet from_a_part = 1;\n```\n"),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        warning: src/a.md:3:8: {{#include missing.rs}}: reading src/missing.rs: No such file or directory (os error 2) (left as written, as mdBook does)
    "#]]
    .assert_eq(&warnings(&output));
    // The snippet with the missing include fails there (its report is `book_errors`'s case); the
    // playground and the part's snippet pass.
    expect![[r#"
        failures:
            src/a.md:7 (cannot include, src_a_md_2, error at line 8)

        finished in [TIME]
        2 passed, 1 failed
    "#]]
    .assert_eq(&tail_from(&output.stdout(), "failures:"));
    // The playground's snippet ran, at the directive's line (5); part.md's at its line 1.
    let with_junit = book.test(&["--quiet", "--junit", "report.xml"]);
    with_junit.code(1);
    assert_eq!(
        format!(
            "{:?}",
            junit::verdicts_by_line(&junit::read(&book, "report.xml"))
        ),
        r#"{1: "passed", 5: "passed", 7: "failed"}"#
    );
}

/// A fence an included file never closes (found on a public book): CommonMark runs the block to
/// the end of the chapter, and rustdoc (`mdbook test`, which gets the chapter with the include
/// expanded) tests it and every block before it. So does the verifier, with a warning at the
/// fence in the included file; before, it dropped every snippet of the chapter.
#[test]
fn an_unterminated_fence_in_an_included_file_warns_and_every_block_is_tested() {
    let included = "Included.\n\n```rust\nlet in_include = 2;\nassert_eq!(in_include, 2);\n```\n\n\
        ```rust\nlet unterminated = 3;\nassert_eq!(unterminated, 3);\n";
    let chapter = "# C\n\n```rust\nlet before = 1;\n```\n\n{{#include listing.md}}\n";
    let book = book(&[
        ("src/SUMMARY.md", "- [C](c.md)\n"),
        ("src/c.md", chapter),
        ("src/listing.md", included),
    ]);
    let output = book.test(&["--quiet", "--junit", "report.xml"]);
    output.code(0);
    expect![[r#"
        warning: src/listing.md:8:1: unterminated code fence: no closing ``` line, so the block runs to the end of the chapter, as CommonMark and `mdbook test` read it
    "#]]
    .assert_eq(&warnings(&output));
    // rustdoc on the chapter as mdBook hands it over (the include expanded): the same three.
    let expanded = chapter.replace("{{#include listing.md}}\n", included);
    let as_mdbook_hands_it = crate::support::book(&[("src/c.md", &expanded)]);
    let theirs =
        super::rustdoc::rustdoc_verdicts(&as_mdbook_hands_it, "src/c.md", Some("2021"), &[]);
    expect![[r#"{3: "passed", 9: "passed", 14: "passed"}"#]].assert_eq(&format!("{theirs:?}"));
    let report = junit::read(&book, "report.xml");
    let ours: Vec<String> = junit::cases(&report)
        .iter()
        .map(|case| format!("{} {}", case.name, case.verdict))
        .collect();
    expect![[r#"["src/c.md:3 passed", "src/listing.md:3 passed", "src/listing.md:8 passed"]"#]]
        .assert_eq(&format!("{ours:?}"));
    output.stdout_contains("3 passed, 0 failed\n");
}
