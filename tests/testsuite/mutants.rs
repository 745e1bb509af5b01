//! `mdbook-snippets test --mutants` on `fixtures/mutants/`: each passing snippet that carries
//! `kills=NAME` runs once more per mutant with `MDBOOK_SNIPPETS_MUTANT=NAME`; a run that fails
//! (output, panic, exit code, timeout) kills the mutant, one that passes lets it survive, which
//! fails the verification at the snippet's line. Rust and Python alike, in the report, the
//! progress lines and JUnit; killed mutants are cached. Without `--mutants` nothing changes, and
//! the preprocessor (`mdbook build`) never runs a mutant. Claims are checked before anything
//! runs (`claims_book`): a name the book's `mutants` command does not list, or a claim on a
//! snippet that does not run, is an error at its fence (exit 2).
//!
//! Every snippet of the fixture appends `NAME mutant=MUTANT attrs=ATTRS` to the file its
//! `log=` attribute names, so a test that sets it sees which processes ran, with what.

use expect_test::expect;

use crate::support::{Book, fixture, junit, mdbook};

/// The fixture, its snippets logging every run to a file of this book's own (a path no earlier
/// run of the suite had, so nothing comes from the shared cache), which the book lets them
/// write (`writable`: the sandbox keeps the rest of the book read-only).
fn logging_fixture() -> Book {
    let book = fixture("mutants");
    let toml = std::fs::read_to_string(book.path().join("book.toml")).unwrap();
    let log = book.path().join("runs.log");
    book.write("runs.log", "");
    book.write(
        "book.toml",
        &toml
            .replace("log=runs.log", &format!("log={}", log.display()))
            .replace(
                "[preprocessor.snippets]\n",
                "[preprocessor.snippets]\nwritable = [\"runs.log\"]\n",
            ),
    );
    book
}

/// The lines of the run log, sorted (runs finish in any order), the book's path as `[ROOT]`.
fn runs(book: &Book) -> String {
    let log = std::fs::read_to_string(book.path().join("runs.log")).unwrap_or_default();
    let mut lines: Vec<String> = log
        .lines()
        .map(|line| line.replace(&book.path().display().to_string(), "[ROOT]"))
        .collect();
    lines.sort();
    lines.join("\n")
}

