//! A bad `[preprocessor.snippets.languages.NAME]` table is one error naming the key, exit 2,
//! before any snippet runs.

use expect_test::{Expect, expect};

use crate::support::check_bad_config;

/// A table that runs `python3 {file}` on `.py` files, without its header.
const PYTHON: &str = "command = [\"python3\", \"{file}\"]\nextension = \"py\"\n";

/// `table` as the only language of a book (`[preprocessor.snippets.languages.python]`): the
/// error, which must come before anything runs.
#[track_caller]
fn check_bad_table(table: &str, expect: Expect) {
    check_bad_config(
        &format!("[book]\ntitle = \"t\"\n[preprocessor.snippets.languages.python]\n{table}"),
        expect,
    );
}

#[test]
fn bad_language_tables_are_one_error_each() {
    check_bad_table(
        &format!("{PYTHON}setup-inputs = [\"book.toml\"]\n"),
        expect![[r#"
            error: in [ROOT]/book.toml: `languages.python.setup-inputs`: given without `setup`
        "#]],
    );
    check_bad_table(
        &format!("{PYTHON}setup = \" \"\n"),
        expect![[r#"
        error: in [ROOT]/book.toml: `languages.python.setup`: the command is empty
    "#]],
    );
    check_bad_table(
        &format!("{PYTHON}setup = []\n"),
        expect![[r#"
        error: in [ROOT]/book.toml: `languages.python.setup`: the command is empty
    "#]],
    );
    check_bad_table(
        &format!("{PYTHON}setup = [\"./nowhere.sh\"]\n"),
        expect![[r#"
            error: in [ROOT]/book.toml: `languages.python.setup`: program `./nowhere.sh`: [ROOT]/nowhere.sh does not exist or is not executable (relative paths start at the book root)
        "#]],
    );
    check_bad_table(
        &format!("{PYTHON}setup = \"true\"\nsetup-inputs = [\"nowhere.txt\"]\n"),
        expect![[r#"
            error: in [ROOT]/book.toml: `languages.python.setup-inputs`: [ROOT]/nowhere.txt does not exist (relative paths start at the book root)
        "#]],
    );
    check_bad_table(
        "command = [\"python3\", \"{file}\"]\nextension = \"py\"\nhiden = \"~\"\n",
        expect![[r#"
            error: in [ROOT]/book.toml: unknown key `hiden` in [preprocessor.snippets.languages.python] (expected one of: `command`, `check`, `extension`, `hidden`, `inputs`, `error-position`, `setup`, `setup-inputs`, `setup-timeout`)
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
    check_bad_config(
        "[book]\ntitle = \"t\"\n[preprocessor.snippets]\nlanguages = [\"python\"]\n",
        expect![[r#"
            error: in [ROOT]/book.toml: `languages` must be a table of [preprocessor.snippets.languages.NAME] tables, found array
        "#]],
    );
    let named = |name: &str| {
        format!("[book]\ntitle = \"t\"\n[preprocessor.snippets.languages.{name}]\n{PYTHON}")
    };
    check_bad_config(
        &named("rust"),
        expect![[r#"
        error: in [ROOT]/book.toml: [preprocessor.snippets.languages.rust]: `rust` cannot name a language (not `rust`, `text`, `output` or a rustdoc attribute such as `no_run`; no commas or spaces: it is the first word of a fence)
    "#]],
    );
    check_bad_config(
        &named("no_run"),
        expect![[r#"
        error: in [ROOT]/book.toml: [preprocessor.snippets.languages.no_run]: `no_run` cannot name a language (not `rust`, `text`, `output` or a rustdoc attribute such as `no_run`; no commas or spaces: it is the first word of a fence)
    "#]],
    );
    check_bad_config(
        &named("output"),
        expect![[r#"
        error: in [ROOT]/book.toml: [preprocessor.snippets.languages.output]: `output` cannot name a language (not `rust`, `text`, `output` or a rustdoc attribute such as `no_run`; no commas or spaces: it is the first word of a fence)
    "#]],
    );
}
