//! What a snippet's program sees, as under `rustdoc --test` (`mdbook test`): its arguments
//! (none), the compile-time environment (nothing cargo sets: `env!("CARGO_PKG_VERSION")` does
//! not compile), its crate's name where it prints it (`rust_out`), and the toolchain (the one
//! outside the book: a `rust-toolchain.toml` in it is not read, as mdBook runs rustdoc in a
//! temporary directory).

use expect_test::expect;

use super::rustdoc::{rustdoc_verdicts, same_verdicts_as_rustdoc};
use crate::support::{book, junit};

/// A command-line program parses `std::env::args()`: under rustdoc it has none (found on a
/// public book: a clap example failed with "unexpected argument 'src_cli_arguments_md_4'"
/// because the merged binary picked its snippet by `argv[1]`).
#[test]
fn a_snippet_gets_no_arguments_as_under_rustdoc() {
    let chapter = "# Arguments\n\n\
        ```rust\nlet args: Vec<String> = std::env::args().skip(1).collect();\n\
        assert!(args.is_empty(), \"arguments: {args:?}\");\n```\n\n\
        ```rust\nfn main() {\n    assert_eq!(std::env::args_os().count(), 1);\n}\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, Some("2021"));
    output.code(0);
    expect![[r#"{3: "passed", 8: "passed"}"#]].assert_eq(&format!("{ours:?}"));
}

/// rustdoc compiles a doctest in its own environment, where cargo sets nothing: `env!` of a
/// cargo variable does not compile and `option_env!` gives `None` (a public book's
/// `env!("CARGO_PKG_VERSION")` block fails under `mdbook test`; here it passed, cargo having
/// set the variable for the generated crate).
#[test]
fn cargo_compile_time_variables_are_not_set_as_under_rustdoc() {
    let chapter = "# Environment\n\n\
        ```rust,compile_fail\nlet version: &str = env!(\"CARGO_PKG_VERSION\");\n```\n\n\
        ```rust,compile_fail\nlet dir: &str = env!(\"CARGO_MANIFEST_DIR\");\n```\n\n\
        ```rust\nassert_eq!(option_env!(\"CARGO_PKG_NAME\"), None);\n\
        assert_eq!(option_env!(\"CARGO_CRATE_NAME\"), None);\n```\n\n\
        ```rust\nlet path: &str = env!(\"PATH\");\nassert!(!path.is_empty());\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, Some("2021"));
    output.code(0);
    expect![[r#"{3: "passed", 7: "passed", 11: "passed", 16: "passed"}"#]]
        .assert_eq(&format!("{ours:?}"));
}

/// What a snippet prints of its own crate (`module_path!()`, a type's name, a `log` or
/// `tracing` line's target) names `rust_out`, rustdoc's crate, never the generated crate and
/// module (`snippets_c945be3676_e2018::src_ch_md_5`, found on a public book's `log` lines).
#[test]
fn a_snippet_printing_its_crate_sees_rust_out() {
    let chapter = "# Names\n\n\
        ```rust\nmod shapes { pub struct Point; }\nprintln!(\"{}\", module_path!());\n\
        println!(\"{}\", std::any::type_name::<shapes::Point>());\n```\n\n\
        ```text,output\nrust_out\nrust_out::main::shapes::Point\n```\n\n\
        ```rust\n#![allow(unused)]\nstruct Alone;\nfn main() {\n    \
        println!(\"{}\", std::any::type_name::<Alone>());\n}\n```\n\n\
        ```text,output\nrust_out::Alone\n```\n";
    let (output, ours) = same_verdicts_as_rustdoc(chapter, Some("2021"));
    output.code(0);
    expect![[r#"{3: "passed", 14: "passed"}"#]].assert_eq(&format!("{ours:?}"));
}

/// A book under a `rust-toolchain.toml`: `mdbook test` runs rustdoc in a temporary directory,
/// so rustup never reads the file, and the verifier does not either (here it names a toolchain
/// that does not exist: reading it would fail the run). The run's first line says which
/// toolchain compiles and that the file is not read.
#[test]
fn a_rust_toolchain_file_in_the_book_is_not_read_as_under_mdbook_test() {
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[rust]\nedition = \"2021\"\n",
        ),
        ("src/SUMMARY.md", "- [C](c.md)\n"),
        (
            "src/c.md",
            "# C\n\n```rust\nlet fine = 1;\nassert_eq!(fine, 1);\n```\n",
        ),
        (
            "rust-toolchain.toml",
            "[toolchain]\npath = \"/nonexistent/mdbook-snippets-test-toolchain\"\n",
        ),
    ]);
    let output = book.test(&["--junit", "report.xml"]);
    output.code(0);
    let first = output
        .stderr()
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(
        first.starts_with("compiling with rustc 1.") && first.contains(" from /"),
        "{output}"
    );
    assert!(
        first.ends_with("rust-toolchain.toml is not read, as `mdbook test` does not read it"),
        "{output}"
    );
    // rustdoc as mdBook runs it: from a temporary directory.
    let outside = book_copy_outside(&book);
    let theirs = rustdoc_verdicts(&outside, "src/c.md", Some("2021"), &[]);
    let ours = junit::verdicts_by_line(&junit::read(&book, "report.xml"));
    assert_eq!(ours, theirs, "{output}");
}

/// The chapter of `book` in a directory under no `rust-toolchain.toml`.
fn book_copy_outside(inside: &crate::support::Book) -> crate::support::Book {
    let chapter = std::fs::read_to_string(inside.path().join("src/c.md")).expect("the chapter");
    book(&[("src/c.md", &chapter)])
}
