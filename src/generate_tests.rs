use std::path::PathBuf;

use expect_test::{Expect, expect};

use super::*;

fn check_module(code: &str, harness: Option<&str>, expect: Expect) {
    let module = snippet_module(code, harness);
    // The code's first line is where the generator says it is.
    let first = code
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches("# ");
    assert_eq!(module.lines().nth(PREFIX_LINES).unwrap_or_default(), first);
    expect.assert_eq(&module);
}

#[test]
fn plain_statements_get_rustdoc_main() {
    check_module(
        "let x = 1;\n# let hidden = x;\n##[derive(Debug)]\nstruct S;\n",
        None,
        expect![[r#"
            #![allow(unused, redundant_semicolons, unreachable_code)]
            // (no harness)
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
        expect![[r#"
            #![allow(unused, redundant_semicolons, unreachable_code)]
            // (no harness)
            pub fn main() { fn _inner() -> ::std::result::Result<(), impl ::std::fmt::Debug> {
            let n: u32 = "4".parse()?;
            Ok::<(), std::num::ParseIntError>(())
            } _inner().unwrap() }
            #[allow(dead_code)]
            pub(crate) fn __mdbook_snippets_entry() -> impl ::std::process::Termination {
                main()
            }
        "#]],
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
    let module = snippet_module("let x = 1;\nOk(())\n", Some("h"));
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
fn crate_layout() {
    let snippets = [
        ("a_1", "2021", false),
        ("a_2", "2024", false),
        ("a_3", "2021", false),
        ("a_4", "2021", true),
    ]
    .map(|(id, edition, compile_fail)| PlannedSnippet {
        id: id.to_owned(),
        code: "fn main() {}\n".to_owned(),
        edition: edition.to_owned(),
        compile_fail,
    });
    let settings = CrateSettings {
        package_name: "mdbook-snippets-book".to_owned(),
        harness: Some(HarnessDependency {
            package_name: "mcp-testserver".to_owned(),
            lib_name: "mcp_testserver".to_owned(),
            path: PathBuf::from("/work/snippets"),
        }),
        profiles: "[profile.dev]\ndebug = \"line-tables-only\"\n".to_owned(),
    };
    let generated = generate(&snippets, &settings);
    let mut out = String::new();
    for module in &generated.modules {
        writeln!(
            out,
            "{} in {} at {}:{}",
            module.id,
            module.bin,
            module.file.display(),
            module.first_code_line
        )
        .unwrap();
    }
    for (path, content) in &generated.files {
        if path.ends_with("main.rs") || path.ends_with("Cargo.toml") {
            writeln!(out, "== {}\n{content}", path.display()).unwrap();
        }
    }
    expect![[r#"
        a_1 in mdbook-snippets-book-e2021 at src/e2021/a_1.rs:4
        a_2 in mdbook-snippets-book-e2024 at src/e2024/a_2.rs:4
        a_3 in mdbook-snippets-book-e2021 at src/e2021/a_3.rs:4
        a_4 in cf-a_4 at src/compile_fail/a_4.rs:4
        == Cargo.toml
        # Generated by mdbook-snippets; rewritten on every run.
        [package]
        name = "mdbook-snippets-book"
        version = "0.0.0"
        edition = "2021"
        publish = false
        autobins = false

        [[bin]]
        name = "cf-a_4"
        path = "src/compile_fail/a_4.rs"
        edition = "2021"
        test = false
        bench = false
        doc = false

        [[bin]]
        name = "mdbook-snippets-book-e2021"
        path = "src/e2021/main.rs"
        edition = "2021"
        test = false
        bench = false
        doc = false

        [[bin]]
        name = "mdbook-snippets-book-e2024"
        path = "src/e2024/main.rs"
        edition = "2024"
        test = false
        bench = false
        doc = false

        [dependencies]
        mcp-testserver = { path = "/work/snippets" }

        [workspace]

        [profile.dev]
        debug = "line-tables-only"

        [profile.dev.package."mdbook-snippets-book"]
        debug = 0

        == src/e2021/main.rs
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

        == src/e2024/main.rs
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
