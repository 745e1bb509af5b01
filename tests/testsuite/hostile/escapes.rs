//! What a snippet must not reach (issue 26): the verifier's environment through `/proc` (a
//! secret printed lands in the JUnit file and the page), the book's sources and the result
//! cache (a snippet that rewrites them fakes later verdicts), anything but its own directory
//! and the book's `writable` paths.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use expect_test::expect;

use super::{sh_book, sh_book_toml};
use crate::support::containment::Containment;
use crate::support::{check_bad_config, files_under, junit, preprocessor};

/// A snippet that walks up its ancestors through `/proc` (`$PPID`, then each parent's parent)
/// and then every process it can see, printing each `MY_SECRET_TOKEN` it can read: the
/// verifier's secret reaches neither the JUnit file nor the page, under any containment (in a
/// PID namespace the snippet sees its own processes only; in the fallback the verifier is not
/// dumpable, and a root snippet has no `CAP_SYS_PTRACE`, `CAP_SYS_ADMIN` or `CAP_PERFMON`).
#[test]
fn a_snippet_cannot_read_the_verifiers_environment_through_proc() {
    let chapter = "# A\n\n```sh\n\
                   { tr '\\0' '\\n' < /proc/$PPID/environ; } 2>&1 | grep -a MY_SECRET_TOKEN\n\
                   read -r _ _ _ parent _ < /proc/self/stat\n\
                   while [ \"$parent\" -gt 1 ]; do\n  \
                   echo \"ancestor $parent\"\n  \
                   { tr '\\0' '\\n' < /proc/$parent/environ; } 2>&1 | grep -a MY_SECRET_TOKEN\n  \
                   read -r _ _ _ parent _ < /proc/$parent/stat\n\
                   done\n\
                   for environ in /proc/[0-9]*/environ; do\n  \
                   tr '\\0' '\\n' < $environ 2>/dev/null | grep -a MY_SECRET_TOKEN\n\
                   done\necho walked\n```\n";
    // A value no other test's snippet has in its environment.
    let secret = format!("hunter2-{}", std::process::id());
    for containment in Containment::ALL {
        let book = sh_book("", chapter);
        let mut command = book.test_command(&["--quiet", "--no-cache", "--junit", "junit.xml"]);
        containment
            .apply(&mut command)
            .env("MY_SECRET_TOKEN", &secret);
        let output = book.run(command);
        output.code(0).stderr_contains(&containment.line());
        let report = junit::read(&book, "junit.xml");
        assert!(report.contains("walked"), "{containment:?}: {report}");
        if !containment.line().contains("pid namespace") {
            // Outside a PID namespace the walk reaches the launcher and the verifier.
            assert!(report.contains("ancestor "), "{containment:?}: {report}");
        }
        assert!(!report.contains(&secret), "{containment:?}: {report}");

        let (_, rendered) = preprocessor::rendered(
            book.path(),
            &[
                ("MY_SECRET_TOKEN", secret.as_str()),
                (
                    crate::support::containment::SANDBOX_VARIABLE,
                    containment.value(),
                ),
            ],
        );
        let page = &preprocessor::chapter(&rendered, "A").content;
        assert!(page.contains("walked"), "{containment:?}: {page}");
        assert!(!page.contains(&secret), "{containment:?}: {page}");
    }
}

