//! Our verdicts against rustdoc's own: each chapter here is verified by us and by
//! `rustdoc --test` (what `mdbook test` runs), and every block must get the same verdict: which
//! blocks are tested, `fn main` wrapping, `should_panic`, doc comments on nothing, hidden crate
//! attributes, errors inside std macros, the 2015 edition of a book that names none, and
//! `#![no_std]` blocks, which rustdoc does not wrap.

use std::collections::BTreeMap;
use std::process::Command;

use expect_test::expect;

use crate::support::{Book, Output, book, junit};

/// Blocks rustdoc tests and blocks it does not, by its info-string rule, in one chapter with
/// no includes (so `rustdoc --test` on the file is exactly what `mdbook test` runs).
const WHAT_RUSTDOC_TESTS: &str = r#"# Blocks

```
let untagged = 1;
assert_eq!(untagged, 1);
```

```
this is prose, not Rust
```

    let indented = 2;
    assert_eq!(indented, 2);

```no_run,text
let first_attribute_then_a_word = 1;
```

```text,no_run
a word first: not Rust
```

```css-class rust
let rust_anywhere: u8 = 3;
```

```rust,text,should_panic
rustdoc's quirk: not Rust
```

```edition2021
let edition_words_count_for_neither = 4;
```

```ignore
not even Rust
```

```should_panic
panic!("expected");
```

```compile_fail
let n: u32 = "no";
```

```rust,standalone_crate
fn main() { println!("alone"); }
```

```toml
[not] = "rust"
```
"#;

/// `line -> passed | failed | skipped` of each block rustdoc ran, from `rustdoc --test`'s
/// `test FILE - TITLE (line N) ... ok` lines; `extra` are more arguments (`-L DIR`).
pub(super) fn rustdoc_verdicts(
    book: &Book,
    chapter: &str,
    edition: Option<&str>,
    extra: &[&str],
) -> BTreeMap<usize, &'static str> {
    let mut command = Command::new("rustdoc");
    command.args(["--test", chapter]).args(extra);
    // As a user runs `mdbook test`: not under cargo, whose variables this test process has.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name == "CARGO"
            || [
                "CARGO_PKG_",
                "CARGO_MANIFEST_",
                "CARGO_CRATE_",
                "CARGO_BIN_",
                "CARGO_PRIMARY_",
            ]
            .iter()
            .any(|prefix| name.starts_with(prefix))
        {
            command.env_remove(name.as_ref());
        }
    }
    if let Some(edition) = edition {
        command.args(["--edition", edition]);
    }
    let output = command
        .current_dir(book.path())
        .env("TMPDIR", book.tmpdir())
        .output()
        .expect("running rustdoc");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let verdicts: BTreeMap<usize, &'static str> = stdout
        .lines()
        .filter_map(|line| {
            let (_, after) = line.split_once("(line ")?;
            let (number, rest) = after.split_once(')')?;
            let verdict = match rest.rsplit(" ... ").next()? {
                "ok" => "passed",
                "FAILED" => "failed",
                "ignored" => "skipped",
                _ => return None,
            };
            Some((number.parse().ok()?, verdict))
        })
        .collect();
    assert!(
        !verdicts.is_empty(),
        "no tests in rustdoc's output:\n{stdout}"
    );
    verdicts
}

/// Verifies `chapter` as a book's one chapter, `src/c.md` (with `[rust] edition` when given),
/// requires rustdoc's verdict on every block, and returns our report and the verdicts.
pub(super) fn same_verdicts_as_rustdoc(
    chapter: &str,
    edition: Option<&str>,
) -> (Output, BTreeMap<usize, &'static str>) {
    let book_toml = match edition {
        Some(edition) => format!("[book]\ntitle = \"t\"\n[rust]\nedition = \"{edition}\"\n"),
        None => "[book]\ntitle = \"t\"\n".to_owned(),
    };
    let book = book(&[
        ("book.toml", &book_toml),
        ("src/SUMMARY.md", "- [C](c.md)\n"),
        ("src/c.md", chapter),
    ]);
    let output = book.test(&["--quiet", "--junit", "report.xml"]);
    let ours = junit::verdicts_by_line(&junit::read(&book, "report.xml"));
    assert_eq!(
        ours,
        rustdoc_verdicts(&book, "src/c.md", edition, &[]),
        "{output}"
    );
    (output, ours)
}

