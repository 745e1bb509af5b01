use std::path::Path;

use expect_test::expect;

use super::*;
use crate::snippet::LanguageSyntax;
use crate::source::extract::extract;

const LIST: &str = "cancel-ignored\tthe handler stops on a cancel (2025-11-25, cancellation)\n\
                    late-response\tno response after a cancel\n\n";

fn problems_of(chapter: &str, known: Option<&[String]>) -> String {
    let python = LanguageSyntax {
        name: "python".to_owned(),
        hidden: "!!!".to_owned(),
    };
    let snippets = extract(Path::new("src/ch.md"), chapter, &[python]).expect("extracts");
    let claims: Vec<&Snippet> = snippets.iter().collect();
    problems(&claims, known, Some("mcp-testserver --list-mutants")).join("\n")
}

#[test]
fn the_list_is_the_first_field_of_each_line() {
    assert_eq!(parse_list(LIST), ["cancel-ignored", "late-response"]);
    assert_eq!(parse_list("bare\n  spaced\t\n\t\n"), ["bare", "spaced"]);
}

#[test]
fn a_name_not_in_the_list_is_a_problem_at_its_fence() {
    let known = parse_list(LIST);
    let chapter = "# Ch\n\n```rust,kills=cancel-ignord,kills=late-response\nfn main() {}\n```\n\n\
                   ```python,kills=unheard-of\nprint(1)\n```\n\n```rust,kills=cancel-ignored\n```\n";
    expect![[r#"
        src/ch.md:3: `kills=cancel-ignord`: no such mutant in the list `mcp-testserver --list-mutants` prints; did you mean `cancel-ignored`?
        src/ch.md:7: `kills=unheard-of`: no such mutant in the list `mcp-testserver --list-mutants` prints"#]]
    .assert_eq(&problems_of(chapter, Some(&known)));
    // Without a list, names are not checked.
    assert_eq!(problems_of(chapter, None), "");
}

#[test]
fn a_snippet_that_does_not_run_claims_nothing_in_any_language() {
    let known = parse_list(LIST);
    let chapter = "```rust,no_run,kills=cancel-ignored\nfn main() {}\n```\n\n\
                   ```rust,ignore,kills=cancel-ignored\n```\n\n\
                   ```rust,compile_fail,kills=cancel-ignored,kills=late-response\n```\n\n\
                   ```python,no_run,kills=cancel-ignored\n```\n\n\
                   ```python,ignore,kills=cancel-ignored\n```\n";
    let expected = expect![[r#"
        src/ch.md:1: `kills=cancel-ignored` on a snippet that does not run (`no_run`): nothing could notice the mutant (remove the claim, or let the snippet run)
        src/ch.md:5: `kills=cancel-ignored` on a snippet that does not run (`ignore`): nothing could notice the mutant (remove the claim, or let the snippet run)
        src/ch.md:8: `kills=cancel-ignored`, `kills=late-response` on a snippet that does not run (`compile_fail`): nothing could notice the mutant (remove the claim, or let the snippet run)
        src/ch.md:11: `kills=cancel-ignored` on a snippet that does not run (`no_run`): nothing could notice the mutant (remove the claim, or let the snippet run)
        src/ch.md:14: `kills=cancel-ignored` on a snippet that does not run (`ignore`): nothing could notice the mutant (remove the claim, or let the snippet run)"#]];
    expected.assert_eq(&problems_of(chapter, Some(&known)));
    // The same with or without a list.
    expected.assert_eq(&problems_of(chapter, None));
}
