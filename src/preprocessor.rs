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

use crate::config::Config;
use crate::report::render::{MARKDOWN_RENDERERS, Reader, failure_html, render_chapter};
use crate::snippet::{LanguageSyntax, Outcome, Snippet, SnippetResult};
use crate::source::extract::extract;
use crate::verify::{Report, VerifyOptions, verify};

/// The renderers the preprocessor runs for: `html`, `test` (what `mdbook test` names itself),
/// so that `mdbook test` has our verification and leaves the verified blocks to us, and the
/// renderers that publish the Markdown as text (`llms`), which get the outputs as Markdown blocks.
pub(crate) fn supports(renderer: &str) -> bool {
    matches!(renderer, "html" | "test") || MARKDOWN_RENDERERS.contains(&renderer)
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
    crate::run::stop_on_signals()?;
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
        eprint!("{}", crate::report::human(&report, &config.book_root));
        if mode == BuildMode::Strict {
            return Ok(ExitCode::FAILURE);
        }
        eprintln!(
            "mdbook-snippets: serving the book with {failed} failure(s) shown in its pages, \
             under the snippets; `mdbook build` fails on them"
        );
    } else {
        eprintln!("mdbook-snippets: {}", crate::report::summary(&report));
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
        // `mdbook serve` runs every renderer of the book, so a Markdown renderer's run (`llms`)
        // is served too: a strict one would stop `mdbook serve` at the first failing snippet.
        let served_renderer =
            ctx.renderer == "html" || Reader::of_renderer(&ctx.renderer) == Reader::Markdown;
        if served_renderer && endpoint.is_some() && !from_environment && !from_book_toml {
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
                let text = crate::report::failure_text(result, failure, book_root);
                failure_reports.insert(result.id.clone(), text);
            }
        }
        for failure in &report.chapter_failures {
            let text = crate::report::chapter_failure_text(failure, book_root);
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
#[path = "preprocessor_tests.rs"]
mod tests;
