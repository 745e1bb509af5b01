use super::*;
use expect_test::{Expect, expect};

fn check(info: &str, expect: Expect) {
    let actual = match block_kind(info, &[]) {
        BlockKind::Snippet => format!("{:?}", parse_attributes(info)),
        other => format!("{other:?}"),
    };
    expect.assert_eq(&actual);
}

/// Each word of `words` and what the parser makes of it when it is not an attribute.
fn check_unknown(words: &str, expect: Expect) {
    let attributes = parse_attributes(&format!("rust,{words}")).expect("parses");
    let actual: Vec<String> = attributes
        .unknown
        .iter()
        .map(UnknownWord::describe)
        .collect();
    expect.assert_eq(&actual.join("\n"));
}

#[test]
fn kinds() {
    check(
        "",
        expect![
            "Ok(Attributes { ignore: false, no_run: false, should_panic: false, test_harness: false, standalone_crate: false, compile_fail: None, edition: None, timeout_secs: None, hidelines: None, harness: [], unknown: [], kills: [] })"
        ],
    );
    check("toml", expect!["Other"]);
    // rustdoc's rule: another tool's word makes the block not Rust, unless `rust` is there
    // or one of rustdoc's attributes came first; edition words count for neither.
    check("text", expect!["Other"]);
    check("editable", expect!["Other"]);
    check("text,no_run", expect!["Other"]);
    check("rust,text,should_panic", expect!["Other"]);
    assert!(is_rust("no_run,text"));
    assert!(is_rust("css-class rust"));
    assert!(is_rust("edition2021"));
    assert!(is_rust("compile_fail,E0308"));
    assert!(is_rust("standalone_crate"));
    assert!(!is_rust("edition2021,console"));
    assert!(!is_rust("sh"));
    check("text,output", expect!["ExpectedOutput"]);
    check("output", expect!["ExpectedOutput"]);
    check(
        "no_run",
        expect![
            "Ok(Attributes { ignore: false, no_run: true, should_panic: false, test_harness: false, standalone_crate: false, compile_fail: None, edition: None, timeout_secs: None, hidelines: None, harness: [], unknown: [], kills: [] })"
        ],
    );
    check(
        "rust",
        expect![
            "Ok(Attributes { ignore: false, no_run: false, should_panic: false, test_harness: false, standalone_crate: false, compile_fail: None, edition: None, timeout_secs: None, hidelines: None, harness: [], unknown: [], kills: [] })"
        ],
    );
}

#[test]
fn rustdoc_attributes() {
    check(
        "rust,compile_fail,E0425 edition2018",
        expect![[
            r#"Ok(Attributes { ignore: false, no_run: false, should_panic: false, test_harness: false, standalone_crate: false, compile_fail: Some(["E0425"]), edition: Some("2018"), timeout_secs: None, hidelines: None, harness: [], unknown: [], kills: [] })"#
        ]],
    );
    check(
        "rust,E0425,compile_fail",
        expect![[
            r#"Ok(Attributes { ignore: false, no_run: false, should_panic: false, test_harness: false, standalone_crate: false, compile_fail: Some(["E0425"]), edition: None, timeout_secs: None, hidelines: None, harness: [], unknown: [], kills: [] })"#
        ]],
    );
    check(
        "rust,should_panic,no_run,ignore,editable,test_harness",
        expect![
            "Ok(Attributes { ignore: true, no_run: true, should_panic: true, test_harness: true, standalone_crate: false, compile_fail: None, edition: None, timeout_secs: None, hidelines: None, harness: [], unknown: [], kills: [] })"
        ],
    );
}

#[test]
fn harness_attributes_and_timeout() {
    check(
        "rust,revision=both,expect_violation=reused-id,timeout=3",
        expect![[
            r#"Ok(Attributes { ignore: false, no_run: false, should_panic: false, test_harness: false, standalone_crate: false, compile_fail: None, edition: None, timeout_secs: Some(3), hidelines: None, harness: ["revision=both", "expect_violation=reused-id"], unknown: [], kills: [] })"#
        ]],
    );
}

