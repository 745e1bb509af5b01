//! A harness for the example book: every part of the protocol, and nothing but std.

use std::fmt::Display;
use std::future::Future;
use std::task::{Context, Poll, Waker};

/// In scope in every snippet (`use greeter::prelude::*;`).
pub mod prelude {
    pub use crate::greeting;
}

/// The snippet's `greeting=...` attribute: the verifier passes the words it does not own in
/// `MDBOOK_SNIPPETS_ATTRS` (`greeting=hola`), after the book's `default-attributes`.
pub fn greeting() -> String {
    std::env::var("MDBOOK_SNIPPETS_ATTRS")
        .unwrap_or_default()
        .split(',')
        .filter_map(|attribute| attribute.strip_prefix("greeting="))
        .last()
        .unwrap_or("hello")
        .to_owned()
}

/// Runs a snippet without `fn main`: its code is the body of an `async` block returning a
/// `Result`, so `?` and `.await` work at its top level. (A real harness builds a runtime, say
/// tokio's; this one polls the body until it is done.) Then it leaves a file for the page.
pub fn snippet_main<F, Fut, E>(body: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(), E>>,
    E: Display,
{
    let mut future = std::pin::pin!(body());
    let mut context = Context::from_waker(Waker::noop());
    let result = loop {
        if let Poll::Ready(result) = future.as_mut().poll(&mut context) {
            break result;
        }
        std::thread::yield_now();
    };
    // Each `*.txt` or `*.svg` file here is shown under the snippet in the rendered page.
    if let Ok(dir) = std::env::var("MDBOOK_SNIPPETS_ARTIFACTS") {
        let note = format!("greeting: {}\n", greeting());
        std::fs::write(std::path::Path::new(&dir).join("10-run_notes.txt"), note)
            .expect("writing the artifact");
    }
    if let Err(error) = result {
        eprintln!("error: {error}");
        std::process::exit(1);
    }
}
