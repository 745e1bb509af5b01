//! A snippet runs in a box: closed stdin, its own working directory, a timeout and an output
//! cap that end its whole process group, and no child left behind.

use crate::support::{Tagged, book};

#[test]
fn timeout_kills_an_infinite_loop() {
    let book = book(&[("src/a.md", "```rust,timeout=1\nloop {}\n```\n")]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    output.stdout_contains("timed out after 1 s; the process group was killed");
}

#[test]
fn stdout_flood_is_stopped() {
    let book = book(&[
        (
            "book.toml",
            "[preprocessor.snippets]\noutput-limit = 10000\ntimeout = 30\n",
        ),
        (
            "src/a.md",
            "```rust\nloop {\n    println!(\"flood\");\n}\n```\n",
        ),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    output.stdout_contains("printed more than 10000 bytes on stdout or stderr; stopped");
}

#[test]
fn stdin_is_closed_and_the_working_directory_is_fresh() {
    let book = book(&[(
        "src/a.md",
        r#"```rust
let mut line = String::new();
let read = std::io::stdin().read_line(&mut line).unwrap();
println!("read {read} bytes");
let entries = std::fs::read_dir(".").unwrap().count();
println!("{entries} entries here");
```

```text,output
read 0 bytes
0 entries here
```
"#,
    )]);
    book.test(&["--quiet"]).code(0);
}

#[test]
fn a_child_left_sleeping_is_killed() {
    let book = book(&[]);
    // Found by a token in its command line: in a PID namespace the snippet knows no pid the
    // test could look up.
    let child = Tagged::new();
    book.write(
        "src/a.md",
        &format!(
            "```rust\nstd::process::Command::new(\"sleep\").arg(\"300.{}\").spawn().unwrap();\n\
             std::thread::sleep(std::time::Duration::from_millis(200));\n```\n",
            child.token()
        ),
    );
    book.test(&["--quiet"]).code(0);
    // The child was killed (and reaped): gone, or a zombie.
    child.assert_gone(std::time::Duration::from_secs(5));
}

#[test]
fn harness_environment_reaches_the_snippet() {
    let book = book(&[
        (
            "book.toml",
            "[preprocessor.snippets]\ndefault-attributes = [\"revision=2025-11-25\", \"trace=off\"]\n",
        ),
        (
            "src/a.md",
            r#"```rust,revision=both
println!("{}", std::env::var("MDBOOK_SNIPPETS_ATTRS").unwrap());
let artifacts = std::env::var("MDBOOK_SNIPPETS_ARTIFACTS").unwrap();
println!("{}", std::fs::read_dir(artifacts).unwrap().count());
```

```text,output
trace=off,revision=both
0
```
"#,
        ),
    ]);
    book.test(&["--quiet"]).code(0);
}

/// The launcher's arguments (`__sandbox`, the verifier's interface with itself, read before
/// clap) that it cannot read are refused with the reason and exit 2, the program unstarted.
#[test]
fn a_bad_launcher_argument_list_is_refused_with_the_reason() {
    for (args, reason) in [
        (
            &["--bogus", "--", "true"][..],
            "unexpected argument `--bogus`",
        ),
        (
            &["--parent", "x", "--", "true"][..],
            "`--parent`: `x` is not a valid number",
        ),
        (&["--scratch-limit"][..], "`--scratch-limit` needs a value"),
        (&["true"][..], "unexpected argument `true`"),
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"))
            .arg("__sandbox")
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(
            stderr,
            format!("mdbook-snippets __sandbox: {reason}\n"),
            "{args:?}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}
