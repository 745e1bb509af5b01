use std::path::Path;

use expect_test::{Expect, expect};

use super::*;
use crate::source::extract::extract;

/// Two chapters: `src/ch.md` with snippets at lines 1, 5 and 30 (the second `ignore`), and
/// `src/other/ch2.md` with two snippets. Prints the selected snippets' places.
fn check(selection: Selection, expect: Expect) {
    let mut chapter = String::from("```rust\nlet a = 1;\n```\n\n```rust,ignore\nnope\n```\n");
    chapter.push_str(&"\n".repeat(22));
    chapter.push_str("```rust\nlet first = 1;\nlet second = 2;\n```\n");
    let other = "```rust\nlet c = 1;\n```\n```rust\nlet d = 1;\n```\n";
    let located: Vec<Located> = [("src/ch.md", chapter.as_str()), ("src/other/ch2.md", other)]
        .into_iter()
        .flat_map(|(path, text)| extract(Path::new(path), text, &[]).unwrap())
        .map(|snippet| {
            let line = snippet.span.line;
            Located::new(snippet, line, None)
        })
        .collect();
    let chosen: Vec<String> = located
        .iter()
        .zip(select(&located, &selection))
        .filter(|(_, chosen)| *chosen)
        .map(|(located, _)| {
            let span = &located.snippet.span;
            format!("{}:{}", span.path.display(), span.line)
        })
        .collect();
    expect.assert_eq(&chosen.join(" "));
}

fn filter(text: &str) -> Selection {
    Selection {
        filter: Some(text.to_owned()),
        ..Selection::default()
    }
}

#[test]
fn everything_but_ignore_by_default() {
    check(
        Selection::default(),
        expect!["src/ch.md:1 src/ch.md:30 src/other/ch2.md:1 src/other/ch2.md:4"],
    );
}

#[test]
fn place_filter_matches_the_line_exactly() {
    check(filter("ch.md:3"), expect![""]);
    check(filter("ch.md:30"), expect!["src/ch.md:30"]);
    check(filter("src/ch.md:32"), expect!["src/ch.md:30"]);
    check(filter("ch.md:2"), expect!["src/ch.md:1"]);
    // A whole path component, not any suffix.
    check(filter("h.md:1"), expect![""]);
    check(filter("ch2.md:4"), expect!["src/other/ch2.md:4"]);
}

#[test]
fn name_filter_matches_ids() {
    check(filter("src_ch_md_3"), expect!["src/ch.md:30"]);
    check(
        filter("ch2_md"),
        expect!["src/other/ch2.md:1 src/other/ch2.md:4"],
    );
}

#[test]
fn chapter_filter_is_separate() {
    let selection = Selection {
        chapters: vec!["other/".to_owned()],
        ..Selection::default()
    };
    check(selection, expect!["src/other/ch2.md:1 src/other/ch2.md:4"]);
    let selection = Selection {
        chapters: vec!["src/ch.md".to_owned()],
        filter: Some("src_ch_md".to_owned()),
        partition: None,
    };
    check(selection, expect!["src/ch.md:1 src/ch.md:30"]);
}

#[test]
fn partitions_are_disjoint_and_cover_the_book() {
    for (index, expect) in [
        (1, expect!["src/ch.md:1 src/other/ch2.md:4"]),
        (2, expect!["src/ch.md:30"]),
        (3, expect!["src/other/ch2.md:1"]),
    ] {
        let selection = Selection {
            partition: Some(Partition { index, count: 3 }),
            ..Selection::default()
        };
        check(selection, expect);
    }
}

#[test]
fn partition_syntax() {
    let parse = |text: &str| format!("{:?}", text.parse::<Partition>());
    expect!["Ok(Partition { index: 2, count: 3 })"].assert_eq(&parse("2/3"));
    expect![[r#"Err("expected K/N with 1 <= K <= N, found `0/3`")"#]].assert_eq(&parse("0/3"));
    expect![[r#"Err("expected K/N with 1 <= K <= N, found `4/3`")"#]].assert_eq(&parse("4/3"));
    expect![[r#"Err("expected K/N with 1 <= K <= N, found `x`")"#]].assert_eq(&parse("x"));
}