#[test]
fn malformed_values_of_ours_are_errors() {
    check(
        "rust,timeout=x",
        expect![[r#"Err("`timeout` needs whole seconds, found `x`")"#]],
    );
    check(
        "rust,kills=",
        expect![[r#"Err("`kills` needs the name of a mutant, found nothing")"#]],
    );
}

#[test]
fn kills_are_ours_not_the_harness_nor_unknown() {
    // Repeatable, each name once, in order; never in `harness` (MDBOOK_SNIPPETS_ATTRS) nor
    // among the unknown words `unknown-attributes = "error"` fails on.
    let attributes =
        parse_attributes("rust,kills=cancel-ignored,revision=both kills=b,kills=cancel-ignored")
            .expect("parses");
    expect![[r#"(["cancel-ignored", "b"], ["revision=both"], [])"#]].assert_eq(&format!(
        "{:?}",
        (&attributes.kills, &attributes.harness, &attributes.unknown)
    ));
}

#[test]
fn near_misses_name_the_attribute_they_resemble() {
    check_unknown(
        "should-panic shouldpanic compile-fail no-run edition2O21 shold_panic Ignore \
             no_rnu test-harness edition2020 E0425",
        expect![[r#"
                unknown attribute `should-panic`; did you mean `should_panic`?
                unknown attribute `shouldpanic`; did you mean `should_panic`?
                unknown attribute `compile-fail`; did you mean `compile_fail`?
                unknown attribute `no-run`; did you mean `no_run`?
                unknown attribute `edition2O21`; did you mean `edition2021`?
                unknown attribute `shold_panic`; did you mean `should_panic`?
                unknown attribute `Ignore`; did you mean `ignore`?
                unknown attribute `no_rnu`; did you mean `no_run`?
                unknown attribute `test-harness`; did you mean `test_harness`?
                unknown attribute `edition2020`; did you mean `edition2021`?
                unknown attribute `E0425`; did you mean `compile_fail`?"#]],
    );
}

#[test]
fn other_words_are_unknown_but_resemble_nothing() {
    check_unknown(
        "does_not_compile panics not_desired_behavior hide-boring run edition",
        expect![[r#"
                unknown attribute `does_not_compile`
                unknown attribute `panics`
                unknown attribute `not_desired_behavior`
                unknown attribute `hide-boring`
                unknown attribute `run`
                unknown attribute `edition`"#]],
    );
}

#[test]
fn snippet_value_wins_over_default() {
    let defaults = vec!["revision=2025-11-25".to_owned(), "trace=on".to_owned()];
    let own = vec!["revision=both".to_owned()];
    expect![[r#"["trace=on", "revision=both"]"#]]
        .assert_eq(&format!("{:?}", merge_harness_attributes(&defaults, &own)));
}

fn check_language(info: &str, expect: Expect) {
    let languages = [LanguageSyntax {
        name: "python".to_owned(),
        hidden: "!!!".to_owned(),
    }];
    let actual = match block_kind(info, &languages) {
        BlockKind::Language(language) => format!(
            "{} hidden={:?} own={} {:?}",
            language.name,
            language.hidden,
            language.hidden_in_info,
            parse_language_attributes(info)
        ),
        other => format!("{other:?}"),
    };
    expect.assert_eq(&actual);
}

#[test]
fn declared_languages_and_their_attributes() {
    check_language(
        "python",
        expect![[
            r#"python hidden="!!!" own=false Ok(Attributes { ignore: false, no_run: false, should_panic: false, test_harness: false, standalone_crate: false, compile_fail: None, edition: None, timeout_secs: None, hidelines: None, harness: [], unknown: [], kills: [] })"#
        ]],
    );
    check_language(
        "python,no_run,ignore,timeout=3,revision=2,hidelines=%%,extra",
        expect![[
            r#"python hidden="%%" own=true Ok(Attributes { ignore: true, no_run: true, should_panic: false, test_harness: false, standalone_crate: false, compile_fail: None, edition: None, timeout_secs: Some(3), hidelines: Some("%%"), harness: ["revision=2"], unknown: [UnknownWord { word: "extra", resembles: None }], kills: [] })"#
        ]],
    );
    check_language(
        "python edition2021",
        expect![
            "python hidden=\"!!!\" own=false Err(\"`editionNNNN` applies to Rust snippets only, not to `python`\")"
        ],
    );
    check_language(
        "python,kills=progress-backwards",
        expect![[
            r#"python hidden="!!!" own=false Ok(Attributes { ignore: false, no_run: false, should_panic: false, test_harness: false, standalone_crate: false, compile_fail: None, edition: None, timeout_secs: None, hidelines: None, harness: [], unknown: [], kills: ["progress-backwards"] })"#
        ]],
    );
    check_language("pythonic", expect!["Other"]);
    check_language("ruby", expect!["Other"]);
    check_language("rust", expect!["Snippet"]);
}
