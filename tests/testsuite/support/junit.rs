//! The JUnit report of `mdbook-snippets test --junit FILE`, read the one way every test reads
//! it: its test cases, each with its opening tag, name and verdict.

use std::collections::BTreeMap;

use super::book::Book;

/// The report `--junit NAME` wrote in `book`'s directory.
pub(crate) fn read(book: &Book, name: &str) -> String {
    std::fs::read_to_string(book.path().join(name)).expect("junit written")
}

/// One `<testcase>` of a report.
pub(crate) struct Case<'a> {
    /// The opening tag as written, `<testcase name=".." classname="..">`.
    pub(crate) head: &'a str,
    /// The `name` attribute: `PATH:LINE`, then ` mutant NAME` for a mutant run.
    pub(crate) name: &'a str,
    /// `passed`, `failed` or `skipped`.
    pub(crate) verdict: &'static str,
}

/// Every test case of `junit`, in order.
pub(crate) fn cases(junit: &str) -> Vec<Case<'_>> {
    junit
        .match_indices("<testcase ")
        .map(|(start, _)| {
            let case = &junit[start..];
            let head = &case[..=case.find('>').expect("a closed tag")];
            let name = case.split('"').nth(1).expect("a name");
            let body = case["<testcase ".len()..]
                .split("<testcase ")
                .next()
                .unwrap()
                .split("</testcase>")
                .next()
                .unwrap();
            let verdict = if body.contains("<failure") {
                "failed"
            } else if body.contains("<skipped") {
                "skipped"
            } else {
                "passed"
            };
            Case {
                head,
                name,
                verdict,
            }
        })
        .collect()
}

/// `line -> passed | failed | skipped` of every case (cases are named `PATH:LINE`).
pub(crate) fn verdicts_by_line(junit: &str) -> BTreeMap<usize, &'static str> {
    cases(junit)
        .into_iter()
        .map(|case| {
            let line = case.name.rsplit(':').next().unwrap().parse().unwrap();
            (line, case.verdict)
        })
        .collect()
}
