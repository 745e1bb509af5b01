//! What the launcher closes before the program starts (Linux), besides the namespaces and
//! Landlock (`launcher.rs`, `confine.rs`): the side doors a process of the user's could go
//! through.
//!
//! - The terminal: the launcher starts a session of its own before anything else
//!   ([`own_session`]; a program run without a launcher: [`new_session`]), so the program has
//!   no controlling terminal: `/dev/tty` does not open, and `TIOCSTI` (pushing input into the
//!   user's shell) needs a controlling terminal or `CAP_SYS_ADMIN` of the first user namespace.
//! - Inherited descriptors: every descriptor above 2 the launcher was given (a caller's
//!   `3>>FILE`, what the user's shell had open) is closed first thing
//!   ([`close_inherited_descriptors`]), so no write goes around Landlock through one.
//! - Resources: the limits of `book.toml` (`process-limit`, `memory-limit`, `file-size-limit`)
//!   as hard and soft limits of the launcher, inherited by the program ([`set_limits`]).
//! - Shared places (namespaces only: the fallback has no mount namespace): a private,
//!   size-bounded tmpfs over `/dev/shm`, `/tmp` (the entries of `/tmp` the run needs, such as
//!   its scratch directory and the book, are bound back), the user's runtime directory
//!   (`/run/user/UID`, `XDG_RUNTIME_DIR`: D-Bus, agents, sockets) and `/dev/pts` (a new
//!   instance: the user's terminals are not there to write to), and an empty tmpfs over the
//!   `--hide` paths (the cache: its secret and entries) ([`private_mounts`]).
//! - The network, where the book asks (`network = false`; namespaces only): a network namespace
//!   with its own loopback ([`private_network`]).

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use anyhow::Context;

/// The resource limits of a run, as the launcher's arguments carry them.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Limits {
    /// `RLIMIT_NPROC`: processes (threads) of the run's user.
    pub processes: Option<u64>,
    /// `RLIMIT_AS`, bytes.
    pub address_space: Option<u64>,
    /// `RLIMIT_FSIZE`, bytes.
    pub file_size: Option<u64>,
}

/// Closes every descriptor above 2 the launcher inherited. Called first thing, while the
/// launcher has one thread and has opened nothing of its own, so every one it finds is
/// inherited.
pub(crate) fn close_inherited_descriptors() {
    let inherited: Vec<i32> = std::fs::read_dir("/proc/self/fd")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    // The listing's own descriptor is closed by now; closing it again is an error ignored.
    for fd in inherited {
        let _ = nix::unistd::close(fd);
    }
}

/// Starts a new session, led by this process (the launcher, first thing: `containment.rs`
/// registers the run under its pid as the process group): no controlling terminal, and a
/// process group of its own, so nothing the launcher starts has a terminal either.
pub(crate) fn own_session() -> anyhow::Result<()> {
    rustix::process::setsid().context("starting a session of its own (setsid)")?;
    Ok(())
}

/// Makes `command` start its program in a new session: no controlling terminal, and a process
/// group of its own. For a program `containment.rs` starts without a launcher (a launcher
/// starts its own session: [`own_session`]).
pub(crate) fn new_session(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec the closure makes one system call (`setsid`, which is
    // async-signal-safe) and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            rustix::process::setsid()?;
            Ok(())
        });
    }
}

/// Sets `limits` (soft and hard: the program cannot raise them) on the launcher, before the
/// program starts, so the program and its children inherit them.
pub(crate) fn set_limits(limits: &Limits) -> anyhow::Result<()> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    for (resource, value, name) in [
        (Resource::Nproc, limits.processes, "process-limit"),
        (Resource::As, limits.address_space, "memory-limit"),
        (Resource::Fsize, limits.file_size, "file-size-limit"),
    ] {
        if let Some(value) = value {
            // Never above what the verifier was given (`ulimit -v` in the user's shell): only
            // root may raise a hard limit, and a lower one is already the stricter bound.
            let value = match getrlimit(resource).maximum {
                Some(hard) => value.min(hard),
                None => value,
            };
            let limit = Rlimit {
                current: Some(value),
                maximum: Some(value),
            };
            setrlimit(resource, limit).with_context(|| format!("setting `{name}`"))?;
        }
    }
    Ok(())
}

