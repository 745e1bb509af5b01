//! The launcher: the verifier's own executable, started as `mdbook-snippets __sandbox ... --
//! PROGRAM ARGS...` (a hidden subcommand) between the verifier and every snippet or setup, so
//! that the namespaces and Landlock are applied by a fresh single-threaded process to itself and
//! its children, with no `pre_exec` code in the verifier (`sandbox.rs` builds the command).
//!
//! - With `--namespaces` it enters a new user namespace (its own uid and gid mapped to
//!   themselves) and PID namespace, starts a copy of itself as the namespace's init (`--init`:
//!   pid 1, reaps orphans, dies with the launcher) and then the program (pid 2). When the
//!   program exits, the init is killed, and the kernel kills every other process of the
//!   namespace before the init is gone: however a process detached (`setsid`, forks that exit,
//!   a cleared environment, closed pipes), it cannot outlive the run. Nothing inside can signal
//!   or trace the launcher or the init (they are outside its namespace and its Landlock domain).
//! - Without it (the fallback, where user namespaces are refused) it is a child subreaper
//!   (`subreaper.rs`): every orphan of the program is re-parented to it, never to the verifier
//!   or init, so the run's processes are exactly its descendants, whatever marks they dropped.
//!   When the program exits, or on SIGTERM, SIGINT, SIGHUP (from the verifier, or the death of
//!   the verifier), it kills its children again and again, reaping them, until it has none, and
//!   only then exits. What escapes: a process whose launcher was killed first (SIGKILL from the snippet itself, which
//!   Landlock's signal scoping prevents where the kernel has it) is left to the verifier's
//!   marker scan (`containment.rs`).
//! - With `--landlock` the program runs in a Landlock domain (applied to the one thread that
//!   starts it, so the launcher stays outside): it reads and runs everything, writes only under
//!   the `--writable` paths (the run's scratch directory, the book's `writable` list) and a few
//!   devices (`/dev/null`, `/dev/shm`, ...), and signals and traces nothing outside its domain.
//! - The launcher marks itself not dumpable, so the program cannot read its memory or
//!   environment through `/proc`; in the fallback, when it runs as root, the program loses
//!   `CAP_SYS_PTRACE`, `CAP_SYS_ADMIN` and `CAP_PERFMON` too, so `/proc/VERIFIER/environ` (not
//!   dumpable either) stays closed. (In a user namespace the program has no capability outside
//!   it.)
//!
//! - Before the program starts (`side_doors.rs`): inherited descriptors above 2 closed, a new
//!   session (no controlling terminal), the book's rlimits, and in the namespace private
//!   size-bounded `/tmp`, `/dev/shm`, runtime directory and `/dev/pts`, the cache hidden, and
//!   with `--no-network` a network namespace of its own.
//!
//! The launcher exits as the program did (its exit code, or killed by its signal); a launcher
//! that could not start the program says why on stderr (the snippet's stderr) and exits 127.
//! `--probe` tells the verifier what this kernel allows (`sandbox.rs` reads its stdout).

use std::process::ExitCode;

pub(crate) use crate::run::launcher_args::LauncherArgs;

/// When this process was started as the launcher (`__sandbox ...`, by the verifier) or as a
/// PID namespace's init (`__sandbox --init`, by a launcher): runs it and returns its exit code;
/// `None` otherwise. Called first in `main`, before clap (`launcher_args.rs` says why); a list
/// of arguments it cannot read is an error and exit 2.
pub(crate) fn run_if_launcher() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != SUBCOMMAND {
        return None;
    }
    Some(match crate::run::launcher_args::parse(args) {
        Ok(args) => main(&args),
        Err(error) => {
            eprintln!("mdbook-snippets {SUBCOMMAND}: {error}");
            ExitCode::from(2)
        }
    })
}

