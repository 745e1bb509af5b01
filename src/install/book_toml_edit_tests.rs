use expect_test::{Expect, expect};

use super::edit;

/// The changes in words, then the new book.toml.
fn check(book_toml: &str, expected: Expect) {
    let actual = match edit(book_toml) {
        Ok(edited) => format!("{}\n---\n{}", edited.changes.join("\n"), edited.text),
        Err(error) => format!("error: {error:#}"),
    };
    expected.assert_eq(&actual);
}

#[test]
fn a_plain_book_gets_both_tables_at_its_end() {
    check(
        "[book]\ntitle = \"A book\"\n",
        expect![[r#"
            add [preprocessor.snippets] (command = "mdbook-snippets")
            add "mdbook-snippets.css" to [output.html] additional-css
            ---
            [book]
            title = "A book"

            [preprocessor.snippets]
            command = "mdbook-snippets"

            [output.html]
            additional-css = ["mdbook-snippets.css"]
        "#]],
    );
}

#[test]
fn comments_order_and_quoting_stay_as_written() {
    check(
        r#"# The book of things.
[book]
title = 'Things'   # single quotes, kept
authors = [ "a",  "b" ]

[output.html]
# our styles
additional-css = ["theme/custom.css"] # trailing comment
git-repository-url = "https://example.org/things"

[preprocessor.admonish]
command = "mdbook-admonish"
"#,
        expect![[r#"
            add [preprocessor.snippets] (command = "mdbook-snippets")
            add "mdbook-snippets.css" to [output.html] additional-css
            ---
            # The book of things.
            [book]
            title = 'Things'   # single quotes, kept
            authors = [ "a",  "b" ]

            [output.html]
            # our styles
            additional-css = ["theme/custom.css", "mdbook-snippets.css"] # trailing comment
            git-repository-url = "https://example.org/things"

            [preprocessor.admonish]
            command = "mdbook-admonish"

            [preprocessor.snippets]
            command = "mdbook-snippets"
        "#]],
    );
}

#[test]
fn a_second_install_changes_nothing() {
    let once = edit("[book]\ntitle = \"A book\"\n").unwrap().text;
    let twice = edit(&once).unwrap();
    assert_eq!(twice.text, once);
    assert_eq!(twice.changes, Vec::<String>::new());
    // Also when the book wrote them itself, in its own way.
    let own = "[preprocessor.snippets]\ncommand = \"cargo run --bin mdbook-snippets\"\n\n\
               [output.html]\nadditional-css = [\"./mdbook-snippets.css\"]\n";
    let edited = edit(own).unwrap();
    assert_eq!((edited.text.as_str(), edited.changes.len()), (own, 0));
}

#[test]
fn a_book_without_html_gets_no_html() {
    assert!(!edit("[output.epub]\n").unwrap().html);
    check(
        "[book]\ntitle = \"x\"\n\n[output.epub]\n",
        expect![[r#"
            add [preprocessor.snippets] (command = "mdbook-snippets")
            ---
            [book]
            title = "x"

            [output.epub]

            [preprocessor.snippets]
            command = "mdbook-snippets"
        "#]],
    );
}

#[test]
fn what_cannot_be_edited_is_an_error() {
    check(
        "[book\n",
        expect![
            "error: book.toml is not valid TOML: TOML parse error at line 1, column 6\n  |\n1 | [book\n  |      ^\nunclosed table, expected `]`\n"
        ],
    );
    check(
        "[output.html]\nadditional-css = \"one.css\"\n",
        expect!["error: `additional-css` in [output.html] of book.toml is not an array of paths"],
    );
    check(
        "preprocessor = 3\n",
        expect!["error: `preprocessor` in book.toml is not a table"],
    );
}
