//! The mdBook side: `mdbook-snippets supports RENDERER`, and the preprocessor proper, which reads
//! `[ctx, book]` JSON on stdin and writes the book JSON on stdout.
//!
//! Verification is the same pipeline and cache as `mdbook-snippets test` (the chapters are read
//! from disk, so a failure is reported at the source file and line, included files included);
//! the results are then matched to the blocks of the chapters mdBook hands us, which have had
//! their `{{#include}}`s expanded by the `links` preprocessor, by chapter and code rather than by
//! position. A block that matches no result is left as written. When a snippet fails, the report
//! goes to stderr and the process exits 1, which fails `mdbook build`; no book is written.
//!
//! Nothing but the book reaches stdout: while the pipeline runs, file descriptor 1 points at
//! stderr, so neither a stray print nor a child process that inherits stdout can corrupt the JSON.

use std::collections::{HashMap, VecDeque};
use std::io::Write as _;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::Book;

use crate::mdbook::render::{Reader, failure_html, render_chapter};
use crate::plan::config::Config;
use crate::snippet::{LanguageSyntax, Outcome, Snippet, SnippetResult};
use crate::source::extract::extract;
use crate::verify::{Report, VerifyOptions, verify};

/// The renderers the preprocessor runs for: `html`, and `test` (what `mdbook test` names itself),
/// so that `mdbook test` has our verification and leaves the verified blocks to us.
pub(crate) fn supports(renderer: &str) -> bool {
    matches!(renderer, "html" | "test")
}

/// Exit code of `mdbook-snippets supports RENDERER`.
pub(crate) fn supports_exit_code(renderer: &str) -> ExitCode {
    if supports(renderer) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Preprocessor mode: `[ctx, book]` on stdin, the book on stdout. Exit 1 when a snippet failed.
pub(crate) fn run() -> anyhow::Result<ExitCode> {
    crate::run::containment::stop_on_signals()?;
    let stdout = StdoutGuard::redirect_to_stderr()?;
    let (ctx, mut book) = mdbook_preprocessor::parse_input(std::io::stdin().lock())
        .context("reading mdBook's [context, book] JSON from stdin")?;
    if minor_version(&ctx.mdbook_version) != minor_version(mdbook_preprocessor::MDBOOK_VERSION) {
        eprintln!(
            "warning: mdbook-snippets was built against mdBook {}, called by mdBook {}",
            mdbook_preprocessor::MDBOOK_VERSION,
            ctx.mdbook_version
        );
    }
    let config = config_from_context(&ctx)?;
    let mode = BuildMode::of(&ctx, std::env::vars_os().map(|(name, _)| name));
    let source = crate::mdbook::book::load(&config)?;
    let report = verify(&source, &config, &VerifyOptions::default())?;
    let failed = report.failed();
    if failed > 0 {
        eprint!(
            "{}",
            crate::report::terminal::human(&report, &config.book_root)
        );
        if mode == BuildMode::Strict {
            return Ok(ExitCode::FAILURE);
        }
        eprintln!(
            "mdbook-snippets: serving the book with {failed} failure(s) shown in its pages, \
             under the snippets; `mdbook build` fails on them"
        );
    } else {
        eprintln!(
            "mdbook-snippets: {}",
            crate::report::terminal::summary(&report)
        );
    }
    render_book(
        &mut book,
        &ctx.config.book.src,
        &report,
        mode,
        &config.book_root,
        &config.language_syntaxes(),
        Reader::of_renderer(&ctx.renderer),
    );
    stdout.write_book(&book)?;
    Ok(ExitCode::SUCCESS)
}

/// What a failing snippet does to the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BuildMode {
    /// `mdbook build`, `mdbook test`, `mdbook watch`, a publishing build: a failing snippet fails
    /// the build and no page is written.
    Strict,
    /// `mdbook serve`: the report of a failing snippet is shown in its page, at the snippet, and
    /// the book is served.
    Served,
}

