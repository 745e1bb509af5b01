//! The sandbox every snippet and every language setup runs in, as the verifier sees it: which
//! containment this machine allows (probed once per process by the launcher, `launcher.rs`),
//! the command that starts a program inside it, and the one line that says which is active
//! (`containment: ...`, on stderr at the end of a run that started a process).
//!
//! - `pid namespace`: each run in a user and PID namespace of its own; nothing it starts
//!   outlives it.
//! - `subreaper scan` (where user namespaces are refused, or `MDBOOK_SNIPPETS_SANDBOX` says
//!   `no-namespaces` or `off`): the launcher is a child subreaper that ends its whole subtree, and
//!   the verifier's marker scan (`containment.rs`) finds what a killed launcher left.
//! - `landlock` (where the kernel has it, unless `MDBOOK_SNIPPETS_SANDBOX=off`): a snippet writes
//!   only its scratch directory (working directory, `TMPDIR`, artifacts) and the book's
//!   `writable` paths, and signals and traces nothing outside its domain. A setup and the
//!   `mutants` command write where they like (a venv, `node_modules`, a release build), but
//!   neither they nor a snippet read or write the cache directory (`Settings::hidden`).
//! - `process group` (not Linux): a run's process group is killed, nothing more.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::bail;

/// The environment variable that forces the fallback: `no-namespaces` (the subreaper scan,
/// Landlock still where the kernel has it) or `off` (neither namespaces nor Landlock); `auto`
/// or unset: whatever the kernel allows.
pub(crate) const SANDBOX_VARIABLE: &str = "MDBOOK_SNIPPETS_SANDBOX";

/// How a run's processes are kept together and ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isolation {
    /// A user and PID namespace per run: the launcher, the namespace's init, the program.
    Namespaces,
    /// The launcher as a child subreaper; the verifier's marker scan behind it.
    Subreaper,
    /// No launcher (not Linux, or the launcher cannot start): the run's process group.
    ProcessGroup,
}

/// What this verifier process runs its snippets in.
#[derive(Debug)]
pub(crate) struct Containment {
    pub isolation: Isolation,
    /// Whether snippets run under Landlock.
    pub landlock: bool,
    /// `containment: ...`, the line the run ends with.
    pub summary: String,
}

/// What a program started in the sandbox may write.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Access<'a> {
    /// A snippet: under Landlock, only `scratch` (its working directory, `TMPDIR`, artifacts,
    /// code) and the book's `writable` paths.
    Snippet {
        scratch: &'a Path,
        writable: &'a [PathBuf],
    },
    /// A language setup or the `mutants` command: writes anywhere (it installs things, it
    /// builds), but not the cache; contained all the same.
    Setup,
}

/// What every run of a verification shares (`verify` sets it before anything runs): the
/// book's limits, the paths no run may see (the cache), the paths a private `/tmp` must keep
/// (the book, the target directory).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct Settings {
    pub hidden: Vec<PathBuf>,
    pub keep: Vec<PathBuf>,
    /// `process-limit`, `memory-limit` (bytes), `file-size-limit` (bytes), `scratch-limit`
    /// (bytes).
    pub process_limit: Option<u64>,
    pub memory_limit: Option<u64>,
    pub file_size_limit: Option<u64>,
    pub scratch_limit: Option<u64>,
    /// `pass-env`: what setups and the `mutants` command get besides the default variables.
    pub pass_env: Vec<String>,
    /// `network = false`: snippets get a network namespace with only a loopback (namespaces
    /// only; setups and the `mutants` command keep the network: they install and build).
    pub no_network: bool,
    /// `backtrace = true`: snippets get `RUST_BACKTRACE=1`.
    pub backtrace: bool,
}

static SETTINGS: std::sync::Mutex<Option<Settings>> = std::sync::Mutex::new(None);

/// Sets what every later run shares (see [`Settings`]).
pub(crate) fn configure(settings: Settings) {
    *SETTINGS.lock().unwrap_or_else(|poison| poison.into_inner()) = Some(settings);
}

pub(crate) fn settings() -> Settings {
    SETTINGS
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .clone()
        .unwrap_or_default()
}

/// Refuses a value of `MDBOOK_SNIPPETS_SANDBOX` it does not know (the tool's error, before
/// anything runs).
pub(crate) fn check_variable() -> anyhow::Result<()> {
    requested().map(|_| ())
}

/// The containment of this process's runs, probed on first use.
pub(crate) fn containment() -> anyhow::Result<&'static Containment> {
    static CONTAINMENT: OnceLock<Result<Containment, String>> = OnceLock::new();
    match CONTAINMENT.get_or_init(|| probe().map_err(|error| format!("{error:#}"))) {
        Ok(containment) => Ok(containment),
        Err(error) => bail!("{error}"),
    }
}

/// Whether any process was started in the sandbox (and so the summary line is due).
static USED: AtomicBool = AtomicBool::new(false);

/// `containment: ...` when this process started a snippet or a setup, for the end of the run.
pub(crate) fn summary_if_used() -> Option<&'static str> {
    if !USED.load(Ordering::SeqCst) {
        return None;
    }
    containment()
        .ok()
        .map(|containment| containment.summary.as_str())
}

