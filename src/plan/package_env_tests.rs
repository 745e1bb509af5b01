use super::*;

#[test]
fn version_parts_as_cargo_splits_them() {
    let env = cargo_variables("my-crate", "1.20.3-beta.1+build", Path::new("/b"));
    let get = |name: &str| {
        env.iter()
            .find(|(variable, _)| variable == name)
            .map(|(_, value)| value.as_str())
    };
    assert_eq!(get("CARGO_CRATE_NAME"), Some("my_crate"));
    assert_eq!(get("CARGO_PKG_VERSION_MAJOR"), Some("1"));
    assert_eq!(get("CARGO_PKG_VERSION_MINOR"), Some("20"));
    assert_eq!(get("CARGO_PKG_VERSION_PATCH"), Some("3"));
    assert_eq!(get("CARGO_PKG_VERSION_PRE"), Some("beta.1"));
    assert_eq!(get("CARGO_MANIFEST_PATH"), Some("/b/Cargo.toml"));
}
