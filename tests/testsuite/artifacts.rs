//! A snippet's artifacts (`$MDBOOK_SNIPPETS_ARTIFACTS`) are as bounded as its output: a FIFO, a
//! link to `/dev/zero`, a directory fail the snippet (naming the file) instead of hanging the
//! verifier, exhausting its memory or stopping it with exit 2; a 300 MB artifact fails it
//! without being read or cached.

use std::time::Duration;

use crate::support::{files_under, sh_book};

/// Snippets that each leave something that is not a regular file, in a book whose timeout is
/// 3 s; the last one shows the others did not stop the run.
const NOT_REGULAR: &str = "# Artifacts\n\n\
```sh\nmkfifo \"$MDBOOK_SNIPPETS_ARTIFACTS/10-wire.txt\"\necho fifo\n```\n\n\
```sh\nln -s /dev/zero \"$MDBOOK_SNIPPETS_ARTIFACTS/zero.txt\"\necho link\n```\n\n\
```sh\nmkdir \"$MDBOOK_SNIPPETS_ARTIFACTS/folder.svg\"\necho directory\n```\n\n\
```sh\nprintf 'shown' > \"$MDBOOK_SNIPPETS_ARTIFACTS/10-fine.txt\"\necho regular\n```\n";

#[test]
fn artifacts_that_are_not_regular_files_fail_their_snippet() {
    let book = sh_book("timeout = 3", NOT_REGULAR);
    // Before: the FIFO held the verifier forever (still running at 40 s).
    let output = book
        .start(book.test_command(&["--no-cache"]))
        .finish(Duration::from_secs(60));
    output.code(1).stdout_contains("1 passed, 3 failed");
    for (line, message) in [
        (
            3,
            "artifact `10-wire.txt` is a FIFO: artifacts must be regular files, and it was not read",
        ),
        (
            8,
            "artifact `zero.txt` is a symbolic link: artifacts must be regular files, and it was not read",
        ),
        (
            13,
            "artifact `folder.svg` is a directory: artifacts must be regular files, and it was not read",
        ),
    ] {
        output.stdout_contains(&format!("src/a.md:{line}:1\n"));
        output.stdout_contains(message);
    }
    output.stdout_contains("    src/a.md:13 (failed at run time, src_a_md_3)\n");
}

/// A 300 MB artifact (sparse: its size is what counts) against the default output limit of
/// 1 MiB: the snippet fails, the file is neither read (the verifier's peak memory stays small)
/// nor cached. Before: 865 MB of memory and a 287 MB cache entry.
#[test]
fn a_300_mb_artifact_is_neither_read_nor_cached() {
    let chapter = "# Big\n\n```sh\ntruncate -s 300M \"$MDBOOK_SNIPPETS_ARTIFACTS/20-big.txt\"\necho made\n```\n\n\
                   ```sh\n# Waits (at most 20 s) while the test reads the verifier's memory.\n\
                   i=0; while [ ! -e \"$GO\" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done\n```\n";
    let book = sh_book("jobs = 1\npass-env = [\"GO\"]", chapter);
    let target = book.path().join("target");
    let mut command = book.test_command(&["--target-dir", &target.display().to_string()]);
    command.env("GO", book.path().join("go"));
    let mut run = book.start(command);
    // One job at a time: the first snippet's verdict (artifacts read) comes before the second
    // starts, which waits for us.
    run.wait_for_stderr("test src/a.md:3 ... FAILED", Duration::from_secs(60));
    let peak = run.peak_memory_kib();
    std::fs::write(book.path().join("go"), "").unwrap();
    let output = run.finish(Duration::from_secs(60));
    output.code(1).stdout_contains(
        "artifact `20-big.txt` takes the artifacts over the output limit (`output-limit`): it \
         was not read whole, nor kept",
    );
    eprintln!("peak memory of the verifier: {peak} KiB");
    assert!(peak < 100 * 1024, "{peak} KiB\n{output}");
    let largest = files_under(&target.join("mdbook-snippets/cache"))
        .iter()
        .map(|file| std::fs::metadata(file).unwrap().len())
        .max()
        .unwrap_or(0);
    assert!(largest < 64 * 1024, "a cache entry of {largest} bytes");
}
