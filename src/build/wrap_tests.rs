use expect_test::{Expect, expect};

use super::*;

/// The harness of this repository's book: every part of the protocol.
fn full_harness(lib: &str) -> HarnessParts<'_> {
    HarnessParts {
        lib,
        prelude: true,
        snippet_main: true,
        edition: Some("2024"),
    }
}

fn check_module(code: &str, harness: Option<&str>, expect: Expect) {
    check_file(code, harness.map(full_harness), Root::Module, expect);
}

fn check_file(code: &str, harness: Option<HarnessParts<'_>>, root: Root, expect: Expect) {
    let module = snippet_module(code, harness, root);
    // The code's first line is where the generator says it is.
    let first = code
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches("# ");
    let at_first_code_line = module.lines().nth(PREFIX_LINES).unwrap_or_default();
    // (In a crate root, a crate-level first line moves to line 1 and leaves a blank line.)
    let lifted = root == Root::Binary && at_first_code_line.is_empty();
    assert!(at_first_code_line == first || lifted, "{module}");
    expect.assert_eq(&module);
}

#[test]
fn plain_statements_get_rustdoc_main() {
    check_module(
        "let x = 1;\n# let hidden = x;\n##[derive(Debug)]\nstruct S;\n",
        None,
        expect![[r#"
            #![allow(unused, redundant_semicolons, unreachable_code)]
            // (no harness prelude)
            pub fn main() {
            let x = 1;
            let hidden = x;
            #[derive(Debug)]
            struct S;
            }
            #[allow(dead_code)]
            pub(crate) fn __mdbook_snippets_entry() -> impl ::std::process::Termination {
                main()
            }
        "#]],
    );
}

#[test]
fn question_mark_with_typed_ok_tail_without_harness() {
    check_module(
        "let n: u32 = \"4\".parse()?;\nOk::<(), std::num::ParseIntError>(())\n",
        None,
        expect![[r##"
            #![allow(unused, redundant_semicolons, unreachable_code)]
            // (no harness prelude)
            pub fn main() { fn _inner() -> ::std::result::Result<(), impl ::std::fmt::Debug> {
            let n: u32 = "4".parse()?;
            Ok::<(), std::num::ParseIntError>(())
            } _inner().unwrap() }
            #[allow(dead_code)]
            pub(crate) fn __mdbook_snippets_entry() -> impl ::std::process::Termination {
                main()
            }
        "##]],
    );
}

#[test]
fn own_main_is_kept() {
    check_module(
        "fn main() {\n    println!(\"hi\");\n}\n",
        Some("mcp_testserver"),
        expect![[r#"
            #![allow(unused, redundant_semicolons, unreachable_code)]
            #[allow(unused_imports)] use ::mcp_testserver::prelude::*;
            // (the snippet's own fn main)
            fn main() {
                println!("hi");
            }
            #[allow(dead_code)]
            pub(crate) fn __mdbook_snippets_entry() -> impl ::std::process::Termination {
                main()
            }
        "#]],
    );
}

#[test]
fn harness_body_without_tail_gets_ok() {
    check_module(
        "let server = TestServer::start();\nserver.idle().await\n",
        Some("mcp_testserver"),
        expect![[r#"
            #![allow(unused, redundant_semicolons, unreachable_code)]
            #[allow(unused_imports)] use ::mcp_testserver::prelude::*;
            pub fn main() { ::mcp_testserver::snippet_main(|| async move { let __mdbook_snippets_result: ::std::result::Result<(), ::std::boxed::Box<dyn ::std::error::Error + ::std::marker::Send + ::std::marker::Sync>> = {
            let server = TestServer::start();
            server.idle().await
            ;
            Ok(())
            }; __mdbook_snippets_result }) }
            #[allow(dead_code)]
            pub(crate) fn __mdbook_snippets_entry() -> impl ::std::process::Termination {
                main()
            }
        "#]],
    );
}

#[test]
fn harness_body_with_untyped_ok_tail() {
    let module = snippet_module(
        "let x = 1;\nOk(())\n",
        Some(full_harness("h")),
        Root::Module,
    );
    expect![[r#"
        let x = 1;
        Ok(())
        }; __mdbook_snippets_result }) }"#]]
    .assert_eq(
        &module
            .lines()
            .skip(PREFIX_LINES)
            .take(3)
            .collect::<Vec<_>>()
            .join("\n"),
    );
}

#[test]
fn crate_root_lines_are_lifted_in_a_binary_of_its_own() {
    check_file(
        "#![allow(dead_code)]\n#[macro_use] extern crate helper;\nuse crate::m::f;\nmod m { pub fn f() {} }\nf();\n",
        None,
        Root::Binary,
        expect![[r#"
            #![allow(unused, redundant_semicolons, unreachable_code)] #![allow(dead_code)] #[macro_use] extern crate helper;
            // (no harness prelude)
            pub fn main() {


            use crate::m::f;
            mod m { pub fn f() {} }
            f();
            }
        "#]],
    );
}

/// rustdoc inserts no `fn main` into a crate declaring `#![no_std]` (hidden or not), so neither
/// do we: the code stays as written, nothing lifted; `#![cfg_attr(.., no_std)]` is not that.
#[test]
fn a_no_std_crate_root_gets_no_fn_main() {
    check_file(
        "# #![no_std]\nextern crate std;\nstd::println!(\"x\");\n",
        None,
        Root::Binary,
        expect![[r#"
            #![allow(unused, redundant_semicolons, unreachable_code)]
            // (no harness prelude)
            // (#![no_std]: no fn main inserted, as rustdoc inserts none)
            #![no_std]
            extern crate std;
            std::println!("x");
        "#]],
    );
    check_file(
        "#![cfg_attr(any(), no_std)]\nlet x = 1;\n",
        None,
        Root::Binary,
        expect![[r#"
            #![allow(unused, redundant_semicolons, unreachable_code)] #![cfg_attr(any(), no_std)]
            // (no harness prelude)
            pub fn main() {

            let x = 1;
            }
        "#]],
    );
}

#[test]
fn test_harness_code_is_never_wrapped() {
    check_file(
        "#[test]\nfn it_works() { assert_eq!(2 + 2, 4); }\n",
        Some(full_harness("h")),
        Root::Test,
        expect![[r#"
            #![allow(unused, redundant_semicolons, unreachable_code)]
            #[allow(unused_imports)] use ::h::prelude::*;
            // (a test crate: the code as written)
            #[test]
            fn it_works() { assert_eq!(2 + 2, 4); }
        "#]],
    );
}

#[test]
fn a_harness_without_prelude_or_snippet_main_is_just_a_dependency() {
    let harness = HarnessParts {
        lib: "helper",
        prelude: false,
        snippet_main: false,
        edition: None,
    };
    check_file(
        "let x = helper::answer();\n",
        Some(harness),
        Root::Module,
        expect![[r#"
            #![allow(unused, redundant_semicolons, unreachable_code)]
            // (no harness prelude)
            pub fn main() {
            let x = helper::answer();
            }
            #[allow(dead_code)]
            pub(crate) fn __mdbook_snippets_entry() -> impl ::std::process::Termination {
                main()
            }
        "#]],
    );
}

#[test]
fn doc_comments_and_attributes_that_end_a_block_are_blanked_in_place() {
    let plain = |code: &str| {
        let mut lines: Vec<String> = code.lines().map(str::to_owned).collect();
        blank_trailing_attributes(&mut lines);
        lines.join("\n")
    };
    assert_eq!(
        plain("/// Inserts.\n///\n/// # Panics"),
        "//  Inserts.\n// \n//  # Panics"
    );
    assert_eq!(plain("/** doc */"), "/*  doc */");
    assert_eq!(
        plain("let s = \"/// no\"; /// x\n// y"),
        "let s = \"/// no\"; //  x\n// y"
    );
    // Any other outer attribute: spaces, over several lines too, the rest of each line kept.
    let attribute = "#[tracing::instrument(level = \"trace\")]";
    assert_eq!(plain(attribute), " ".repeat(attribute.len()));
    assert_eq!(
        plain("let z = 2; #[cfg_attr(\n    any(),\n    inline\n)] // c\n/// d"),
        "let z = 2;            \n          \n          \n   // c\n//  d"
    );
    assert_eq!(
        plain("fn main() {}\n#[inline] #[cold]"),
        format!("fn main() {{}}\n{}", " ".repeat("#[inline] #[cold]".len()))
    );
    // Documenting something, inside an item, inner, or not an attribute: as written.
    for code in [
        "/// x\nlet x = 1;",
        "#[inline]\nfn f() {}",
        "fn f() {\n#[inline]\n}",
        "#![allow(unused)]",
        "let s = \"#[inline]\";",
        "fn f() {\n/// x\n}",
        "//! inner",
        "//// four",
        "/**/",
    ] {
        assert_eq!(plain(code), code);
    }
}
