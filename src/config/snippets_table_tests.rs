use super::*;
use expect_test::{Expect, expect};

/// Parses `text` as the book.toml of a book that has `snippets/` and
/// `packages/helper/Cargo.toml`; the book's directory shows as `[ROOT]`.
fn check(text: &str, expect: Expect) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("snippets")).unwrap();
    std::fs::create_dir_all(dir.path().join("packages/helper")).unwrap();
    std::fs::write(dir.path().join("packages/helper/Cargo.toml"), "").unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let actual = match Config::from_book_toml_str(dir.path(), text) {
        Ok(config) => format!(
            "src={} harness={:?} defaults={:?} edition={:?} timeout={:?} unknown={:?} dependencies={:?}",
            config.src_dir.display(),
            config.harness,
            config.default_attributes,
            config.edition,
            config.timeout,
            config.unknown_attributes,
            config.dependencies,
        ),
        Err(error) => format!("error: {error:#}"),
    };
    expect.assert_eq(&actual.replace(&root.display().to_string(), "[ROOT]"));
}

#[test]
fn reads_our_table_and_mdbook_keys() {
    check(
        r#"
[book]
src = "book"
[rust]
edition = "2024"
[preprocessor.snippets]
command = "mdbook-snippets"
after = ["links"]
harness = "./snippets/../snippets"
default-attributes = ["revision=2025-11-25"]
unknown-attributes = "error"
timeout = 5
"#,
        expect![[
            r#"src=[ROOT]/book harness=Some("[ROOT]/snippets") defaults=["revision=2025-11-25"] edition=Some("2024") timeout=5s unknown=Error dependencies={}"#
        ]],
    );
}

#[test]
fn defaults_without_a_table() {
    check(
        "[book]\ntitle = \"t\"\n",
        expect![
            "src=[ROOT]/src harness=None defaults=[] edition=None timeout=60s unknown=Ignore dependencies={}"
        ],
    );
}

#[test]
fn dependencies_in_cargo_syntax_with_paths_made_canonical() {
    check(
        r#"
[preprocessor.snippets.dependencies]
tokio = { version = "1", features = ["full"] }
serde_json = "1"
helper = { path = "packages/../packages/helper" }
"#,
        expect![[
            r#"src=[ROOT]/src harness=None defaults=[] edition=None timeout=60s unknown=Ignore dependencies={"helper": Table({"path": String("[ROOT]/packages/helper")}), "serde_json": String("1"), "tokio": Table({"features": Array([String("full")]), "version": String("1")})}"#
        ]],
    );
}

#[test]
fn unknown_key_is_named() {
    check(
        "[preprocessor.snippets]\nharnes = \"x\"\n",
        expect![
            "error: unknown key `harnes` in [preprocessor.snippets]: did you mean `harness`? (expected one of: `command`, `after`, `before`, `renderers`, `optional`, `harness`, `dependencies`, `default-attributes`, `unknown-attributes`, `edition`, `timeout`, `output-limit`, `jobs`, `languages`, `pass-env`, `writable`, `mutants`, `process-limit`, `memory-limit`, `file-size-limit`, `scratch-limit`, `build-timeout`, `backtrace`, `network`)"
        ],
    );
}

#[test]
fn an_unknown_key_like_no_known_one_gets_no_guess() {
    check(
        "[preprocessor.snippets]\ncolour = \"never\"\n",
        expect![
            "error: unknown key `colour` in [preprocessor.snippets] (expected one of: `command`, `after`, `before`, `renderers`, `optional`, `harness`, `dependencies`, `default-attributes`, `unknown-attributes`, `edition`, `timeout`, `output-limit`, `jobs`, `languages`, `pass-env`, `writable`, `mutants`, `process-limit`, `memory-limit`, `file-size-limit`, `scratch-limit`, `build-timeout`, `backtrace`, `network`)"
        ],
    );
}

#[test]
fn malformed_dependencies_name_the_crate() {
    check(
        "[preprocessor.snippets.dependencies]\ntokio = { version = \"1\", featurs = [] }\n",
        expect![
            "error: unknown key `featurs` in [preprocessor.snippets.dependencies] `tokio`: did you mean `features`? (expected one of: `version`, `path`, `git`, `branch`, `tag`, `rev`, `features`, `default-features`, `default_features`, `package`, `registry`)"
        ],
    );
    check(
        "[preprocessor.snippets.dependencies]\ntokio = 1\n",
        expect![
            "error: in [preprocessor.snippets.dependencies] `tokio`: expected a version string or a table, found integer"
        ],
    );
    check(
        "[preprocessor.snippets.dependencies]\ntokio = { features = [\"full\"] }\n",
        expect![
            "error: in [preprocessor.snippets.dependencies] `tokio`: needs `version`, `path` or `git`"
        ],
    );
    check(
        "[preprocessor.snippets]\ndependencies = [\"tokio\"]\n",
        expect!["error: in [preprocessor.snippets]: invalid type: sequence, expected a map"],
    );
}

