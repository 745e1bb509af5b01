use std::path::PathBuf;

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
fn crate_layout() {
    let snippets = [
        ("a_1", "2021", Placement::Merged),
        ("a_2", "2024", Placement::Merged),
        ("a_3", "2021", Placement::Merged),
        ("a_4", "2021", Placement::CompileFail),
        ("a_5", "2021", Placement::OwnBinary),
        ("a_6", "2024", Placement::TestHarness),
    ]
    .map(|(id, edition, placement)| PlannedSnippet {
        id: id.to_owned(),
        code: "fn main() {}\n".to_owned(),
        edition: edition.to_owned(),
        placement,
        no_run: false,
    });
    let settings = CrateSettings {
        package_name: "snippets-book".to_owned(),
        harness: Some(HarnessDependency {
            package_name: "mcp-testserver".to_owned(),
            lib_name: "mcp_testserver".to_owned(),
            path: PathBuf::from("/work/snippets"),
            prelude: true,
            snippet_main: true,
            edition: Some("2024".to_owned()),
        }),
        dependencies: [
            ("serde_json".to_owned(), toml::Value::String("1".to_owned())),
            (
                "helper".to_owned(),
                toml::Value::Table(toml::toml! { path = "/book/helper" }),
            ),
        ]
        .into_iter()
        .collect(),
        merged_binaries: 1,
        profiles: "[profile.dev]\ndebug = \"line-tables-only\"\n".to_owned(),
    };
    let generated = generate(&snippets, &settings);
    let mut out = String::new();
    for (module, snippet) in generated.modules.iter().zip(&snippets) {
        writeln!(
            out,
            "{} in {} {:?} at {}:{FIRST_CODE_LINE}",
            module.id,
            module.target,
            module.args,
            module_file(snippet).display(),
        )
        .unwrap();
    }
    let mut paths = Vec::new();
    for (path, content) in &generated.files {
        paths.push(path.display().to_string());
        if path.ends_with("main.rs") || path.ends_with("Cargo.toml") {
            writeln!(out, "== {}\n{content}", path.display()).unwrap();
        }
    }
    writeln!(out, "== files: {}", paths.join(" ")).unwrap();
    expect![[r#"
        a_1 in snippets-book-e2021 ["a_1"] at e2021/src/a_1.rs:4
        a_2 in snippets-book-e2024 ["a_2"] at e2024/src/a_2.rs:4
        a_3 in snippets-book-e2021 ["a_3"] at e2021/src/a_3.rs:4
        a_4 in cf-a_4 [] at e2021/src/compile_fail/a_4.rs:4
        a_5 in own-a_5 [] at e2021/src/own/a_5.rs:4
        a_6 in th-a_6 ["--test-threads=1", "--nocapture"] at e2024/src/test_harness/a_6.rs:4
        == Cargo.toml
        # Generated by mdbook-snippets; rewritten on every run.
        [workspace]
        resolver = "2"
        members = ["e2021", "e2024"]

        [profile.dev]
        debug = "line-tables-only"

        [profile.dev.package."snippets-book-e2021"]
        debug = 0

        [profile.dev.package."snippets-book-e2024"]
        debug = 0

        == e2021/src/main.rs
        // Generated by mdbook-snippets: runs the snippet named by argv[1].
        mod a_1;
        mod a_3;

        fn main() -> ::std::process::ExitCode {
            let id = ::std::env::args().nth(1).unwrap_or_default();
            match id.as_str() {
                "a_1" => ::std::process::Termination::report(a_1::__mdbook_snippets_entry()),
                "a_3" => ::std::process::Termination::report(a_3::__mdbook_snippets_entry()),
                _ => {
                    eprintln!("no snippet named {id:?}");
                    ::std::process::ExitCode::from(2)
                }
            }
        }

        == e2021/Cargo.toml
        # Generated by mdbook-snippets; rewritten on every run.
        [package]
        name = "snippets-book-e2021"
        version = "0.0.0"
        edition = "2021"
        publish = false
        autobins = false
        autotests = false
        autoexamples = false
        autobenches = false

        [[bin]]
        name = "cf-a_4"
        path = "src/compile_fail/a_4.rs"
        test = false
        bench = false
        doc = false

        [[bin]]
        name = "own-a_5"
        path = "src/own/a_5.rs"
        test = false
        bench = false
        doc = false

        [[bin]]
        name = "snippets-book-e2021"
        path = "src/main.rs"
        test = false
        bench = false
        doc = false

        [dependencies]
        mcp-testserver = { path = "/work/snippets" }
        helper = { path = "/book/helper" }
        serde_json = "1"

        == e2024/src/main.rs
        // Generated by mdbook-snippets: runs the snippet named by argv[1].
        mod a_2;

        fn main() -> ::std::process::ExitCode {
            let id = ::std::env::args().nth(1).unwrap_or_default();
            match id.as_str() {
                "a_2" => ::std::process::Termination::report(a_2::__mdbook_snippets_entry()),
                _ => {
                    eprintln!("no snippet named {id:?}");
                    ::std::process::ExitCode::from(2)
                }
            }
        }

        == e2024/Cargo.toml
        # Generated by mdbook-snippets; rewritten on every run.
        [package]
        name = "snippets-book-e2024"
        version = "0.0.0"
        edition = "2024"
        publish = false
        autobins = false
        autotests = false
        autoexamples = false
        autobenches = false

        [[test]]
        name = "th-a_6"
        path = "src/test_harness/a_6.rs"
        harness = true
        bench = false

        [[bin]]
        name = "snippets-book-e2024"
        path = "src/main.rs"
        test = false
        bench = false
        doc = false

        [dependencies]
        mcp-testserver = { path = "/work/snippets" }
        helper = { path = "/book/helper" }
        serde_json = "1"

        == files: Cargo.toml e2021/src/a_1.rs e2024/src/a_2.rs e2021/src/a_3.rs e2021/src/compile_fail/a_4.rs e2021/src/own/a_5.rs e2024/src/test_harness/a_6.rs e2021/src/main.rs e2021/Cargo.toml e2024/src/main.rs e2024/Cargo.toml
    "#]]
    .assert_eq(&out);
}

/// rustdoc's rules, line by line: what the compiler sees.
#[test]
fn hidden_lines_as_rustdoc() {
    let lines = [
        "# let hidden = 1;",
        "#",
        "    # indented_hidden();",
        "##[derive(Debug)]",
        "## not hidden",
        "#[derive(Clone)]",
        "#![allow(dead_code)]",
        "#hash_without_space",
        "let shown = 2;",
    ];
    let compiled: Vec<String> = lines.iter().map(|line| unhide(line)).collect();
    expect![[r#"
        let hidden = 1;

            indented_hidden();
        #[derive(Debug)]
        # not hidden
        #[derive(Clone)]
        #![allow(dead_code)]
        #hash_without_space
        let shown = 2;"#]]
    .assert_eq(&compiled.join("\n"));
}

#[test]
fn merged_snippets_spread_over_binaries() {
    let snippets = ["a_1", "a_2", "a_3"].map(|id| PlannedSnippet {
        id: id.to_owned(),
        code: "fn main() {}\n".to_owned(),
        edition: "2024".to_owned(),
        placement: Placement::Merged,
        no_run: false,
    });
    let settings = CrateSettings {
        package_name: "s".to_owned(),
        harness: None,
        dependencies: BTreeMap::new(),
        merged_binaries: 2,
        profiles: String::new(),
    };
    let generated = generate(&snippets, &settings);
    let targets: Vec<String> = generated
        .modules
        .iter()
        .map(|module| format!("{} in {}", module.id, module.target))
        .collect();
    let mains: Vec<String> = generated
        .files
        .iter()
        .filter(|(path, _)| path.to_string_lossy().contains("/main"))
        .map(|(path, content)| {
            format!(
                "{}: {}",
                path.display(),
                content
                    .lines()
                    .filter(|line| line.starts_with("mod "))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })
        .collect();
    expect![[r#"
        a_1 in s-e2024
        a_2 in s-e2024-1
        a_3 in s-e2024
        e2024/src/main.rs: mod a_1; mod a_3;
        e2024/src/main1.rs: mod a_2;"#]]
    .assert_eq(&[targets, mains].concat().join("\n"));
}

#[test]
fn a_crate_name_attribute_names_the_binary() {
    let snippet = PlannedSnippet {
        id: "a_1".to_owned(),
        code: "#![crate_type = \"lib\"]\n#![crate_name = \"rary\"]\npub fn f() {}\n".to_owned(),
        edition: "2021".to_owned(),
        placement: Placement::OwnBinary,
        no_run: false,
    };
    let settings = CrateSettings {
        package_name: "s".to_owned(),
        harness: None,
        dependencies: BTreeMap::new(),
        merged_binaries: 1,
        profiles: String::new(),
    };
    let generated = generate(
        &[
            snippet.clone(),
            PlannedSnippet {
                id: "a_2".to_owned(),
                ..snippet
            },
        ],
        &settings,
    );
    let targets: Vec<&str> = generated
        .modules
        .iter()
        .map(|module| module.target.as_str())
        .collect();
    assert_eq!(targets, ["rary", "own-a_2"]);
}

#[test]
fn doc_comments_that_end_a_wrapped_block_become_plain_comments_of_the_same_length() {
    let plain = |code: &str| {
        let mut lines: Vec<String> = code.lines().map(str::to_owned).collect();
        plain_trailing_doc_comments(&mut lines);
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
    // Documenting something, inside an item, or not a doc comment: as written.
    for code in [
        "/// x\nlet x = 1;",
        "fn f() {\n/// x\n}",
        "//! inner",
        "//// four",
        "/**/",
    ] {
        assert_eq!(plain(code), code);
    }
}
