//! The repository's own book: every snippet verifies, and the verification has teeth — changing
//! what a snippet prints, or breaking the server behaviour a chapter relies on, fails it at the
//! chapter's line.

use std::path::{Path, PathBuf};

use crate::support::{Book, book};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()))
}

/// The `N passed, M failed[, K skipped]` line that closes a report.
fn summary(stdout: &str) -> (usize, usize) {
    let last = stdout.lines().last().unwrap_or_default();
    let mut numbers = last
        .split(", ")
        .map(|part| part.split(' ').next().and_then(|n| n.parse::<usize>().ok()));
    match (numbers.next().flatten(), numbers.next().flatten()) {
        (Some(passed), Some(failed)) => (passed, failed),
        _ => panic!("no `N passed, M failed` line at the end of:\n{stdout}"),
    }
}

/// A book holding one chapter of the real book, whose harness is `harness`.
fn one_chapter(chapter: &str, harness: &Path) -> Book {
    let book_toml = read(&repo().join("book.toml"));
    let book_toml = book_toml
        .lines()
        .map(|line| match line.trim_start().starts_with("harness =") {
            true => format!("harness = {:?}", harness.display().to_string()),
            false => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let content = read(&repo().join("book").join(chapter));
    book(&[
        ("book.toml", &book_toml),
        (
            "book/SUMMARY.md",
            &format!("# Summary\n\n- [Chapter]({chapter})\n"),
        ),
        (&format!("book/{chapter}"), &content),
    ])
}

#[test]
fn every_snippet_of_the_book_verifies() {
    // Built in the workspace's own target dir, exactly where `mdbook build` (the preprocessor)
    // builds and caches, so serving the book after `cargo test` verifies from the cache.
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target/tmp has a parent");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"));
    command.arg("test").arg(repo());
    let output = book(&[]).run_with_target_dir(command, target_dir);
    output.code(0);
    let (passed, failed) = summary(&output.stdout);
    assert_eq!(failed, 0, "{output}");
    assert!(
        passed >= 40,
        "the book should have at least 40 verified snippets\n{output}"
    );
}

#[test]
fn changing_what_a_snippet_prints_fails_the_book_at_its_line() {
    let chapter = "short-answer.md";
    let book = one_chapter(chapter, &repo().join("snippets"));
    let path = book.path().join("book").join(chapter);
    let original = read(&path);
    let needle = "println!(\"request {} is in flight\", handle.id);";
    assert!(
        original.contains(needle),
        "the chapter no longer has the line this test edits: {needle}"
    );
    let line = original
        .lines()
        .position(|l| l.contains(needle))
        .expect("found above")
        + 1;
    std::fs::write(
        &path,
        original.replace(needle, "println!(\"request {} is on its way\", handle.id);"),
    )
    .expect("editing the chapter copy");

    let output = book.test(&[]);
    output.code(1);
    assert_eq!(summary(&output.stdout), (1, 1), "{output}");
    // The report names the expected-output block under the snippet by chapter and line, and
    // shows what the snippet printed instead.
    let expected_block = original
        .lines()
        .enumerate()
        .skip(line)
        .find(|(_, l)| l.starts_with("```text,output"))
        .map(|(index, _)| index + 1)
        .expect("the snippet has an expected-output block");
    output.stdout_contains(&format!("book/{chapter}:{expected_block}"));
    output.stdout_contains("request 1 is on its way");
    // Nothing but --bless may touch a source file.
    assert!(read(&path).contains("request {} is on its way"));
}

#[test]
fn breaking_the_servers_cancellation_fails_the_chapter_that_relies_on_it() {
    // A copy of the workspace whose server marks a cancelled request but no longer stops its
    // handler: exactly the bug class of go-sdk#1259 and python-sdk#1152.
    let workspace = tempfile::Builder::new()
        .prefix("broken-server-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("creating a temporary workspace");
    for entry in ["Cargo.toml", "Cargo.lock", "src", "testserver", "snippets"] {
        copy(&repo().join(entry), &workspace.path().join(entry));
    }
    let calls = workspace.path().join("testserver/src/server/calls.rs");
    let source = read(&calls);
    let stop = "            call.cancelled = true;\n            call.token.cancel();\n";
    assert_eq!(
        source.matches(stop).count(),
        1,
        "the mutation point moved in {}",
        calls.display()
    );
    std::fs::write(
        &calls,
        source.replace(stop, "            call.cancelled = true;\n"),
    )
    .expect("breaking the server copy");

    let book = one_chapter("client-cancellation.md", &workspace.path().join("snippets"));
    let output = book.test(&["--timeout", "10"]);
    output.code(1);
    let (_, failed) = summary(&output.stdout);
    assert!(failed > 0, "{output}");
    output.stdout_contains("book/client-cancellation.md:");
    // The page said the cancel stopped the handler; the broken server cannot show that.
    let lost = output
        .stdout
        .lines()
        .filter(|line| line.trim_start().starts_with("- ") && line.contains("stopped by cancel"))
        .count();
    assert!(
        lost > 0,
        "no expected `stopped by cancel` line went missing\n{output}"
    );
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).expect("creating a directory");
        for entry in std::fs::read_dir(from)
            .unwrap_or_else(|error| panic!("reading {}: {error}", from.display()))
        {
            let entry = entry.expect("reading a directory entry");
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::copy(from, to)
            .unwrap_or_else(|error| panic!("copying {}: {error}", from.display()));
    }
}
