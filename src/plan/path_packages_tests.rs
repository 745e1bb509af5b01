use super::*;

fn package(root: &Path, name: &str, dependencies: &str) {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n{dependencies}"),
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
}

#[test]
fn follows_path_dependencies_transitively_but_not_dev_dependencies() {
    // Inside a workspace that lists none of them, as a book's helper crates may be.
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("Cargo.toml"),
        "[workspace]\n[workspace.dependencies]\nbottom = { path = \"bottom\" }\n",
    )
    .unwrap();
    package(
        root.path(),
        "top",
        "[dependencies]\nmiddle = { path = \"../middle\" }\n\
         [dev-dependencies]\ntest-only = { path = \"../test-only\" }\n",
    );
    package(
        root.path(),
        "middle",
        "[build-dependencies]\nbottom = { workspace = true }\n\
         [target.'cfg(unix)'.dependencies]\ntop = { path = \"../top\" }\n",
    );
    package(root.path(), "bottom", "");
    package(root.path(), "test-only", "");
    let found = path_packages(&[root.path().join("top")]).unwrap();
    let root = std::fs::canonicalize(root.path()).unwrap();
    let expected: Vec<PathPackage> = ["bottom", "middle", "top"]
        .into_iter()
        .map(|name| PathPackage {
            name: name.to_owned(),
            dir: root.join(name),
        })
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn a_directory_without_a_package_is_an_error_naming_it() {
    let root = tempfile::tempdir().unwrap();
    let error = path_packages(&[root.path().to_path_buf()]).unwrap_err();
    assert!(format!("{error:#}").contains("Cargo.toml"), "{error:#}");
}
