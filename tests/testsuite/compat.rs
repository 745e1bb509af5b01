//! Books written for rustdoc, verified as `mdbook test` would judge them: info-string words of
//! other tools, `test_harness`, snippets that only work at a crate's root, paths in `book.toml`
//! given every way (`..`, absolute, through a symlink), and crates from
//! `[preprocessor.snippets.dependencies]` or a harness that is just a crate.

use std::collections::BTreeMap;
use std::process::Command;

use expect_test::expect;

use crate::support::{Book, Output, book};

/// Runs `mdbook-snippets test --quiet` on the book at `relative` inside `book`'s directory.
fn test_at(book: &Book, relative: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"));
    command
        .arg("test")
        .arg(book.path().join(relative))
        .arg("--quiet");
    book.run(command)
}

/// The warnings and errors on stderr (nothing else: no progress line, and no warning of
/// cargo's about the generated crate, which the author cannot act on).
fn warnings(output: &Output) -> String {
    output
        .stderr()
        .lines()
        .filter(|line| line.contains("warning") || line.contains("error"))
        .map(|line| format!("{line}\n"))
        .collect()
}

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
    output.stdout_contains("failures:\n    src/a.md:13 (failed at run time, src_a_md_2)\n    src/a.md:17 (failed at run time, src_a_md_3)\n");
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

fn tail_from(text: &str, start: &str) -> String {
    text[text.find(start).unwrap_or(0)..].to_owned()
}

