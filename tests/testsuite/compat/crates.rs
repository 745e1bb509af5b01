//! Snippets built as rustdoc builds them: `test_harness`, code that only works at a crate's
//! root, paths in `book.toml` given every way (`..`, absolute, through a symlink), crates from
//! `[preprocessor.snippets.dependencies]` or a harness that is just a crate, and compile errors
//! of every compiler phase or a missing library failing only their own snippets.

use std::process::Command;

use expect_test::expect;

use super::tail_from;
use crate::support::{Book, Output, book, check_bad_config};

/// Runs `mdbook-snippets test --quiet` on the book at `relative` inside `book`'s directory.
fn test_at(book: &Book, relative: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"));
    command
        .arg("test")
        .arg(book.path().join(relative))
        .arg("--quiet");
    book.run(command)
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
          note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace (here: `backtrace = true` in [preprocessor.snippets])

        failures:
            src/a.md:8 (failed at run time, src_a_md_2, error at line 14)

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
           |            ^^^^^^^ error[E0432]: unresolved import `crate::missing`
        49 | fn main() {}
        50 | ```
           |
            --> src/a.md:48:12
             |
          48 | use crate::missing::Thing;
             |            ^^^^^^^ use of unresolved module or unlinked crate `missing`
             |
          help: you might be missing a crate named `missing`, add it to your project and import it in your code
             |
          4 + extern crate missing;
             |

        failures:
            src/a.md:47 (does not compile, src_a_md_5, error at line 48)

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
          |                 ^ error[E0308]: mismatched types
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
            src/a.md:3 (does not compile, src_a_md_1, error at line 5)

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

    check_bad_config(
        "[book]\ntitle = \"t\"\n[preprocessor.snippets.dependencies]\nhelper = { path = \"nowhere\" }\n",
        expect![[r#"
            error: in [ROOT]/book.toml: `dependencies.helper.path`: [ROOT]/nowhere does not exist (set in [preprocessor.snippets] of book.toml; relative paths start at the book root)
        "#]],
    );
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
            src/a.md:3 (does not compile, src_a_md_1, error at line 4)
            src/a.md:7 (does not compile, src_a_md_2, error at line 8)
            src/a.md:11 (does not compile, src_a_md_3, error at line 14)
            src/a.md:18 (does not compile, src_a_md_4, error at line 21)

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
