//! The templates as a reader gets them running: the Rust ones built with their own lock files
//! into the workspace's own target dir with its dev profile ([`cargo_build_settings`]), so every
//! dependency they share with the workspace, at the same version and features, is the one
//! `cargo build --tests` built, and the templates share the rest among themselves; the Python ones with the venv of this repository's pins, the TypeScript ones with
//! the snippet helper's `node_modules`, which their lock files must agree with.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::support::{python, read, repo, snippets_target_dir, typescript_node_modules};

/// The Rust templates, built together once per test process.
const RUST_TEMPLATES: [&str; 3] = ["rmcp-client", "rmcp-server", "rmcp-task"];

/// Where the Rust templates are built (`CARGO_TARGET_DIR`): the workspace's own target dir.
fn target_dir() -> PathBuf {
    snippets_target_dir()
}

/// What a Rust template's `cargo` gets so that it builds where the workspace builds, with the
/// workspace's dev profile (`[profile.dev]` of the root `Cargo.toml`, which a template's own
/// workspace does not have: line-tables-only debug info, sha2 optimized). A compiled
/// dependency is reused only when its version, features and profile are the same; the
/// templates' lock files pin the workspace's versions. Neither setting changes a template's
/// code, lock file or how it behaves; `.ci/run` clippies them with the same settings.
pub(super) fn cargo_build_settings(command: &mut Command) -> &mut Command {
    command
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_PROFILE_DEV_DEBUG", "line-tables-only")
        .env("CARGO_PROFILE_DEV_PACKAGE_SHA2_OPT_LEVEL", "3")
}

/// The template folder `templates/NAME`.
pub(super) fn template_dir(name: &str) -> PathBuf {
    repo().join("templates").join(name)
}

/// A command running the Rust template `name` (`rmcp-client`, ...), built with `cargo build
/// --locked` from its own folder.
pub(super) fn rust_template(name: &str) -> Command {
    static BUILT: OnceLock<()> = OnceLock::new();
    assert!(RUST_TEMPLATES.contains(&name), "no Rust template {name}");
    BUILT.get_or_init(|| {
        for template in RUST_TEMPLATES {
            let manifest = template_dir(template).join("Cargo.toml");
            let mut command = Command::new(env!("CARGO"));
            command
                .args(["build", "--locked", "--quiet", "--manifest-path"])
                .arg(&manifest);
            let output = cargo_build_settings(&mut command)
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap_or_else(|error| panic!("running cargo build for {template}: {error}"));
            assert!(
                output.status.success(),
                "cargo build --locked --manifest-path {} failed:\n{}",
                manifest.display(),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    });
    let package = read_package_name(&template_dir(name).join("Cargo.toml"));
    Command::new(target_dir().join("debug").join(package))
}

/// The `name` of a manifest's `[package]`.
fn read_package_name(manifest: &Path) -> String {
    let manifest: toml::Table = toml::from_str(&read(manifest)).expect("a Cargo.toml");
    manifest["package"]["name"]
        .as_str()
        .expect("a package name")
        .to_owned()
}

/// A command running the Python template `templates/NAME/FILE` with the repository's venv,
/// whose pins its `requirements.txt` must repeat.
pub(super) fn python_template(name: &str, file: &str) -> Command {
    let pins = |path: &Path| -> Vec<String> {
        read(path)
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .map(str::to_owned)
            .collect()
    };
    let requirements = template_dir(name).join("requirements.txt");
    assert_eq!(
        pins(&requirements),
        pins(&repo().join("interop/python/requirements.txt")),
        "{} pins other versions than interop/python/requirements.txt, which the test runs with",
        requirements.display()
    );
    let mut command = Command::new(python());
    command.arg(template_dir(name).join(file));
    command
}

/// A command running the TypeScript template `templates/NAME/FILE` with `tsx`, from a copy of
/// the folder in `scratch` beside a link to the snippet helper's `node_modules` (Node resolves
/// packages from the file's own folder upwards). Every package its lock file pins must be
/// installed there at the same version.
pub(super) fn typescript_template(name: &str, file: &str, scratch: &Path) -> Command {
    let node_modules = typescript_node_modules();
    let template_lock = lock_packages(&template_dir(name).join("package-lock.json"));
    let installed = lock_packages(&repo().join("interop/snippets/typescript/package-lock.json"));
    for (path, version) in &template_lock {
        assert_eq!(
            installed.get(path),
            Some(version),
            "templates/{name}/package-lock.json pins {path} {version}, which \
             interop/snippets/typescript/package-lock.json (what the test runs with) does not"
        );
    }
    let copy = scratch.join(name);
    std::fs::create_dir_all(&copy).expect("creating the template copy");
    std::fs::copy(template_dir(name).join(file), copy.join(file)).expect("copying the template");
    std::fs::copy(
        template_dir(name).join("package.json"),
        copy.join("package.json"),
    )
    .expect("copying package.json");
    std::os::unix::fs::symlink(&node_modules, copy.join("node_modules"))
        .expect("linking node_modules");
    let mut command = Command::new(node_modules.join(".bin/tsx"));
    command.arg(copy.join(file));
    command
}

/// `packages` of a package-lock.json (v3): install path -> version, the root left out.
fn lock_packages(path: &Path) -> std::collections::BTreeMap<String, String> {
    let lock: serde_json::Value = serde_json::from_str(&read(path)).expect("a package-lock.json");
    lock["packages"]
        .as_object()
        .expect("a v3 lock file")
        .iter()
        .filter(|(path, _)| !path.is_empty())
        .map(|(path, package)| {
            let version = package["version"].as_str().unwrap_or_default().to_owned();
            (path.clone(), version)
        })
        .collect()
}
