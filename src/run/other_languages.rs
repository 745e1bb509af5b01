//! Snippets of the languages a book declares (`[preprocessor.snippets.languages.NAME]`): each is
//! written to a file of its own (`<snippet id>.<extension>`, hidden-line prefixes removed, so
//! line `n` of the file is line `n` of the block) and run with the language's `command`, by the
//! same `run` as Rust snippets. Nothing here knows any particular language: positions in the
//! output are found by the snippet file's name, whatever the interpreter's traceback looks like.

use std::collections::BTreeMap;

use crate::build::setup::{argument_files_key, setup_key};
use crate::config::{Config, ErrorPosition, Language};
use crate::plan::{Cache, Record, hash_path};
use crate::run::judge::{judge_run, result};
use crate::run::{RunRequest, SnippetFile};
use crate::snippet::{Exit, Failure, FailureKind, Outcome, RunRecord, SnippetResult, SourceSpan};
use crate::source::{Located, merge_harness_attributes};

/// What the pipeline runs for one snippet of a declared language.
#[derive(Debug, Clone)]
pub(crate) struct LanguagePlan {
    /// The snippet's index in the book.
    pub index: usize,
    pub request: RunRequest,
    /// `no_run` with the language's `check`: the run is a check, and exit 0 is all it takes.
    pub is_check: bool,
    pub error_position: ErrorPosition,
    pub cache_key: String,
}

/// The plan of `located` (the `index`-th snippet of the book, of `language`), or `None` when
/// there is nothing to run: `no_run` in a language without `check`.
pub(crate) fn plan(
    located: &Located,
    index: usize,
    language: &Language,
    inputs_hash: &str,
    config: &Config,
    cache: &Cache,
) -> Option<LanguagePlan> {
    let snippet = &located.snippet;
    let attributes = &snippet.attributes;
    let syntax = snippet.language.as_ref().expect("a snippet of a language");
    let is_check = attributes.no_run;
    let command = match (is_check, &language.check) {
        (false, _) => &language.command,
        (true, Some(check)) => check,
        (true, None) => return None,
    };
    let file = SnippetFile {
        name: file_name(&snippet.id, language),
        content: unhide(&snippet.code, &syntax.hidden),
    };
    let harness_attributes =
        merge_harness_attributes(&config.default_attributes, &attributes.harness).join(",");
    let timeout = attributes
        .timeout_secs
        .map_or(config.timeout, std::time::Duration::from_secs);
    // The timeout too: a timed-out run is cached, and is no verdict under another timeout.
    let cache_key = cache.key(&[
        "language",
        &language.name,
        &command.join("\0"),
        &language.identity,
        inputs_hash,
        &file.name,
        &file.content,
        &harness_attributes,
        &format!("timeout {}", timeout.as_nanos()),
    ]);
    Some(LanguagePlan {
        index,
        request: RunRequest {
            program: command[0].clone().into(),
            args: command[1..].to_vec(),
            env: Vec::new(),
            file: Some(file),
            harness_attributes,
            pass_env: config.pass_env.clone(),
            writable: config.writable.clone(),
            timeout,
            output_limit: config.output_limit,
            mutant: None,
        },
        is_check,
        error_position: language.error_position,
        cache_key,
    })
}

/// The hash of each language's environment, by name: the content of each file its `command`
/// and `check` name as absolute arguments (`python3 /opt/run.py {file}`: the script; they run
/// in a temporary directory), its `inputs` (what its
/// snippets import from the repository) and the key of its `setup` (the command, its program's
/// and file arguments' content, each `setup-inputs` path's content), so a change that runs the setup again (other pins, another
/// setup script) also runs the snippets again, and no verdict made in another environment is
/// re-used.
pub(crate) fn inputs_hashes(config: &Config) -> anyhow::Result<BTreeMap<String, String>> {
    let mut hashes = BTreeMap::new();
    for language in &config.languages {
        let mut parts = argument_files_key(&language.command, None)?;
        if let Some(check) = &language.check {
            parts.push_str(&argument_files_key(check, None)?);
        }
        if let Some(setup) = &language.setup {
            parts.push_str(&format!("setup {}\n", setup_key(setup, &config.book_root)?));
        }
        for input in &language.inputs {
            parts.push_str(&format!("{} {}\n", input.display(), hash_path(input)?));
        }
        hashes.insert(language.name.clone(), parts);
    }
    Ok(hashes)
}

/// `src_ch1_md_2.py`: unique in the book, so a traceback line naming it is this snippet's.
pub(crate) fn file_name(id: &str, language: &Language) -> String {
    format!("{id}.{}", language.extension)
}

/// The code as run: each line whose first non-blank text is `prefix` loses the prefix (what
/// mdBook's `hidelines` hides in the page); no line is removed, so line numbers survive.
pub(crate) fn unhide(code: &str, prefix: &str) -> String {
    code.split_inclusive('\n')
        .map(|line| {
            let indent = line.len() - line.trim_start().len();
            match line[indent..].strip_prefix(prefix) {
                Some(rest) => format!("{}{rest}", &line[..indent]),
                None => line.to_owned(),
            }
        })
        .collect()
}

