use std::path::Path;

use super::*;

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

/// Inputs are hashed as a stream; a FIFO or a device is refused at once, naming it.
#[test]
fn only_regular_files_and_directories_are_hashed() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let message = format!("{:#}", hash_path(&fifo).unwrap_err());
    assert!(
        message.ends_with(
            "fifo is a FIFO: only regular files and directories can be hashed for the cache"
        ),
        "{message}"
    );
    let message = format!("{:#}", hash_path(Path::new("/dev/zero")).unwrap_err());
    assert_eq!(
        message,
        "/dev/zero is a device: only regular files and directories can be hashed for the cache"
    );
    // Inside a directory too (through a link).
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    std::os::unix::fs::symlink("/dev/zero", tree.join("zero")).unwrap();
    assert!(hash_path(&tree).is_err());

    let file = dir.path().join("file");
    std::fs::write(&file, "a").unwrap();
    let before = hash_path(&file).unwrap();
    std::fs::write(&file, "b").unwrap();
    assert_ne!(before, hash_path(&file).unwrap());
}
