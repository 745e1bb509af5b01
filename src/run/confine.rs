//! What the launcher's thread that starts a snippet enters first (Linux): a Landlock domain
//! (read and run everything; write only the `--writable` paths and a few devices; no signal or
//! trace outside the domain) and, in the fallback as root, the loss of the capabilities that read
//! a process that is not dumpable through `/proc`. Per thread, so the launcher stays outside.

use std::path::PathBuf;

use anyhow::Context;

/// What Landlock lets a snippet write besides its `--writable` paths: the devices programs
/// open for writing, and the shared memory `/dev/shm` (POSIX semaphores, Python's
/// `multiprocessing`). Everything else is read-only.
const WRITABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/shm",
];

/// The newest Landlock ABI this code was written and tested against: its file system rights
/// and its scopes (signals, abstract Unix sockets) are asked for; an older kernel enforces
/// what it knows (best effort, reported by the probe).
const ABI: landlock::ABI = landlock::ABI::V6;

/// Enters a Landlock domain on the calling thread: read and execute everywhere, write only
/// under `writable` and [`WRITABLE_DEVICES`], no signal or trace outside the domain.
pub(crate) fn restrict_thread(writable: &[PathBuf]) -> anyhow::Result<landlock::RestrictionStatus> {
    use landlock::{
        Access, AccessFs, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
        path_beneath_rules,
    };
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI))?
        .scope(Scope::from_all(ABI))?
        .create()?
        .add_rules(path_beneath_rules(
            ["/"],
            AccessFs::from_read(ABI) | AccessFs::IoctlDev,
        ))?
        .add_rules(path_beneath_rules(
            WRITABLE_DEVICES,
            AccessFs::from_all(ABI),
        ))?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(ABI)))?
        .restrict_self()?;
    if status.ruleset == RulesetStatus::NotEnforced {
        anyhow::bail!("Landlock is not enforced by this kernel");
    }
    Ok(status)
}

/// The capabilities that let root read a process that is not dumpable (its environment,
/// its memory) through `/proc`: found by trying each alone on Linux 6.18.
const PROC_READING: [rustix::thread::CapabilitySet; 3] = [
    rustix::thread::CapabilitySet::SYS_PTRACE,
    rustix::thread::CapabilitySet::SYS_ADMIN,
    rustix::thread::CapabilitySet::PERFMON,
];

/// Drops [`PROC_READING`] from the calling thread (bounding, effective, permitted and
/// inheritable sets), so a program it starts as root cannot read the verifier or the
/// launcher, which are not dumpable, through `/proc`. (Landlock does not refuse those reads:
/// it refuses `ptrace` itself.)
pub(crate) fn drop_ptrace_capability() -> anyhow::Result<()> {
    use rustix::thread::{capabilities, set_capabilities};
    for capability in PROC_READING {
        rustix::thread::remove_capability_from_bounding_set(capability)
            .context("dropping a capability from the bounding set")?;
    }
    let mut sets = capabilities(None).context("capget")?;
    for capability in PROC_READING {
        sets.effective.remove(capability);
        sets.permitted.remove(capability);
        sets.inheritable.remove(capability);
    }
    set_capabilities(None, sets).context("capset")?;
    Ok(())
}