/// What a finished run means for the cache: a run, or for a check, whether it passed.
pub(crate) fn record(plan: &LanguagePlan, run: RunRecord) -> Record {
    if !plan.is_check {
        return Record::Ran(run);
    }
    match run.exit {
        Exit::Code(0) => Record::Compiled,
        exit => {
            let output = format!("{}{}", run.stdout, run.stderr);
            let message = match exit {
                Exit::TimedOut(limit) => {
                    format!("the check timed out after {} s", limit.as_secs_f64())
                }
                Exit::OutputLimit(limit) => format!("the check printed more than {limit} bytes"),
                Exit::Code(code) => format!("the check exited with code {code}"),
                Exit::Signal(signal) => format!("the check was killed by signal {signal}"),
            };
            Record::DidNotCompile {
                codes: Vec::new(),
                message: format!("{message}\n{}", output.trim_end()),
            }
        }
    }
}

/// A record of a snippet of a declared language -> its result, positions in the snippet file
/// (named `file_name`) rewritten to Markdown positions; the failure is at the first or the last
/// of them, as `position` says.
pub(crate) fn judge(
    located: &Located,
    record: &Record,
    file_name: &str,
    position: ErrorPosition,
) -> SnippetResult {
    let snippet = &located.snippet;
    let remap = |text: &str| {
        let (text, spans) = remap(text, file_name, located);
        let span = match position {
            ErrorPosition::First => spans.first().cloned(),
            ErrorPosition::Last => spans.last().cloned(),
        };
        (text, span)
    };
    let outcome = match record {
        Record::Ran(run) => judge_run(snippet, run, &remap),
        Record::Compiled => Outcome::Passed,
        Record::DidNotCompile { message, .. } | Record::BinaryFailed { message } => {
            let (message, span) = remap(message);
            Outcome::Failed(Failure {
                kind: FailureKind::Compile,
                span: span.unwrap_or_else(|| snippet.span.clone()),
                message,
            })
        }
    };
    let run = match record {
        Record::Ran(run) => Some(run),
        _ => None,
    };
    result(snippet, outcome, run)
}

/// Replaces every path ending in `file_name` in `text` with the chapter's path, and a line
/// number right after it (`FILE:LINE`, `FILE", line LINE`, `FILE: line LINE`, the shapes
/// tracebacks of Python, Node.js, Ruby, shells and many others take) with the Markdown line it
/// stands for. Returns the text and the positions found, in order. Columns are left as they
/// are.
pub(crate) fn remap(text: &str, file_name: &str, located: &Located) -> (String, Vec<SourceSpan>) {
    let code_lines = located.snippet.code.lines().count();
    let mut out = String::with_capacity(text.len());
    let mut spans = Vec::new();
    let mut rest = text;
    while let Some(found) = rest.find(file_name) {
        let before = &rest[..found];
        // `a_src_ch_md_1.py` is another file than `src_ch_md_1.py`.
        if before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
        {
            out.push_str(&rest[..found + file_name.len()]);
            rest = &rest[found + file_name.len()..];
            continue;
        }
        // The path in front of the name: back to a space, a quote or a bracket.
        let path_start = before
            .rfind(|c: char| c.is_whitespace() || "\"'()<>[]`".contains(c))
            .map_or(0, |at| {
                at + before[at..].chars().next().map_or(1, char::len_utf8)
            });
        out.push_str(&before[..path_start]);
        let after = &rest[found + file_name.len()..];
        let (separator, digits) = line_suffix(after);
        let line: Option<usize> = after
            .get(separator.len()..separator.len() + digits)
            .and_then(|digits| digits.parse().ok())
            .filter(|line| (1..=code_lines).contains(line));
        match line {
            Some(line) => {
                let span = located.code_span(line - 1, 1);
                out.push_str(&format!("{}{separator}{}", span.path.display(), span.line));
                spans.push(span);
                rest = &after[separator.len() + digits..];
            }
            None => {
                out.push_str(&located.snippet.span.path.display().to_string());
                rest = after;
            }
        }
    }
    out.push_str(rest);
    (out, spans)
}

/// The separator before a line number right after a file name, and how many digits follow it
/// (0 when there is no line number).
fn line_suffix(after: &str) -> (&str, usize) {
    let quote = after
        .chars()
        .next()
        .filter(|c| *c == '"' || *c == '\'')
        .map_or(0, char::len_utf8);
    for separator in [":", ", line ", ": line ", " line "] {
        let end = quote + separator.len();
        if after[quote..].starts_with(separator) {
            let digits = after[end..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            if digits > 0 {
                return (&after[..end], digits);
            }
        }
    }
    ("", 0)
}

#[cfg(test)]
#[path = "other_languages_tests.rs"]
mod tests;
