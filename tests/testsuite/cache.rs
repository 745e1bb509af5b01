//! An unchanged book is verified again from the cache, without cargo; a change to a snippet
//! (or its expected block) is seen.

use crate::support::{book, book_key, builds_of, junit};

/// The cache is shared by every run of the suite (it is keyed by content), so each run's
/// snippets carry a comment no earlier run had.
fn chapter() -> String {
    let nonce = format!("{:?}", std::time::SystemTime::now());
    format!(
        "```rust\n// {nonce}\nprintln!(\"cached\");\n```\n\n```text,output\ncached\n```\n\n\
         ```rust\n// {nonce}\nlet x: u32 = \"no\";\n```\n"
    )
}

#[test]
fn unchanged_book_does_not_invoke_cargo() {
    let chapter = chapter();
    let book = book(&[("src/a.md", &chapter)]);
    let first = book.test(&[]);
    first.code(1).stderr_contains("building 2 snippet(s)");
    let second = book.test(&[]);
    second.code(1);
    assert!(
        !second.stderr.contains("building"),
        "cargo ran again\n{second}"
    );
    assert_eq!(first.stdout(), second.stdout());

    // The expected block is judged afresh: no rebuild, but a different verdict.
    book.write(
        "src/a.md",
        &chapter.replace("cached\n```\n\n```rust", "stale\n```\n\n```rust"),
    );
    let third = book.test(&[]);
    assert!(
        !third.stderr.contains("building"),
        "cargo ran again\n{third}"
    );
    third.code(1).stdout_contains("0 passed, 2 failed");

    // A changed snippet is built again; --no-cache rebuilds everything.
    book.write(
        "src/a.md",
        &chapter.replace("println!(\"cached\")", "println!(\"{}\", \"cached\")"),
    );
    book.test(&[])
        .code(1)
        .stderr_contains("building 1 snippet(s)");
    book.test(&["--no-cache"])
        .code(1)
        .stderr_contains("building 2 snippet(s)");
}

/// The tool's build is keyed by its content (issue 36): a reinstall of the same build (a new
/// modification time) keeps the cache; another build (other bytes) does not.
#[test]
fn a_reinstall_keeps_the_cache_and_another_build_does_not() {
    let chapter = chapter();
    let book = book(&[("src/a.md", &chapter)]);
    // A copy of the tool, which then stands for a rebuilt one: same version, new executable.
    let tool = book.path().join("mdbook-snippets");
    std::fs::copy(env!("CARGO_BIN_EXE_mdbook-snippets"), &tool).unwrap();
    let run = || {
        let mut command = std::process::Command::new(&tool);
        command.arg("test").arg(book.path());
        book.run(command)
    };
    run().code(1).stderr_contains("building 2 snippet(s)");
    let again = run();
    assert!(
        !again.stderr.contains("building"),
        "cargo ran again\n{again}"
    );

    // A reinstall: the same bytes, a new file and modification time.
    std::fs::remove_file(&tool).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_mdbook-snippets"), &tool).unwrap();
    let earlier = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&tool)
        .and_then(|file| file.set_modified(earlier))
        .unwrap();
    let reinstalled = run();
    assert!(
        !reinstalled.stderr.contains("building"),
        "a reinstall of the same build ran cargo again\n{reinstalled}"
    );

    // Another build: other bytes (appended after the ELF image, which still runs).
    let mut other = std::fs::read(&tool).unwrap();
    other.extend_from_slice(b"another build");
    std::fs::remove_file(&tool).unwrap();
    std::fs::write(&tool, other).unwrap();
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    run().code(1).stderr_contains("building 2 snippet(s)");
}

/// A verdict made under a weaker containment (`MDBOOK_SNIPPETS_SANDBOX=off`) is not reused
/// under the full one, nor one made under another locale.
#[test]
fn the_containment_and_the_locale_are_part_of_the_cache_key() {
    let book = book(&[("src/a.md", &chapter())]);
    let run = |sandbox: &str, lang: &str| {
        let mut command = book.test_command(&[]);
        command
            .env("MDBOOK_SNIPPETS_SANDBOX", sandbox)
            .env("LANG", lang);
        book.run(command)
    };
    run("off", "C")
        .code(1)
        .stderr_contains("building 2 snippet(s)");
    let warm = run("off", "C");
    assert!(!warm.stderr.contains("building"), "cargo ran again\n{warm}");
    run("auto", "C")
        .code(1)
        .stderr_contains("building 2 snippet(s)");
    run("auto", "C.UTF-8")
        .code(1)
        .stderr_contains("building 2 snippet(s)");
}

