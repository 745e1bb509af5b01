//! Bad input. A chapter the tool cannot read snippets from (not UTF-8, an unclosed fence) is one
//! failed entry of the report, at its `PATH:LINE` with an excerpt, and the other chapters'
//! snippets still run (exit 1); an include that cannot be expanded fails only the snippet that
//! holds it. A book nothing can run in
//! (a malformed book.toml, an unknown key, a missing harness) is exit 2 with one message that
//! names the place.

use expect_test::expect;

use crate::support::{book, check_bad_config, harness_dir, write_bytes};

/// A chapter whose one snippet passes, to show the rest of the book still runs.
const GOOD: (&str, &str) = (
    "src/good.md",
    "# Good\n\n```rust\nprintln!(\"fine\");\n```\n",
);

#[test]
fn malformed_book_toml() {
    check_bad_config(
        "[book\ntitle = 1\n",
        expect![[r#"
        error: in [ROOT]/book.toml: Invalid configuration file: TOML parse error at line 1, column 6
          |
        1 | [book
          |      ^
        unclosed table, expected `]`

    "#]],
    );
}

#[test]
fn unknown_key_is_named() {
    check_bad_config(
        "[preprocessor.snippets]\ntimeuot = 3\n",
        expect![[r#"
            error: in [ROOT]/book.toml: unknown key `timeuot` in [preprocessor.snippets]: did you mean `timeout`? (expected one of: `command`, `after`, `before`, `renderers`, `optional`, `harness`, `dependencies`, `default-attributes`, `unknown-attributes`, `edition`, `timeout`, `output-limit`, `jobs`, `languages`, `pass-env`, `writable`, `mutants`, `process-limit`, `memory-limit`, `file-size-limit`, `scratch-limit`, `build-timeout`, `backtrace`, `network`)
        "#]],
    );
}

#[test]
fn non_utf8_chapter() {
    let book = book(&[
        ("src/SUMMARY.md", "- [Bad](bad.md)\n- [Good](good.md)\n"),
        GOOD,
    ]);
    write_bytes(book.path(), "src/bad.md", b"# Bad\n\nText \xff\xfe here.\n");
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        error: chapter src/bad.md not verified
         --> src/bad.md:3:6
          |
        1 | # Bad
        2 |
        3 | Text �� here.
          |      ^^^^^^^^ src/bad.md is not UTF-8 (invalid byte at offset 12)
          none of this chapter's snippets ran

        failures:
            src/bad.md:3 (chapter not verified)

        finished in [TIME]
        1 passed, 1 failed
    "#]]
    .assert_eq(&output.stdout());
}

/// A fence no line closes runs to the end of the chapter, as CommonMark and rustdoc read it:
/// the block is verified as rustdoc tests it (here it fails: prose is not Rust), with a warning
/// at the fence, and the chapter's other snippets run.
#[test]
fn unterminated_fence() {
    let book = book(&[
        (
            "src/a.md",
            "# A\n\n```rust\nprintln!(\"before\");\n```\n\n```rust\nfn main() {}\n\nThe rest of the chapter.\n",
        ),
        GOOD,
    ]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    output.stderr_contains(
        "warning: src/a.md:7:1: unterminated code fence: no closing ``` line, so the block runs \
         to the end of the chapter, as CommonMark and `mdbook test` read it",
    );
    expect![[r#"
        error: snippet src_a_md_2 does not compile
          --> src/a.md:10:5
           |
         8 | fn main() {}
         9 |
        10 | The rest of the chapter.
           |     ^^^^ error: expected one of `!` or `::`, found `rest`
            --> src/a.md:10:5
             |
          10 | The rest of the chapter.
             |     ^^^^ expected one of `!` or `::`

        failures:
            src/a.md:7 (does not compile, src_a_md_2, error at line 10)

        finished in [TIME]
        2 passed, 1 failed
    "#]]
    .assert_eq(&output.stdout());
}

#[test]
fn missing_include_fails_its_snippet_only() {
    let book = book(&[
        (
            "src/a.md",
            "# A\n\n```rust\n{{#include nothing.rs}}\n```\n\n```rust\nlet same_chapter = 1;\n```\n",
        ),
        GOOD,
    ]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        error: snippet src_a_md_1 cannot include
         --> src/a.md:4:1
          |
        2 |
        3 | ```rust
        4 | {{#include nothing.rs}}
          | ^^^^^^^^^^^^^^^^^^^^^^^ {{#include nothing.rs}}: reading src/nothing.rs: No such file or directory (os error 2)
        5 | ```
        6 |
          |

        failures:
            src/a.md:3 (cannot include, src_a_md_1, error at line 4)

        finished in [TIME]
        2 passed, 1 failed
    "#]]
    .assert_eq(&output.stdout());
}

#[test]
fn broken_chapters_outside_the_selection_are_not_reported() {
    let book = book(&[
        (
            "src/a.md",
            "# A\n\n```rust,timeout=soon\nfn main() {}\n```\n",
        ),
        GOOD,
    ]);
    let output = book.test(&["--quiet", "--chapter", "good"]);
    output.code(0);
    expect![[r#"
        finished in [TIME]
        1 passed, 0 failed
    "#]]
    .assert_eq(&output.stdout());
}

#[test]
fn missing_harness() {
    check_bad_config(
        "[preprocessor.snippets]\nharness = \"no-such-crate\"\n",
        expect![[r#"
            error: in [ROOT]/book.toml: `harness`: [ROOT]/no-such-crate does not exist (set in [preprocessor.snippets] of book.toml; relative paths start at the book root)
        "#]],
    );
}

#[test]
fn harness_path_is_resolved_from_the_book_root() {
    // Sanity check for the fixture the harness tests use: the path exists.
    assert!(harness_dir().join("Cargo.toml").is_file());
}