/// What [`private_mounts`] mounts.
pub(crate) struct Mounts<'a> {
    /// Paths of `/tmp` the run needs (its scratch directory, writable paths, the book, the
    /// program): their entry of `/tmp` is bound back over the private `/tmp`.
    pub keep: Vec<&'a Path>,
    /// Paths made empty (the cache directory).
    pub hide: &'a [PathBuf],
    /// Directories that get a bounded tmpfs of their own (the scratch's `work` and `tmp`).
    pub bounded: &'a [PathBuf],
    /// The size of each tmpfs, bytes.
    pub size: u64,
}

/// In the launcher's new user and mount namespace: private, size-bounded `/dev/shm`, `/tmp`
/// and runtime directory, a new `/dev/pts`, hidden paths (see the module docs). Mount
/// propagation is made private first, so nothing is seen outside. Returns the hidden paths it
/// did not cover (not a directory now): Landlock must keep those out of reach itself.
pub(crate) fn private_mounts(mounts: &Mounts<'_>) -> anyhow::Result<Vec<PathBuf>> {
    use rustix::mount::{MountPropagationFlags, mount_change};
    mount_change(
        "/",
        MountPropagationFlags::PRIVATE | MountPropagationFlags::REC,
    )
    .context("making the mounts private")?;
    let mut uncovered = Vec::new();
    for path in mounts.hide {
        if path.is_dir() {
            tmpfs(path, "size=4k,mode=0", true)
                .with_context(|| format!("hiding {}", path.display()))?;
        } else {
            uncovered.push(path.clone());
        }
    }
    let size = format!("size={},mode=1777", mounts.size);
    if Path::new("/dev/shm").is_dir() {
        tmpfs(Path::new("/dev/shm"), &size, false).context("a private /dev/shm")?;
    }
    for runtime in runtime_dirs() {
        tmpfs(&runtime, &format!("size={},mode=0700", mounts.size), false)
            .with_context(|| format!("a private {}", runtime.display()))?;
    }
    private_tmp(&mounts.keep, &size)?;
    private_pts();
    for dir in mounts.bounded {
        tmpfs(dir, &size, false).with_context(|| format!("bounding {}", dir.display()))?;
    }
    // The launcher's working directory may have just been mounted over: enter it again.
    if let Ok(cwd) = std::env::current_dir() {
        std::env::set_current_dir(&cwd).with_context(|| format!("entering {}", cwd.display()))?;
    }
    Ok(uncovered)
}

/// `/run/user/UID` and `XDG_RUNTIME_DIR`, where they are directories.
fn runtime_dirs() -> Vec<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let mut dirs = vec![PathBuf::from(format!("/run/user/{uid}"))];
    if let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from)
        && !dirs.contains(&runtime)
    {
        dirs.push(runtime);
    }
    dirs.retain(|dir| dir.is_absolute() && dir.is_dir());
    dirs
}

/// A private `/tmp`, with the entries of the real one that hold a `keep` path bound back
/// (opened before the tmpfs hides them).
fn private_tmp(keep: &[&Path], options: &str) -> anyhow::Result<()> {
    let tmp = Path::new("/tmp");
    let mut entries: Vec<OsString> = keep
        .iter()
        .filter_map(|path| {
            let path = std::fs::canonicalize(path).ok()?;
            let mut components = path.strip_prefix(tmp).ok()?.components();
            match components.next()? {
                Component::Normal(name) => Some(name.to_owned()),
                _ => None,
            }
        })
        .collect();
    entries.sort();
    entries.dedup();
    let opened: Vec<(OsString, std::fs::File, bool)> = entries
        .into_iter()
        .filter_map(|name| {
            let path = tmp.join(&name);
            let is_dir = path.is_dir();
            let file = std::fs::File::open(&path).ok()?;
            Some((name, file, is_dir))
        })
        .collect();
    tmpfs(tmp, options, false).context("a private /tmp")?;
    for (name, file, is_dir) in opened {
        let target = tmp.join(&name);
        if is_dir {
            std::fs::create_dir(&target)
        } else {
            std::fs::write(&target, "")
        }
        .with_context(|| format!("creating {}", target.display()))?;
        let source = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&file));
        rustix::mount::mount_bind_recursive(source.as_str(), &target)
            .with_context(|| format!("binding {}", target.display()))?;
    }
    Ok(())
}

