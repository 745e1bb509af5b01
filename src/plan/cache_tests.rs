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
    });
    cache.put(&key, &record).unwrap();
    assert_eq!(cache.get(&key), Some(record));
    let disabled = Cache::new(dir.path().join("cache"), "env-1".to_owned(), false);
    assert_eq!(disabled.get(&key), None);
}

/// A full disk: the error says so, and nothing is left in the cache directory (the
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
    let left: Vec<_> = std::fs::read_dir(dir.path().join("cache"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert_eq!(cache.get(&key), None);
}

#[test]
fn tree_hash_sees_content_and_skips_target() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::create_dir_all(dir.path().join("target")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "pub fn a() {}").unwrap();
    let before = hash_tree(dir.path()).unwrap();
    std::fs::write(dir.path().join("target/junk"), "x").unwrap();
    assert_eq!(before, hash_tree(dir.path()).unwrap());
    std::fs::write(dir.path().join("src/lib.rs"), "pub fn b() {}").unwrap();
    assert_ne!(before, hash_tree(dir.path()).unwrap());
}

#[test]
fn tree_hash_follows_linked_directories_and_survives_loops_and_dangling_links() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("module.py"), "X = 1").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).unwrap();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("missing"), dir.path().join("dangling")).unwrap();
    let before = hash_tree(dir.path()).unwrap();
    std::fs::write(outside.path().join("module.py"), "X = 2").unwrap();
    assert_ne!(before, hash_tree(dir.path()).unwrap());
}

#[test]
fn package_hash_skips_nested_packages() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::create_dir_all(dir.path().join("member/src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "pub fn a() {}").unwrap();
    std::fs::write(dir.path().join("member/Cargo.toml"), "[package]").unwrap();
    let before = hash_package(dir.path()).unwrap();
    // Another package's file: not this package's (hashed on its own when it is a dependency).
    std::fs::write(dir.path().join("member/src/lib.rs"), "pub fn b() {}").unwrap();
    assert_eq!(before, hash_package(dir.path()).unwrap());
    std::fs::write(dir.path().join("src/lib.rs"), "pub fn c() {}").unwrap();
    assert_ne!(before, hash_package(dir.path()).unwrap());
}
