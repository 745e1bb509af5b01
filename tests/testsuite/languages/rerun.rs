//! What makes a snippet of another language run again: its content, its command, the identity
//! of its interpreter, the script its command names and its `inputs` (the cache key); and
//! `--bless` for its expected block.

use expect_test::expect;

use crate::support::book;

/// A book with one Python snippet that appends a line to `log` each time it really runs (the
/// book lets it: `writable`).
fn logging_book(command: &str, log: &std::path::Path) -> crate::support::Book {
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let book_toml = format!(
        "[book]\ntitle = \"t\"\n[preprocessor.snippets]\nwritable = [{:?}]\n\
         [preprocessor.snippets.languages.python]\ncommand = {command}\nextension = \"py\"\n",
        log.display().to_string()
    );
    let chapter = format!(
        "```python,log={}\n# {nonce}\nimport os\nlog = os.environ[\"MDBOOK_SNIPPETS_ATTRS\"].removeprefix(\"log=\")\n\
         open(log, \"a\").write(\"ran\\n\")\nprint(\"logged\")\n```\n\n```text,output\nlogged\n```\n",
        log.display()
    );
    book(&[("book.toml", &book_toml), ("src/a.md", &chapter)])
}

#[test]
fn cached_by_content_and_command() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let runs = || std::fs::read_to_string(log.path()).unwrap().lines().count();
    let book = logging_book(r#"["python3", "{file}"]"#, log.path());
    book.test(&["--quiet"]).code(0);
    book.test(&["--quiet"]).code(0);
    assert_eq!(runs(), 1, "a passed, unchanged snippet runs once");
    // Another command (an interpreter flag) is another environment.
    let book_toml = std::fs::read_to_string(book.path().join("book.toml")).unwrap();
    book.write(
        "book.toml",
        &book_toml.replace(r#"["python3", "{file}"]"#, r#"["python3", "-B", "{file}"]"#),
    );
    book.test(&["--quiet"]).code(0);
    assert_eq!(runs(), 2);
    book.test(&["--quiet", "--no-cache"]).code(0);
    assert_eq!(runs(), 3);
}

#[test]
fn cached_by_interpreter_identity_and_inputs() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let runs = || std::fs::read_to_string(log.path()).unwrap().lines().count();
    let book = logging_book(r#"["./bin/python", "{file}"]"#, log.path());
    let interpreter = "#!/bin/sh\nexec python3 \"$@\"\n";
    let executable = |path: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    book.write("bin/python", interpreter);
    executable(&book.path().join("bin/python"));
    book.write("helpers/h.py", "X = 1\n");
    let book_toml = std::fs::read_to_string(book.path().join("book.toml")).unwrap();
    book.write("book.toml", &format!("{book_toml}inputs = [\"helpers\"]\n"));
    book.test(&["--quiet"]).code(0);
    book.test(&["--quiet"]).code(0);
    assert_eq!(runs(), 1);
    // Another interpreter at the same path (here: its size changes) is another environment.
    book.write("bin/python", &format!("{interpreter}# upgraded\n"));
    executable(&book.path().join("bin/python"));
    book.test(&["--quiet"]).code(0);
    assert_eq!(runs(), 2);
    // So is a change to a file the snippets import.
    book.write("helpers/h.py", "X = 2\n");
    book.test(&["--quiet"]).code(0);
    assert_eq!(runs(), 3);
}

#[test]
fn cached_by_the_script_the_command_runs() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let runs = || std::fs::read_to_string(log.path()).unwrap().lines().count();
    // The interpreter runs `run.py` (by its absolute path: a snippet runs in a temporary
    // directory), which runs the snippet: the script is what runs too.
    let book = logging_book(r#"["python3", "RUNNER", "{file}"]"#, log.path());
    let runner = "import runpy, sys\nrunpy.run_path(sys.argv[1], run_name=\"__main__\")\n";
    book.write("run.py", runner);
    let book_toml = std::fs::read_to_string(book.path().join("book.toml")).unwrap();
    let script = book.path().join("run.py");
    book.write(
        "book.toml",
        &book_toml.replace("RUNNER", &script.to_string_lossy()),
    );
    book.test(&["--quiet"]).code(0);
    book.test(&["--quiet"]).code(0);
    assert_eq!(runs(), 1);
    book.write("run.py", &format!("{runner}# changed\n"));
    book.test(&["--quiet"]).code(0);
    assert_eq!(runs(), 2, "an edited run.py runs the snippet again");
}

#[test]
fn bless_rewrites_the_expected_block() {
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[preprocessor.snippets.languages.python]\n\
             command = [\"python3\", \"{file}\"]\nextension = \"py\"\n",
        ),
        (
            "src/a.md",
            "# A\n\n```python\nprint(6 * 7)\n```\n\n```text,output\n41\n```\n",
        ),
    ]);
    book.test(&["--quiet"]).code(1);
    book.test(&["--quiet", "--bless"]).code(1);
    expect![[r#"
        # A

        ```python
        print(6 * 7)
        ```

        ```text,output
        42
        ```
    "#]]
    .assert_eq(&std::fs::read_to_string(book.path().join("src/a.md")).unwrap());
    book.test(&["--quiet"]).code(0);
}
