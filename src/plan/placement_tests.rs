use expect_test::{Expect, expect};

use super::*;

/// One line per snippet: its placement, then its first line.
fn check(snippets: &[(&str, &str)], expect: Expect) {
    let actual: Vec<String> = snippets
        .iter()
        .map(|(edition, code)| {
            let placement = placement(code, edition, false, false);
            format!("{placement:?}: {}", code.lines().next().unwrap_or_default())
        })
        .collect();
    expect.assert_eq(&actual.join("\n"));
}

#[test]
fn crate_root_snippets_get_a_binary_of_their_own() {
    check(
        &[
            (
                "2021",
                "use crate::List::*;\nenum List { Nil }\nfn main() {}",
            ),
            ("2021", "pub(in crate::my_mod) fn f() {}"),
            ("2021", "    crate::deeply::nested::function();"),
            ("2021", "#![allow(dead_code)]\nfn main() {}"),
            ("2021", "# #![feature(never_type)]"),
            ("2021", "#[macro_export]\nmacro_rules! m { () => {} }"),
            ("2021", "#[macro_use]\nextern crate helper;"),
            (
                "2021",
                "#[unsafe(no_mangle)] pub extern \"C\" fn hello() {}",
            ),
            ("2021", "#[link(name = \"extlib\")]\nextern { fn f(); }"),
            (
                "2021",
                "unsafe extern \"C\" {\n    fn abs(n: i32) -> i32;\n}",
            ),
            ("2021", "macro_rules! m { () => { $crate::f() } }"),
            ("2015", "use List::*;"),
            ("2015", "fn f() { ::a::foo(); }"),
            ("2015", "pub use {std::fmt, shapes::Circle};"),
            ("2015", "extern crate helper;"),
        ],
        expect![[r#"
                OwnBinary: use crate::List::*;
                OwnBinary: pub(in crate::my_mod) fn f() {}
                OwnBinary:     crate::deeply::nested::function();
                OwnBinary: #![allow(dead_code)]
                OwnBinary: # #![feature(never_type)]
                OwnBinary: #[macro_export]
                OwnBinary: #[macro_use]
                OwnBinary: #[unsafe(no_mangle)] pub extern "C" fn hello() {}
                OwnBinary: #[link(name = "extlib")]
                OwnBinary: unsafe extern "C" {
                OwnBinary: macro_rules! m { () => { $crate::f() } }
                OwnBinary: use List::*;
                OwnBinary: fn f() { ::a::foo(); }
                OwnBinary: pub use {std::fmt, shapes::Circle};
                OwnBinary: extern crate helper;"#]],
    );
}

#[test]
fn module_safe_snippets_are_merged() {
    check(
        &[
            ("2021", "use std::fmt;\nfn main() {}"),
            (
                "2015",
                "use std::fmt;\nuse ::core::mem;\nuse self::List::*;",
            ),
            (
                "2015",
                "let v = Vec::<u8>::new(); let s = ::std::mem::size_of::<u8>();",
            ),
            ("2021", "extern crate helper;\nuse helper::greet;"),
            ("2021", "pub(crate) fn f() {}"),
            ("2021", "pub extern \"C\" fn callback(n: i32) -> i32 { n }"),
            ("2021", "macro_rules! m { () => { $crate::f() } }"),
            ("2021", "let my_crate::x = 1; // crate::in_a_comment"),
        ],
        expect![[r#"
                Merged: use std::fmt;
                Merged: use std::fmt;
                Merged: let v = Vec::<u8>::new(); let s = ::std::mem::size_of::<u8>();
                Merged: extern crate helper;
                Merged: pub(crate) fn f() {}
                Merged: pub extern "C" fn callback(n: i32) -> i32 { n }
                OwnBinary: macro_rules! m { () => { $crate::f() } }
                Merged: let my_crate::x = 1; // crate::in_a_comment"#]],
    );
}

#[test]
fn attributes_decide_first() {
    assert_eq!(
        placement("use crate::x;", "2021", true, false),
        Placement::CompileFail
    );
    assert_eq!(
        placement("fn t() {}", "2021", false, true),
        Placement::TestHarness
    );
}

#[test]
fn snippets_whose_delimiters_do_not_close_get_a_binary_of_their_own() {
    check(
        &[
            ("2021", "fn f() {\n    let x = (1, 2;\n}"),
            ("2021", "let s = \"never ends;"),
            ("2021", "# fn hidden() {\nlet fine = (1, 2);\n# }"),
            ("2021", "let fine = [1, (2, 3)];"),
        ],
        expect![[r#"
            OwnBinary: fn f() {
            OwnBinary: let s = "never ends;
            Merged: # fn hidden() {
            Merged: let fine = [1, (2, 3)];"#]],
    );
}
