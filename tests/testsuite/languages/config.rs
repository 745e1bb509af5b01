//! A bad `[preprocessor.snippets.languages.NAME]` table is one error naming the key, exit 2,
//! before any snippet runs.

use std::time::Duration;

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
            error: in [ROOT]/book.toml: unknown key `hiden` in [preprocessor.snippets.languages.python]: did you mean `hidden`? (expected one of: `command`, `check`, `extension`, `hidden`, `inputs`, `error-position`, `setup`, `setup-inputs`, `setup-timeout`)
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

/// `inputs` and `setup-inputs` are hashed for the cache: a path that is neither a regular file
/// nor a directory is refused before anything runs, naming it. Before: `/dev/zero` was read
/// until the memory ran out, a FIFO forever.
#[test]
fn inputs_that_are_not_files_or_directories_are_refused_at_once() {
    check_bad_table(
        &format!("{PYTHON}inputs = [\"/dev/zero\"]\n"),
        expect![[r#"
            error: in [ROOT]/book.toml: `languages.python.inputs`: /dev/zero is not a regular file or a directory (inputs are hashed for the cache; a FIFO or a device cannot be)
        "#]],
    );
    for key in ["inputs", "setup-inputs"] {
        let book = crate::support::sh_book("", "```sh\necho never\n```\n");
        let toml = std::fs::read_to_string(book.path().join("book.toml")).unwrap();
        book.write(
            "book.toml",
            &format!("{toml}setup = \"true\"\n{key} = [\"fifo\"]\n"),
        );
        let fifo = book.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let output = book
            .start(book.test_command(&[]))
            .finish(Duration::from_secs(60));
        output.code(2).stderr_contains(&format!(
            "`languages.sh.{key}`: {} is not a regular file or a directory",
            std::fs::canonicalize(&fifo).unwrap().display()
        ));
    }
}

/// A 2 GB input (sparse) is hashed as a stream: the verifier's peak memory stays small.
/// Before: 2.1 GB.
#[test]
fn a_2_gb_input_is_hashed_in_bounded_memory() {
    let book = crate::support::sh_book(
        "jobs = 1\npass-env = [\"GO\"]",
        "```sh\necho hashed\n```\n\n\
         ```sh\n# Waits (at most 60 s) while the test reads the verifier's memory.\n\
         i=0; while [ ! -e \"$GO\" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\n```\n",
    );
    let toml = std::fs::read_to_string(book.path().join("book.toml")).unwrap();
    book.write("book.toml", &format!("{toml}inputs = [\"big.bin\"]\n"));
    let big = std::fs::File::create(book.path().join("big.bin")).unwrap();
    big.set_len(2 << 30).unwrap();
    let mut command = book.test_command(&["--no-cache"]);
    command.env("GO", book.path().join("go"));
    let mut run = book.start(command);
    // Snippets run once their language's inputs are hashed; one job at a time, so the second
    // one waits for us after the first one's verdict.
    run.wait_for_stderr("test src/a.md:1 ... ok", Duration::from_secs(300));
    let peak = run.peak_memory_kib();
    std::fs::write(book.path().join("go"), "").unwrap();
    let output = run.finish(Duration::from_secs(120));
    output.code(0).stdout_contains("2 passed, 0 failed");
    eprintln!("peak memory of the verifier: {peak} KiB");
    assert!(peak < 100 * 1024, "{peak} KiB\n{output}");
}
