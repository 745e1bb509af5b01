//! Books with many broken blocks, against `rustdoc --test`: however many blocks are broken, and
//! whatever breaks them (unclosed delimiters, which stop rustc at the first; type errors; a
//! symbol two blocks define, by hand or through a macro), every block gets rustdoc's verdict,
//! errors name the book's lines and never a generated path, and a second run takes every
//! verdict from the cache.

use std::process::Command;

use expect_test::expect;

use super::rustdoc::rustdoc_verdicts;
use crate::support::{book, junit};

/// A chapter of `valid` blocks that pass and `broken` ones that do not build, interleaved.
fn chapter(nonce: &str) -> String {
    let mut chapter = format!("# Broken\n\n<!-- {nonce} -->\n\n");
    for index in 0..12 {
        let block = match index % 3 {
            0 => format!("let kept_{index} = {index};\nassert_eq!(kept_{index}, {index});"),
            1 => format!("fn f() {{\n    let x = (1, {index};\n}}"),
            _ => format!("let wrong_{index}: u32 = \"{index}\";"),
        };
        chapter.push_str(&format!("```rust\n{block}\n```\n\n"));
    }
    chapter
}

#[test]
fn many_broken_blocks_fail_alone_and_their_verdicts_are_cached() {
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[rust]\nedition = \"2021\"\n",
        ),
        ("src/SUMMARY.md", "- [C](c.md)\n"),
        ("src/c.md", &chapter(&nonce)),
    ]);
    let output = book.test(&["--quiet", "--junit", "report.xml"]);
    let ours = junit::verdicts_by_line(&junit::read(&book, "report.xml"));
    assert_eq!(
        ours,
        rustdoc_verdicts(&book, "src/c.md", Some("2021"), &[]),
        "{output}"
    );
    output.code(1);
    let passed = ours
        .values()
        .filter(|verdict| **verdict == "passed")
        .count();
    assert_eq!((passed, ours.len()), (4, 12), "{output}");
    assert!(!output.stdout().contains("e2021/src"), "{output}");
    assert!(
        !output.stdout().contains("the binary holding this snippet"),
        "{output}"
    );

    // Every verdict, the failures too, is in the cache: the next run builds nothing.
    let started = std::time::Instant::now();
    let again = book.test(&["--quiet"]);
    assert!(
        !again.stderr.contains("building"),
        "cargo ran again\n{again}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(again.stdout(), output.stdout());
}

/// Blocks that define the same `#[unsafe(no_mangle)]` symbol through a dependency's macro
/// (placement cannot see it in their text): each passes alone, as in rustdoc, and so do the
/// blocks merged beside them.
#[test]
fn blocks_defining_the_same_symbol_through_a_macro_are_built_apart() {
    let exporting =
        "helper::export!(shared_symbol);\nfn main() { assert_eq!(shared_symbol(), 7); }";
    let plain = "let plain = 1;\nassert_eq!(plain, 1);";
    let mut chapter = "# Symbols\n\n".to_owned();
    for block in [exporting, plain, exporting, plain, exporting] {
        chapter.push_str(&format!("```rust\n{block}\n```\n\n"));
    }
    let helper = "#[macro_export]\nmacro_rules! export {\n    ($name:ident) => {\n        \
        #[unsafe(no_mangle)]\n        pub extern \"C\" fn $name() -> u32 { 7 }\n    };\n}\n";
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[rust]\nedition = \"2024\"\n\
             [preprocessor.snippets.dependencies]\nhelper = { path = \"helper\" }\n",
        ),
        (
            "helper/Cargo.toml",
            "[package]\nname = \"helper\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
        ),
        ("helper/src/lib.rs", helper),
        ("src/SUMMARY.md", "- [C](c.md)\n"),
        ("src/c.md", &chapter),
    ]);
    let output = book.test(&["--quiet", "--junit", "report.xml"]);
    let ours = junit::verdicts_by_line(&junit::read(&book, "report.xml"));
    let built = Command::new("rustc")
        .args([
            "--crate-type",
            "lib",
            "--edition",
            "2024",
            "--crate-name",
            "helper",
        ])
        .args(["helper/src/lib.rs", "--out-dir", "helper-lib"])
        .current_dir(book.path())
        .status()
        .expect("running rustc");
    assert!(built.success());
    let rustdoc = rustdoc_verdicts(
        &book,
        "src/c.md",
        Some("2024"),
        &["--extern", "helper=helper-lib/libhelper.rlib"],
    );
    assert_eq!(ours, rustdoc, "{output}");
    output.code(0);
    expect![[r#"{3: "passed", 8: "passed", 13: "passed", 18: "passed", 23: "passed"}"#]]
        .assert_eq(&format!("{ours:?}"));
}