#[test]
fn the_same_snippet_under_another_id_is_not_taken_from_the_cache() {
    // rustc names the generated module in its messages; a record made under one chapter's id
    // would not locate the error in another's.
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let broken =
        format!("```rust\n// {nonce}\nconst CHECK: () = panic!(\"no\");\nlet () = CHECK;\n```\n");
    let first = book(&[("src/SUMMARY.md", "- [A](a.md)\n"), ("src/a.md", &broken)]);
    first
        .test(&["--quiet"])
        .code(1)
        .stdout_contains("src/a.md:1 (does not compile, src_a_md_1, error at line 3)");
    let second = book(&[("src/SUMMARY.md", "- [B](b.md)\n"), ("src/b.md", &broken)]);
    second
        .test(&["--quiet"])
        .code(1)
        .stdout_contains("src/b.md:1 (does not compile, src_b_md_1, error at line 3)");
}

#[test]
fn a_change_to_a_transitive_path_dependency_is_built_again() {
    // The snippet links `helper` (a `dependencies` path), which links `inner` by path: a change to
    // `inner` must be built and run again, and an unchanged book is then a cache hit again.
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let chapter = |value: u32| {
        format!(
            "```rust\n// {nonce}\nprintln!(\"{{}}\", helper::value());\n```\n\n\
             ```text,output\n{value}\n```\n"
        )
    };
    let inner = |value: u32| format!("pub const VALUE: u32 = {value};\n");
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n[rust]\nedition = \"2021\"\n\
             [preprocessor.snippets.dependencies]\nhelper = { path = \"helper\" }\n",
        ),
        ("src/a.md", &chapter(1)),
        (
            "helper/Cargo.toml",
            "[package]\nname = \"helper\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\ninner = { path = \"../inner\" }\n",
        ),
        (
            "helper/src/lib.rs",
            "pub fn value() -> u32 {\n    inner::VALUE\n}\n",
        ),
        (
            "inner/Cargo.toml",
            "[package]\nname = \"inner\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("inner/src/lib.rs", &inner(1)),
    ]);
    book.test(&[])
        .code(0)
        .stderr_contains("building 1 snippet(s)");

    book.write("inner/src/lib.rs", &inner(2));
    book.write("src/a.md", &chapter(2));
    book.test(&[])
        .code(0)
        .stderr_contains("building 1 snippet(s)")
        .stdout_contains("1 passed, 0 failed");

    let warm = book.test(&[]);
    warm.code(0).stdout_contains("1 passed, 0 failed");
    assert!(!warm.stderr.contains("building"), "cargo ran again\n{warm}");
}

#[test]
fn a_verdict_made_under_rustc_bootstrap_is_not_reused_without_it() {
    // rustdoc rejects `#![feature]` on a stable toolchain unless `RUSTC_BOOTSTRAP` is set, and
    // so must the verifier, whatever it built earlier in the same target dir.
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let book = book(&[(
        "src/a.md",
        &format!(
            "```rust\n#![feature(never_type)]\n// {nonce}\ntype Never = !;\n\
             let _: Option<Never> = None;\n```\n"
        ),
    )]);
    let test = |bootstrap: Option<&str>, args: &[&str]| {
        let mut command = book.test_command(args);
        match bootstrap {
            Some(value) => command.env("RUSTC_BOOTSTRAP", value),
            None => command.env_remove("RUSTC_BOOTSTRAP"),
        };
        book.run(command)
    };
    test(Some("1"), &[])
        .code(0)
        .stdout_contains("1 passed, 0 failed");
    test(None, &[])
        .code(1)
        .stdout_contains("0 passed, 1 failed");
    test(Some("1"), &[])
        .code(0)
        .stdout_contains("1 passed, 0 failed");
    // Cargo's own fingerprint must see it too, not only the result cache: a binary built with
    // it is not taken for one built without.
    test(Some("1"), &["--no-cache"])
        .code(0)
        .stdout_contains("1 passed, 0 failed");
    test(None, &["--no-cache"])
        .code(1)
        .stdout_contains("0 passed, 1 failed");
    test(Some("1"), &["--no-cache"])
        .code(0)
        .stdout_contains("1 passed, 0 failed");
}

