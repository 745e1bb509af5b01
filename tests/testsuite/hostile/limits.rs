//! Limits and inputs (issue 16): timeouts too large for the clock, a symlink cycle, a full
//! disk, a secret in the environment.

use std::time::{Duration, Instant};

use expect_test::expect;

use super::{sh_book, sh_book_toml};
use crate::support::{Book, book, check_bad_config, preprocessor, tmpfs};

/// Every timeout the configuration accepts works: one too large for the clock is no deadline
/// (it panicked, "overflow when adding duration to instant"); 0 is refused, as is `--jobs 0`.
#[test]
fn any_accepted_timeout_works_and_zero_is_refused() {
    let chapter = "# A\n\n```sh,timeout=18446744073709551615\necho fine\n```\n";
    let book = sh_book("timeout = 9223372036854775807\n", chapter);
    book.test(&["--quiet", "--no-cache"])
        .code(0)
        .stdout_contains("1 passed, 0 failed");
    book.test(&["--quiet", "--no-cache", "--timeout", "18446744073709551615"])
        .code(0);
    book.test(&["--quiet", "--timeout", "0"])
        .code(2)
        .stderr_contains("--timeout <TIMEOUT>");
    book.test(&["--quiet", "--jobs", "0"])
        .code(2)
        .stderr_contains("--jobs <JOBS>");
    check_bad_config(
        &sh_book_toml("timeout = 0\n"),
        expect![[r#"
        error: in [ROOT]/book.toml: `timeout` must be a positive integer, found 0
    "#]],
    );
}

/// Without SUMMARY.md, a directory link back up the tree (a cycle) does not hang the scan.
#[test]
fn a_symlink_cycle_under_src_does_not_hang_the_chapter_scan() {
    let book = book(&[
        ("book.toml", &sh_book_toml("")),
        ("src/a.md", "# A\n\n```sh\necho a\n```\n"),
        ("src/part/b.md", "# B\n\n```sh\necho b\n```\n"),
    ]);
    std::os::unix::fs::symlink("..", book.path().join("src/part/up")).unwrap();
    std::os::unix::fs::symlink("../..", book.path().join("src/part/top")).unwrap();
    let started = Instant::now();
    book.test(&["--quiet"])
        .code(0)
        .stdout_contains("2 passed, 0 failed");
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// A variable of the verifier's environment reaches no snippet (and so no page), unless the
/// book lists it in `pass-env`; both for `test` and for the preprocessor.
#[test]
fn a_secret_in_the_environment_reaches_no_snippet_unless_listed() {
    let chapter = |shown: &str| {
        format!(
            "# A\n\n```sh\necho \"token=${{MY_SECRET_TOKEN:-unset}}\"\n```\n\n\
             ```text,output\ntoken={shown}\n```\n"
        )
    };
    let test_with_secret = |book: &Book| {
        let mut command = book.test_command(&["--quiet", "--no-cache"]);
        command.env("MY_SECRET_TOKEN", "hunter2");
        book.run(command)
    };
    let closed = sh_book("", &chapter("unset"));
    test_with_secret(&closed).code(0);
    let page = rendered_with_secret(&closed);
    assert!(page.contains("token=unset"), "{page}");
    assert!(!page.contains("hunter2"), "{page}");

    let open = sh_book("pass-env = [\"MY_SECRET_TOKEN\"]\n", &chapter("hunter2"));
    test_with_secret(&open).code(0);
    let page = rendered_with_secret(&open);
    assert!(page.contains("token=hunter2"), "{page}");
}

/// A variable `pass-env` lets through is part of the cache key: a cached pass is not reused when
/// its value changes.
#[test]
fn a_passed_variable_is_part_of_the_cache_key() {
    let book = sh_book(
        "pass-env = [\"SOAK_VALUE\"]\n",
        "# A\n\n```sh\necho \"value=$SOAK_VALUE\"\n```\n\n```text,output\nvalue=1\n```\n",
    );
    let test_with = |value: &str| {
        let mut command = book.test_command(&["--quiet"]);
        command.env("SOAK_VALUE", value);
        book.run(command)
    };
    test_with("1").code(0);
    test_with("2").code(1).stdout_contains("+ value=2");
}

/// The chapter as the preprocessor renders it, run with `MY_SECRET_TOKEN=hunter2`.
fn rendered_with_secret(book: &Book) -> String {
    let (_, rendered) = preprocessor::rendered(book.path(), &[("MY_SECRET_TOKEN", "hunter2")]);
    preprocessor::chapter(&rendered, "A").content.clone()
}

/// A full disk for the cache (a tmpfs of 256 KiB, filled up): the verdicts are still reported,
/// the error names the disk, the exit code is 2, and no partial or empty file is left.
#[test]
fn a_full_disk_for_the_cache_keeps_the_verdicts_and_exits_2() {
    let book = sh_book(
        "",
        "# A\n\n```sh\necho one\n```\n\n```sh\necho two\n```\n\n```sh\nexit 3\n```\n",
    );
    let then = "echo '--- leftovers' >&2; \
                find \"$MOUNT/target\" -type f \\( -name '*partial*' -o -empty \\) >&2";
    let Some(output) = tmpfs::test_on_tmpfs(&book, "256k", true, then) else {
        // No way to a real ENOSPC here; the cache's own test injects it (see `cache::tests`).
        eprintln!("note: no mount namespace on this machine: the real-ENOSPC check did not run");
        return;
    };
    output
        .code(2)
        .stdout_contains("2 passed, 1 failed")
        .stderr_contains("out of disk space")
        .stderr_contains("No space left on device");
    let leftovers = output.stderr.split("--- leftovers\n").nth(1);
    assert_eq!(leftovers, Some(""), "{output}");
}

/// A full disk while building (a 300 KiB tmpfs as the target dir): the tool's error naming the
/// disk, exit 2, not every snippet "does not compile".
#[test]
fn a_full_disk_while_building_is_a_tool_error() {
    let book = book(&[
        ("src/SUMMARY.md", "- [A](a.md)\n"),
        (
            "src/a.md",
            "# A\n\n```rust\nprintln!(\"one\");\n```\n\n```rust\nprintln!(\"two\");\n```\n",
        ),
    ]);
    let Some(output) = tmpfs::test_on_tmpfs(&book, "300k", false, "true") else {
        eprintln!("note: no mount namespace on this machine: the real-ENOSPC check did not run");
        return;
    };
    output.code(2).stderr_contains("No space left on device");
    assert!(!output.stdout.contains("does not compile"), "{output}");
}

/// A verifier started under a lower address-space limit than `memory-limit`'s default (the
/// user's `ulimit -v`) still runs its snippets, under the lower limit: the launcher never tries
/// to raise a hard limit (it failed every snippet with "setting `memory-limit`: Operation not
/// permitted").
#[test]
fn a_lower_limit_from_the_caller_is_kept_not_raised() {
    let chapter = "# A\n\n```sh\nulimit -v\n```\n\n```text,output\n4000000\n```\n";
    let book = sh_book("", chapter);
    let command = book.test_command(&["--no-cache"]);
    let program = command.get_program().to_owned();
    let arguments: Vec<_> = command.get_args().map(|a| a.to_owned()).collect();
    let mut limited = std::process::Command::new("sh");
    limited
        .arg("-c")
        .arg("ulimit -v 4000000 && exec \"$@\"")
        .arg("sh")
        .arg(program)
        .args(arguments);
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => limited.env(key, value),
            None => limited.env_remove(key),
        };
    }
    if let Some(directory) = command.get_current_dir() {
        limited.current_dir(directory);
    }
    book.run(limited)
        .code(0)
        .stdout_contains("1 passed, 0 failed");
}