/// The command that runs `program args...` in the sandbox: the launcher (this executable,
/// `__sandbox ... -- program args...`), or the program itself without one. Its environment,
/// working directory and standard streams pass through the launcher to the program.
pub(crate) fn command(
    program: &Path,
    args: &[String],
    access: Access<'_>,
) -> anyhow::Result<Command> {
    let containment = containment()?;
    USED.store(true, Ordering::SeqCst);
    if containment.isolation == Isolation::ProcessGroup {
        let mut command = Command::new(program);
        command.args(args);
        return Ok(command);
    }
    let mut command = launcher();
    command.arg("--parent").arg(std::process::id().to_string());
    if containment.isolation == Isolation::Namespaces {
        command.arg("--namespaces");
    }
    let settings = settings();
    for (flag, value) in [
        ("--process-limit", settings.process_limit),
        ("--memory-limit", settings.memory_limit),
        ("--file-size-limit", settings.file_size_limit),
        ("--scratch-limit", settings.scratch_limit),
    ] {
        if let Some(value) = value {
            command.arg(flag).arg(value.to_string());
        }
    }
    for path in &settings.hidden {
        command.arg("--hide").arg(path);
    }
    for path in &settings.keep {
        command.arg("--keep").arg(path);
    }
    if containment.landlock {
        command.arg("--landlock");
    }
    match access {
        Access::Snippet { scratch, writable } => {
            for path in std::iter::once(scratch).chain(writable.iter().map(PathBuf::as_path)) {
                command.arg("--writable").arg(path);
            }
            if settings.no_network {
                command.arg("--no-network");
            }
            // The snippet's working and temporary directories: a bounded tmpfs each.
            for dir in ["work", "tmp"] {
                command.arg("--bounded").arg(scratch.join(dir));
            }
        }
        Access::Setup => {
            command.arg("--write-anywhere");
        }
    }
    command.arg("--").arg(program).args(args);
    Ok(command)
}

/// This executable as the launcher. `/proc/self/exe` in the child is still the verifier's
/// executable, even if the file was replaced since (a rebuild under `mdbook serve`).
fn launcher() -> Command {
    let mut command = Command::new("/proc/self/exe");
    command.arg(crate::run::launcher::SUBCOMMAND);
    command
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Requested {
    Auto,
    NoNamespaces,
    Off,
}

fn requested() -> anyhow::Result<Requested> {
    let Some(value) = std::env::var_os(SANDBOX_VARIABLE) else {
        return Ok(Requested::Auto);
    };
    match value.to_str() {
        Some("" | "auto") => Ok(Requested::Auto),
        Some("no-namespaces") => Ok(Requested::NoNamespaces),
        Some("off") => Ok(Requested::Off),
        _ => bail!(
            "{SANDBOX_VARIABLE}={}: unknown value (expected `auto`, `no-namespaces` or `off`)",
            value.to_string_lossy()
        ),
    }
}

/// What the kernel allows, asked of the launcher (`--probe`), turned into a [`Containment`].
fn probe() -> anyhow::Result<Containment> {
    if !cfg!(target_os = "linux") {
        return Ok(Containment {
            isolation: Isolation::ProcessGroup,
            landlock: false,
            summary: "containment: process group (no namespaces, subreaper or landlock on this \
                      system)"
                .to_owned(),
        });
    }
    if cfg!(test) {
        // `/proc/self/exe` is the test binary, which has no `__sandbox`: the unit tests run
        // without a launcher (the integration tests run the real one).
        return Ok(without_launcher(
            "unit tests: the test binary is no launcher",
        ));
    }
    let requested = requested()?;
    if requested == Requested::Off {
        return Ok(Containment {
            isolation: Isolation::Subreaper,
            landlock: false,
            summary: format!("containment: subreaper scan (sandbox off: {SANDBOX_VARIABLE}=off)"),
        });
    }
    let mut command = launcher();
    command.arg("--probe").arg("--landlock");
    if requested == Requested::Auto {
        command.arg("--namespaces");
    }
    let output = command.stdin(Stdio::null()).stderr(Stdio::null()).output();
    let stdout = match output {
        Ok(output) if output.status.success() => {
            String::from_utf8_lossy(&output.stdout).into_owned()
        }
        Ok(output) => {
            return Ok(without_launcher(&format!(
                "the sandbox launcher failed: {}",
                output.status
            )));
        }
        Err(error) => {
            return Ok(without_launcher(&format!(
                "the sandbox launcher could not start: {error}"
            )));
        }
    };
    let line = |key: &str| {
        stdout
            .lines()
            .find_map(|line| line.strip_prefix(key))
            .unwrap_or("unavailable: no answer from the probe")
            .to_owned()
    };
    let (isolation, mut notes) = match requested {
        Requested::NoNamespaces => (
            Isolation::Subreaper,
            vec![format!("namespaces off: {SANDBOX_VARIABLE}=no-namespaces")],
        ),
        _ => match line("namespaces: ").as_str() {
            "ok" => (Isolation::Namespaces, Vec::new()),
            refused => (
                Isolation::Subreaper,
                vec![format!(
                    "user namespaces refused: {}",
                    refused.trim_start_matches("refused: ")
                )],
            ),
        },
    };
    let landlock_line = line("landlock: ");
    let landlock = match landlock_line.split_once(' ') {
        Some(("full", _)) => Some(String::new()),
        Some(("partial", abi)) => Some(format!(" (partial: kernel ABI {abi})")),
        _ => {
            notes.push(format!("landlock {landlock_line}"));
            None
        }
    };
    let mut summary = match isolation {
        Isolation::Namespaces => "containment: pid namespace".to_owned(),
        _ => "containment: subreaper scan".to_owned(),
    };
    if let Some(partial) = &landlock {
        summary.push_str(&format!(" + landlock{partial}"));
    }
    if !notes.is_empty() {
        summary.push_str(&format!(" ({})", notes.join("; ")));
    }
    Ok(Containment {
        isolation,
        landlock: landlock.is_some(),
        summary,
    })
}

/// Where the launcher cannot run at all: the process group only, and why.
fn without_launcher(why: &str) -> Containment {
    Containment {
        isolation: Isolation::ProcessGroup,
        landlock: false,
        summary: format!("containment: process group ({why})"),
    }
}
