use std::time::{Duration, Instant};

use expect_test::{Expect, expect};

use super::*;

fn artifacts_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

fn write(dir: &tempfile::TempDir, name: &str, content: &str) {
    std::fs::write(dir.path().join(name), content).expect("writable");
}

/// What `read_artifacts` makes of `dir` with `limit` bytes and a deadline 10 s away: the
/// failure, or the artifacts' titles and sizes.
fn check(dir: &tempfile::TempDir, limit: usize, expect: Expect) {
    let started = Instant::now();
    let read = read_artifacts(
        dir.path(),
        Some(Instant::now() + Duration::from_secs(10)),
        limit,
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let shown = match read {
        Ok(artifacts) => artifacts
            .iter()
            .map(|artifact| format!("{} ({} bytes)", artifact.title, artifact.content.len()))
            .collect::<Vec<_>>()
            .join(", "),
        Err(failure) => format!("failure: {failure}"),
    };
    expect.assert_eq(&shown);
}

#[test]
fn artifacts_are_read_back_in_name_order() {
    let dir = artifacts_dir();
    write(&dir, "20-sequence.svg", "<svg/>");
    write(&dir, "10-wire_transcript.txt", "in -> x");
    write(&dir, "notes.bin", "skip");
    write(&dir, ".txt", "no name");
    assert_eq!(
        read_artifacts(dir.path(), None, 1024).expect("readable"),
        vec![
            Artifact {
                title: "wire transcript".to_owned(),
                kind: ArtifactKind::Text,
                content: "in -> x".to_owned()
            },
            Artifact {
                title: "sequence".to_owned(),
                kind: ArtifactKind::Svg,
                content: "<svg/>".to_owned()
            },
        ]
    );
}

#[test]
fn a_fifo_fails_the_snippet_at_once() {
    let dir = artifacts_dir();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("10-wire.txt"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    check(
        &dir,
        1024,
        expect![
            "failure: artifact `10-wire.txt` is a FIFO: artifacts must be regular files, and it was not read"
        ],
    );
}

#[test]
fn links_directories_and_missing_files_are_refused() {
    let dir = artifacts_dir();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.txt")).unwrap();
    check(
        &dir,
        1024,
        expect![
            "failure: artifact `zero.txt` is a symbolic link: artifacts must be regular files, and it was not read"
        ],
    );
    // A link to a regular file is refused too: the snippet chose what it points at.
    let dir = artifacts_dir();
    write(&dir, "real.bin", "text");
    std::os::unix::fs::symlink(dir.path().join("real.bin"), dir.path().join("a.svg")).unwrap();
    check(
        &dir,
        1024,
        expect![
            "failure: artifact `a.svg` is a symbolic link: artifacts must be regular files, and it was not read"
        ],
    );
    let dir = artifacts_dir();
    std::fs::create_dir(dir.path().join("nested.txt")).unwrap();
    check(
        &dir,
        1024,
        expect![
            "failure: artifact `nested.txt` is a directory: artifacts must be regular files, and it was not read"
        ],
    );
    // The directory itself, gone or replaced by a link.
    let dir = artifacts_dir();
    let artifacts = dir.path().join("artifacts");
    assert_eq!(read_artifacts(&artifacts, None, 1024), Ok(Vec::new()));
    std::os::unix::fs::symlink("/", &artifacts).unwrap();
    let failure = read_artifacts(&artifacts, None, 1024).unwrap_err();
    assert!(
        failure.starts_with("the artifacts directory ($MDBOOK_SNIPPETS_ARTIFACTS) cannot be read"),
        "{failure}"
    );
}

#[test]
fn the_artifacts_together_stay_within_the_limit() {
    let dir = artifacts_dir();
    write(&dir, "1.txt", &"a".repeat(600));
    write(&dir, "2.txt", &"b".repeat(400));
    check(&dir, 1000, expect!["1 (600 bytes), 2 (400 bytes)"]);
    write(&dir, "3.svg", "c");
    check(
        &dir,
        1000,
        expect![
            "failure: artifact `3.svg` takes the artifacts over the output limit (`output-limit`): it was not read whole, nor kept"
        ],
    );
    // A sparse file of 300 MB is refused by its size, not read.
    let dir = artifacts_dir();
    let file = std::fs::File::create(dir.path().join("huge.txt")).unwrap();
    file.set_len(300 << 20).unwrap();
    check(
        &dir,
        1 << 20,
        expect![
            "failure: artifact `huge.txt` takes the artifacts over the output limit (`output-limit`): it was not read whole, nor kept"
        ],
    );
}

#[test]
fn too_many_artifacts_fail() {
    let dir = artifacts_dir();
    for index in 0..=MAX_ARTIFACTS {
        write(&dir, &format!("{index}.txt"), "");
    }
    check(
        &dir,
        1024,
        expect![
            "failure: more than 1000 artifacts (`*.txt`, `*.svg` in $MDBOOK_SNIPPETS_ARTIFACTS)"
        ],
    );
}

#[test]
fn a_run_that_ended_at_its_deadline_still_gets_its_artifacts() {
    let dir = artifacts_dir();
    write(&dir, "a.txt", "late");
    let long_ago = Instant::now() - Duration::from_secs(60);
    // The grace counts from the moment reading starts: a snippet that ended just in time.
    assert!(read_artifacts(dir.path(), Some(long_ago), 1024).is_ok());
}
