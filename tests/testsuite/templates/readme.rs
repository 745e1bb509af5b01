//! Each template run exactly as its README says, from a copy outside the repository: a client
//! template and the server template it pairs with are copied side by side into a temporary
//! folder, each README's `sh` block of its "Run it" section is run there line by line, and the
//! client's `console` block is played as a reader would: the `$` command started, each plain line
//! typed, `^C` pressed as a terminal presses it (to the foreground process group), and each
//! `TOOL: ...` line awaited on stdout (`[..]` matches any text). Nothing else is done to the
//! copies, so a step the README leaves out fails the test.
//!
//! Two settings make it quicker without changing a step: the Rust templates build where the
//! other template tests build them, with the same profile (`build::cargo_build_settings`: the
//! workspace's target dir and dev profile, so rmcp and tokio are not built again), and npm
//! prefers its cache (`npm_config_prefer_offline`). pip and npm may still ask their registries.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::build::{cargo_build_settings, template_dir};
use super::child::Child;
use crate::support::{read, repo};

/// Each client template and the server template its README pairs it with.
const PAIRS: [(&str, &str); 4] = [
    ("rmcp-client", "rmcp-server"),
    ("rmcp-task-client", "rmcp-task"),
    ("python-client", "python-server"),
    ("typescript-client", "typescript-server"),
];

/// The "Run it" section of `templates/NAME/README.md`: its `sh` lines and its `console` lines.
struct RunIt {
    setup: Vec<String>,
    console: Vec<String>,
}

fn run_it(name: &str) -> RunIt {
    let readme = read(&template_dir(name).join("README.md"));
    let section = readme
        .split_once("\n## Run it\n")
        .unwrap_or_else(|| panic!("templates/{name}/README.md has no \"## Run it\" section"))
        .1;
    let section = section.split("\n## ").next().unwrap_or_default();
    let mut run = RunIt {
        setup: Vec::new(),
        console: Vec::new(),
    };
    let mut block: Option<&str> = None;
    for line in section.lines() {
        match (block, line.strip_prefix("```")) {
            (None, Some(language)) => block = Some(language.trim()),
            (Some(_), Some("")) => block = None,
            (Some("sh"), None) if !line.trim().is_empty() => run.setup.push(line.to_owned()),
            (Some("console"), None) => run.console.push(line.to_owned()),
            _ => {}
        }
    }
    assert!(
        !run.setup.is_empty(),
        "templates/{name}/README.md: \"Run it\" has no sh block"
    );
    run
}

/// `templates/NAME` copied into `into/NAME`, without what a build or an install leaves.
fn copy_template(name: &str, into: &Path) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("creating a folder of the copy");
        for entry in std::fs::read_dir(from).expect("reading a template folder") {
            let entry = entry.expect("a folder entry");
            let name = entry.file_name();
            if ["target", "node_modules", ".venv", "__pycache__"]
                .contains(&&*name.to_string_lossy())
            {
                continue;
            }
            if entry.file_type().expect("a file type").is_dir() {
                copy(&entry.path(), &to.join(&name));
            } else {
                std::fs::copy(entry.path(), to.join(&name)).expect("copying a template file");
            }
        }
    }
    let copied = into.join(name);
    copy(&template_dir(name), &copied);
    copied
}

/// A shell command run in `folder` with the two settings the module doc names.
fn shell(line: &str, folder: &Path) -> Command {
    let mut command = Command::new("sh");
    cargo_build_settings(&mut command)
        .args(["-c", line])
        .current_dir(folder)
        .env("npm_config_prefer_offline", "true")
        .env_remove("VIRTUAL_ENV");
    command
}

/// Runs the README's setup lines in its copy; each must succeed.
fn set_up(name: &str, folder: &Path) {
    for line in run_it(name).setup {
        let output = shell(&line, folder)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap_or_else(|error| panic!("running `{line}`: {error}"));
        assert!(
            output.status.success(),
            "templates/{name}/README.md: `{line}` failed in {}:\n{}\n{}",
            folder.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// `[..]` in `expected` matches any text.
fn matches(expected: &str, line: &str) -> bool {
    let mut parts = expected.split("[..]");
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (index, part) in parts.iter().enumerate() {
        if index + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Plays the client's console block in its copy.
fn play(name: &str, folder: &Path) {
    let console = run_it(name).console;
    let (command, lines) = console
        .split_first()
        .unwrap_or_else(|| panic!("templates/{name}/README.md: \"Run it\" has no console block"));
    let command = command.strip_prefix("$ ").unwrap_or_else(|| {
        panic!("templates/{name}/README.md: the console block starts with `$ `")
    });
    let mut child = Child::spawn(shell(&format!("exec {command}"), folder));
    for line in lines {
        let first_word = line.split_whitespace().next().unwrap_or_default();
        if line == "^C" {
            // While the call runs: the calls in the READMEs take seconds.
            std::thread::sleep(Duration::from_secs(1));
            child.interrupt(true);
        } else if first_word.ends_with(':') {
            let printed = child.stdout_line();
            assert!(
                matches(line, &printed),
                "templates/{name}/README.md shows `{line}`, the client printed `{printed}`"
            );
        } else {
            child.type_line(line);
        }
    }
    let finished = child.finish();
    assert_eq!(
        finished.code,
        Some(0),
        "templates/{name}: the client exited with {:?} after the README's run; it printed {:?} {:?}",
        finished.code,
        finished.stdout,
        finished.stderr
    );
    assert!(finished.stdout.is_empty(), "{:?}", finished.stdout);
}

/// Every template folder has a README and belongs to a pair.
#[test]
fn every_template_has_a_readme_and_a_pair() {
    let mut folders: Vec<String> = std::fs::read_dir(repo().join("templates"))
        .expect("reading templates/")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    folders.sort();
    let mut paired: Vec<String> = PAIRS
        .iter()
        .flat_map(|(client, server)| [client.to_string(), server.to_string()])
        .collect();
    paired.sort();
    assert_eq!(folders, paired);
    for folder in &folders {
        run_it(folder);
    }
}

fn check_pair(client: &str, server: &str) {
    let scratch = tempfile::Builder::new()
        .prefix("template-readme-")
        .tempdir_in(std::env::temp_dir())
        .expect("creating a folder outside the repository");
    assert!(!scratch.path().starts_with(repo()));
    let server_copy = copy_template(server, scratch.path());
    let client_copy = copy_template(client, scratch.path());
    set_up(server, &server_copy);
    set_up(client, &client_copy);
    play(client, &client_copy);
}

#[test]
fn rmcp_client_and_server_run_as_their_readmes_say() {
    check_pair(PAIRS[0].0, PAIRS[0].1);
}

#[test]
fn rmcp_task_client_and_server_run_as_their_readmes_say() {
    check_pair(PAIRS[1].0, PAIRS[1].1);
}

#[test]
fn python_client_and_server_run_as_their_readmes_say() {
    check_pair(PAIRS[2].0, PAIRS[2].1);
}

#[test]
fn typescript_client_and_server_run_as_their_readmes_say() {
    check_pair(PAIRS[3].0, PAIRS[3].1);
}