#[test]
fn test_harness_runs_the_tests_and_names_the_failing_one() {
    let book = book(&[(
        "src/a.md",
        r#"# Tests

```rust,test_harness
#[test]
fn adds() { assert_eq!(1 + 1, 2); }
```

```rust,test_harness
#[test]
fn adds() { assert_eq!(1 + 1, 2); }

#[test]
fn subtracts() {
    assert_eq!(3 - 1, 1, "subtraction is broken");
}
```

```rust,test_harness,no_run
#[test]
fn never_runs() { panic!("no_run"); }
```
"#,
    )]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        error: snippet src_a_md_2 failed at run time
          --> src/a.md:14:5
           |
        12 | #[test]
        13 | fn subtracts() {
        14 |     assert_eq!(3 - 1, 1, "subtraction is broken");
           |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ panicked: assertion `left == right` failed: subtraction is broken
        15 | }
        16 | ```
           |
          stderr:
          thread 'subtracts' panicked at src/a.md:14:5:
          assertion `left == right` failed: subtraction is broken
            left: 2
           right: 1
          note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace

        failures:
            src/a.md:14 (failed at run time, src_a_md_2)

        finished in [TIME]
        2 passed, 1 failed
    "#]]
    .assert_eq(&output.stdout());
}

#[test]
fn crate_root_snippets_build_as_rustdoc_builds_them() {
    let book = book(&[(
        "src/a.md",
        r#"# Crate roots

```rust
use crate::List::*;

enum List { Cons(u32, Box<List>), Nil }

fn main() {
    let list = Cons(1, Box::new(Nil));
    if let Cons(head, _) = list { println!("head {head}"); }
}
```

```text,output
head 1
```

```rust
mod outer {
    pub mod inner {
        pub(in crate::outer) fn hidden() -> u32 { 7 }
        pub fn shown() -> u32 { hidden() }
    }
}
fn main() { println!("{}", crate::outer::inner::shown()); }
```

```rust
#![allow(dead_code)]
#[macro_export]
macro_rules! twice { ($e:expr) => { $crate::double($e) } }
pub fn double(n: u32) -> u32 { n * 2 }
fn unused() {}
fn main() { println!("{}", crate::twice!(21)); }
```

```text,output
42
```

```rust
#![allow(unused)]
let v: Vec<u32> = Vec::new();
println!("{}", v.len());
```

```rust
use crate::missing::Thing;
fn main() {}
```

```rust
fn main() { println!("merged, beside the others"); }
```
"#,
    )]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        error: snippet src_a_md_5 does not compile
          --> src/a.md:48:12
           |
        46 |
        47 | ```rust
        48 | use crate::missing::Thing;
           |            ^^^^^^^^^^^^^^^ error[E0432]: unresolved import `crate::missing`
        49 | fn main() {}
        50 | ```
           |
            --> src/a.md:48:12
             |
          48 | use crate::missing::Thing;
             |            ^^^^^^^ use of unresolved module or unlinked crate `missing`
             |
          help: if you wanted to use a crate named `missing`, use `cargo add missing` to add it to your `Cargo.toml` and import it in your code
             |
          4 + extern crate missing;
             |

        failures:
            src/a.md:48 (does not compile, src_a_md_5)

        finished in [TIME]
        5 passed, 1 failed
    "#]]
    .assert_eq(&output.stdout());
}

/// A type error in a book whose harness is reached through `..`, an absolute path and a
/// symlink: the same report each time, at the Markdown line.
#[test]
fn paths_in_book_toml_are_attributed_the_same_every_way() {
    let book = book(&[
        (
            "helper/Cargo.toml",
            "[package]\nname = \"helper\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("helper/src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n"),
        (
            "book/src/a.md",
            "# A\n\n```rust\nlet n: u32 = helper::answer();\nlet s: String = n;\n```\n",
        ),
    ]);
    let helper = book.path().join("helper");
    std::os::unix::fs::symlink(&helper, book.path().join("book/linked")).unwrap();
    let mut reports = Vec::new();
    for harness in [
        "../helper".to_owned(),
        helper.display().to_string(),
        "linked".to_owned(),
    ] {
        book.write(
            "book/book.toml",
            &format!("[book]\ntitle = \"t\"\n[preprocessor.snippets]\nharness = {harness:?}\n"),
        );
        let output = test_at(&book, "book");
        output.code(1);
        reports.push(output.stdout());
    }
    assert_eq!(reports[0], reports[1]);
    assert_eq!(reports[0], reports[2]);
    expect![[r#"
        error: snippet src_a_md_1 does not compile
         --> src/a.md:5:17
          |
        3 | ```rust
        4 | let n: u32 = helper::answer();
        5 | let s: String = n;
          |                 ^^ error[E0308]: mismatched types
        6 | ```
          |
           --> src/a.md:5:17
            |
          5 | let s: String = n;
            |        ------   ^ expected `String`, found `u32`
            |        |
            |        expected due to this
            |
          help: try using a conversion method
            |
          5 | let s: String = n.to_string();
            |                  ++++++++++++

        failures:
            src/a.md:5 (does not compile, src_a_md_1)

        finished in [TIME]
        0 passed, 1 failed
    "#]]
    .assert_eq(&reports[0]);
}

#[test]
fn dependencies_and_a_harness_that_is_just_a_crate() {
    let book = book(&[
        (
            "book.toml",
            r#"[book]
title = "t"
[rust]
edition = "2021"
[preprocessor.snippets]
harness = "packages/plain"
[preprocessor.snippets.dependencies]
tokio = { version = "1", features = ["full"] }
serde_json = "1"
helper = { path = "packages/helper" }
"#,
        ),
        (
            "packages/helper/Cargo.toml",
            "[package]\nname = \"helper\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "packages/helper/src/lib.rs",
            "pub fn greeting() -> &'static str {\n    \"hello from helper\"\n}\n",
        ),
        (
            "packages/plain/Cargo.toml",
            "[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("packages/plain/src/lib.rs", "pub const PLAIN: u32 = 7;\n"),
        (
            "src/a.md",
            r#"# Crates

```rust
#[tokio::main]
async fn main() {
    let value = serde_json::json!({ "n": plain::PLAIN });
    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    println!("{value}");
}
```

```text,output
{"n":7}
```

```rust
extern crate helper;
println!("{}", helper::greeting());
```

```text,output
hello from helper
```

```rust,edition2015
#[macro_use]
extern crate serde_json;
fn main() { println!("{}", json!([1, 2])); }
```

```text,output
[1,2]
```
"#,
        ),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(0);
    output.stdout_contains("3 passed, 0 failed\n");
}

#[test]
fn a_dependency_that_does_not_build_is_named_before_any_snippet_runs() {
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[preprocessor.snippets.dependencies]\nhelper = { path = \"helper\" }\n",
        ),
        (
            "helper/Cargo.toml",
            "[package]\nname = \"helper\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("helper/src/lib.rs", "pub fn broken() -> u32 { \"no\" }\n"),
        ("src/a.md", "```rust\nprintln!(\"never runs\");\n```\n"),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(2);
    output.stderr_contains("the dependency `helper` of the snippets does not build");
    output.stderr_contains("expected `u32`, found `&str`");
    assert!(!output.stdout.contains("never runs"), "{output}");

    book.write(
        "book.toml",
        "[book]\ntitle = \"t\"\n[preprocessor.snippets.dependencies]\nhelper = { path = \"nowhere\" }\n",
    );
    book.test(&[])
        .code(2)
        .stderr_contains("`dependencies.helper.path`: ")
        .stderr_contains("/nowhere does not exist");
}

/// rustc reports errors phase by phase: with one snippet broken in each phase, every broken
/// one is reported at its line, and the good one beside them in the same binary still passes.
#[test]
fn errors_of_later_compiler_phases_fail_only_their_snippets() {
    let book = book(&[(
        "src/a.md",
        r#"# Phases

```rust
let n = not_defined;
```

```rust
let s: String = 5;
```

```rust
let v = vec![1];
let first = &v[0];
drop(v);
println!("{first}");
```

```rust
fn main() {
    let t = std::rc::Rc::new(1);
    std::thread::spawn(move || println!("{t}"));
}
```

```rust
println!("fine");
```

```text,output
fine
```
"#,
    )]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        failures:
            src/a.md:4 (does not compile, src_a_md_1)
            src/a.md:8 (does not compile, src_a_md_2)
            src/a.md:14 (does not compile, src_a_md_3)
            src/a.md:21 (does not compile, src_a_md_4)

        finished in [TIME]
        1 passed, 4 failed
    "#]]
    .assert_eq(&tail_from(&output.stdout(), "failures:"));
}

/// A library only the reader has: a `no_run` snippet is not linked (as rustdoc stops at
/// metadata), one that must run fails alone, and the snippets beside them are unaffected.
#[test]
fn foreign_libraries_fail_only_their_own_snippet() {
    let book = book(&[(
        "src/a.md",
        r#"# FFI

```rust,no_run
#[link(name = "reader_only_library")]
unsafe extern "C" {
    fn reader_only(n: i32) -> i32;
}
fn main() { println!("{}", unsafe { reader_only(1) }); }
```

```rust
#[link(name = "reader_only_library")]
unsafe extern "C" {
    fn reader_only(n: i32) -> i32;
}
fn main() { println!("{}", unsafe { reader_only(1) }); }
```

```rust
println!("beside them");
```
"#,
    )]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    output.stdout_contains("unable to find library -lreader_only_library");
    expect![[r#"
        failures:
            src/a.md:11 (does not compile, src_a_md_2)

        finished in [TIME]
        2 passed, 1 failed
    "#]]
    .assert_eq(&tail_from(&output.stdout(), "failures:"));
}

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
/// `test FILE - TITLE (line N) ... ok` lines.
fn rustdoc_verdicts(
    book: &Book,
    chapter: &str,
    edition: Option<&str>,
) -> BTreeMap<usize, &'static str> {
    let mut command = Command::new("rustdoc");
    command.args(["--test", chapter]);
    if let Some(edition) = edition {
        command.args(["--edition", edition]);
    }
    let output = command
        .current_dir(book.path())
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

/// The same map from our JUnit report (test cases are named `PATH:LINE`).
fn our_verdicts(junit: &str) -> BTreeMap<usize, &'static str> {
    junit
        .split("<testcase ")
        .skip(1)
        .map(|case| {
            let name = case.split('"').nth(1).expect("a name");
            let line = name.rsplit(':').next().unwrap().parse().unwrap();
            let body = case.split("</testcase>").next().unwrap();
            let verdict = if body.contains("<failure") {
                "failed"
            } else if body.contains("<skipped") {
                "skipped"
            } else {
                "passed"
            };
            (line, verdict)
        })
        .collect()
}

/// Verifies `chapter` as a book's one chapter, `src/c.md` (with `[rust] edition` when given),
/// requires rustdoc's verdict on every block, and returns our report and the verdicts.
fn same_verdicts_as_rustdoc(
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
    let junit = std::fs::read_to_string(book.path().join("report.xml")).unwrap();
    let ours = our_verdicts(&junit);
    assert_eq!(
        ours,
        rustdoc_verdicts(&book, "src/c.md", edition),
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
    output.stdout_contains("src/c.md:13 (does not compile, src_c_md_3)");
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
    output.stdout_contains("src/c.md:5 (does not compile, src_c_md_1)");
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
            src/a.md:8 (cannot include, src_a_md_2)

        finished in [TIME]
        2 passed, 1 failed
    "#]]
    .assert_eq(&tail_from(&output.stdout(), "failures:"));
    // The playground's snippet ran, at the directive's line (5); part.md's at its line 1.
    let junit = book.test(&["--quiet", "--junit", "report.xml"]);
    junit.code(1);
    let report = std::fs::read_to_string(book.path().join("report.xml")).unwrap();
    assert_eq!(
        format!("{:?}", our_verdicts(&report)),
        r#"{1: "passed", 5: "passed", 7: "failed"}"#
    );
}