/// The key `mdbook serve` (and only it) sets in the configuration it hands preprocessors, to
/// point the pages' reload script at its websocket.
const LIVE_RELOAD_KEY: &str = "output.html.live-reload-endpoint";

impl BuildMode {
    /// mdBook tells a preprocessor nothing about serving, but `mdbook serve` sets
    /// `output.html.live-reload-endpoint` in the configuration before every build (mdBook 0.5,
    /// `src/cmd/serve.rs`), and no other command does. A user could set the same key in
    /// `book.toml` or through `MDBOOK_OUTPUT...` environment variables, so the mode is `Served`
    /// only when the key is set and neither of those could have set it: a CI job that happens to
    /// export such a variable gets a strict build, never a published page with a failure in it.
    /// `env_names` are the names of the process's environment variables.
    pub(crate) fn of(
        ctx: &PreprocessorContext,
        env_names: impl IntoIterator<Item = std::ffi::OsString>,
    ) -> BuildMode {
        let endpoint = ctx.config.get::<String>(LIVE_RELOAD_KEY).ok().flatten();
        let from_environment = env_names.into_iter().any(|name| {
            name.to_str()
                .and_then(|name| name.strip_prefix("MDBOOK_"))
                .is_some_and(|key| key.to_lowercase().starts_with("output"))
        });
        let from_book_toml = std::fs::read_to_string(ctx.root.join("book.toml"))
            .ok()
            .and_then(|text| text.parse::<toml::Table>().ok())
            .is_none_or(|table| sets_live_reload(&table));
        if ctx.renderer == "html" && endpoint.is_some() && !from_environment && !from_book_toml {
            BuildMode::Served
        } else {
            BuildMode::Strict
        }
    }
}

/// Whether a `book.toml` sets the live-reload endpoint itself.
fn sets_live_reload(book_toml: &toml::Table) -> bool {
    book_toml
        .get("output")
        .and_then(|output| output.get("html"))
        .and_then(|html| html.get("live-reload-endpoint"))
        .is_some()
}

/// `0.5` of `0.5.4`.
fn minor_version(version: &str) -> &str {
    let mut dots = version.match_indices('.').map(|(index, _)| index);
    let end = dots.nth(1).unwrap_or(version.len());
    &version[..end]
}

/// The verifier's configuration from mdBook's context (`[preprocessor.snippets]`, `[book] src`,
/// `[rust] edition`), so that mdBook's environment overrides apply too.
pub(crate) fn config_from_context(ctx: &PreprocessorContext) -> anyhow::Result<Config> {
    Config::from_mdbook(&ctx.root, &ctx.config).context("in [preprocessor.snippets] of book.toml")
}