#[test]
fn blocks_are_verified_exactly_when_rustdoc_tests_them_with_its_verdicts() {
    let (output, ours) = same_verdicts_as_rustdoc(WHAT_RUSTDOC_TESTS, Some("2021"));
    output.code(1);
    expect![[r#"
        {3: "passed", 8: "failed", 12: "passed", 15: "passed", 23: "passed", 31: "passed", 35: "skipped", 39: "passed", 43: "passed", 47: "passed"}"#]]
    .assert_eq(&format!("{ours:?}"));
    // The one that fails says why a block without a language was taken for Rust.
    output.stdout_contains(
        "note: a fence with no language is Rust, as rustdoc (`mdbook test`) reads it; if it is \
         not Rust, write its language (```text)",
    );
}

/// Errors whose primary span is inside a std macro (`vec!`, `panic!` in a const): they belong to
/// the snippet that called the macro, merged or not, and a neighbour still passes. And a 2015
/// `::a::foo()` path, which names the crate root.
#[test]
fn errors_inside_std_macros_belong_to_the_snippet_that_called_them() {
    let chapter = "# Macros\n\n\
        ```rust,compile_fail,E0716\nlet y = &*std::ops::Index::index(&vec![()], 0);\ny;\n```\n\n\
        ```rust,compile_fail\nif false { const { panic!(); } }\n```\n\n\
        ```rust\nconst CHECK: () = panic!(\"checked at compile time\");\nlet () = CHECK;\n```\n\n\
        ```rust\nlet neighbour = vec![1, 2];\nassert_eq!(neighbour.len(), 2);\n```\n\n\
        ```rust,edition2015\nmod a { pub fn foo() {} }\nmod b { pub fn foo() { ::a::foo(); } }\nfn main() { b::foo(); }\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, Some("2024"));
    output.code(1);
    expect![[r#"{3: "passed", 8: "passed", 12: "failed", 17: "passed", 22: "passed"}"#]]
        .assert_eq(&format!("{ours:?}"));
    output.stdout_contains("src/c.md:12 (does not compile, src_c_md_3, error at line 13)");
}

/// A fence inside a block quote that the end of the quote closes (no closing fence line):
/// rustdoc tests the block, and so do we, instead of rejecting the chapter.
#[test]
fn a_fence_closed_by_the_end_of_its_quote_is_tested_as_rustdoc_tests_it() {
    let chapter = "# Quoted\n\n\
        > Try this:\n>\n> ```rust\n> assert_eq!(1 + 1, 2);\n\n\
        After the quote.\n\n\
        > ```rust\n> assert_eq!(1 + 1, 3);\n\n\
        ```rust\nlet fine = 1;\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, Some("2021"));
    output.code(1);
    expect![[r#"{5: "passed", 10: "failed", 13: "passed"}"#]].assert_eq(&format!("{ours:?}"));
}

/// Whether rustdoc wraps a block in `fn main`: it parses the block, and statements beside a
/// `fn main` of the block's own get the whole block wrapped (that `main` is then never called);
/// a `fn main` in a comment or a string is none.
#[test]
fn blocks_are_wrapped_in_fn_main_exactly_when_rustdoc_wraps_them() {
    let chapter = "# Main\n\n\
        ```rust\nlet x = 1;\nassert_eq!(x, 1);\nfn main() { panic!(\"never called\") }\n```\n\n\
        ```rust\n// no fn main() here\nlet y = 2;\nassert_eq!(y, 2);\n```\n\n\
        ```rust\nlet s = \"fn main() {}\";\nassert!(!s.is_empty());\n```\n\n\
        ```rust\n#[derive(Debug)]\nstruct P;\nfn main() {\n    panic!(\"called: {:?}\", P);\n}\n```\n\n\
        ```rust\nmod m { pub fn main() {} }\nm::main();\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, Some("2021"));
    output.code(1);
    expect![[r#"{3: "passed", 9: "passed", 15: "passed", 20: "failed", 28: "passed"}"#]]
        .assert_eq(&format!("{ours:?}"));
}

/// `should_panic` as rustdoc judges it: the block's process must fail, in any way.
#[test]
fn should_panic_passes_on_any_failed_process_as_in_rustdoc() {
    let chapter = "# Panics\n\n\
        ```rust,should_panic\nfn main() -> Result<(), String> { Err(\"e\".into()) }\n```\n\n\
        ```rust,should_panic\nstd::process::exit(3);\n```\n\n\
        ```rust,should_panic\nstd::process::abort();\n```\n\n\
        ```rust,should_panic\nlet fine = 1;\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, Some("2021"));
    output.code(1);
    expect![[r#"{3: "passed", 7: "passed", 11: "passed", 15: "failed"}"#]]
        .assert_eq(&format!("{ours:?}"));
}

/// Doc comments that document nothing at the end of a block rustdoc wraps in `fn main`: rustdoc
/// leaves them out of what it compiles (each block below passes it in every edition), so they
/// pass here too; one before a `}` of the block's own, or after its own `fn main`'s body inside
/// the wrapper rustdoc does not add, fails for both.
const DOC_COMMENTS_ON_NOTHING: &str = r#"# Docs

```rust
/// Inserts an element.
///
/// # Panics
```

```rust
/** doc */
```

```rust
fn f() {}
/// x
```

```rust
let x = 1;
/// x
```

```rust
let s = "/// not a comment";
/// x
// y
```

```rust
/**
 * several lines
 */
```

```rust
fn g() {
/// x
}
```

```rust
# fn main() {
let x = 1;
/// x
# }
```

```rust
//! x
```

```rust
/// x
let x = 1;
```
"#;

#[test]
fn doc_comments_that_document_nothing_pass_as_in_rustdoc() {
    for edition in ["2015", "2021", "2024"] {
        let (output, ours) = same_verdicts_as_rustdoc(DOC_COMMENTS_ON_NOTHING, Some(edition));
        output.code(1);
        expect![[r#"{3: "passed", 9: "passed", 13: "passed", 18: "passed", 23: "passed", 29: "passed", 35: "failed", 41: "failed", 48: "passed", 52: "passed"}"#]]
            .assert_eq(&format!("{ours:?}"));
    }
}

/// Any outer attribute that ends a block attaches to nothing, and rustdoc leaves it out as it
/// leaves out doc comments (found on rust-lang/rustup's dev guide: a block of only
/// `#[tracing::instrument(..)]`, which `mdbook test` passes and we failed); one before a `}` of
/// the block's own fails for both.
const ATTRIBUTES_ON_NOTHING: &str = r##"# Attributes

```rust
#[tracing::instrument(level = "trace", err(level = "trace"), skip_all)]
```

```rust
fn f() {}
#[inline]
```

```rust
let z = 2;
#[cfg_attr(
    any(),
    inline
)] // why
/// and a doc comment
```

```rust
fn main() {}
#[inline] #[cold]
```

```rust
#![allow(unused)]
fn main() {}
#[nonexistent_attribute]
```

```rust
fn h() {
#[inline]
}
```

```rust
let s = "#[inline]";
assert_eq!(s.len(), 9);
```
"##;

#[test]
fn attributes_that_end_a_block_pass_as_in_rustdoc() {
    for edition in ["2015", "2024"] {
        let (output, ours) = same_verdicts_as_rustdoc(ATTRIBUTES_ON_NOTHING, Some(edition));
        output.code(1);
        expect![[r#"{3: "passed", 7: "passed", 12: "passed", 21: "passed", 26: "passed", 32: "failed", 38: "passed"}"#]]
            .assert_eq(&format!("{ours:?}"));
    }
}

/// An error in a hidden crate attribute is at the attribute's own line, in the report and in
/// rustc's excerpt, though the attribute is lifted out of the `fn main` wrapper as rustdoc lifts
/// it (rustdoc names that line too).
#[test]
fn an_error_in_a_hidden_crate_attribute_is_at_its_line() {
    let chapter = "# Feature

```rust
# #![allow(unused)]
# #![feature(never_type)]
let x: Option<!> = None;
```
";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, Some("2021"));
    output.code(1);
    expect![[r#"{3: "failed"}"#]].assert_eq(&format!("{ours:?}"));
    output.stdout_contains("src/c.md:3 (does not compile, src_c_md_1, error at line 5)");
    output.stdout_contains(
        " --> src/c.md:5:3\n  |\n3 | ```rust\n4 | # #![allow(unused)]\n5 | # #![feature(never_type)]\n  |   ^^^^^^^^^^^^^^^^^^^^^^^ error[E0554]",
    );
    output.stdout_contains("  5 | #![feature(never_type)]\n    | ^^^^^^^^^^^^^^^^^^^^^^^\n");
}

/// A book that names no edition: `mdbook test` passes rustdoc no `--edition`, so its snippets
/// are 2015 code, and so are ours.
#[test]
fn a_book_without_an_edition_is_2015_as_for_mdbook_test() {
    let chapter = "# Old\n\n```rust\nlet async = 1;\nlet dyn = async + 1;\nassert_eq!(dyn, 2);\n```\n\n\
        ```rust\ntrait Shape { fn area(&self) -> u32; }\nstruct Square;\n\
        impl Shape for Square { fn area(&self) -> u32 { 4 } }\n\
        let shapes: Vec<Box<Shape>> = vec![Box::new(Square)];\nassert_eq!(shapes[0].area(), 4);\n```\n\n\
        ```rust\nasync fn later() {}\n```\n\n\
        ```rust\nuse std::collections::HashMap;\nlet mut m = HashMap::new();\nm.insert(1, 2);\n\
        assert_eq!(m[&1], 2);\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, None);
    output.code(1);
    expect![[r#"{3: "passed", 9: "passed", 17: "failed", 21: "passed"}"#]]
        .assert_eq(&format!("{ours:?}"));
    // The `async fn` fails, with where to name an edition (rustc would say `Cargo.toml`).
    output.stdout_contains(
        "note: this book names no edition, so its snippets are Rust 2015, as `mdbook test` \
         compiles them; set one in book.toml (`[rust]` `edition = \"2021\"`) or on the block \
         (```rust,edition2021)",
    );
}

/// rustdoc inserts no `fn main` into a block whose crate attributes declare `#![no_std]`
/// (found on rust-lang/cargo's book: `#![no_std]` with `#[cfg(feature = "std")] extern crate
/// std;` and a `pub fn`, which `mdbook test` fails with E0601 and we passed): such a block
/// passes only with a `fn main` of its own, and `compile_fail` on one without holds.
#[test]
fn a_no_std_block_gets_no_fn_main_as_in_rustdoc() {
    let chapter = "# no_std\n\n\
        ```rust\n#![no_std]\n\n#[cfg(feature = \"std\")]\nextern crate std;\n\npub fn f() {}\n```\n\n\
        ```rust\n# #![no_std]\nextern crate std;\nfn main() { std::println!(\"own main\"); }\n```\n\n\
        ```rust\n#![no_std]\nextern crate std;\nstd::println!(\"not wrapped\");\n```\n\n\
        ```rust,compile_fail\n#![no_std]\npub fn g() {}\n```\n\n\
        ```rust\n#![cfg_attr(any(), no_std)]\nlet wrapped = 1;\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, Some("2021"));
    output.code(1);
    expect![[r#"{3: "failed", 12: "passed", 18: "failed", 24: "passed", 29: "passed"}"#]]
        .assert_eq(&format!("{ours:?}"));
    output.stdout_contains("E0601");
}

/// `compile_fail` on a `#![no_std]` `#![no_main]` block with a `#[panic_handler]` (found on a
/// public book): rustdoc's build fails ("unwinding panics are not supported without std", an
/// error with no place in the code), so `compile_fail` holds; here that error was not counted as
/// the block's, and the block failed the whole book.
#[test]
fn compile_fail_holds_on_an_error_with_no_place_as_in_rustdoc() {
    let chapter = "# no_main\n\n\
        ```rust,compile_fail\n#![no_std]\n#![no_main]\n\nuse core::panic::PanicInfo;\n\n\
        #[panic_handler]\nfn panic(_info: &PanicInfo) -> ! {\n    loop {}\n}\n```\n\n\
        ```rust\nlet neighbour = 1;\nassert_eq!(neighbour, 1);\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, Some("2021"));
    output.code(0);
    expect![[r#"{3: "passed", 15: "passed"}"#]].assert_eq(&format!("{ours:?}"));
}