#[test]
fn a_run_without_the_cache_after_a_cold_one_builds_nothing_again() {
    // A crate's first build is made without rustc's incremental state; cargo rebuilds a package
    // whose `incremental` setting changed, so the next run must keep that setting while the
    // crate is unchanged (the bench's dependencies book was built all over again).
    // Snippets that build (a broken merged one changes the crate: its binary is built again
    // without it).
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let chapter =
        format!("```rust\n// {nonce}\nprintln!(\"one\");\n```\n\n```rust\nfn main() {{}}\n```\n");
    let book = book(&[("src/a.md", &chapter)]);
    let target = book.path().join("target");
    let run = || book.run_with_target_dir(book.test_command(&["--no-cache"]), &target);
    run().code(0).stderr_contains("building 2 snippet(s)");
    let built = || -> Vec<(std::path::PathBuf, std::time::SystemTime)> {
        let mut built: Vec<_> = std::fs::read_dir(target.join("debug"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| {
                let name = path.file_name().unwrap().to_string_lossy();
                // Cargo writes its `.d` files on every build, fresh or not.
                name.starts_with("snippets-") && path.extension().is_none() && path.is_file()
            })
            .map(|path| {
                let modified = path.metadata().unwrap().modified().unwrap();
                (path, modified)
            })
            .collect();
        built.sort();
        built
    };
    let before = built();
    assert!(
        !before.is_empty(),
        "no snippet binary in {}",
        target.display()
    );
    run().code(0).stderr_contains("building 2 snippet(s)");
    assert_eq!(before, built(), "cargo built the snippets again");
}

/// The entry of a snippet that does not compile, edited into a pass: a miss (the snippet is
/// built again and still fails), and the entry is written afresh. Before: `1 passed`, exit 0.
#[test]
fn a_forged_entry_does_not_turn_a_broken_snippet_into_a_pass() {
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let book = book(&[(
        "src/a.md",
        &format!("```rust\n// {nonce}\nlet x: u32 = \"no\";\n```\n"),
    )]);
    let target = book.path().join("target");
    let test = || book.test(&["--target-dir", &target.display().to_string()]);
    test().code(1).stdout_contains("0 passed, 1 failed");
    let entries: Vec<_> = crate::support::files_under(&target.join("mdbook-snippets/cache"))
        .into_iter()
        .filter(|file| {
            file.extension()
                .is_some_and(|extension| extension == "json")
        })
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    // The record, whatever the entry holds around it, made a run that exited 0.
    let passed = r#"{"Ran":{"exit":{"Code":0},"stdout":"","stderr":"","artifacts":[]}}"#;
    let entry = std::fs::read_to_string(&entries[0]).unwrap();
    let record = entry.find(r#"{"DidNotCompile""#).expect("the record");
    std::fs::write(&entries[0], format!("{}{passed}", &entry[..record])).unwrap();

    let again = test();
    again
        .code(1)
        .stdout_contains("0 passed, 1 failed")
        .stderr_contains("building 1 snippet(s)");
    let rewritten = std::fs::read_to_string(&entries[0]).unwrap();
    assert!(rewritten.contains(r#"{"DidNotCompile""#), "{rewritten}");
    // And it checks again: the next run takes it from the cache.
    let third = test();
    third.code(1);
    assert!(!third.stderr.contains("building"), "{third}");
}

/// A snippet that never ends is cached once timed out (a server, say: otherwise every warm
/// run and every `mdbook serve` rebuild waits its whole timeout again), under its timeout:
/// another timeout runs it again. Before: every run waited the timeout.
#[test]
fn a_timed_out_snippet_is_cached_under_its_timeout() {
    let chapter = |timeout: u64| {
        format!("```sh,timeout={timeout}\necho serving\nwhile :; do sleep 1; done\n```\n")
    };
    let book = crate::support::sh_book("", &chapter(3));
    let target = book.path().join("target");
    let timed = || {
        let started = std::time::Instant::now();
        let output = book.test(&["--target-dir", &target.display().to_string()]);
        (output, started.elapsed())
    };
    let (first, took) = timed();
    first.code(1).stdout_contains("(timed out, src_a_md_1)");
    assert!(took >= std::time::Duration::from_secs(3), "{took:?}");
    let (second, took) = timed();
    assert_eq!(second.stdout(), first.stdout());
    assert!(
        took < std::time::Duration::from_secs(3),
        "ran again: {took:?}\n{second}"
    );
    book.write("src/a.md", &chapter(4));
    let (third, took) = timed();
    third.code(1).stdout_contains("timed out after 4 s");
    assert!(took >= std::time::Duration::from_secs(4), "{took:?}");
}

/// The testsuite's books are at a new path each run, so their snippet crates are too: a dropped
/// book takes what the verifier built for it along (`Book`'s `Drop`): its merged binary, a
/// snippet's own binary, and a path dependency in the book's folder.
#[test]
fn a_dropped_book_leaves_no_build_of_its_own() {
    // A nonce, so the verdicts are not in the cache and the snippets are built.
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let chapter = format!(
        "```rust\n// {nonce}\nprintln!(\"{{}}\", helper::NAME);\n```\n\n\
         ```rust,standalone_crate\n// {nonce}\nfn main() {{ println!(\"own\"); }}\n```\n"
    );
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"t\"\n\n[preprocessor.snippets.dependencies]\n\
             helper = { path = \"helper\" }\n",
        ),
        (
            "helper/Cargo.toml",
            "[package]\nname = \"helper\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "helper/src/lib.rs",
            &format!("// {nonce}\npub const NAME: &str = \"helper\";\n"),
        ),
        ("src/a.md", &chapter),
    ]);
    book.test(&[]).code(0).stdout_contains("2 passed");
    let target_dir = book.target_dir();
    let root = std::fs::canonicalize(book.path()).expect("the book is there");
    let since = book.created();
    let builds = builds_of(&target_dir, &root, since);
    let named = |part: &str| {
        builds
            .iter()
            .filter(|path| path.to_string_lossy().contains(part))
            .count()
    };
    assert!(
        builds.contains(&target_dir.join("mdbook-snippets").join(book_key(&root))),
        "{builds:#?}"
    );
    // Each crate's fingerprint folder, and in deps the binaries or the library with their
    // dep-info.
    assert!(named("/deps/snippets_") >= 2, "{builds:#?}");
    assert!(named("/deps/own_src_a_md") >= 2, "{builds:#?}");
    assert!(named("/deps/libhelper-") >= 1, "{builds:#?}");
    assert!(named("/.fingerprint/helper-") >= 1, "{builds:#?}");
    drop(book);
    assert_eq!(
        builds_of(&target_dir, &root, since),
        Vec::<std::path::PathBuf>::new()
    );
    assert!(builds.iter().all(|path| !path.exists()), "{builds:#?}");
}

/// `--junit` gives each snippet that ran its run's time, and none to a verdict from the cache
/// or a snippet that did not compile (it did not run).
#[test]
fn junit_times_the_snippets_that_ran_not_the_cached_ones() {
    let book = book(&[("src/a.md", &chapter())]);
    let head = |report: &str, line: usize| {
        let name = format!("src/a.md:{line}");
        junit::cases(report)
            .into_iter()
            .find(|case| case.name == name)
            .unwrap_or_else(|| panic!("no case {name} in:\n{report}"))
            .head
            .to_owned()
    };
    book.test(&["--junit", "first.xml"]).code(1);
    let first = junit::read(&book, "first.xml");
    let ran = head(&first, 1);
    let seconds: f64 = ran
        .split("time=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|time| time.parse().ok())
        .unwrap_or_else(|| panic!("no time on the case that ran: {ran}"));
    assert!(seconds > 0.0 && seconds < 60.0, "{ran}");
    assert!(!head(&first, 10).contains("time="), "{first}");
    book.test(&["--junit", "second.xml"]).code(1);
    let second = junit::read(&book, "second.xml");
    assert!(!head(&second, 1).contains("time="), "{second}");
}
