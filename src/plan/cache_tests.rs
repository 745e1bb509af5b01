use super::*;
use crate::snippet::Exit;

#[test]
fn round_trip_and_keys() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path().join("cache"), "env-1".to_owned(), true);
    let key = cache.key(&["fn main() {}", "2021"]);
    assert_ne!(key, cache.key(&["fn main() {}", "2024"]));
    assert_ne!(key, cache.key(&["fn main() {}2", "021"]));
    let other_env = Cache::new(dir.path().join("cache"), "env-2".to_owned(), true);
    assert_ne!(key, other_env.key(&["fn main() {}", "2021"]));

    assert_eq!(cache.get(&key), None);
    let record = Record::Ran(RunRecord {
        exit: Exit::Code(0),
        stdout: "hi\n".to_owned(),
        stderr: String::new(),
        artifacts: Vec::new(),
        artifact_failure: None,
        elapsed: None,
    });
    cache.put(&key, &record).unwrap();
    assert_eq!(cache.get(&key), Some(record));
    let disabled = Cache::new(dir.path().join("cache"), "env-1".to_owned(), false);
    assert_eq!(disabled.get(&key), None);
}

/// A full disk: the error says so, and no entry is left in the cache directory (the
/// integration test `hostile` does it with a real full tmpfs where it can mount one).
#[test]
fn a_full_disk_is_named_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path().join("cache"), "env".to_owned(), true);
    let key = cache.key(&["snippet"]);
    let error = cache
        .put_with(&key, &Record::Compiled, |file, bytes| {
            file.write_all(&bytes[..1])?;
            Err(std::io::Error::from_raw_os_error(28))
        })
        .unwrap_err();
    let message = format!("{error:#}");
    assert!(
        message.starts_with("out of disk space: cannot write the cache entry"),
        "{message}"
    );
    assert!(message.contains("No space left on device"), "{message}");
    // Only the cache's secret, written before the entry.
    let left: Vec<_> = std::fs::read_dir(dir.path().join("cache"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(left, ["mac-key"]);
    assert_eq!(cache.get(&key), None);
}

fn ran(code: i32, stdout: &str) -> Record {
    Record::Ran(RunRecord {
        exit: Exit::Code(code),
        stdout: stdout.to_owned(),
        stderr: String::new(),
        artifacts: Vec::new(),
        artifact_failure: None,
        elapsed: None,
    })
}

/// Entries that do not check are misses, and are removed: edited, moved to another key's
/// file, written in an older format, or made under another cache's secret.
#[test]
fn entries_that_do_not_check_are_misses_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path().join("cache"), "env".to_owned(), true);
    let broken = cache.key(&["let x: u32 = \"no\";"]);
    let fine = cache.key(&["fn main() {}"]);
    let did_not_compile = Record::DidNotCompile {
        codes: vec!["E0308".to_owned()],
        message: "mismatched types".to_owned(),
    };
    cache.put(&broken, &did_not_compile).unwrap();
    cache.put(&fine, &ran(0, "")).unwrap();
    assert_eq!(cache.get(&broken), Some(did_not_compile.clone()));
    let path = cache.path(&broken);
    let entry = std::fs::read_to_string(&path).unwrap();
    let forged_json = serde_json::to_string(&ran(0, "")).unwrap();

    // The record edited into a pass, its MAC line kept.
    let (header, _) = entry.split_once('\n').unwrap();
    std::fs::write(&path, format!("{header}\n{forged_json}")).unwrap();
    assert_eq!(cache.get(&broken), None);
    assert!(!path.exists(), "a forged entry is removed");

    // The entry of a passing snippet copied over the broken one's.
    std::fs::copy(cache.path(&fine), &path).unwrap();
    assert_eq!(cache.get(&broken), None);
    // The format of earlier versions: the record alone.
    std::fs::write(&path, &forged_json).unwrap();
    assert_eq!(cache.get(&broken), None);
    // Written again, it checks again.
    cache.put(&broken, &did_not_compile).unwrap();
    assert_eq!(cache.get(&broken), Some(did_not_compile.clone()));

    // Another secret (a cache directory copied without its key, or a new key): every entry is
    // a miss, then written afresh under the new secret.
    std::fs::write(cache.secret_path(), [7u8; 32]).unwrap();
    let reopened = Cache::new(dir.path().join("cache"), "env".to_owned(), true);
    assert_eq!(reopened.get(&fine), None);
    reopened.put(&fine, &ran(0, "")).unwrap();
    assert_eq!(reopened.get(&fine), Some(ran(0, "")));
    // A secret that is not 32 bytes is replaced.
    std::fs::write(cache.secret_path(), "short").unwrap();
    let replaced = Cache::new(dir.path().join("cache"), "env".to_owned(), true);
    assert_eq!(replaced.get(&fine), None);
    replaced.put(&fine, &ran(0, "")).unwrap();
    assert_eq!(std::fs::read(cache.secret_path()).unwrap().len(), 32);
    assert_eq!(replaced.get(&fine), Some(ran(0, "")));
}

#[test]
fn the_secret_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path().join("cache"), "env".to_owned(), true);
    cache.put(&cache.key(&["a"]), &Record::Compiled).unwrap();
    let mode = std::fs::metadata(cache.secret_path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn failed_runs_are_cached_but_for_a_kill_from_outside() {
    let timed_out = Record::Ran(RunRecord {
        exit: Exit::TimedOut(std::time::Duration::from_secs(3)),
        stdout: String::new(),
        stderr: String::new(),
        artifacts: Vec::new(),
        artifact_failure: None,
        elapsed: None,
    });
    assert!(timed_out.is_cacheable(false));
    assert!(ran(1, "").is_cacheable(false));
    assert!(ran(0, "").is_cacheable(true));
    let killed = Record::Ran(RunRecord {
        exit: Exit::Signal(9),
        stdout: String::new(),
        stderr: String::new(),
        artifacts: Vec::new(),
        artifact_failure: None,
        elapsed: None,
    });
    assert!(!killed.is_cacheable(false));
    // A mutant that survived runs again; one killed is kept.
    assert!(!ran(0, "").is_cacheable_mutant(false));
    assert!(ran(1, "").is_cacheable_mutant(true));
}

/// A FIFO at an entry's path is a miss at once (it would block a reader forever), and a
/// secret that links to `/dev/zero` is replaced, not read until memory runs out.
#[test]
fn an_entry_or_secret_that_is_not_a_regular_file_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path().join("cache"), "env".to_owned(), true);
    let key = cache.key(&["snippet"]);
    cache.put(&key, &Record::Compiled).unwrap();
    let entry = cache.path(&key);
    std::fs::remove_file(&entry).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&entry)
        .status()
        .unwrap();
    assert!(made.success());
    let (done, finished) = std::sync::mpsc::channel();
    let reader = Cache::new(dir.path().join("cache"), "env".to_owned(), true);
    std::thread::spawn(move || done.send(reader.get(&key)).unwrap());
    let got = finished
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("reading a FIFO entry blocked");
    assert_eq!(got, None);

    std::fs::remove_file(cache.secret_path()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", cache.secret_path()).unwrap();
    let replaced = Cache::new(dir.path().join("cache"), "env".to_owned(), true);
    replaced
        .put(&cache.key(&["other"]), &Record::Compiled)
        .unwrap();
    assert_eq!(std::fs::read(cache.secret_path()).unwrap().len(), 32);
}
