//! Snippet semantics as rustdoc has them (attributes, editions, hidden lines), Markdown in all
//! its forms (lists, block quotes, CRLF, BOM, nested fences), and snippets that misbehave: each
//! gets a clear report at its Markdown line and the other snippets still run.

use std::path::PathBuf;

use expect_test::expect;

use crate::support::{Output, book, files_under, fixture};

/// The report from the first failure on (the excerpts and messages), without the run time.
fn report(output: &Output) -> String {
    output.stdout()
}

#[test]
fn attributes_editions_and_hidden_lines() {
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[rust]\nedition = \"2024\"\n",
        ),
        (
            "src/a.md",
            r#"# Attributes

```rust,compile_fail,E0425
let n = missing;
```

```rust,compile_fail,E0425
let n: u32 = "wrong type, E0308";
```

```rust,should_panic
println!("does not panic");
```

```rust,should_panic
# fn check(n: u32) { assert!(n > 1, "too small"); }
check(1);
```

`gen` is a keyword from 2024 on (the book's edition); a snippet may ask for an older one.

```rust,compile_fail
let gen = 1;
```

```rust,edition2021
let gen = 1;
##[derive(Debug)]
struct Shown;
#[derive(Clone)]
struct AlsoShown;
#
# let hidden = Shown;
println!("{:?} {gen}", hidden);
```

```text,output
Shown 1
```

```rust,no_run
std::process::exit(7);
```

```rust,ignore
not even Rust
```
"#,
        ),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        error: snippet src_a_md_2 compile_fail mismatch
          --> src/a.md:8:14
           |
         6 |
         7 | ```rust,compile_fail,E0425
         8 | let n: u32 = "wrong type, E0308";
           |              ^^^^^^^^^^^^^^^^^^^ expected error ["E0425"], but rustc said:
         9 | ```
        10 |
           |
          error[E0308]: mismatched types
           --> src/a.md:8:14
            |
          8 | let n: u32 = "wrong type, E0308";
            |        ---   ^^^^^^^^^^^^^^^^^^^ expected `u32`, found `&str`
            |        |
            |        expected due to this

        error: snippet src_a_md_3 failed at run time
          --> src/a.md:11:1
           |
         9 | ```
        10 |
        11 | ```rust,should_panic
           | ^^^^^^^^^^^^^^^^^^^^ exited successfully, but the snippet is marked `should_panic`
        12 | println!("does not panic");
        13 | ```
           |

        failures:
            src/a.md:7 (compile_fail mismatch, src_a_md_2, error at line 8)
            src/a.md:11 (failed at run time, src_a_md_3)

        finished in [TIME]
        5 passed, 2 failed, 1 skipped
    "#]]
    .assert_eq(&report(&output));
}

#[test]
fn misbehaving_snippets_are_reported_and_the_others_run() {
    let book = book(&[
        ("book.toml", "[preprocessor.snippets]\ntimeout = 2\n"),
        (
            "src/bad.md",
            r#"```rust
println!("first");
```

```rust
std::process::abort();
```

```rust
eprintln!("leaving with 3");
std::process::exit(3);
```

```rust
let items: Vec<u32> = Vec::new();
let first = items.first().expect("an empty list");
```

```rust
let mut line = String::new();
std::io::stdin().read_line(&mut line).unwrap();
std::thread::sleep(std::time::Duration::from_secs(60));
```

```rust
println!("last");
```
"#,
        ),
    ]);
    let first = book.test(&["--quiet"]);
    first.code(1);
    expect![[r#"
        error: snippet src_bad_md_2 failed at run time
         --> src/bad.md:5:1
          |
        3 | ```
        4 |
        5 | ```rust
          | ^^^^^^^ killed by signal 6
        6 | std::process::abort();
        7 | ```
          |

        error: snippet src_bad_md_3 failed at run time
          --> src/bad.md:9:1
           |
         7 | ```
         8 |
         9 | ```rust
           | ^^^^^^^ exited with code 3
        10 | eprintln!("leaving with 3");
        11 | std::process::exit(3);
           |
          stderr:
          leaving with 3

        error: snippet src_bad_md_4 failed at run time
          --> src/bad.md:16:27
           |
        14 | ```rust
        15 | let items: Vec<u32> = Vec::new();
        16 | let first = items.first().expect("an empty list");
           |                           ^^^^^^^^^^^^^^^^^^^^^^^^ panicked: an empty list
        17 | ```
        18 |
           |
          stderr:
          thread 'main' panicked at src/bad.md:16:27:
          an empty list
          note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace (here: `backtrace = true` in [preprocessor.snippets])

        error: snippet src_bad_md_5 timed out
          --> src/bad.md:19:1
           |
        17 | ```
        18 |
        19 | ```rust
           | ^^^^^^^ timed out after 2 s; the process group was killed
        20 | let mut line = String::new();
        21 | std::io::stdin().read_line(&mut line).unwrap();
           |

        failures:
            src/bad.md:5 (failed at run time, src_bad_md_2)
            src/bad.md:9 (failed at run time, src_bad_md_3)
            src/bad.md:14 (failed at run time, src_bad_md_4, error at line 16)
            src/bad.md:19 (timed out, src_bad_md_5)

        finished in [TIME]
        2 passed, 4 failed
    "#]]
    .assert_eq(&report(&first));
    // Byte for byte the same on the next run (no thread id, no pid, no temp path).
    let second = book.test(&["--quiet", "--no-cache"]);
    assert_eq!(first.stdout(), second.stdout(), "{second}");
}

