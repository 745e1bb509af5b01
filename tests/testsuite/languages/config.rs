//! A bad `[preprocessor.snippets.languages.NAME]` table is one error naming the key, exit 2,
//! before any snippet runs.

use expect_test::{Expect, expect};

use crate::support::book;

/// `table` as the only language of a book whose one snippet would leave a file behind if it
/// ran; the error, which must come before anything runs.
fn check_bad_table(table: &str, expect: Expect) {
    let marker = tempfile::tempdir().unwrap();
    let marker = marker.path().join("ran");
    let book = book(&[
        (
            "book.toml",
            &format!("[book]\ntitle = \"t\"\n[preprocessor.snippets.languages.python]\n{table}"),
        ),
        (
            "src/a.md",
            &format!("```python\nopen({:?}, \"w\")\n```\n", marker.display()),
        ),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(2);
    assert!(!marker.exists(), "a snippet ran\n{output}");
    expect.assert_eq(&output.stderr());
}

#[test]
fn bad_language_tables_are_one_error_each() {
    for (setup, message) in [
        (
            "setup-inputs = [\"book.toml\"]",
            "`languages.python.setup-inputs`: given without `setup`",
        ),
        (
            "setup = \" \"",
            "`languages.python.setup`: the command is empty",
        ),
        (
            "setup = []",
            "`languages.python.setup`: the command is empty",
        ),
        (
            "setup = [\"./nowhere.sh\"]",
            "`languages.python.setup`: program `./nowhere.sh`: [ROOT]/nowhere.sh does not exist or is not executable",
        ),
        (
            "setup = \"true\"\nsetup-inputs = [\"nowhere.txt\"]",
            "`languages.python.setup-inputs`: [ROOT]/nowhere.txt does not exist",
        ),
    ] {
        let book = book(&[
            (
                "book.toml",
                &format!(
                    "[book]\ntitle = \"t\"\n[preprocessor.snippets.languages.python]\ncommand = [\"python3\", \"{{file}}\"]\nextension = \"py\"\n{setup}\n"
                ),
            ),
            ("src/a.md", "```python\nprint(1)\n```\n"),
        ]);
        let output = book.test(&["--quiet"]);
        output.code(2);
        assert!(output.stderr().contains(message), "{setup}\n{output}");
    }
    check_bad_table(
        "command = [\"python3\", \"{file}\"]\nextension = \"py\"\nhiden = \"~\"\n",
        expect![[r#"
            error: in [ROOT]/book.toml: unknown key `hiden` in [preprocessor.snippets.languages.python] (expected one of: `command`, `check`, `extension`, `hidden`, `inputs`, `error-position`, `setup`, `setup-inputs`)
        "#]],
    );
    check_bad_table(
        "command = \"python3 {file}\"\nextension = \"py\"\n",
        expect![[r#"
            error: in [ROOT]/book.toml: in [preprocessor.snippets.languages.python]: invalid type: string "python3 {file}", expected a sequence
        "#]],
    );
    check_bad_table(
        "command = [\"python3\", \"{file}\"]\n",
        expect![[r#"
        error: in [ROOT]/book.toml: in [preprocessor.snippets.languages.python]: missing field `extension`
    "#]],
    );
    check_bad_table(
        "command = []\nextension = \"py\"\n",
        expect![[r#"
        error: in [ROOT]/book.toml: `languages.python.command`: the command is empty (expected a program and its arguments, one of them `{file}`)
    "#]],
    );
    check_bad_table(
        "command = [\"python3\", \"-c\", \"print(1)\"]\nextension = \"py\"\n",
        expect![[r#"
            error: in [ROOT]/book.toml: `languages.python.command`: no argument is `{file}` (replaced with the snippet's file), in ["python3", "-c", "print(1)"]
        "#]],
    );
    check_bad_table(
        "command = [\"no-such-interpreter-here\", \"{file}\"]\nextension = \"py\"\n",
        expect![[r#"
            error: in [ROOT]/book.toml: `languages.python.command`: program `no-such-interpreter-here`: not found on PATH
        "#]],
    );
    check_bad_table(
        "command = [\"./venv/bin/python\", \"{file}\"]\nextension = \"py\"\n",
        expect![[r#"
            error: in [ROOT]/book.toml: `languages.python.command`: program `./venv/bin/python`: [ROOT]/venv/bin/python does not exist or is not executable (relative paths start at the book root)
        "#]],
    );
    check_bad_table(
        "command = [\"python3\", \"{file}\"]\ncheck = [\"python3\"]\nextension = \"py\"\n",
        expect![[r#"
            error: in [ROOT]/book.toml: `languages.python.check`: no argument is `{file}` (replaced with the snippet's file), in ["python3"]
        "#]],
    );
    check_bad_table(
        "command = [\"python3\", \"{file}\"]\nextension = \"py\"\nhidden = \"# \"\n",
        expect![[r#"
            error: in [ROOT]/book.toml: `languages.python.hidden`: `# ` cannot be a hidden-line prefix (not empty, no commas or spaces: mdBook reads it from the info string as `hidelines=PREFIX`)
        "#]],
    );
}

#[test]
fn a_language_table_that_is_not_a_table() {
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[preprocessor.snippets]\nlanguages = [\"python\"]\n",
        ),
        ("src/a.md", "# A\n"),
    ]);
    let output = book.test(&[]);
    output.code(2);
    expect![[r#"
        error: in [ROOT]/book.toml: `languages` must be a table of [preprocessor.snippets.languages.NAME] tables, found array
    "#]].assert_eq(&output.stderr());
    for name in ["rust", "no_run", "output"] {
        let book = book_with_language_named(name);
        book.test(&[])
            .code(2)
            .stderr_contains(&format!("`{name}` cannot name a language"));
    }
}

fn book_with_language_named(name: &str) -> crate::support::Book {
    book(&[
        (
            "book.toml",
            &format!(
                "[book]\ntitle = \"t\"\n[preprocessor.snippets.languages.{name}]\n\
                 command = [\"python3\", \"{{file}}\"]\nextension = \"py\"\n"
            ),
        ),
        ("src/a.md", "# A\n"),
    ])
}
