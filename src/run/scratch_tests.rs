use super::*;

#[test]
fn a_scratch_directory_is_removed_even_when_made_unwritable() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = Scratch::new("mdbook-snippets-test-").unwrap();
    let path = scratch.path().to_owned();
    let locked = path.join("work/locked");
    std::fs::create_dir_all(locked.join("inner")).unwrap();
    std::fs::write(locked.join("inner/file"), "x").unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    drop(scratch);
    assert!(!path.exists(), "{} is left", path.display());
}

/// As root (CI containers) the test above passes without the permissions restored, so
/// they are checked here.
#[test]
fn removal_restores_the_owner_s_access_to_every_directory() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("a/b");
    std::fs::create_dir_all(&inner).unwrap();
    for path in [&inner, &dir.path().join("a")] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    allow_removal(dir.path());
    for path in [dir.path().join("a"), inner] {
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", path.display());
    }
}
