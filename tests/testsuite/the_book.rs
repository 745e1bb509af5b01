//! The repository's own book: every snippet verifies, and the verification has teeth — changing
//! what a snippet prints, or breaking the server behaviour a chapter relies on, fails it at the
//! chapter's line.

use std::path::Path;

use crate::support::{
    Book, book, copy_tree, keep_modified, read, repo, set_up_languages, snippets_target_dir,
};

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

/// A book holding one chapter of the real book, whose harness is `harness`; its languages'
/// commands (`interop/snippets/...`, relative to the book), `setup` and `setup-inputs` point
/// into this repository.
fn one_chapter(chapter: &str, harness: &Path) -> Book {
    set_up_languages();
    let book_toml = read(&repo().join("book.toml"));
    let interop = format!("[\"{}/interop/", repo().display());
    let book_toml = book_toml
        .lines()
        .map(|line| match line.trim_start() {
            l if l.starts_with("harness =") => {
                format!("harness = {:?}", harness.display().to_string())
            }
            l if l.starts_with("command = [\"interop/") => {
                line.replacen("[\"interop/", &interop, 1)
            }
            // The languages' `setup` and its inputs are this repository's too.
            l if l.starts_with("setup = [\"") || l.starts_with("setup-inputs = [\"") => {
                let (key, paths) = line.split_once('[').expect("a list");
                let paths = paths.replace('"', "");
                let absolute: Vec<String> = paths
                    .trim_end_matches(']')
                    .split(", ")
                    .map(|path| format!("{:?}", repo().join(path).display().to_string()))
                    .collect();
                format!("{key}[{}]", absolute.join(", "))
            }
            _ => line.to_owned(),
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
    set_up_languages();
    // Built in the workspace's own target dir, exactly where `mdbook build` (the preprocessor)
    // builds and caches, so serving the book after `cargo test` verifies from the cache.
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target/tmp has a parent");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"));
    // `--mutants`: every snippet that claims `kills=NAME` runs once more against the test server
    // with that rule broken, and must fail (issue 18): 0 survived, or the book fails.
    command.arg("test").arg("--mutants").arg(repo());
    let output = book(&[]).run_with_target_dir(command, target_dir);
    output.code(0);
    let (passed, failed) = summary(&output.stdout);
    assert_eq!(failed, 0, "{output}");
    let mutants = output
        .stdout
        .lines()
        .find(|line| line.starts_with("mutants: "))
        .unwrap_or_else(|| panic!("no `mutants:` line in the report\n{output}"));
    assert!(
        mutants.ends_with(" 0 survived") && !mutants.starts_with("mutants: 0 killed"),
        "{mutants}\n{output}"
    );
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
    // Only that snippet fails; the chapter's others (Rust, Python, TypeScript) still pass.
    let snippets = original
        .lines()
        .filter(|l| {
            ["```rust", "```python", "```typescript"]
                .iter()
                .any(|f| l.starts_with(f))
        })
        .count();
    assert_eq!(summary(&output.stdout), (snippets - 1, 1), "{output}");
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
    // handler: exactly the bug class of go-sdk#1259 and python-sdk#1152. Always at one path,
    // its files with their originals' times (the two edited below too), so a second run finds
    // its crates built and fresh unless the originals changed; copied to a new path each run,
    // the copy's two crates were built again each time, and kept beside the old ones in the
    // target dir (20 MB more a run).
    let workspace = Path::new(env!("CARGO_TARGET_TMPDIR")).join("broken-server");
    if workspace.exists() {
        std::fs::remove_dir_all(&workspace).expect("removing the last run's copy");
    }
    std::fs::create_dir_all(&workspace).expect("creating the copy's folder");
    for entry in [
        "Cargo.toml",
        "Cargo.lock",
        "src",
        "testserver",
        "snippets",
        "interop/rmcp",
    ] {
        copy_tree(&repo().join(entry), &workspace.join(entry));
    }
    // (The `cancel-ignored` mutant guards the same line; this edit of the source is the check
    // that no such hook is needed for the book to notice.)
    let stop = "            call.cancelled = true;\n            if !self.core.breaks(Mutant::CancelIgnored) {\n                call.token.cancel();\n            }\n";
    edit_copy(
        &workspace,
        "testserver/src/server/calls.rs",
        &[(stop, "            call.cancelled = true;\n")],
    );
    // The Python and TypeScript snippets start the binary `$MCP_TESTSERVER` names: the broken
    // copy's, built where every test builds its snippets (the workspace's target dir), under a
    // name of its own so the real `target/debug/mcp-testserver` stays. Built with the harness's
    // features (`-p mcp-testserver-harness`), every dependency is one the book's snippets
    // already built, and the copy's server library is the one its Rust snippets link below:
    // only the copy's two crates are compiled here.
    //
    // The copy's package is renamed too: under its own name its crates are built apart from the
    // real ones. Named `mcp-testserver` at the same place in its workspace, the copy's library
    // had the same file name and fingerprint as the real one built with the harness's features,
    // so after this test `cargo test -p mcp-testserver-harness` found the broken library fresh
    // and linked it (the harness's stress test failed: every cancelled handler ran to the end).
    edit_copy(
        &workspace,
        "testserver/Cargo.toml",
        &[
            (
                "[package]\nname = \"mcp-testserver\"\n",
                "[package]\nname = \"mcp-testserver-broken\"\n",
            ),
            (
                "[[bin]]\nname = \"mcp-testserver\"\n",
                "[[bin]]\nname = \"mcp-testserver-broken\"\n",
            ),
        ],
    );
    edit_copy(
        &workspace,
        "snippets/Cargo.toml",
        &[(
            "\nmcp-testserver = { path = \"../testserver\",",
            // The key names the crate: the library's name, as without `package`.
            "\nmcp-testserver-core = { package = \"mcp-testserver-broken\", path = \"../testserver\",",
        )],
    );
    let server_target = snippets_target_dir();
    // Not `--locked`: the copy's lock file takes the new name (`--offline`: nothing else moves).
    let build = std::process::Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--offline", "--bins"])
        .args([
            "-p",
            "mcp-testserver-broken",
            "-p",
            "mcp-testserver-harness",
        ])
        .arg("--manifest-path")
        .arg(workspace.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &server_target)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("running cargo build");
    assert!(
        build.status.success(),
        "building the broken server copy failed:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let broken_server = server_target.join("debug/mcp-testserver-broken");

    let chapter = "client-cancellation.md";
    let book = one_chapter(chapter, &workspace.join("snippets"));
    let mut command = book.test_command(&["--timeout", "10"]);
    command.env("MCP_TESTSERVER", &broken_server);
    let output = book.run(command);
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
    // And it fails in every language the chapter shows, not only in the in-process Rust harness.
    let failing = failing_languages(
        &read(&book.path().join("book").join(chapter)),
        &output.stdout,
    );
    for language in ["rust", "python", "typescript"] {
        assert!(
            failing.contains(&language.to_owned()),
            "no {language} snippet failed against the broken server (failing: {failing:?})\n{output}"
        );
    }
}

/// Replaces each `(from, to)` in `workspace`'s copy of this repository's file `relative`, where
/// each `from` must be found exactly once (else the edit point moved), and gives the copy its
/// original's modification time, so the edited copy is as fresh as that original.
fn edit_copy(workspace: &Path, relative: &str, edits: &[(&str, &str)]) {
    let path = workspace.join(relative);
    let mut text = read(&path);
    for (from, to) in edits {
        assert_eq!(
            text.matches(from).count(),
            1,
            "the edit point moved in {}: {from:?}",
            path.display()
        );
        text = text.replace(from, to);
    }
    std::fs::write(&path, text)
        .unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
    keep_modified(&repo().join(relative), &path);
}

/// The languages (first word of the fence) of the snippets the closing `failures:` list of a
/// report names, by the line each failure points at in `chapter` (`book/NAME.md:LINE (note)`).
fn failing_languages(chapter: &str, stdout: &str) -> Vec<String> {
    let lines: Vec<&str> = chapter.lines().collect();
    let mut languages = Vec::new();
    for failure in stdout.lines().map(str::trim_start) {
        let Some(rest) = failure.strip_prefix("book/") else {
            continue;
        };
        let Some((_, rest)) = rest.split_once(".md:") else {
            continue;
        };
        let Some(line) = rest.split(' ').next().and_then(|n| n.parse::<usize>().ok()) else {
            continue;
        };
        // The nearest opening fence at or above the line, and its language.
        let fence = lines[..line.min(lines.len())]
            .iter()
            .rev()
            .find(|l| l.starts_with("```") && l.len() > 3 && !l.starts_with("```text"));
        if let Some(fence) = fence {
            let word = fence[3..].split([',', ' ']).next().unwrap_or_default();
            let language = if word == "python" || word == "typescript" {
                word
            } else {
                "rust"
            };
            if !languages.iter().any(|known| known == language) {
                languages.push(language.to_owned());
            }
        }
    }
    languages
}
