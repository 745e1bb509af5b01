//! A sequence diagram of a transcript as SVG: two lifelines (client, server) and one labelled
//! arrow per message, in order. Pure string building; the same transcript gives the same bytes.

use crate::summary::summaries;
use crate::transcript::{Side, WireMessage};

const WIDTH: usize = 760;
const CLIENT_X: usize = 90;
const SERVER_X: usize = 670;
const TOP: usize = 56;
const ROW: usize = 30;
/// Longest label, in characters; the compact summaries are already short.
const LABEL_LIMIT: usize = 78;

/// The diagram as a self-contained SVG document.
pub(crate) fn sequence_diagram(messages: &[WireMessage], side: Side) -> String {
    let rows = summaries(messages, side);
    let height = TOP + rows.len() * ROW + 30;
    let mut svg = String::new();
    svg.push_str(&format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" font-family=\"monospace\" font-size=\"12\">\n"
    ));
    svg.push_str(
        "<defs><marker id=\"arrow\" markerWidth=\"10\" markerHeight=\"8\" refX=\"9\" refY=\"4\" \
         orient=\"auto\"><path d=\"M0,0 L10,4 L0,8 z\" fill=\"#333\"/></marker></defs>\n",
    );
    svg.push_str(&format!(
        "<rect width=\"{WIDTH}\" height=\"{height}\" fill=\"#fff\"/>\n"
    ));
    for (x, name) in [(CLIENT_X, "client"), (SERVER_X, "server")] {
        svg.push_str(&format!(
            "<rect x=\"{}\" y=\"8\" width=\"80\" height=\"24\" rx=\"4\" fill=\"#eef\" stroke=\"#333\"/>\n\
             <text x=\"{x}\" y=\"25\" text-anchor=\"middle\" font-weight=\"bold\">{name}</text>\n\
             <line x1=\"{x}\" y1=\"32\" x2=\"{x}\" y2=\"{}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n",
            x - 40,
            height - 8
        ));
    }
    for (index, (client_to_server, summary)) in rows.iter().enumerate() {
        let y = TOP + index * ROW + 12;
        let (from, to) = if *client_to_server {
            (CLIENT_X, SERVER_X)
        } else {
            (SERVER_X, CLIENT_X)
        };
        let dash = if summary.starts_with("progress") || summary.starts_with("notification") {
            " stroke-dasharray=\"6 3\""
        } else {
            ""
        };
        svg.push_str(&format!(
            "<line x1=\"{from}\" y1=\"{y}\" x2=\"{to}\" y2=\"{y}\" stroke=\"#333\"{dash} \
             marker-end=\"url(#arrow)\"/>\n<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            (CLIENT_X + SERVER_X) / 2,
            y - 5,
            escape(&label(summary))
        ));
    }
    svg.push_str("</svg>\n");
    svg
}

fn label(summary: &str) -> String {
    if summary.chars().count() <= LABEL_LIMIT {
        return summary.to_owned();
    }
    let mut short: String = summary.chars().take(LABEL_LIMIT - 1).collect();
    short.push('…');
    short
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            other => out.push(other),
        }
    }
    out
}