#[test]
fn mutants_are_killed_or_survive_at_their_snippets_line() {
    let book = logging_fixture();
    let output = book.test(&["--mutants"]);
    output.code(1);
    expect![[r#"
        error: snippet src_survivors_md_1 mutant never-checked survived
         --> src/survivors.md:5:1
          |
        3 | This snippet does nothing different under its mutant (it only logs it), so its claim is false:
        4 |
        5 | ```rust,kills=never-checked
          | ^^^^^^^^^^^^^^^^^^^^^^^^^^^ mutant never-checked survived
        6 | # let attrs = std::env::var("MDBOOK_SNIPPETS_ATTRS").unwrap();
        7 | # let mutant = std::env::var("MDBOOK_SNIPPETS_MUTANT").unwrap_or_else(|_| "-".to_owned());
          |
          the snippet passed with MDBOOK_SNIPPETS_MUTANT=never-checked: a snippet that kills `never-checked` must fail when it is set (its output, exit code, a panic, a timeout)

        failures:
            src/survivors.md:5 (mutant never-checked survived, src_survivors_md_1)

        finished in [TIME]
        mutants: 5 killed, 1 survived
        5 passed, 1 failed
    "#]]
    .assert_eq(&output.stdout());
    // Each mutant run, beside the snippet runs, on the progress lines.
    for line in [
        "test src/rust.md:5 mutant wrong-answer ... killed",
        "test src/rust.md:22 mutant panics ... killed",
        "test src/rust.md:22 mutant exits ... killed",
        "test src/python.md:3 mutant wrong-answer ... killed",
        "test src/python.md:3 mutant hangs ... killed",
        "test src/survivors.md:5 mutant never-checked ... SURVIVED",
    ] {
        output.stderr_contains(line);
    }
    // One run per snippet and per mutant, the variable set on mutant runs only; `kills=` words
    // are not the harness's (not in MDBOOK_SNIPPETS_ATTRS).
    expect![[r#"
        answer mutant=- attrs=log=[ROOT]/runs.log
        answer mutant=wrong-answer attrs=log=[ROOT]/runs.log
        plain mutant=- attrs=log=[ROOT]/runs.log
        python mutant=- attrs=log=[ROOT]/runs.log
        python mutant=hangs attrs=log=[ROOT]/runs.log
        python mutant=wrong-answer attrs=log=[ROOT]/runs.log
        survivor mutant=- attrs=log=[ROOT]/runs.log
        survivor mutant=never-checked attrs=log=[ROOT]/runs.log
        two mutant=- attrs=log=[ROOT]/runs.log
        two mutant=exits attrs=log=[ROOT]/runs.log
        two mutant=panics attrs=log=[ROOT]/runs.log"#]]
    .assert_eq(&runs(&book));
}

#[test]
fn killed_mutants_come_from_the_cache() {
    let book = logging_fixture();
    let args = [
        "--mutants",
        "--chapter",
        "src/rust.md",
        "--chapter",
        "src/python.md",
    ];
    let first = book.test(&args);
    first
        .code(0)
        .stderr_contains("running 5 mutant run(s)")
        .stdout_contains("mutants: 5 killed, 0 survived\n4 passed, 0 failed, 1 skipped");
    let after_first = runs(&book);
    let second = book.test(&args);
    second.code(0);
    assert_eq!(first.stdout(), second.stdout());
    assert!(
        !second.stderr.contains("building") && !second.stderr.contains("running"),
        "built or ran again\n{second}"
    );
    second.stderr_contains("test src/python.md:3 mutant hangs ... killed");
    assert_eq!(after_first, runs(&book), "a snippet ran again");

    // Without `--mutants` the same book runs as before (from the cache here too).
    book.test(&["--chapter", "src/rust.md", "--chapter", "src/python.md"])
        .code(0)
        .stdout_contains("finished in");
    assert_eq!(after_first, runs(&book), "a snippet ran again");

    // A survivor is not cached: it runs again, and its snippet with it (for its executable).
    let survivors = ["--mutants", "--chapter", "src/survivors.md"];
    book.test(&survivors).code(1);
    let before = std::fs::read_to_string(book.path().join("runs.log")).unwrap();
    let again = book.test(&survivors);
    again
        .code(1)
        .stderr_contains("running 1 mutant run(s)")
        .stdout_contains("mutants: 0 killed, 1 survived\n1 passed, 1 failed, 4 skipped");
    let after = std::fs::read_to_string(book.path().join("runs.log")).unwrap();
    let mut new_runs: Vec<&str> = after[before.len()..]
        .lines()
        .map(|line| line.split(" attrs=").next().unwrap())
        .collect();
    new_runs.sort();
    assert_eq!(
        new_runs,
        ["survivor mutant=-", "survivor mutant=never-checked"]
    );
}

#[test]
fn without_mutants_kills_change_nothing() {
    let book = logging_fixture();
    let mut command = book.test_command(&[]);
    // Not even a variable of the same name in the verifier's own environment reaches a run.
    command.env("MDBOOK_SNIPPETS_MUTANT", "wrong-answer");
    let output = book.run(command);
    output.code(0);
    assert!(!output.stdout.contains("mutants:"), "{output}");
    assert!(!output.stderr.contains(" mutant "), "{output}");
    output.stdout_contains("\n5 passed, 0 failed\n");
    expect![[r#"
        answer mutant=- attrs=log=[ROOT]/runs.log
        plain mutant=- attrs=log=[ROOT]/runs.log
        python mutant=- attrs=log=[ROOT]/runs.log
        survivor mutant=- attrs=log=[ROOT]/runs.log
        two mutant=- attrs=log=[ROOT]/runs.log"#]]
    .assert_eq(&runs(&book));
}

#[test]
fn junit_has_a_case_per_mutant_run() {
    let book = fixture("mutants");
    let output = book.test(&["--quiet", "--mutants", "--junit", "report.xml"]);
    output.code(1);
    let report = junit::read(&book, "report.xml");
    // A run's time (` time="SECONDS"`) is there only when the run was not taken from the cache.
    let cases: Vec<String> = junit::cases(&report)
        .into_iter()
        .filter(|case| case.name.contains(" mutant "))
        .map(|case| match case.head.split_once(" time=\"") {
            Some((before, after)) => format!("{before}{}", &after[after.find('"').unwrap() + 1..]),
            None => case.head.to_owned(),
        })
        .collect();
    expect![[r#"
        <testcase name="src/rust.md:5 mutant wrong-answer" classname="src/rust.md">
        <testcase name="src/rust.md:22 mutant panics" classname="src/rust.md">
        <testcase name="src/rust.md:22 mutant exits" classname="src/rust.md">
        <testcase name="src/python.md:3 mutant wrong-answer" classname="src/python.md">
        <testcase name="src/python.md:3 mutant hangs" classname="src/python.md">
        <testcase name="src/survivors.md:5 mutant never-checked" classname="src/survivors.md">"#]]
    .assert_eq(&cases.join("\n"));
    assert!(
        report.contains(r#"<failure message="mutant survived""#),
        "{report}"
    );
    assert!(report.contains("killed: timed out"), "{report}");
    assert!(report.contains("killed: output differs"), "{report}");
}

#[test]
fn the_preprocessor_runs_no_mutant() {
    let book = logging_fixture();
    let output = mdbook::run(&book, &["build"], &[]);
    output.code(0);
    let page = std::fs::read_to_string(book.path().join("book/rust.html")).unwrap();
    assert!(page.contains("mdbook-snippets-output"), "{page}");
    expect![[r#"
        answer mutant=- attrs=log=[ROOT]/runs.log
        plain mutant=- attrs=log=[ROOT]/runs.log
        python mutant=- attrs=log=[ROOT]/runs.log
        survivor mutant=- attrs=log=[ROOT]/runs.log
        two mutant=- attrs=log=[ROOT]/runs.log"#]]
    .assert_eq(&runs(&book));
}

#[test]
fn kills_without_a_name_fails_its_chapter_at_the_fence() {
    let book =
        crate::support::book(&[("src/a.md", "# A\n\n```rust,kills=\nprintln!(\"x\");\n```\n")]);
    book.test(&["--quiet", "--mutants"])
        .code(1)
        .stdout_contains("`kills` needs the name of a mutant, found nothing")
        .stdout_contains("    src/a.md:3 (chapter not verified)")
        .stdout_contains("mutants: 0 killed, 0 survived\n0 passed, 1 failed\n");
}

