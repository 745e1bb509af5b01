//! The data every stage of the pipeline passes along: a snippet, where it came from, and what
//! happened when it ran. Positions are typed ([`SourceSpan`]) and travel from extraction to the
//! report unchanged.

use std::ops::Range;
use std::path::PathBuf;
use std::time::Duration;

/// A position in a book source file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct SourceSpan {
    /// Relative to the book root, e.g. `src/ch1.md` (or the included file's path).
    pub path: PathBuf,
    /// 1-based.
    pub line: usize,
    /// 1-based.
    pub column: usize,
}

/// One fenced block of a chapter (Rust, or a language the book declares), with everything
/// needed to build, run and report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Snippet {
    /// Stable within a book: derived from the chapter path and the snippet's ordinal there
    /// (e.g. `ch1_md_3`); used as the module name in the generated crate.
    pub id: String,
    /// The chapter file the block is in, relative to the book root.
    pub chapter_path: PathBuf,
    /// The opening fence (an indented block's first line).
    pub span: SourceSpan,
    /// The block's code lines, hidden lines included (`# ` prefix still present), so that line
    /// `n` of `code` is Markdown line `span.line + 1 + n` (0-based `n`; `span.line + n` for an
    /// indented block).
    pub code: String,
    /// The info string as written, e.g. `rust,should_panic,revision=2026-07-28`; empty for a
    /// fence without one and for an indented block.
    pub info: String,
    /// An indented code block (rustdoc tests those as Rust too).
    pub indented: bool,
    /// `None` for Rust; else the declared language the info string starts with.
    pub language: Option<SnippetLanguage>,
    pub attributes: Attributes,
    /// Byte range of the whole fenced block (fences included) in the chapter text.
    pub block_range: Range<usize>,
    /// The expected-output block that follows the snippet, if any.
    pub expected: Option<ExpectedOutput>,
}

/// What a snippet of a declared language (`[preprocessor.snippets.languages.NAME]`) knows of
/// it at extraction: its name and how its hidden lines are marked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SnippetLanguage {
    pub name: String,
    /// The hidden-line prefix in force: the block's own `hidelines=PREFIX`, else the language's
    /// `hidden` (default `!!!`).
    pub hidden: String,
    /// Whether the info string has its own `hidelines=` (then mdBook already knows the prefix).
    pub hidden_in_info: bool,
}

/// A declared language as extraction needs it: the name a fence starts with and the default
/// hidden-line prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LanguageSyntax {
    pub name: String,
    pub hidden: String,
}

/// An expected-output block (for example a ```` ```text,output ```` block right after a snippet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExpectedOutput {
    /// The expected stdout, with `[..]` and `...` wildcards.
    pub text: String,
    /// Byte range of the whole block (fences included) in the chapter text.
    pub block_range: Range<usize>,
    /// Byte range of the block's content only (what `--bless` rewrites).
    pub content_range: Range<usize>,
    /// Position of the expected block's opening fence.
    pub span: SourceSpan,
}

/// The bare attributes the verifier acts on: an unknown word close to one of them is a likely
/// typo (rustdoc's `invalid_codeblock_attributes` lint catches the same near-misses).
pub(crate) const ACTED_ON: &[&str] = &[
    "ignore",
    "no_run",
    "should_panic",
    "compile_fail",
    "test_harness",
    "edition2015",
    "edition2018",
    "edition2021",
    "edition2024",
];

/// The info-string attributes, rustdoc's and ours.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Attributes {
    pub ignore: bool,
    pub no_run: bool,
    pub should_panic: bool,
    /// `test_harness`: compiled as a test crate (`rustc --test`), its `#[test]` functions run.
    pub test_harness: bool,
    /// rustdoc's `standalone_crate`: never merged with other snippets, a crate of its own.
    pub standalone_crate: bool,
    /// `compile_fail`, with the error codes it must produce (`compile_fail,E0425`).
    pub compile_fail: Option<Vec<String>>,
    /// `edition2015` .. `edition2024`.
    pub edition: Option<String>,
    /// Per-snippet timeout in seconds (`timeout=30`).
    pub timeout_secs: Option<u64>,
    /// mdBook's `hidelines=PREFIX`: the hidden-line prefix of a non-Rust block.
    pub hidelines: Option<String>,
    /// Attributes the verifier does not own, passed to the harness in `MDBOOK_SNIPPETS_ATTRS`
    /// (e.g. `revision=both`, `expect_violation=reused-id`).
    pub harness: Vec<String>,
    /// Bare words the verifier does not know, in order. rustdoc ignores them (they belong to
    /// other preprocessors, themes and CSS), and so does the verifier unless the book sets
    /// `unknown-attributes = "error"`; one that resembles an attribute we act on is a warning.
    pub unknown: Vec<UnknownWord>,
    /// `kills=NAME` (repeatable): the mutants this snippet claims to notice. The verifier's
    /// own word, never passed to the harness; only `mdbook-snippets test --mutants` acts on it.
    pub kills: Vec<String>,
}

