//! Python, JavaScript and shell snippets run beside Rust: each failure at its Markdown line (an
//! included file's at its own), selection by chapter, filter and partition, Rust-only
//! attributes refused at the fence, the preprocessor's page, and runs while cargo builds.

use expect_test::expect;

use crate::support::{Output, book, fixture, preprocessor};

/// The report, without the lines that name Node.js's own version and internal frames (they
/// change with every Node.js release).
fn report(output: &Output) -> String {
    output
        .stdout()
        .lines()
        .filter(|line| !line.contains("node:internal") && !line.contains("Node.js v"))
        .map(|line| format!("{line}\n"))
        .collect()
}

#[test]
fn two_languages_beside_rust_fail_at_their_lines() {
    let book = fixture("languages");
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        error: snippet src_python_md_2 output differs
          --> src/python.md:26:1
           |
        24 | ```
        25 |
        26 | ```text,output
           | ^^^^^^^^^^^^^^ output differs from the expected block (-expected +actual):
        27 | 5
        28 | ```
           |
          - 5
          + 4
          help: if the new output is right, `mdbook-snippets test --bless` writes it into the expected block

        error: snippet src_python_md_3 failed at run time
          --> src/python.md:34:1
           |
        32 | ```python
        33 | def divide(a, b):
        34 |     return a / b
           | ^^^^^^^^^^^^^^^^ exited with code 1
        35 |
        36 | print(divide(1, 0))
           |
          stderr:
          Traceback (most recent call last):
            File "src/python.md", line 36, in <module>
              print(divide(1, 0))
                    ^^^^^^^^^^^^
            File "src/python.md", line 34, in divide
              return a / b
                     ~~^~~
          ZeroDivisionError: division by zero

        error: snippet src_python_md_4 timed out
          --> src/python.md:41:1
           |
        39 | A snippet that never ends:
        40 |
        41 | ```python,timeout=1
           | ^^^^^^^^^^^^^^^^^^^ timed out after 1 s; the process group was killed
        42 | while True:
        43 |     pass
           |

        error: snippet src_python_md_7 failed at run time
          --> src/python.md:60:1
           |
        58 | An exit code that is not 0:
        59 |
        60 | ```python
           | ^^^^^^^^^ exited with code 3
        61 | import sys
        62 | print("about to fail", file=sys.stderr)
           |
          stderr:
          about to fail

        error: snippet src_javascript_md_3 output differs
          --> src/javascript.md:25:1
           |
        23 | ```
        24 |
        25 | ```text,output
           | ^^^^^^^^^^^^^^ output differs from the expected block (-expected +actual):
        26 | one
        27 | [..]three
           |
            one
          - [..]three
          + two
          help: if the new output is right, `mdbook-snippets test --bless` writes it into the expected block

        error: snippet src_javascript_md_4 failed at run time
          --> src/javascript.md:34:1
           |
        32 | ```javascript
        33 | function fail() {
        34 |   throw new Error("boom");
           | ^^^^^^^^^^^^^^^^^^^^^^^^^^ exited with code 1
        35 | }
        36 | fail();
           |
          stderr:
          src/javascript.md:34
            throw new Error("boom");
            ^

          Error: boom
              at fail (src/javascript.md:34:9)
              at Object.<anonymous> (src/javascript.md:36:1)


        error: snippet src_javascript_md_5 does not compile
          --> src/javascript.md:42:1
           |
        40 |
        41 | ```javascript,no_run
        42 | function (
           | ^^^^^^^^^^ the check exited with code 1
        43 | ```
        44 |
           |
          src/javascript.md:42
          function (
          ^^^^^^^^

          SyntaxError: Function statements require a function name


        error: snippet src_javascript_md_6 timed out
          --> src/javascript.md:47:1
           |
        45 | A timer that keeps the process alive:
        46 |
        47 | ```javascript,timeout=1
           | ^^^^^^^^^^^^^^^^^^^^^^^ timed out after 1 s; the process group was killed
        48 | setInterval(() => {}, 1000);
        49 | ```
           |

        failures:
            src/python.md:22 (output differs, src_python_md_2, error at line 26)
            src/python.md:32 (failed at run time, src_python_md_3, error at line 34)
            src/python.md:41 (timed out, src_python_md_4)
            src/python.md:60 (failed at run time, src_python_md_7)
            src/javascript.md:20 (output differs, src_javascript_md_3, error at line 25)
            src/javascript.md:32 (failed at run time, src_javascript_md_4, error at line 34)
            src/javascript.md:41 (does not compile, src_javascript_md_5, error at line 42)
            src/javascript.md:47 (timed out, src_javascript_md_6)

        finished in [TIME]
        4 passed, 8 failed, 2 skipped
    "#]]
    .assert_eq(&report(&output));
}

#[test]
fn selection_applies_to_every_language() {
    let book = fixture("languages");
    let output = book.test(&["--quiet", "--filter", "src/python.md:6"]);
    output.code(0);
    expect!["1 passed, 0 failed, 13 skipped"].assert_eq(output.stdout.lines().last().unwrap());
    let output = book.test(&["--quiet", "--chapter", "src/javascript.md"]);
    output.code(1);
    expect!["2 passed, 4 failed, 8 skipped"].assert_eq(output.stdout.lines().last().unwrap());
    let output = book.test(&["--quiet", "--partition", "2/2"]);
    output.code(1);
    expect!["2 passed, 3 failed, 9 skipped"].assert_eq(output.stdout.lines().last().unwrap());
}

#[test]
fn rust_only_attributes_are_an_error_at_the_fence() {
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[preprocessor.snippets.languages.python]\n\
             command = [\"python3\", \"{file}\"]\nextension = \"py\"\n",
        ),
        (
            "src/a.md",
            "# A\n\n```python,should_panic\nraise SystemExit(1)\n```\n",
        ),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        error: chapter src/a.md not verified
         --> src/a.md:3:1
          |
        1 | # A
        2 |
        3 | ```python,should_panic
          | ^^^^^^^^^^^^^^^^^^^^^^ `should_panic` applies to Rust snippets only, not to `python`
        4 | raise SystemExit(1)
        5 | ```
          |
          none of this chapter's snippets ran

        failures:
            src/a.md:3 (chapter not verified)

        finished in [TIME]
        0 passed, 1 failed
    "#]]
    .assert_eq(&output.stdout());
}

#[test]
fn preprocessor_renders_output_and_artifacts_and_keeps_the_fence() {
    let chapter = "# Rendered\n\n```python,mode=page\n!!!import os\n# shown: a comment, not a hidden line\nopen(os.path.join(os.environ[\"MDBOOK_SNIPPETS_ARTIFACTS\"], \"10-wire_transcript.txt\"), \"w\").write(\"a -> b <c>\")\nprint(os.environ[\"MDBOOK_SNIPPETS_ATTRS\"])\n```\n\n```text,output\n[..]\n```\n\n```python,hidelines=%%\n%%x = 1\nprint(x)\n```\n\n```python\nprint(\"no hidden lines\")\n```\n\n```ruby\nputs \"not declared\"\n```\n";
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[preprocessor.snippets.languages.python]\n\
             command = [\"python3\", \"{file}\"]\nextension = \"py\"\n",
        ),
        ("src/SUMMARY.md", "- [Rendered](a.md)\n"),
        ("src/a.md", chapter),
    ]);
    let (_, rendered) = preprocessor::rendered(book.path(), &[]);
    expect![[r##"
        # Rendered

        ```python,mode=page,hidelines=!!!
        !!!import os
        # shown: a comment, not a hidden line
        open(os.path.join(os.environ["MDBOOK_SNIPPETS_ARTIFACTS"], "10-wire_transcript.txt"), "w").write("a -> b <c>")
        print(os.environ["MDBOOK_SNIPPETS_ATTRS"])
        ```

        <div class="mdbook-snippets-output">
        <pre class="mdbook-snippets-stdout">mode=page</pre>
        <details class="mdbook-snippets-artifact"><summary>wire transcript</summary><pre>a -&gt; b &lt;c&gt;</pre></details>
        </div>

        ```python,hidelines=%%
        %%x = 1
        print(x)
        ```
        <div class="mdbook-snippets-output">
        <pre class="mdbook-snippets-stdout">1</pre>
        </div>

        ```python
        print("no hidden lines")
        ```
        <div class="mdbook-snippets-output">
        <pre class="mdbook-snippets-stdout">no hidden lines</pre>
        </div>

        ```ruby
        puts "not declared"
        ```
    "##]].assert_eq(&preprocessor::chapter(&rendered, "Rendered").content);
}

/// Snippets of other languages do not wait for cargo, and run beside the Rust ones within
/// `--jobs`: a shell snippet (a third language, one more table) has started before the Rust
/// snippet is built, and the two wait for each other, which only works if both run at once.
#[test]
fn other_languages_run_while_cargo_builds() {
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let meeting = tempfile::tempdir().unwrap();
    let book_toml = format!(
        "[book]\ntitle = \"t\"\n[preprocessor.snippets]\ndefault-attributes = [\"dir={0}\"]\n\
         writable = [\"{0}\"]\n\
         [preprocessor.snippets.languages.sh]\ncommand = [\"sh\", \"{{file}}\"]\nextension = \"sh\"\n",
        meeting.path().display()
    );
    let rust = format!(
        r#"```rust
// {nonce}
let attrs = std::env::var("MDBOOK_SNIPPETS_ATTRS").unwrap();
let dir = std::path::Path::new(attrs.strip_prefix("dir=").unwrap());
assert!(dir.join("sh-started").exists(), "the shell snippet waited for the build");
std::fs::write(dir.join("rust-running"), "").unwrap();
let mut waited = 0;
while !dir.join("sh-saw-rust").exists() {{
    assert!(waited < 400, "the shell snippet is not running beside this one");
    std::thread::sleep(std::time::Duration::from_millis(50));
    waited += 1;
}}
println!("met");
```
"#
    );
    let sh = r#"```sh
dir=${MDBOOK_SNIPPETS_ATTRS#dir=}
touch "$dir/sh-started"
waited=0
while [ ! -e "$dir/rust-running" ]; do
  [ "$waited" -lt 400 ] || { echo "the Rust snippet is not running beside this one" >&2; exit 1; }
  sleep 0.05
  waited=$((waited + 1))
done
touch "$dir/sh-saw-rust"
echo met
```
"#;
    let book = book(&[
        ("book.toml", &book_toml),
        ("src/SUMMARY.md", "- [Rust](rust.md)\n- [Shell](sh.md)\n"),
        ("src/rust.md", &rust),
        ("src/sh.md", sh),
    ]);
    let output = book.test(&["--quiet", "--no-cache", "--jobs", "2"]);
    output.code(0).stdout_contains("2 passed, 0 failed");
}

/// An included file's lines are reported in that file, as for Rust.
#[test]
fn included_code_fails_at_the_included_line() {
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[preprocessor.snippets.languages.python]\n\
             command = [\"python3\", \"{file}\"]\nextension = \"py\"\nerror-position = \"last\"\n",
        ),
        (
            "src/inc.py",
            "x = 1\nraise RuntimeError(\"from the include\")\n",
        ),
        (
            "src/a.md",
            "# A\n\n```python\nprint(\"a\")\n{{#include inc.py}}\n```\n",
        ),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    expect![[r#"
        error: snippet src_a_md_1 failed at run time
         --> src/inc.py:2:1
          |
        1 | x = 1
        2 | raise RuntimeError("from the include")
          | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ exited with code 1
          stderr:
          Traceback (most recent call last):
            File "src/inc.py", line 2, in <module>
              raise RuntimeError("from the include")
          RuntimeError: from the include

        failures:
            src/a.md:3 (failed at run time, src_a_md_1, error at src/inc.py:2)

        finished in [TIME]
        0 passed, 1 failed
    "#]]
    .assert_eq(&output.stdout());
}