/// A book of `sh` snippets that behave as the test server does with `$MDBOOK_SNIPPETS_MUTANT`
/// (`REFUSING`): `cancel-ignored` changes the output, and an unknown name is refused (exit 2),
/// which fails the snippet without any behaviour being broken. `mutants` is the line of its
/// `book.toml`.
fn claims_book(mutants: &str, chapter: &str) -> Book {
    crate::support::sh_book(mutants, chapter)
}

const REFUSING: &str = "# A\n\n```sh,kills=cancel-ignord\n\
case \"${MDBOOK_SNIPPETS_MUTANT-}\" in\n\
    '') echo stopped ;;\n\
    cancel-ignored) echo 'still running' ;;\n\
    *) echo \"unknown mutant $MDBOOK_SNIPPETS_MUTANT\" >&2; exit 2 ;;\n\
esac\n```\n\n```text,output\nstopped\n```\n";

/// The list `mcp-testserver --list-mutants` would print, for `claims_book`.
const LIST: &str =
    r#"mutants = ["sh", "-c", "printf 'cancel-ignored\\tthe handler stops on a cancel\\n'"]"#;

#[test]
fn a_misspelt_name_is_an_error_at_its_fence_before_anything_runs() {
    let book = claims_book(LIST, REFUSING);
    let output = book.test(&["--mutants"]);
    output.code(2).stderr_contains(
        "error: 1 false `kills=` claim(s), nothing was run:\nsrc/a.md:3: `kills=cancel-ignord`: \
         no such mutant in the list `sh -c printf 'cancel-ignored\\tthe handler stops on a \
         cancel\\n'` prints; did you mean `cancel-ignored`?\n",
    );
    assert!(
        !output.stderr.contains("test src/a.md"),
        "a snippet ran\n{output}"
    );
    // Spelt right, the mutant is killed by what the snippet checks (its output).
    book.write(
        "src/a.md",
        &REFUSING.replace("cancel-ignord", "cancel-ignored"),
    );
    book.test(&["--mutants", "--junit", "report.xml"])
        .code(0)
        .stdout_contains("mutants: 1 killed, 0 survived\n1 passed, 0 failed\n");
    let report = crate::support::junit::read(&book, "report.xml");
    assert!(report.contains("killed: output differs"), "{report}");
    // Without `--mutants`, a claim is not checked: the book runs as before.
    book.write("src/a.md", REFUSING);
    book.test(&[]).code(0).stdout_contains("1 passed, 0 failed");
}

