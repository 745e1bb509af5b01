//! The guide (`guide/`, the mdBook for mdbook-snippets users) is verified by the tool it
//! documents: its Rust blocks compile and run, and its `sh` blocks run the binary under test on
//! the example books of `guide/examples/` (through `guide/tools/shell-snippet`, each in a fresh
//! temporary directory) and must print what the page shows. A wrong expected output fails it at
//! the chapter's line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use crate::support::{Output, book, copy_tree, files_under, read, repo};

/// The variable `guide/book.toml` passes to snippets (`pass-env`): the binary the `sh` snippets
/// run as `mdbook-snippets`.
const BINARY_VARIABLE: &str = "GUIDE_MDBOOK_SNIPPETS";

fn guide() -> PathBuf {
    repo().join("guide")
}

/// `mdbook-snippets test DIR ARGS` whose `sh` snippets run this build of the tool too.
fn test_command(dir: &Path, args: &[&str]) -> Command {
    let binary = env!("CARGO_BIN_EXE_mdbook-snippets");
    let mut command = Command::new(binary);
    command
        .arg("test")
        .arg(dir)
        .args(args)
        .env(BINARY_VARIABLE, binary);
    command
}

/// The `N passed, M failed[, K skipped]` line that closes a report.
fn summary(output: &Output) -> (usize, usize) {
    let last = output.stdout.lines().last().unwrap_or_default();
    let mut numbers = last
        .split(", ")
        .map(|part| part.split(' ').next().and_then(|n| n.parse::<usize>().ok()));
    match (numbers.next().flatten(), numbers.next().flatten()) {
        (Some(passed), Some(failed)) => (passed, failed),
        _ => panic!("no `N passed, M failed` line at the end of the report\n{output}"),
    }
}

/// A snippet of the guide's Markdown: its chapter, the line of its opening fence, its info
/// string, its code, and whether an expected-output block follows it.
struct Block {
    chapter: String,
    line: usize,
    info: String,
    code: String,
    expected: bool,
    /// Byte offset just past the block's closing fence.
    end: usize,
}

/// The fenced blocks of every chapter, as CommonMark reads them (pulldown-cmark, the parser the
/// verifier uses): a ```` ````sh ```` block holding a heredoc with fences inside is one block,
/// and a line that only looks like a fence (```` ```rust ```` as inline code) is none.
fn blocks() -> Vec<Block> {
    let mut found: Vec<Block> = Vec::new();
    let mut chapters: Vec<PathBuf> = files_under(&guide().join("src"))
        .into_iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    chapters.sort();
    for path in chapters {
        let text = read(&path);
        let chapter = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut open: Option<Block> = None;
        for (event, range) in Parser::new_ext(&text, Options::empty()).into_offset_iter() {
            match event {
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                    // An expected-output block belongs to the block right before it, with
                    // only blank lines between them.
                    if info.split([',', ' ']).any(|word| word == "output")
                        && let Some(previous) = found.last_mut()
                        && previous.chapter == chapter
                        && text[previous.end..range.start].trim().is_empty()
                    {
                        previous.expected = true;
                    }
                    open = Some(Block {
                        chapter: chapter.clone(),
                        line: text[..range.start].lines().count() + 1,
                        info: info.to_string(),
                        code: String::new(),
                        expected: false,
                        end: range.end,
                    });
                }
                Event::Text(code) => {
                    if let Some(block) = open.as_mut() {
                        block.code.push_str(&code);
                    }
                }
                Event::End(TagEnd::CodeBlock) => found.extend(open.take()),
                _ => {}
            }
        }
    }
    found
}

/// Whether a block is a shell snippet that runs (`sh`, not `no_run` or `ignore`) and starts
/// `mdbook-snippets` (a visible line of it does, not only a hidden one).
fn is_cli_run(block: &Block) -> bool {
    let words: Vec<&str> = block.info.split([',', ' ']).collect();
    words.first() == Some(&"sh")
        && !words.contains(&"no_run")
        && !words.contains(&"ignore")
        && block
            .code
            .lines()
            .filter(|line| !line.starts_with("!!!"))
            .any(|line| line.contains("mdbook-snippets "))
}

/// Every file under `dir` with its content, to tell whether a run wrote anything there.
fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files_under(dir)
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap_or_default();
            (path, bytes)
        })
        .collect()
}

#[test]
fn every_snippet_of_the_guide_verifies() {
    let blocks = blocks();
    let cli_runs: Vec<&Block> = blocks.iter().filter(|block| is_cli_run(block)).collect();
    assert!(
        cli_runs.len() >= 10,
        "the guide should show at least 10 runs of the CLI, found {}",
        cli_runs.len()
    );
    // A run whose output nobody checks would show the reader an output no one verified.
    for block in &cli_runs {
        assert!(
            block.expected,
            "{}:{}: a run of the CLI without an expected-output block under it",
            block.chapter, block.line
        );
    }
    let before = contents(&guide());

    // Verified in the workspace's own target dir, where `mdbook build guide` (the preprocessor)
    // builds and caches, so building the guide after `cargo test` verifies from the cache.
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target/tmp has a parent");
    let output = book(&[]).run_with_target_dir(test_command(&guide(), &[]), target_dir);
    output.code(0);
    let (passed, failed) = summary(&output);
    assert_eq!(failed, 0, "{output}");
    assert!(
        passed >= 20,
        "the guide should have at least 20 verified snippets, {passed} passed\n{output}"
    );
    // The snippets ran on copies: nothing of the guide, its example books included, was written.
    assert!(
        contents(&guide()) == before,
        "verifying the guide changed files under guide/\n{output}"
    );
}

#[test]
fn a_wrong_expected_output_fails_the_guide_at_its_line() {
    // A copy of the guide, whose first run of the CLI claims one failure more than it prints.
    let copy = book(&[]);
    for entry in ["book.toml", "src", "examples", "tools"] {
        copy_tree(&guide().join(entry), &copy.path().join(entry));
    }
    let chapter = copy.path().join("src/first-book.md");
    let text = read(&chapter);
    let run = blocks()
        .into_iter()
        .find(|block| block.chapter == "first-book.md" && is_cli_run(block))
        .expect("first-book.md runs the CLI");
    let claimed = "2 passed, 0 failed\n```";
    let at = text.find(claimed).expect("the first run's expected block");
    let before: Vec<&str> = text[..at].lines().collect();
    let expected_line = before
        .iter()
        .rposition(|line| *line == "```text,output")
        .expect("its opening fence")
        + 1;
    std::fs::write(
        &chapter,
        text.replacen(claimed, "2 passed, 1 failed\n```", 1),
    )
    .expect("editing the copy");

    let filter = format!("src/first-book.md:{}", run.line);
    let output = copy.run(test_command(copy.path(), &["--filter", &filter]));
    output.code(1);
    assert_eq!(summary(&output), (0, 1), "{output}");
    // At the snippet's fence, with the expected block's line beside it.
    output.stdout_contains(&format!("src/first-book.md:{} (output differs", run.line));
    output.stdout_contains(&format!("error at line {expected_line})"));
    // The diff shows the claim and what the CLI really printed.
    output.stdout_contains("- 2 passed, 1 failed");
    output.stdout_contains("+ 2 passed, 0 failed");
}
