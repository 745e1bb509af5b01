//! The compact, stable rendering of a transcript: one line per message, an arrow for the
//! direction (`→` client to server, `←` server to client), then the message's summary
//! (`summary.rs`), e.g. `→ req 2 tools/call slow {"step_ms":100,"steps":3} _meta.progressToken=1`,
//! `← progress token=1 1/3 "step 1 of 3"`, `← resp 2 result "completed 3 steps"`; and
//! [`RenderTranscript`], which also offers the sequence diagram (`svg.rs`). Pure string building.

use crate::summary::summaries;
use crate::transcript::{Side, Transcript, WireMessage};

/// How the book shows a [`Transcript`] (in the prelude, so `server.transcript().render()` reads
/// as a method).
pub trait RenderTranscript {
    /// One stable, compact line per message, fit to print in a book, e.g.
    /// `→ req 2 tools/call slow {"step_ms":100,"steps":3} _meta.progressToken=1`.
    fn render(&self) -> String;
    /// A sequence diagram of the transcript as a self-contained SVG document.
    fn to_svg(&self) -> String;
}

impl RenderTranscript for Transcript {
    fn render(&self) -> String {
        render_messages(&self.messages(), self.side())
    }

    fn to_svg(&self) -> String {
        crate::svg::sequence_diagram(&self.messages(), self.side())
    }
}

/// Renders every message on its own line (each ending in `\n`).
pub(crate) fn render_messages(messages: &[WireMessage], side: Side) -> String {
    let mut out = String::new();
    for (client_to_server, summary) in summaries(messages, side) {
        out.push_str(if client_to_server { "→ " } else { "← " });
        out.push_str(&summary);
        out.push('\n');
    }
    out
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
