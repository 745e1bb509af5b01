use mdbook_preprocessor::book::{BookItem, Chapter};

use super::*;

/// A report of `(chapter path, chapter text as verified, stdouts)`; every snippet passed.
fn report(chapters: &[(&str, &str, &[&str])]) -> Report {
    let mut snippets = Vec::new();
    let mut results = Vec::new();
    for (path, text, stdouts) in chapters {
        let found = extract(Path::new(path), text, &[]).unwrap();
        assert_eq!(found.len(), stdouts.len());
        for (snippet, stdout) in found.into_iter().zip(*stdouts) {
            results.push(SnippetResult {
                id: snippet.id.clone(),
                span: snippet.span.clone(),
                outcome: Outcome::Passed,
                stdout: stdout.to_string(),
                stderr: String::new(),
                artifacts: Vec::new(),
                elapsed: None,
            });
            snippets.push(snippet);
        }
    }
    Report {
        snippets,
        results,
        chapter_failures: Vec::new(),
        mutants: None,
        duration: std::time::Duration::ZERO,
    }
}

fn render(report: &Report, chapters: &[(&str, &str)]) -> Vec<String> {
    render_in(report, chapters, BuildMode::Strict, Path::new("."))
}

fn render_in(
    report: &Report,
    chapters: &[(&str, &str)],
    mode: BuildMode,
    book_root: &Path,
) -> Vec<String> {
    let mut book = Book::new();
    for (path, content) in chapters {
        book.push_item(BookItem::Chapter(Chapter::new(
            path,
            content.to_string(),
            path,
            Vec::new(),
        )));
    }
    render_book(
        &mut book,
        Path::new("src"),
        report,
        mode,
        book_root,
        &[],
        Reader::Rustdoc,
    );
    book.chapters()
        .map(|chapter| chapter.content.clone())
        .collect()
}

#[test]
fn results_match_by_chapter_and_code_not_by_position() {
    // On disk the chapter includes a file; mdBook hands it over expanded, with an extra
    // non-Rust block and CRLF line endings, and the two identical snippets keep their order.
    let report = report(&[(
        "src/a.md",
        "```rust\nprintln!(\"same\");\n```\n\n```rust\n{{#include x.rs}}\n```\n\n```rust\nprintln!(\"same\");\n```\n",
        &["first\n", "included\n", "second\n"],
    )]);
    let rendered = render(
        &report,
        &[(
            "a.md",
            "```toml\r\nx = 1\r\n```\r\n```rust\r\nprintln!(\"same\");\r\n```\r\n```rust\r\nlet x = 1;\r\n```\r\n```rust\r\nprintln!(\"same\");\r\n```\r\n",
        )],
    );
    let shown: Vec<&str> = rendered[0]
        .lines()
        .filter(|line| line.starts_with("<pre"))
        .collect();
    assert_eq!(
        shown,
        [
            r#"<pre class="mdbook-snippets-stdout">first</pre>"#,
            r#"<pre class="mdbook-snippets-stdout">second</pre>"#
        ]
    );
    // The included snippet's code differs from what was verified (`{{#include}}` on disk):
    // left as written, not marked.
    assert!(rendered[0].contains("```rust\r\nlet x = 1;"));
}

#[test]
fn another_chapter_with_the_same_code_does_not_match() {
    let report = report(&[("src/a.md", "```rust\nf();\n```\n", &["a\n"])]);
    let chapter = "```rust\nf();\n```\n";
    assert_eq!(render(&report, &[("b.md", chapter)]), [chapter]);
}

/// The mode for a book whose `book.toml` is `book_toml` (`None`: no such file), as mdBook
/// hands it over for `renderer`, with `live_reload` set in the configuration as
/// `mdbook serve` does, and the environment variable names `env`.
fn mode(book_toml: Option<&str>, renderer: &str, live_reload: bool, env: &[&str]) -> BuildMode {
    let root = tempfile::tempdir().unwrap();
    if let Some(text) = book_toml {
        std::fs::write(root.path().join("book.toml"), text).unwrap();
    }
    let mut config: mdbook_preprocessor::config::Config =
        book_toml.unwrap_or_default().parse().unwrap();
    if live_reload {
        config.set(LIVE_RELOAD_KEY, "__livereload").unwrap();
    }
    let ctx = PreprocessorContext::new(root.path().to_path_buf(), config, renderer.to_owned());
    BuildMode::of(&ctx, env.iter().map(std::ffi::OsString::from))
}