/// A bare info-string word that is not an attribute, e.g. `does_not_compile` or `should-panic`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnknownWord {
    pub word: String,
    /// The attribute it is a likely typo of (`should_panic` for `should-panic`), if any.
    pub resembles: Option<&'static str>,
}

impl UnknownWord {
    /// `unknown attribute `X`` plus what it resembles, for warnings and errors.
    pub(crate) fn describe(&self) -> String {
        match self.resembles {
            Some(attribute) => format!(
                "unknown attribute `{}`; did you mean `{attribute}`?",
                self.word
            ),
            None => format!("unknown attribute `{}`", self.word),
        }
    }
}

/// What happened to one snippet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SnippetResult {
    pub id: String,
    pub span: SourceSpan,
    pub outcome: Outcome,
    /// What the snippet printed (capped).
    pub stdout: String,
    pub stderr: String,
    /// Files the harness left in `MDBOOK_SNIPPETS_ARTIFACTS`, in file-name order.
    pub artifacts: Vec<Artifact>,
    /// How long its run took, when it ran in this verification (not for a verdict from the
    /// cache, nor a snippet that does not run): the JUnit report's time.
    pub elapsed: Option<Duration>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    Passed,
    /// `ignore`, or filtered out.
    Skipped,
    Failed(Failure),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    pub kind: FailureKind,
    /// The offending line when known (a compile error, a panic), else the opening fence.
    pub span: SourceSpan,
    /// Human-readable, multi-line (a compiler message, a diff, a panic message).
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailureKind {
    Compile,
    /// `compile_fail` compiled, or failed with the wrong error code.
    CompileFailMismatch,
    /// Non-zero exit, a signal, or a panic (`should_panic` inverts this).
    Run,
    Timeout,
    OutputMismatch,
    /// An info-string word that is not an attribute, in a book that sets
    /// `unknown-attributes = "error"`.
    Attribute,
    /// An `{{#include}}` (or `rustdoc_include`, `playground`) in the snippet that could not be
    /// expanded.
    Include,
}

/// A file a harness produced for a snippet, shown under it in the rendered page.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Artifact {
    /// The summary shown to the reader, e.g. "wire transcript".
    pub title: String,
    pub kind: ArtifactKind,
    pub content: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum ArtifactKind {
    Text,
    Svg,
}

/// A chapter whose snippets cannot be verified at all: it is not UTF-8, or a fence in it is
/// never closed. The rest of the book still runs; the chapter
/// is one failed entry of the report, at `span`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChapterFailure {
    /// The chapter file, relative to the book root.
    pub chapter_path: PathBuf,
    /// The offending place (the unclosed fence, the first invalid byte), else line 1 of the
    /// chapter.
    pub span: SourceSpan,
    pub message: String,
}

/// What one mutant run showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MutantResult {
    /// The id of the snippet that claims to kill the mutant.
    pub snippet_id: String,
    /// The snippet's opening fence.
    pub span: SourceSpan,
    /// The mutant, as in `kills=NAME`.
    pub name: String,
    pub verdict: Verdict,
    /// What the mutant run printed (empty when the snippet does not run).
    pub stdout: String,
    /// How long the mutant run took, when it ran in this verification (as
    /// [`SnippetResult::elapsed`]).
    pub elapsed: Option<Duration>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The run failed by one of the usual rules, with this failure.
    Killed(Failure),
    /// The run passed, or the snippet does not run at all: why the mutant survived.
    Survived(String),
}

/// What a snippet process did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct RunRecord {
    pub exit: Exit,
    pub stdout: String,
    pub stderr: String,
    pub artifacts: Vec<Artifact>,
    /// Why the artifacts could not be shown (a FIFO, a link, more than the output limit, ...):
    /// the snippet fails with it (see `run/artifacts.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_failure: Option<String>,
    /// How long the process ran, from its start to its end; not kept in the cache (a cached
    /// verdict took no time in the verification that read it).
    #[serde(skip)]
    pub elapsed: Option<Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Exit {
    Code(i32),
    Signal(i32),
    TimedOut(Duration),
    /// Printed more than the output limit (bytes) on stdout or stderr.
    OutputLimit(usize),
}
