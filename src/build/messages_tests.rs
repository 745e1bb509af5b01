use std::path::PathBuf;

use expect_test::{Expect, expect};

use super::*;

fn error(line: usize, message: &str, rendered: &str) -> CompileError {
    CompileError {
        target: "snippets-e2015".to_owned(),
        file: Some(PathBuf::from("e2015/src/a_1.rs")),
        line,
        column: 44,
        code: Some("E0277".to_owned()),
        message: message.to_owned(),
        rendered: rendered.to_owned(),
    }
}

fn check(mut error: CompileError, code: &str, expected: Expect) {
    for_the_book(&mut error, Some(code));
    expected.assert_eq(&format!(
        "{:?} {}:{} {}\n{}",
        error.code, error.line, error.column, error.message, error.rendered
    ));
}

const ENTRY_ERROR: &str = "error[E0277]: the trait bound `impl Future<Output = ()>: Termination` is not satisfied
  --> e2015/src/a_1.rs:9:44
   |
 9 | pub(crate) fn __mdbook_snippets_entry() -> impl ::std::process::Termination {
   |                                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ the trait `Termination` is not implemented for `impl Future<Output = ()>`
10 |     main()
   |     ------ return type was inferred to be `impl Future<Output = ()>` here
";

#[test]
fn an_async_main_is_rustcs_error_about_main_at_the_snippets_line() {
    check(
        error(
            9,
            "the trait bound `impl Future<Output = ()>: Termination` is not satisfied",
            ENTRY_ERROR,
        ),
        "use std::io;\n\nasync fn main() {\n}\n",
        expect![[r#"
            Some("E0752") 6:1 `main` function is not allowed to be `async`
            error[E0752]: `main` function is not allowed to be `async`
             --> e2015/src/a_1.rs:6:1
              |
              = help: `main` cannot be `async`: start a runtime in it (or use one's `#[main]` attribute)
        "#]],
    );
}

#[test]
fn a_main_returning_what_is_not_termination_is_an_invalid_return_type() {
    check(
        error(
            9,
            "the trait bound `Option<u8>: Termination` is not satisfied",
            &ENTRY_ERROR.replace("impl Future<Output = ()>", "Option<u8>"),
        ),
        "#[derive(Debug)]\n  pub fn main() -> Option<u8> { None }\n",
        expect![[r#"
            Some("E0277") 5:3 `main` has invalid return type `Option<u8>`
            error[E0277]: `main` has invalid return type `Option<u8>`
             --> e2015/src/a_1.rs:5:3
              |
              = help: `main` can only return types that implement `Termination`: consider using `()`, or a `Result`
        "#]],
    );
}

#[test]
fn notes_about_a_neighbour_snippet_are_left_out_and_cargo_toml_advice_points_at_book_toml() {
    let rendered = "error[E0425]: cannot find function `handle` in this scope
  --> e2015/src/a_1.rs:11:9
   |
11 |         handle(stream).await;
   |         ^^^^^^ not found in this scope
   |
note: function `b_2::handle` exists but is inaccessible
  --> e2015/src/b_2.rs:21:1
   |
21 | fn handle(mut stream: TcpStream) {
   | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ not accessible
note: a note about this snippet stays
  --> e2015/src/a_1.rs:4:1
   |
   = help: set `edition = \"2024\"` in `Cargo.toml`
   = help: pass `--edition 2021` to `rustc`
   = help: if you wanted to use a crate named `tokio`, use `cargo add tokio` to add it to your `Cargo.toml`
";
    check(
        error(11, "cannot find function `handle` in this scope", rendered),
        "fn main() {}\n",
        expect![[r#"
            Some("E0277") 11:44 cannot find function `handle` in this scope
            error[E0425]: cannot find function `handle` in this scope
              --> e2015/src/a_1.rs:11:9
               |
            11 |         handle(stream).await;
               |         ^^^^^^ not found in this scope
               |
            note: a note about this snippet stays
              --> e2015/src/a_1.rs:4:1
               |
               = help: set `edition = "2024"` in book.toml's `[rust]` table, or on the block (```rust,edition2024)
               = help: set `edition = "2021"` in book.toml's `[rust]` table, or on the block (```rust,edition2021)
               = help: if you wanted to use a crate named `tokio`, add `tokio` to `[preprocessor.snippets.dependencies]` in book.toml
        "#]],
    );
}
