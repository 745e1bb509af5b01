//! The init of a launcher's PID namespace (Linux, `__sandbox --init`): pid 1, started by the
//! launcher with `CAP_SYS_ADMIN` of the new user namespace as an ambient capability. It mounts
//! the namespace's own `/proc` (in the launcher's mount namespace, made private first), drops
//! every capability, says `ready` on stdout, then reaps every orphan the namespace hands it
//! until its stdin (a pipe the launcher holds) ends: its exit empties the namespace.

use std::process::ExitCode;

use anyhow::Context;
use rustix::io::Errno;
use rustix::process::{WaitId, WaitIdOptions};

/// The init of a launcher's PID namespace: reaps every orphan the namespace hands it, and
/// exits when its stdin (the launcher's pipe) ends, taking the namespace with it. Signals
/// from inside the namespace do not reach it (the kernel protects a namespace's init), and
/// it is outside the program's Landlock domain.
pub(crate) fn init() -> ExitCode {
    use rustix::event::{PollFd, PollFlags, poll};
    let said = match mount_proc() {
        Ok(()) => "ready\n".to_owned(),
        Err(error) => format!("{error:#}\n"),
    };
    // One write, then stdout closes (dropped to /dev/null): the launcher reads to the end.
    let mut stdout = std::io::stdout();
    let _ = std::io::Write::write_all(&mut stdout, said.as_bytes());
    let _ = std::io::Write::flush(&mut stdout);
    if let Ok(null) = std::fs::File::open("/dev/null") {
        let _ = rustix::stdio::dup2_stdout(&null);
    }
    if said != "ready\n" {
        return ExitCode::from(127);
    }
    let Ok((woken, waker)) = std::os::unix::net::UnixStream::pair() else {
        return ExitCode::from(127);
    };
    if signal_hook::low_level::pipe::register(signal_hook::consts::SIGCHLD, waker).is_err()
        || woken.set_nonblocking(true).is_err()
    {
        return ExitCode::from(127);
    }
    let stdin = std::io::stdin();
    loop {
        while let Ok(Some(_)) =
            rustix::process::waitid(WaitId::All, WaitIdOptions::EXITED | WaitIdOptions::NOHANG)
        {
        }
        let mut fds = [
            PollFd::new(&stdin, PollFlags::IN),
            PollFd::new(&woken, PollFlags::IN),
        ];
        match poll(&mut fds, None) {
            Ok(_) | Err(Errno::INTR) => {}
            Err(_) => return ExitCode::from(127),
        }
        if !fds[0].revents().is_empty() {
            // The launcher is gone (or wrote, which it never does).
            return ExitCode::SUCCESS;
        }
        let mut drained = [0u8; 64];
        while std::io::Read::read(&mut &woken, &mut drained).is_ok_and(|read| read > 0) {}
    }
}

/// Mounts a `/proc` of this PID namespace over `/proc` (in the launcher's own mount
/// namespace, made private first so nothing propagates out), then drops every capability:
/// the program sees its own processes only, with the pids it knows, and no other process's
/// environment, command line or files.
fn mount_proc() -> anyhow::Result<()> {
    use rustix::mount::{MountFlags, MountPropagationFlags, mount, mount_change};
    mount_change(
        "/",
        MountPropagationFlags::PRIVATE | MountPropagationFlags::REC,
    )
    .context("making the mounts private")?;
    mount(
        "proc",
        "/proc",
        "proc",
        MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
        None,
    )
    .context("mounting /proc")?;
    let _ = rustix::thread::clear_ambient_capability_set();
    if let Ok(mut sets) = rustix::thread::capabilities(None) {
        sets.effective = rustix::thread::CapabilitySet::empty();
        sets.permitted = rustix::thread::CapabilitySet::empty();
        sets.inheritable = rustix::thread::CapabilitySet::empty();
        let _ = rustix::thread::set_capabilities(None, sets);
    }
    Ok(())
}
