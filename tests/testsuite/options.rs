//! The options of `mdbook-snippets test` that choose and schedule work: `--chapter`,
//! `--filter`, `--partition`, the crate-directory lock two runs share, and `RUSTC_WRAPPER`.

use std::process::Command;

use expect_test::expect;

use crate::support::{Output, book};

/// Two chapters; `src/one.md` has snippets at lines 1, 5 and 30.
fn two_chapters() -> crate::support::Book {
    let one = format!(
        "```rust\nlet a = 1;\n```\n\n```rust\nlet b = 2;\n```\n{}```rust\nlet c = 3;\n```\n",
        "\n".repeat(22)
    );
    book(&[
        ("src/one.md", &one),
        ("src/part/two.md", "```rust\nlet d = 4;\n```\n"),
    ])
}

/// The `test PATH:LINE ... VERDICT` lines of stderr, sorted, then the summary.
fn ran(output: &Output) -> String {
    let mut lines: Vec<&str> = output
        .stderr
        .lines()
        .filter(|line| line.starts_with("test "))
        .collect();
    lines.sort();
    let summary = output.stdout.lines().last().unwrap_or_default();
    format!("{}\n{summary}\n", lines.join("\n"))
}

#[test]
fn chapter_and_name_filters() {
    let book = two_chapters();
    let output = book.test(&["--chapter", "part/"]);
    expect![[r#"
        test src/part/two.md:1 ... ok
        1 passed, 0 failed, 3 skipped
    "#]]
    .assert_eq(&ran(output.code(0)));
    let output = book.test(&["--filter", "one.md:31"]);
    expect![[r#"
        test src/one.md:30 ... ok
        1 passed, 0 failed, 3 skipped
    "#]]
    .assert_eq(&ran(output.code(0)));
    let output = book.test(&["--chapter", "one.md", "--filter", "src_one_md_2"]);
    expect![[r#"
        test src/one.md:5 ... ok
        1 passed, 0 failed, 3 skipped
    "#]]
    .assert_eq(&ran(output.code(0)));
}

#[test]
fn a_selection_that_matches_nothing_is_a_usage_error() {
    let book = two_chapters();
    let stderr = |args: &[&str]| book.test(args).code(2).stderr();
    // `PATH:LINE` is exact: line 3 (a closing fence) selects nothing, never line 30.
    expect![[r#"
        error: --filter `one.md:3` matched no snippet in the book (a `PATH:LINE` must name the opening fence or a code line; other text is matched against snippet ids)
    "#]].assert_eq(&stderr(&["--filter", "one.md:3"]));
    expect![[r#"
        error: --filter `no_such_snippet` matched no snippet in the book (a `PATH:LINE` must name the opening fence or a code line; other text is matched against snippet ids)
    "#]].assert_eq(&stderr(&["--filter", "no_such_snippet"]));
    expect![[r#"
        error: --chapter `three`, `four` matched no chapter with snippets (the book has 4 snippet(s))
    "#]].assert_eq(&stderr(&["--chapter", "three", "--chapter", "four"]));
    expect![[r#"
        error: --filter `src_one_md` matched no snippet in the chapters --chapter selects (a `PATH:LINE` must name the opening fence or a code line; other text is matched against snippet ids)
    "#]].assert_eq(&stderr(&["--chapter", "part/", "--filter", "src_one_md"]));
    expect![[r#"
        error: --partition 5/5 matched no snippet: only 4 snippet(s) to share out
    "#]]
    .assert_eq(&stderr(&["--partition", "5/5"]));
}

#[test]
fn partitions_split_the_book() {
    let book = two_chapters();
    let first = book.test(&["--partition", "1/2"]);
    expect![[r#"
        test src/one.md:1 ... ok
        test src/one.md:30 ... ok
        2 passed, 0 failed, 2 skipped
    "#]]
    .assert_eq(&ran(first.code(0)));
    let second = book.test(&["--partition", "2/2"]);
    expect![[r#"
        test src/one.md:5 ... ok
        test src/part/two.md:1 ... ok
        2 passed, 0 failed, 2 skipped
    "#]]
    .assert_eq(&ran(second.code(0)));
    book.test(&["--partition", "3/2"])
        .code(2)
        .stderr_contains("expected K/N with 1 <= K <= N, found `3/2`");
}

#[test]
fn a_second_run_waits_for_the_first() {
    let book = book(&[("src/a.md", "```rust\nprintln!(\"locked\");\n```\n")]);
    let first = book.test(&["--no-cache"]);
    first.code(0);
    let crate_dir = first
        .stderr
        .lines()
        .find_map(|line| line.strip_prefix("building 1 snippet(s) in "))
        .unwrap_or_else(|| panic!("no building line\n{first}"));
    let lock = std::path::Path::new(crate_dir).join(".mdbook-snippets.lock");
    // Another run holds the crate directory for two seconds.
    let ready = book.path().join("holding");
    let mut holder = Command::new("flock")
        .arg(&lock)
        .arg("-c")
        .arg(format!("touch {:?}; sleep 2", ready))
        .spawn()
        .expect("running flock");
    while !ready.exists() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let started = std::time::Instant::now();
    let second = book.test(&["--no-cache"]);
    second
        .code(0)
        .stderr_contains(&format!("waiting for {}", lock.display()));
    assert!(started.elapsed() >= std::time::Duration::from_millis(1000));
    holder.wait().expect("flock ends");
}

#[test]
fn rustc_wrapper_is_honoured() {
    let book = book(&[("src/a.md", "```rust\nprintln!(\"wrapped\");\n```\n")]);
    let log = book.path().join("wrapper.log");
    let wrapper = book.path().join("wrapper.sh");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\necho \"$@\" >> {:?}\nexec \"$@\"\n", log),
    )
    .unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let mut command = book.test_command(&["--quiet", "--no-cache"]);
    command.env("RUSTC_WRAPPER", &wrapper);
    book.run(command).code(0);
    let log = std::fs::read_to_string(&log).expect("the wrapper ran");
    assert!(log.contains("--crate-name snippets_"), "{log}");
}

#[test]
fn a_terminal_gets_a_progress_bar() {
    let book = book(&[(
        "src/a.md",
        "```rust\nprintln!(\"ok\");\n```\n```rust\nlet x: u8 = 300;\n```\n",
    )]);
    // `script` gives the command a terminal; the report (stdout) goes to a file.
    let report = book.path().join("report.txt");
    let inner = format!(
        "{:?} test {:?} --no-cache > {:?}",
        env!("CARGO_BIN_EXE_mdbook-snippets"),
        book.path(),
        report
    );
    let mut command = Command::new("script");
    command.args(["-qec", &inner, "/dev/null"]);
    let output = book.run(command);
    output
        .code(1)
        .stdout_contains("/2 snippets")
        .stdout_contains("test src/a.md:4 ... FAILED");
    assert!(!output.stdout.contains("... ok"), "{output}");
    let report = std::fs::read_to_string(report).unwrap();
    assert!(report.ends_with("1 passed, 1 failed\n"), "{report}");
}