/// Renders the results of `report` into the chapters of `book`. `src` is `[book] src`, which
/// makes a chapter's `source_path` a path relative to the book root, as in the report. When
/// `mode` is `Served`, failures are rendered too (their excerpts read from under `book_root`):
/// each failed snippet's report under it, and a chapter that could not be verified at its top.
/// `languages` are the book's declared languages, whose blocks are snippets too. `reader` is who
/// reads the chapters (rustdoc under `mdbook test`, else a renderer).
pub(crate) fn render_book(
    book: &mut Book,
    src: &Path,
    report: &Report,
    mode: BuildMode,
    book_root: &Path,
    languages: &[LanguageSyntax],
    reader: Reader,
) {
    let mut failure_reports = HashMap::new();
    let mut chapter_reports: HashMap<PathBuf, Vec<String>> = HashMap::new();
    if mode == BuildMode::Served {
        for result in &report.results {
            if let Outcome::Failed(failure) = &result.outcome {
                let text = crate::report::terminal::failure_text(result, failure, book_root);
                failure_reports.insert(result.id.clone(), text);
            }
        }
        for failure in &report.chapter_failures {
            let text = crate::report::terminal::chapter_failure_text(failure, book_root);
            chapter_reports
                .entry(failure.chapter_path.clone())
                .or_default()
                .push(text);
        }
    }
    let mut results = ResultsByCode::new(report);
    book.for_each_chapter_mut(|chapter| {
        let Some(source_path) = &chapter.source_path else {
            return;
        };
        let chapter_path = src.join(source_path);
        if let Some(reports) = chapter_reports.get(&chapter_path) {
            let boxes: String = reports
                .iter()
                .flat_map(|report| failure_html(report))
                .map(|line| line + "\n")
                .collect();
            chapter.content = format!("{boxes}\n{}", chapter.content);
            return;
        }
        let snippets = match extract(&chapter_path, &chapter.content, languages) {
            Ok(snippets) => snippets,
            Err(error) => {
                // The pipeline read this chapter fine from disk; whatever mdBook made of it, we
                // leave it alone rather than guess.
                eprintln!("warning: not rendering {}: {error}", chapter_path.display());
                return;
            }
        };
        if snippets.is_empty() {
            return;
        }
        let verified: Vec<(&Snippet, &SnippetResult)> = snippets
            .iter()
            .filter_map(|snippet| Some((snippet, results.take(&chapter_path, &snippet.code)?)))
            .collect();
        if verified.len() < snippets.len() {
            eprintln!(
                "warning: {}: {} snippet block(s) match no verified snippet and are left as written",
                chapter_path.display(),
                snippets.len() - verified.len()
            );
        }
        chapter.content = render_chapter(&chapter.content, &verified, &failure_reports, reader);
    });
}

/// Results keyed by chapter and code; snippets with the same code in one chapter are taken in
/// order.
struct ResultsByCode<'a> {
    queues: HashMap<(PathBuf, String), VecDeque<&'a SnippetResult>>,
}

impl<'a> ResultsByCode<'a> {
    fn new(report: &'a Report) -> ResultsByCode<'a> {
        let mut queues: HashMap<_, VecDeque<_>> = HashMap::new();
        for (snippet, result) in report.snippets.iter().zip(&report.results) {
            queues
                .entry((snippet.chapter_path.clone(), normalize(&snippet.code)))
                .or_default()
                .push_back(result);
        }
        ResultsByCode { queues }
    }

    fn take(&mut self, chapter_path: &Path, code: &str) -> Option<&'a SnippetResult> {
        let key = (chapter_path.to_path_buf(), normalize(code));
        self.queues.get_mut(&key)?.pop_front()
    }
}

/// Code compared across the two include expansions (ours and mdBook's `links`), which may
/// differ in line endings and trailing blank lines.
fn normalize(code: &str) -> String {
    code.replace("\r\n", "\n").trim_end().to_owned()
}

/// The process's real stdout, kept aside while fd 1 points at stderr.
struct StdoutGuard {
    stdout: OwnedFd,
}

impl StdoutGuard {
    fn redirect_to_stderr() -> anyhow::Result<StdoutGuard> {
        std::io::stdout().flush().context("flushing stdout")?;
        let stdout = rustix::io::dup(std::io::stdout()).context("saving stdout")?;
        rustix::stdio::dup2_stdout(std::io::stderr()).context("pointing stdout at stderr")?;
        Ok(StdoutGuard { stdout })
    }

    fn write_book(self, book: &Book) -> anyhow::Result<()> {
        std::io::stdout().flush().context("flushing stdout")?;
        let mut out = std::io::BufWriter::new(std::fs::File::from(self.stdout));
        serde_json::to_writer(&mut out, book).context("writing the book to stdout")?;
        out.flush().context("writing the book to stdout")
    }
}

#[cfg(test)]
mod tests {
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
            served[0].starts_with(
                "# A\n\n```rust\nboom();\n```\n<div class=\"mdbook-snippets-failure\""
            ),
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
}