/// Without a `mutants` key (books written before it), names are not checked, as before, and
/// the run says so.
#[test]
fn without_a_list_names_are_not_checked_and_the_run_says_so() {
    let book = claims_book("", REFUSING);
    book.test(&["--mutants"])
        .code(0)
        .stderr_contains(
            "warning: `kills=` names are not checked: book.toml has no `mutants` command",
        )
        .stdout_contains("mutants: 1 killed, 0 survived");
    // No claim, no warning (and no list run).
    book.write("src/a.md", &REFUSING.replace(",kills=cancel-ignord", ""));
    let output = book.test(&["--mutants"]);
    output.code(0);
    assert!(!output.stderr.contains("warning"), "{output}");
}

/// One rule in every language: a snippet that does not run (`ignore`, `no_run`,
/// `compile_fail`) can notice nothing, so under `--mutants` a claim on it is an error at its
/// fence, before anything runs; without `--mutants` it changes nothing.
#[test]
fn claims_on_snippets_that_do_not_run_are_errors_in_every_language() {
    let chapter = "```rust,no_run,kills=cancel-ignored\nfn main() {}\n```\n\n\
                   ```rust,ignore,kills=cancel-ignored\nnot rust\n```\n\n\
                   ```rust,compile_fail,kills=cancel-ignored\nlet x: u32 = \"no\";\n```\n\n\
                   ```sh,no_run,kills=cancel-ignored\necho never\n```\n\n\
                   ```sh,ignore,kills=cancel-ignored\necho never\n```\n";
    let book = claims_book(LIST, chapter);
    let output = book.test(&["--mutants"]);
    output.code(2);
    // After the run's first line, which names the toolchain.
    let stderr = output.stderr();
    let error = &stderr[stderr.find("error:").expect("an error")..];
    expect![[r#"
        error: 5 false `kills=` claim(s), nothing was run:
        src/a.md:1: `kills=cancel-ignored` on a snippet that does not run (`no_run`): nothing could notice the mutant (remove the claim, or let the snippet run)
        src/a.md:5: `kills=cancel-ignored` on a snippet that does not run (`ignore`): nothing could notice the mutant (remove the claim, or let the snippet run)
        src/a.md:9: `kills=cancel-ignored` on a snippet that does not run (`compile_fail`): nothing could notice the mutant (remove the claim, or let the snippet run)
        src/a.md:13: `kills=cancel-ignored` on a snippet that does not run (`no_run`): nothing could notice the mutant (remove the claim, or let the snippet run)
        src/a.md:17: `kills=cancel-ignored` on a snippet that does not run (`ignore`): nothing could notice the mutant (remove the claim, or let the snippet run)
    "#]]
    .assert_eq(error);
    // The same without a list: this rule needs none.
    claims_book("", chapter).test(&["--mutants"]).code(2);
    book.test(&["--quiet"])
        .code(0)
        .stdout_contains("2 passed, 0 failed, 3 skipped");
}

#[test]
fn a_mutants_command_that_fails_or_lists_nothing_is_an_error() {
    let chapter = REFUSING.replace("cancel-ignord", "cancel-ignored");
    claims_book(r#"mutants = ["false"]"#, &chapter)
        .test(&["--mutants"])
        .code(2)
        .stderr_contains("error: the `mutants` command `false` failed (exit status: 1)");
    claims_book(r#"mutants = ["true"]"#, &chapter)
        .test(&["--mutants"])
        .code(2)
        .stderr_contains(
            "error: the `mutants` command `true` listed no mutant (expected `NAME<TAB>rule` lines)",
        );
}