#[test]
fn only_what_mdbook_serve_alone_does_selects_the_served_mode() {
    let plain = "[book]\ntitle = \"t\"\n";
    let env = ["PATH", "MDBOOK_BOOK__TITLE", "CI"];
    assert_eq!(mode(Some(plain), "html", true, &env), BuildMode::Served);
    // `mdbook build`, `mdbook test`, `mdbook watch`: no endpoint, or another renderer.
    assert_eq!(mode(Some(plain), "html", false, &env), BuildMode::Strict);
    assert_eq!(mode(Some(plain), "test", true, &env), BuildMode::Strict);
    assert_eq!(mode(Some(plain), "markdown", true, &env), BuildMode::Strict);
    // `mdbook serve` runs every renderer: the `llms` text is served as the pages are.
    assert_eq!(mode(Some(plain), "llms", true, &env), BuildMode::Served);
    assert_eq!(mode(Some(plain), "llms", false, &env), BuildMode::Strict);
    // The key set by hand, in book.toml or the environment, proves nothing.
    let by_hand = "[output.html]\nlive-reload-endpoint = \"__livereload\"\n";
    assert_eq!(mode(Some(by_hand), "html", true, &env), BuildMode::Strict);
    for variable in [
        "MDBOOK_OUTPUT__HTML__LIVE_RELOAD_ENDPOINT",
        "MDBOOK_output__html",
        "MDBOOK_OUTPUT",
    ] {
        assert_eq!(
            mode(Some(plain), "html", true, &[variable]),
            BuildMode::Strict,
            "{variable}"
        );
    }
    // A book.toml that cannot be read proves nothing either.
    assert_eq!(mode(None, "html", true, &env), BuildMode::Strict);
}

#[test]
fn served_failures_go_in_their_pages_and_strict_builds_leave_them_out() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("src")).unwrap();
    let chapter = "# A\n\n```rust\nboom();\n```\n";
    std::fs::write(root.path().join("src/a.md"), chapter).unwrap();
    std::fs::write(root.path().join("src/b.md"), "# B\n\n```rust\n").unwrap();
    let mut report = report(&[("src/a.md", chapter, &[""])]);
    report.results[0].outcome = Outcome::Failed(crate::snippet::Failure {
        kind: crate::snippet::FailureKind::Compile,
        span: report.results[0].span.clone(),
        message: "error[E0425]: cannot find function `boom`".to_owned(),
    });
    report
        .chapter_failures
        .push(crate::snippet::ChapterFailure {
            chapter_path: PathBuf::from("src/b.md"),
            span: crate::snippet::SourceSpan {
                path: PathBuf::from("src/b.md"),
                line: 3,
                column: 1,
            },
            message: "unclosed code block".to_owned(),
        });
    let chapters = [("a.md", chapter), ("b.md", "# B\n\n```rust\n")];
    let served = render_in(&report, &chapters, BuildMode::Served, root.path());
    assert!(
        served[0]
            .starts_with("# A\n\n```rust\nboom();\n```\n<div class=\"mdbook-snippets-failure\""),
        "{}",
        served[0]
    );
    assert!(served[0].contains("error: snippet src_a_md_1 does not compile"));
    assert!(served[0].contains("cannot find function `boom`"));
    assert!(
        served[1].starts_with("<div class=\"mdbook-snippets-failure\""),
        "{}",
        served[1]
    );
    assert!(served[1].contains("error: chapter src/b.md not verified"));
    assert!(served[1].ends_with("\n\n# B\n\n```rust\n"), "{}", served[1]);
    let strict = render_in(&report, &chapters, BuildMode::Strict, root.path());
    assert_eq!(strict, [chapter, "# B\n\n```rust\n"]);
}

#[test]
fn minor_versions() {
    assert_eq!(minor_version("0.5.4"), "0.5");
    assert_eq!(minor_version("0.5"), "0.5");
    assert_eq!(minor_version("1.0.0-alpha.1"), "1.0");
}
