//! The ledger's data as `book/ledger/claims.toml` and `book/ledger/coverage.toml` hold it
//! (serde, unknown keys refused).

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClaimsFile {
    pub(super) claim: Vec<Claim>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Claim {
    /// Short, kebab-case, unique: the anchor in `claims.md` and the `claim=` word of a proof.
    pub(super) id: String,
    /// The claim in one sentence, as the book makes it.
    pub(super) claim: String,
    /// Whose behaviour the claim is about.
    pub(super) about: About,
    pub(super) source: Source,
    /// The mutant of `mcp-testserver` that breaks the claim (claims about the server side).
    pub(super) mutant: Option<String>,
    /// SDK matrix cells and the value each must hold: `[sdk, scenario, revision, transport,
    /// fact, value]`.
    #[serde(default)]
    pub(super) matrix: Vec<MatrixCell>,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub(super) enum About {
    /// What the spec requires of a server, shown by the test server (a mutant breaks it).
    Server,
    /// What the spec requires of a client or of both sides, shown by a client run.
    Client,
    /// What rmcp does.
    Rmcp,
    /// What the Python SDK does.
    Python,
    /// What the TypeScript SDK does.
    Typescript,
}

impl About {
    pub(super) fn label(self) -> &'static str {
        match self {
            About::Server => "the server side",
            About::Client => "the client side",
            About::Rmcp => "rmcp",
            About::Python => "the Python SDK",
            About::Typescript => "the TypeScript SDK",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, untagged)]
pub(super) enum Source {
    Spec {
        revision: String,
        page: String,
        section: String,
        /// The spec's exact words, where the book quotes them (`scripts/spec-coverage.py check`
        /// compares them with the spec text).
        quote: Option<String>,
    },
    Sdk {
        sdk: String,
        version: String,
        /// Where in the release's source, or the issue thread.
        at: String,
    },
}

#[derive(Debug, Deserialize)]
pub(super) struct MatrixCell(
    pub(super) String,
    pub(super) String,
    pub(super) String,
    pub(super) String,
    pub(super) String,
    pub(super) serde_json::Value,
);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CoverageFile {
    pub(super) sentence: Vec<Sentence>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Sentence {
    /// `REVISION/PAGE#SECTION:N` (see `scripts/spec-coverage.py`).
    pub(super) at: String,
    pub(super) keywords: Vec<String>,
    /// Of the sentence's normalized text: `scripts/spec-coverage.py check` notices a rewording.
    pub(super) fingerprint: String,
    pub(super) status: Status,
    #[serde(default)]
    pub(super) claims: Vec<String>,
    /// Where the book explains it: `chapter.md#heading-id`.
    #[serde(rename = "where")]
    pub(super) explained_at: Option<String>,
    /// Why the book leaves it out.
    pub(super) why: Option<String>,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Status {
    Demonstrated,
    Explained,
    OutOfScope,
}