/// Runs the launcher (or the init, or the probe) and returns its exit code.
pub(crate) fn main(args: &LauncherArgs) -> ExitCode {
    #[cfg(target_os = "linux")]
    {
        linux::main(args)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = args;
        eprintln!("mdbook-snippets: the sandbox launcher runs on Linux only");
        ExitCode::from(127)
    }
}

/// The name of the hidden subcommand (`main` dispatches it before clap).
pub(crate) const SUBCOMMAND: &str = "__sandbox";

/// The Linux side: namespaces, subreaping, Landlock.
#[cfg(target_os = "linux")]
mod linux {
    use std::os::unix::process::ExitStatusExt;
    use std::path::Path;
    use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};

    use anyhow::Context;
    use rustix::process::Signal;

    use super::{LauncherArgs, SUBCOMMAND};

    pub(super) fn main(args: &LauncherArgs) -> ExitCode {
        // First, before anything of the launcher's own is open (see `side_doors.rs`).
        crate::run::side_doors::close_inherited_descriptors();
        if args.probe {
            return probe(args);
        }
        if args.init {
            return crate::run::namespace_init::init();
        }
        // A session of its own before anything is started (`side_doors.rs`), so the verifier
        // can spawn the launcher without code of its own between fork and exec.
        if let Err(error) = crate::run::side_doors::own_session() {
            eprintln!("mdbook-snippets sandbox: {error:#}");
            return ExitCode::from(127);
        }
        // The launcher ends with the verifier (pdeathsig); with a PID namespace the init, and so
        // everything, ends with the launcher. In the fallback SIGTERM lets it end its subtree.
        let death_signal = if args.namespaces {
            Signal::KILL
        } else {
            Signal::TERM
        };
        let _ = rustix::process::set_parent_process_death_signal(Some(death_signal));
        if args
            .parent
            .is_some_and(|parent| parent_pid() != Some(parent))
        {
            // The verifier died before the death signal was set.
            return ExitCode::from(127);
        }
        let result = if args.namespaces {
            in_namespaces(args)
        } else {
            crate::run::subreaper::run(|| on_a_thread(|| start_program(args, &args.hide, true)))
        };
        match result {
            Ok(status) => exit_like(status),
            Err(error) => {
                eprintln!("mdbook-snippets sandbox: {error:#}");
                ExitCode::from(127)
            }
        }
    }

    /// Enters a new user namespace, then (on a thread of its own: a process whose children go
    /// to another PID namespace can start no more threads) a PID namespace, where it starts
    /// the namespace's init and then the program; once the program has exited, kills the init,
    /// which returns only when the namespace is empty.
    fn in_namespaces(args: &LauncherArgs) -> anyhow::Result<ExitStatus> {
        enter_user_namespace()?;
        if args.no_network {
            crate::run::side_doors::private_network()?;
        }
        let _ =
            rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
        let program = args.command.first().map(Path::new);
        let cwd = std::env::current_dir().context("the working directory")?;
        let keep = (args.writable.iter().chain(&args.keep))
            .map(|path| path.as_path())
            .chain(program)
            .chain([cwd.as_path()])
            .collect();
        // The hidden paths are empty read-only tmpfs now, which the program cannot unmount or
        // see beneath: Landlock refuses every change of the mount tree to a thread it
        // restricts (`confine.rs`). Its rules need not split the file system around them.
        let uncovered = crate::run::side_doors::private_mounts(&crate::run::side_doors::Mounts {
            keep,
            hide: &args.hide,
            bounded: &args.bounded,
            size: args.scratch_limit,
        })?;
        // The init lives while this pipe is open: while the launcher does.
        let (alive, held) = std::io::pipe().context("creating a pipe")?;
        let (mut init, program) = on_a_thread(|| {
            let init = start_init(alive)?;
            Ok((init, start_program(args, &uncovered, false)))
        })?;
        let status =
            program.and_then(|mut program| program.wait().context("waiting for the program"));
        let _ = init.kill();
        let _ = init.wait();
        drop(held);
        status
    }

    /// Runs `work` on a thread of its own (whose Landlock domain, PID namespace for children
    /// and capabilities are its own, not the launcher's).
    fn on_a_thread<T: Send>(work: impl FnOnce() -> anyhow::Result<T> + Send) -> anyhow::Result<T> {
        std::thread::scope(|scope| {
            scope
                .spawn(work)
                .join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("the launcher's thread panicked")))
        })
    }

    /// A new user namespace with the uid and gid mapped to themselves, so the program sees who
    /// it is, and a mount namespace of its own (where the init mounts the new PID namespace's
    /// `/proc`). Only a single-threaded process may enter a user namespace.
    fn enter_user_namespace() -> anyhow::Result<()> {
        use nix::sched::CloneFlags;
        let uid = rustix::process::getuid().as_raw();
        let gid = rustix::process::getgid().as_raw();
        nix::sched::unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS)
            .context("unshare(CLONE_NEWUSER | CLONE_NEWNS)")?;
        for (file, line) in [
            ("/proc/self/setgroups", "deny".to_owned()),
            ("/proc/self/uid_map", format!("{uid} {uid} 1")),
            ("/proc/self/gid_map", format!("{gid} {gid} 1")),
        ] {
            std::fs::write(file, line).with_context(|| format!("writing {file}"))?;
        }
        Ok(())
    }

    /// Enters a new PID namespace (for the calling thread's children) and starts a copy of the
    /// launcher as its pid 1 (`--init`), holding nothing of the run's: no environment, no pipes
    /// but `alive`, its stdin, whose other end the launcher holds (the init ends when the
    /// launcher does, however it ended), and its stdout, where it says `ready` once it has
    /// mounted the namespace's own `/proc`. For that mount alone it gets `CAP_SYS_ADMIN` (of
    /// the new user namespace) across its `exec`, as an ambient capability of this thread,
    /// lowered again before the program starts.
    fn start_init(alive: std::io::PipeReader) -> anyhow::Result<Child> {
        use rustix::thread::{CapabilitySet, capabilities, set_capabilities};
        nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWPID)
            .context("unshare(CLONE_NEWPID)")?;
        let mut sets = capabilities(None).context("capget")?;
        sets.inheritable.insert(CapabilitySet::SYS_ADMIN);
        set_capabilities(None, sets).context("capset")?;
        rustix::thread::configure_capability_in_ambient_set(CapabilitySet::SYS_ADMIN, true)
            .context("raising CAP_SYS_ADMIN for the init")?;
        let (mut ready, said) = std::io::pipe().context("creating a pipe")?;
        let init = Command::new("/proc/self/exe")
            .args([SUBCOMMAND, "--init"])
            .env_clear()
            .stdin(alive)
            .stdout(said)
            .stderr(Stdio::null())
            .spawn();
        let lowered = rustix::thread::clear_ambient_capability_set();
        sets.inheritable.remove(CapabilitySet::SYS_ADMIN);
        let restored = set_capabilities(None, sets);
        let mut init = init.context("starting the PID namespace's init")?;
        lowered.context("lowering the ambient capabilities")?;
        restored.context("capset")?;
        let mut said = String::new();
        let _ = std::io::Read::read_to_string(&mut ready, &mut said);
        if said != "ready\n" {
            let _ = init.kill();
            let _ = init.wait();
            anyhow::bail!("the PID namespace's init did not start: {}", said.trim());
        }
        Ok(init)
    }

    /// Starts the program from the calling thread (a thread of the launcher's own), which first
    /// enters the Landlock domain (so the launcher's other threads stay outside it: the program
    /// can neither signal nor trace the launcher) and, in the fallback as root, drops the
    /// capabilities that read other processes through `/proc`. `hidden`: the `--hide` paths
    /// Landlock must keep out of reach (those no empty tmpfs covers).
    fn start_program(
        args: &LauncherArgs,
        hidden: &[std::path::PathBuf],
        fallback: bool,
    ) -> anyhow::Result<Child> {
        let Some((program, arguments)) = args.command.split_first() else {
            anyhow::bail!("no program to run");
        };
        if args.landlock {
            crate::run::confine::restrict_thread(&crate::run::confine::Rules {
                writable: &args.writable,
                hidden,
            })?;
        }
        if fallback && rustix::process::geteuid().is_root() {
            crate::run::confine::drop_ptrace_capability()?;
        }
        if !fallback {
            // Root of its user namespace, the program would keep every capability there
            // across its `exec`: it gets no `CAP_SYS_ADMIN` (the init has started).
            crate::run::confine::drop_mount_capability()?;
        }
        crate::run::side_doors::set_limits(&crate::run::side_doors::Limits {
            // In the fallback the count is of every process of the user, not of the run's.
            processes: args.process_limit.filter(|_| !fallback),
            address_space: args.memory_limit,
            file_size: args.file_size_limit,
        })?;
        let mut command = Command::new(program);
        command.args(arguments);
        command
            .spawn()
            .with_context(|| format!("starting {}", Path::new(program).display()))
    }

    /// Our parent's pid as `/proc` shows it (the pid namespace `/proc` was mounted in: the
    /// verifier's, so it names the launcher even from inside a new PID namespace, where
    /// `getppid` says 0).
    fn parent_pid() -> Option<i32> {
        crate::process_table::read("self").map(|process| process.parent)
    }

    /// Exits as the program did: its code, or killed by its signal.
    fn exit_like(status: ExitStatus) -> ExitCode {
        if let Some(code) = status.code() {
            return ExitCode::from(code as u8);
        }
        if let Some(signal) = status.signal() {
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            return ExitCode::from(128u8.wrapping_add(signal as u8));
        }
        ExitCode::FAILURE
    }

    /// `--probe`: whether this kernel lets the launcher enter new user and PID namespaces
    /// (and start an init there), and what Landlock enforces; one line each on stdout.
    fn probe(args: &LauncherArgs) -> ExitCode {
        if args.namespaces {
            match probe_namespaces() {
                Ok(()) => println!("namespaces: ok"),
                Err(error) => println!("namespaces: refused: {error:#}"),
            }
        }
        if args.landlock {
            let status = std::thread::spawn(|| {
                crate::run::confine::restrict_thread(&crate::run::confine::Rules {
                    writable: &[],
                    hidden: &[],
                })
            })
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the probe thread panicked")));
            match status {
                Ok(status) => {
                    let abi = match status.landlock {
                        landlock::LandlockStatus::Available {
                            effective_abi,
                            kernel_abi,
                        } => kernel_abi.unwrap_or(effective_abi as i32),
                        _ => 0,
                    };
                    let level = if status.ruleset == landlock::RulesetStatus::FullyEnforced {
                        "full"
                    } else {
                        "partial"
                    };
                    println!("landlock: {level} {abi}");
                }
                Err(error) => println!("landlock: unavailable: {error:#}"),
            }
        }
        ExitCode::SUCCESS
    }

    fn probe_namespaces() -> anyhow::Result<()> {
        enter_user_namespace()?;
        // The private mounts every run makes: a kernel that refuses them gets the fallback, not
        // a failure of every snippet.
        let cwd = std::env::current_dir().context("the working directory")?;
        crate::run::side_doors::private_mounts(&crate::run::side_doors::Mounts {
            keep: vec![cwd.as_path()],
            hide: &[],
            bounded: &[],
            size: 1 << 20,
        })?;
        let (alive, held) = std::io::pipe().context("creating a pipe")?;
        let mut init = on_a_thread(|| start_init(alive))?;
        drop(held);
        let status = init.wait()?;
        if !status.success() {
            anyhow::bail!("the PID namespace's init failed ({status})");
        }
        Ok(())
    }
}
