use expect_test::expect;

use super::*;
use crate::snippet::{Outcome, SourceSpan};

fn printed(stdout: &str, stderr: &str) -> SnippetResult {
    SnippetResult {
        id: "a".to_owned(),
        span: SourceSpan {
            path: "src/a.md".into(),
            line: 1,
            column: 1,
        },
        outcome: Outcome::Passed,
        stdout: stdout.to_owned(),
        stderr: stderr.to_owned(),
        artifacts: Vec::new(),
        elapsed: None,
    }
}

#[test]
fn stderr_is_shown_apart_and_marked_and_stdout_alone_is_as_before() {
    expect![[r#"
        <div class="mdbook-snippets-output">
        <pre class="mdbook-snippets-stdout">This is information</pre>
        <div class="mdbook-snippets-stderr"><small>stderr</small><pre>This is an error! :(</pre></div>
        </div>"#]]
    .assert_eq(&output_html(&printed("This is information\n", "This is an error! :(\n")).join("\n"));
    expect![[r#"
        <div class="mdbook-snippets-output">
        <pre class="mdbook-snippets-stdout">only &lt;out&gt;</pre>
        </div>"#]]
    .assert_eq(&output_html(&printed("only <out>\n", "")).join("\n"));
    assert!(output_html(&printed("", "")).is_empty());
}
