use expect_test::expect;

use super::*;

/// rustdoc's rules, line by line: what the compiler sees.
#[test]
fn hidden_lines_as_rustdoc() {
    let lines = [
        "# let hidden = 1;",
        "#",
        "    # indented_hidden();",
        "##[derive(Debug)]",
        "## not hidden",
        "#[derive(Clone)]",
        "#![allow(dead_code)]",
        "#hash_without_space",
        "let shown = 2;",
    ];
    let compiled: Vec<String> = lines.iter().map(|line| unhide(line)).collect();
    expect![[r#"
        let hidden = 1;

            indented_hidden();
        #[derive(Debug)]
        # not hidden
        #[derive(Clone)]
        #![allow(dead_code)]
        #hash_without_space
        let shown = 2;"#]]
    .assert_eq(&compiled.join("\n"));
}