#[test]
fn lists_block_quotes_crlf_and_bom() {
    let book = book(&[]);
    let chapter = "\u{feff}# Containers\r\n\r\n> ```rust\r\n> let quoted = 1;\r\n> println!(\"{quoted}\");\r\n> ```\r\n> ```text,output\r\n> 1\r\n> ```\r\n\r\n1. A step:\r\n\r\n   ~~~~rust\r\n   let listed: u8 = 300;\r\n   ~~~~\r\n";
    book.write("src/a.md", chapter);
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        error: snippet src_a_md_2 does not compile
          --> src/a.md:14:21
           |
        12 |
        13 |    ~~~~rust
        14 |    let listed: u8 = 300;
           |                     ^^^ error: literal out of range for `u8`
        15 |    ~~~~
           |
            --> src/a.md:14:21
             |
          14 | let listed: u8 = 300;
             |                  ^^^
             |
             = note: the literal `300` does not fit into the type `u8` whose range is `0..=255`
             = note: `#[deny(overflowing_literals)]` on by default

        failures:
            src/a.md:13 (does not compile, src_a_md_2, error at line 14)

        finished in [TIME]
        1 passed, 1 failed
    "#]]
    .assert_eq(&report(&output));
}

#[test]
fn nested_fences_are_content_and_a_huge_snippet_is_fine() {
    let mut huge = String::from("```rust\n");
    for index in 0..3000 {
        huge.push_str(&format!("let _value_{index} = {index};\n"));
    }
    huge.push_str("let last: u8 = \"not a number\";\n```\n");
    let book = book(&[
        (
            "src/a.md",
            "`````markdown\n````rust\n```rust\ndoes not compile\n```\n````\n`````\n",
        ),
        ("src/b.md", &huge),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    output.stdout_contains("src/b.md:1 (does not compile, src_b_md_1, error at line 3002)");
    output.stdout_contains("0 passed, 1 failed\n");
}

#[test]
fn only_bless_modifies_the_sources() {
    let book = fixture("failing");
    let snapshot = || {
        // Every file but build output, with its bytes.
        let mut files: Vec<(PathBuf, Vec<u8>)> = files_under(book.path())
            .into_iter()
            .map(|path| path.strip_prefix(book.path()).unwrap().to_path_buf())
            .filter(|relative| {
                !relative
                    .components()
                    .any(|part| part.as_os_str() == "target")
            })
            .map(|relative| {
                let bytes = std::fs::read(book.path().join(&relative)).unwrap();
                (relative, bytes)
            })
            .collect();
        files.sort();
        files
    };
    let before = snapshot();
    book.test(&["--quiet"]).code(1);
    let junit = tempfile::NamedTempFile::new().unwrap();
    let junit = junit.path().to_str().unwrap();
    book.test(&["--quiet", "--format", "github", "--junit", junit])
        .code(1);
    assert_eq!(before, snapshot());
}
