//! The containments a process attack runs under, and what a snippet writes so a test can ask
//! the OS about its processes. Every process test runs under each [`Containment`]: the
//! sandbox (whatever this kernel allows: a note on stderr when it is less than a PID
//! namespace and Landlock, never a silent pass) and the fallbacks `MDBOOK_SNIPPETS_SANDBOX`
//! forces, so all are tested on one machine.

use std::process::Command;
use std::sync::OnceLock;

/// The variable that forces the fallback (`src/run/sandbox.rs`).
pub(crate) const SANDBOX_VARIABLE: &str = "MDBOOK_SNIPPETS_SANDBOX";

/// Which containment a run asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Containment {
    /// Whatever the kernel allows (`auto`): a PID namespace and Landlock here.
    Sandbox,
    /// The subreaper fallback, Landlock still on (`no-namespaces`).
    NoNamespaces,
    /// Neither namespaces nor Landlock (`off`).
    Off,
}

impl Containment {
    pub(crate) const ALL: [Containment; 3] = [
        Containment::Sandbox,
        Containment::NoNamespaces,
        Containment::Off,
    ];

    /// The value of `MDBOOK_SNIPPETS_SANDBOX`.
    pub(crate) fn value(self) -> &'static str {
        match self {
            Containment::Sandbox => "auto",
            Containment::NoNamespaces => "no-namespaces",
            Containment::Off => "off",
        }
    }

    /// Sets `MDBOOK_SNIPPETS_SANDBOX` on a verifier command.
    pub(crate) fn apply(self, command: &mut Command) -> &mut Command {
        command.env(SANDBOX_VARIABLE, self.value())
    }

    /// Whether snippets run under Landlock in this containment on this machine.
    pub(crate) fn landlock(self) -> bool {
        self != Containment::Off && kernel().landlock
    }

    /// The `containment: ...` line a run under it ends with on this machine.
    pub(crate) fn line(self) -> String {
        let kernel = kernel();
        let landlock = if kernel.landlock { " + landlock" } else { "" };
        match self {
            Containment::Sandbox if kernel.namespaces => {
                format!("containment: pid namespace{landlock}")
            }
            Containment::Sandbox => {
                format!("containment: subreaper scan{landlock} (user namespaces refused")
            }
            Containment::NoNamespaces => format!(
                "containment: subreaper scan{landlock} (namespaces off: {SANDBOX_VARIABLE}=no-namespaces"
            ),
            Containment::Off => {
                format!("containment: subreaper scan (sandbox off: {SANDBOX_VARIABLE}=off)")
            }
        }
    }
}

/// What the kernel allows, as the launcher's probe says; a note on stderr for each feature
/// this machine lacks (the tests then check the fallback in its place).
struct Kernel {
    namespaces: bool,
    landlock: bool,
}

fn kernel() -> &'static Kernel {
    static KERNEL: OnceLock<Kernel> = OnceLock::new();
    KERNEL.get_or_init(|| {
        let output = Command::new(env!("CARGO_BIN_EXE_mdbook-snippets"))
            .args(["__sandbox", "--probe", "--namespaces", "--landlock"])
            .output()
            .expect("running the launcher's probe");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let namespaces = stdout.lines().any(|line| line == "namespaces: ok");
        let landlock = stdout
            .lines()
            .any(|line| line.starts_with("landlock: full"));
        if !namespaces {
            eprintln!(
                "note: this kernel refuses user namespaces: the sandbox case ran as the subreaper \
                 fallback ({stdout:?})"
            );
        }
        if !landlock {
            eprintln!(
                "note: this kernel does not fully enforce Landlock ABI 6: the write and /proc \
                 checks ran without it ({stdout:?})"
            );
        }
        Kernel {
            namespaces,
            landlock,
        }
    })
}