/// A new `devpts` instance over `/dev/pts`, its `ptmx` over `/dev/ptmx`: the program can still
/// make terminals of its own, and sees none of the user's. Best effort: where the kernel
/// refuses, the user's terminals stay visible (the program has no controlling terminal all the
/// same).
fn private_pts() {
    use rustix::mount::{MountFlags, mount, mount_bind};
    let mounted = mount(
        "devpts",
        "/dev/pts",
        "devpts",
        MountFlags::NOSUID | MountFlags::NOEXEC,
        c"newinstance,ptmxmode=0666,mode=0620",
    );
    if mounted.is_ok() && Path::new("/dev/ptmx").exists() {
        let _ = mount_bind("/dev/pts/ptmx", "/dev/ptmx");
    }
}

/// Mounts a tmpfs with `options` over `dir`, read-only when `read_only`.
fn tmpfs(dir: &Path, options: &str, read_only: bool) -> anyhow::Result<()> {
    use rustix::mount::{MountFlags, mount};
    let mut flags = MountFlags::NOSUID | MountFlags::NODEV;
    if read_only {
        flags |= MountFlags::RDONLY;
    }
    let options = std::ffi::CString::new(options).context("tmpfs options")?;
    mount("tmpfs", dir, "tmpfs", flags, options.as_c_str())
        .with_context(|| format!("mounting a tmpfs on {}", dir.display()))?;
    Ok(())
}

/// `network = false`: a network namespace of the run's own, whose only interface is a loopback,
/// brought up (a snippet can still start a server on `127.0.0.1` and talk to it; nothing of the
/// machine's loopback or network is reachable). Namespaces only.
pub(crate) fn private_network() -> anyhow::Result<()> {
    use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketType};
    nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET).context("unshare(CLONE_NEWNET)")?;
    // RTM_NEWLINK on interface 1 (a new namespace's loopback) with IFF_UP, asking for an ack:
    // an nlmsghdr then an ifinfomsg, as the kernel lays them out (native byte order).
    const RTM_NEWLINK: u16 = 16;
    const NLM_F_REQUEST_ACK: u16 = 1 | 4;
    const IFF_UP: u32 = 1;
    let mut message = Vec::with_capacity(32);
    message.extend_from_slice(&32u32.to_ne_bytes());
    message.extend_from_slice(&RTM_NEWLINK.to_ne_bytes());
    message.extend_from_slice(&NLM_F_REQUEST_ACK.to_ne_bytes());
    message.extend_from_slice(&1u32.to_ne_bytes()); // sequence
    message.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel assigns
    message.extend_from_slice(&[0, 0, 0, 0]); // family AF_UNSPEC, padding, device type
    message.extend_from_slice(&1i32.to_ne_bytes()); // interface index: lo
    message.extend_from_slice(&IFF_UP.to_ne_bytes()); // flags
    message.extend_from_slice(&IFF_UP.to_ne_bytes()); // change mask
    // No protocol: NETLINK_ROUTE, the default.
    let socket = rustix::net::socket(AddressFamily::NETLINK, SocketType::RAW, None)
        .context("a netlink socket")?;
    rustix::net::send(&socket, &message, SendFlags::empty()).context("asking for lo up")?;
    let mut reply = [0u8; 256];
    let (read, _) = rustix::net::recv(&socket, &mut reply, RecvFlags::empty())
        .context("reading the netlink ack")?;
    // An NLMSG_ERROR (type 2) whose error field (after the 16-byte header) is 0 is the ack.
    let error = reply
        .get(16..20)
        .filter(|_| read >= 20)
        .map(|bytes| i32::from_ne_bytes(bytes.try_into().expect("4 bytes")));
    match error {
        Some(0) => Ok(()),
        Some(code) => anyhow::bail!(
            "bringing up the loopback: {}",
            std::io::Error::from_raw_os_error(-code)
        ),
        None => anyhow::bail!("bringing up the loopback: no ack"),
    }
}
