use std::path::Path;

use expect_test::{Expect, expect};

use super::{remap, unhide};
use crate::snippet::LanguageSyntax;
use crate::source::Located;
use crate::source::extract::extract;

/// The one snippet of `markdown` (a `python` block, prefix `!!!`), located in `src/ch.md`.
fn located(markdown: &str) -> Located {
    let languages = [LanguageSyntax {
        name: "python".to_owned(),
        hidden: "!!!".to_owned(),
    }];
    let snippet = extract(Path::new("src/ch.md"), markdown, &languages)
        .unwrap()
        .remove(0);
    let line = snippet.span.line;
    Located::new(snippet, line, None)
}

fn check_remap(stderr: &str, expect: Expect) {
    let chapter = "# Ch\n\n```python\nfirst()\nsecond()\nthird()\n```\n";
    let (text, spans) = remap(stderr, "src_ch_md_1.py", &located(chapter));
    let lines: Vec<String> = spans.iter().map(|span| span.line.to_string()).collect();
    expect.assert_eq(&format!("{text}\nlines: {}", lines.join(",")));
}

#[test]
fn traceback_shapes_map_to_markdown_lines() {
    check_remap(
        "Traceback (most recent call last):\n  File \"/tmp/x/code/src_ch_md_1.py\", line 3, in <module>\n",
        expect![[r#"
            Traceback (most recent call last):
              File "src/ch.md", line 6, in <module>

            lines: 6"#]],
    );
    check_remap(
        "/tmp/x/code/src_ch_md_1.py:2\n    at f (file:///tmp/x/code/src_ch_md_1.py:1:7)\n",
        expect![[r#"
            src/ch.md:5
                at f (src/ch.md:4:7)

            lines: 5,4"#]],
    );
    check_remap(
        "/tmp/code/src_ch_md_1.py: line 3: oops: command not found\n",
        expect![[r#"
            src/ch.md: line 6: oops: command not found

            lines: 6"#]],
    );
    // A line past the snippet (or none at all) is not a position in it; the path still goes.
    check_remap(
        "/tmp/code/src_ch_md_1.py:40 and /tmp/code/src_ch_md_1.py alone, src_ch_md_10.py:1 /x/a_src_ch_md_1.py:2\n",
        expect![[r#"
            src/ch.md:40 and src/ch.md alone, src_ch_md_10.py:1 /x/a_src_ch_md_1.py:2

            lines: "#]],
    );
}

#[test]
fn hidden_lines_lose_their_prefix_and_keep_their_place() {
    let code = "!!!import os\n    !!!hidden = 1\n# a comment stays\nshown !!! here\n";
    expect![[r#"
        import os
            hidden = 1
        # a comment stays
        shown !!! here
    "#]]
    .assert_eq(&unhide(code, "!!!"));
    assert_eq!(unhide(code, "!!!").lines().count(), code.lines().count());
}