#[test]
fn missing_paths_name_the_key() {
    check(
        "[preprocessor.snippets.dependencies]\nhelper = { path = \"../nowhere\" }\n",
        expect![
            "error: `dependencies.helper.path`: [ROOT]/../nowhere does not exist (set in [preprocessor.snippets] of book.toml; relative paths start at the book root)"
        ],
    );
    check(
        "[preprocessor.snippets.dependencies]\nhelper = { path = \"snippets\" }\n",
        expect!["error: `dependencies.helper.path`: [ROOT]/snippets has no Cargo.toml"],
    );
    check(
        "[preprocessor.snippets]\nharness = \"../harness\"\n",
        expect![
            "error: `harness`: [ROOT]/../harness does not exist (set in [preprocessor.snippets] of book.toml; relative paths start at the book root)"
        ],
    );
}

#[test]
fn languages_resolve_their_programs_with_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[preprocessor.snippets.languages.python]\ncommand = [\"sh\", \"-e\", \"{file}\"]\nextension = \".py\"\n\
                    [preprocessor.snippets.languages.shell]\ncommand = [\"sh\", \"{file}\"]\nextension = \"sh\"\nhidden = \"~~\"\nerror-position = \"last\"\n";
    let config = Config::from_book_toml_str(dir.path(), text).unwrap();
    let summary: Vec<String> = config
        .languages
        .iter()
        .map(|language| {
            format!(
                "{} {:?} .{} {} {:?} program-is-absolute={} identity-names-it={}",
                language.name,
                &language.command[1..],
                language.extension,
                language.hidden,
                language.error_position,
                Path::new(&language.command[0]).is_absolute(),
                language.identity.starts_with(&language.command[0]),
            )
        })
        .collect();
    expect![[r#"
            python ["-e", "{file}"] .py !!! First program-is-absolute=true identity-names-it=true
            shell ["{file}"] .sh ~~ Last program-is-absolute=true identity-names-it=true"#]]
    .assert_eq(&summary.join("\n"));
}

#[test]
fn malformed_toml_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let error = Config::from_book_toml_str(dir.path(), "[book\n").unwrap_err();
    assert!(
        format!("{error:#}").starts_with("Invalid configuration file: TOML parse error"),
        "{error:#}"
    );
}

#[test]
fn bad_values_are_errors() {
    check(
        "[preprocessor.snippets]\ntimeout = 0\n",
        expect!["error: `timeout` must be a positive integer, found 0"],
    );
    check(
        "[preprocessor.snippets]\nedition = \"2022\"\n",
        expect!["error: unknown edition `2022` (expected 2015, 2018, 2021 or 2024)"],
    );
    check(
        "[preprocessor.snippets]\nunknown-attributes = \"warn\"\n",
        expect![
            "error: in [preprocessor.snippets]: unknown variant `warn`, expected `ignore` or `error`"
        ],
    );
    check(
        "[preprocessor.snippets]\ntimeout = \"5\"\n",
        expect![[r#"error: in [preprocessor.snippets]: invalid type: string "5", expected u64"#]],
    );
}

/// The containment keys (issue 33) and `backtrace` (issue 36): defaults, values, 0 refused.
#[test]
fn limits_build_timeout_and_backtrace() {
    let dir = tempfile::tempdir().unwrap();
    let read = |text: &str| Config::from_book_toml_str(dir.path(), text);
    let defaults = read("[book]\n").unwrap();
    assert_eq!(defaults.limits, ResourceLimits::default());
    assert_eq!(defaults.build_timeout, Duration::from_secs(600));
    assert!(!defaults.backtrace);
    let set = read(
        "[preprocessor.snippets]\nprocess-limit = 64\nmemory-limit = 512\n\
         file-size-limit = 8\nscratch-limit = 16\nbuild-timeout = 30\nbacktrace = true\n",
    )
    .unwrap();
    assert_eq!(
        set.limits,
        ResourceLimits {
            processes: 64,
            memory_mib: 512,
            file_size_mib: 8,
            scratch_mib: 16,
        }
    );
    assert_eq!(set.build_timeout, Duration::from_secs(30));
    assert!(set.backtrace);
    for key in [
        "process-limit",
        "memory-limit",
        "file-size-limit",
        "scratch-limit",
        "build-timeout",
    ] {
        let error = read(&format!("[preprocessor.snippets]\n{key} = 0\n")).unwrap_err();
        assert!(
            format!("{error:#}").contains(&format!("`{key}` must be a positive integer")),
            "{key}: {error:#}"
        );
    }
}
