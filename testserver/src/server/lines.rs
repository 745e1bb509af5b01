//! Reading newline-delimited messages with a size limit, so a giant line costs bounded memory
//! and a line cut off by EOF is still reported.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// The longest line the server accepts; longer lines are discarded and answered with an error.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// One read from the stream.
pub(crate) enum Line {
    /// A line without its `\n` (and without a trailing `\r`).
    Complete(Vec<u8>),
    /// A line longer than [`MAX_LINE_BYTES`]; it was discarded. Holds its length.
    TooLong(usize),
    /// The stream ended in the middle of a line; holds what arrived.
    Truncated(Vec<u8>),
    /// The stream ended cleanly.
    Eof,
}

/// A line reader over any `AsyncRead`.
pub(crate) struct LineReader<R> {
    reader: BufReader<R>,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(reader: R) -> LineReader<R> {
        LineReader {
            reader: BufReader::new(reader),
        }
    }

    /// The next line; read errors count as the end of the stream.
    pub(crate) async fn next_line(&mut self) -> Line {
        let mut line = Vec::new();
        let mut discarded = 0usize;
        loop {
            let available = match self.reader.fill_buf().await {
                Ok(available) => available,
                Err(_) => &[][..],
            };
            if available.is_empty() {
                return if discarded > 0 {
                    Line::TooLong(discarded)
                } else if line.is_empty() {
                    Line::Eof
                } else {
                    Line::Truncated(line)
                };
            }
            let (chunk, consumed, finished) = match available.iter().position(|byte| *byte == b'\n')
            {
                Some(end) => (&available[..end], end + 1, true),
                None => (available, available.len(), false),
            };
            if discarded > 0 || line.len() + chunk.len() > MAX_LINE_BYTES {
                discarded += line.len() + chunk.len();
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
            self.reader.consume(consumed);
            if finished {
                if discarded > 0 {
                    return Line::TooLong(discarded);
                }
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Line::Complete(line);
            }
        }
    }
}