/// A snippet that tries to rewrite the book (a chapter, `book.toml`, a new chapter) and every
/// entry of the result cache, and to plant an entry of its own: Landlock refuses every write
/// (the snippet's own count, `denied N of N`, is its expected output), so a later run's
/// verdicts are still the verifier's. (Without Landlock, `off`, the book and
/// the cache are as writable as the user's other files: the documented limit.)
#[test]
fn a_snippet_cannot_write_the_book_or_the_cache() {
    for containment in [Containment::Sandbox, Containment::NoNamespaces] {
        if !containment.landlock() {
            eprintln!(
                "note: no Landlock on this kernel: the book and cache write check did not run"
            );
            return;
        }
        let target = tempfile::tempdir().unwrap();
        let cache = target.path().join("mdbook-snippets").join("cache");
        let first = "# A\n\n```sh\necho cached\n```\n";
        let book = sh_book("", first);
        let run = |book: &crate::support::Book| {
            let mut command = book.test_command(&["--quiet"]);
            containment.apply(&mut command);
            book.run_with_target_dir(command, target.path())
        };
        run(&book).code(0);
        let cached = snapshot(&cache);
        assert!(
            !cached.is_empty(),
            "no cache entry under {}",
            cache.display()
        );
        let attack = format!(
            "{first}\n```sh\ndenied=0\n\
             for file in {entries} {root}/src/a.md {root}/book.toml; do\n  \
             {{ echo forged >> \"$file\"; }} 2>/dev/null || denied=$((denied + 1))\n\
             done\n\
             {{ echo forged > {cache}/planted-by-snippet; }} 2>/dev/null || denied=$((denied + 1))\n\
             {{ echo forged > {root}/src/planted.md; }} 2>/dev/null || denied=$((denied + 1))\n\
             echo \"denied $denied of {count}\"\n```\n\n```text,output\ndenied {count} of {count}\n```\n",
            cache = cache.display(),
            // Named by the test: in a namespace the snippet does not even see them.
            entries = cached
                .keys()
                .map(|path| path.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            root = book.path().display(),
            count = cached.len() + 4,
        );
        book.write("src/a.md", &attack);
        let sources = snapshot(book.path());
        let output = run(&book);
        output
            .code(0)
            .stderr_contains(&containment.line())
            .stdout_contains("2 passed, 0 failed");
        assert_eq!(
            snapshot(book.path()),
            sources,
            "{containment:?}: the book changed"
        );
        let after = snapshot(&cache);
        for (path, content) in &cached {
            assert_eq!(
                after.get(path),
                Some(content),
                "{containment:?}: {} changed",
                path.display()
            );
        }
        assert!(!cache.join("planted-by-snippet").exists());
    }
}

/// Every file under `dir` with its content.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files_under(dir)
        .into_iter()
        .filter_map(|path| Some((path.clone(), std::fs::read(&path).ok()?)))
        .collect()
}

/// `writable = [...]` is what a snippet may write besides its own directory (working
/// directory, `TMPDIR`): a listed directory is, `/tmp` and the book's sources are not.
#[test]
fn writable_lists_what_a_snippet_may_write_besides_its_own_directory() {
    let chapter = "# A\n\n```sh\n\
                   try() { if { echo x > \"$1\"; } 2>/dev/null; then echo \"$2 written\"; else echo \"$2 refused\"; fi; }\n\
                   try ./here.txt cwd\n\
                   try \"$TMPDIR/t.txt\" tmpdir\n\
                   try \"$OUT/listed.txt\" listed\n\
                   try /tmp/mdbook-snippets-not-listed.txt /tmp\n\
                   try \"$BOOK/src/a.md\" source\n\
                   case \"$TMPDIR\" in \"$(dirname \"$PWD\")\"/*) echo 'TMPDIR in the scratch directory';; esac\n\
                   ```\n";
    for containment in [Containment::Sandbox, Containment::NoNamespaces] {
        if !containment.landlock() {
            eprintln!("note: no Landlock on this kernel: the `writable` check did not run");
            return;
        }
        let book = sh_book(
            "writable = [\"out\"]\npass-env = [\"OUT\", \"BOOK\"]\n",
            chapter,
        );
        std::fs::create_dir(book.path().join("out")).unwrap();
        book.write(
            "src/a.md",
            &format!(
                "{chapter}\n```text,output\ncwd written\ntmpdir written\nlisted written\n\
                 /tmp refused\nsource refused\nTMPDIR in the scratch directory\n```\n"
            ),
        );
        let mut command = book.test_command(&["--quiet", "--no-cache"]);
        containment
            .apply(&mut command)
            .env("OUT", book.path().join("out"))
            .env("BOOK", book.path());
        let output = book.run(command);
        output
            .code(0)
            .stdout_contains("1 passed, 0 failed")
            .stderr_contains(&containment.line());
        assert!(book.path().join("out/listed.txt").exists());
        assert!(!Path::new("/tmp/mdbook-snippets-not-listed.txt").exists());
    }
}

/// A `writable` path that does not exist is an error naming the key, before anything runs.
#[test]
fn a_writable_path_that_does_not_exist_is_refused() {
    check_bad_config(
        &sh_book_toml("writable = [\"no-such-dir\"]\n"),
        expect![[r#"
            error: in [ROOT]/book.toml: `writable`: [ROOT]/no-such-dir does not exist (a snippet may write only where something exists; relative paths start at the book root)
        "#]],
    );
}
