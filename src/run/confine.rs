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

/// What a Landlock domain allows.
pub(crate) struct Rules<'a> {
    /// Written besides [`WRITABLE_DEVICES`].
    pub writable: &'a [PathBuf],
    /// Neither read nor written (the cache: its secret and entries); canonical paths. In a
    /// namespace the launcher passes none it covered with an empty tmpfs: a thread this domain
    /// restricts cannot unmount it, or change any mount, and a mount cloned from elsewhere
    /// (`open_tree`) is refused by the rules, which a detached tree's paths never reach.
    pub hidden: &'a [PathBuf],
}

/// Enters a Landlock domain on the calling thread: read and execute everything but `hidden`,
/// write only under `writable` and [`WRITABLE_DEVICES`], no signal or trace outside the
/// domain.
pub(crate) fn restrict_thread(rules: &Rules<'_>) -> anyhow::Result<landlock::RestrictionStatus> {
    use landlock::{
        Access, AccessFs, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
        path_beneath_rules,
    };
    let visible = visible_roots(rules.hidden);
    let everywhere = AccessFs::from_read(ABI) | AccessFs::IoctlDev;
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI))?
        .scope(Scope::from_all(ABI))?
        .create()?
        .add_rules(path_beneath_rules(&visible, everywhere))?
        // The hidden paths' ancestors are listed (a snippet may `ls ..`); a hidden file is
        // never read. (A setup, which writes new entries anywhere, cannot be given this: a
        // directory it makes beside an ancestor would be covered by no rule. It gets no
        // Landlock; in a namespace the cache is an empty tmpfs all the same.)
        .add_rules(path_beneath_rules(
            ancestors(rules.hidden),
            AccessFs::ReadDir,
        ))?
        .add_rules(path_beneath_rules(
            WRITABLE_DEVICES,
            AccessFs::from_all(ABI),
        ))?
        .add_rules(path_beneath_rules(rules.writable, AccessFs::from_all(ABI)))?
        .restrict_self()?;
    if status.ruleset == RulesetStatus::NotEnforced {
        anyhow::bail!("Landlock is not enforced by this kernel");
    }
    Ok(status)
}

/// The paths whose trees together are everything but `hidden`: `/`, or, for each hidden
/// path, every sibling of it and of each of its ancestors (Landlock rules only grant, so what
/// is not granted is refused). An entry made later beside an ancestor is not covered.
pub(crate) fn visible_roots(hidden: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::from("/")];
    for hidden in hidden {
        let mut next = Vec::new();
        for root in roots {
            if hidden.starts_with(&root) {
                split(&root, hidden, &mut next);
            } else if !root.starts_with(hidden) {
                next.push(root);
            }
        }
        roots = next;
    }
    roots
}

/// The ancestors of the `hidden` paths (`/` included).
fn ancestors(hidden: &[PathBuf]) -> Vec<&std::path::Path> {
    let mut ancestors: Vec<&std::path::Path> = hidden
        .iter()
        .flat_map(|path| path.ancestors().skip(1))
        .collect();
    ancestors.sort();
    ancestors.dedup();
    ancestors
}

/// Pushes onto `roots` the entries under `root` (an ancestor of `hidden`, or itself) that
/// are not `hidden` and not its ancestors, descending along `hidden`.
fn split(root: &std::path::Path, hidden: &std::path::Path, roots: &mut Vec<PathBuf>) {
    let Ok(rest) = hidden.strip_prefix(root) else {
        return;
    };
    let Some(first) = rest.components().next() else {
        return;
    };
    let toward = root.join(first);
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path == toward {
            split(&toward, hidden, roots);
        } else {
            roots.push(path);
        }
    }
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

/// Drops `CAP_SYS_ADMIN` from the calling thread's bounding, inheritable and ambient sets, so
/// a program it starts lacks it, even as root of its user namespace (where the launcher's uid
/// may be 0): it cannot unmount, move or clone the mounts of its namespace, so the empty tmpfs
/// over the cache stays (a setup and the `mutants` command run without Landlock, which would
/// refuse those mount changes), and a user namespace it makes of its own finds those mounts
/// locked. The other capabilities stay: a verifier the program runs needs them to enter
/// namespaces of its own (and drops this one the same way, where it may not be in the set).
pub(crate) fn drop_mount_capability() -> anyhow::Result<()> {
    use rustix::thread::{CapabilitySet, capabilities, set_capabilities};
    if rustix::thread::capability_is_in_bounding_set(CapabilitySet::SYS_ADMIN)
        .context("reading the bounding set")?
    {
        rustix::thread::remove_capability_from_bounding_set(CapabilitySet::SYS_ADMIN)
            .context("dropping CAP_SYS_ADMIN from the bounding set")?;
    }
    rustix::thread::clear_ambient_capability_set().context("clearing the ambient capabilities")?;
    let mut sets = capabilities(None).context("capget")?;
    sets.inheritable.remove(CapabilitySet::SYS_ADMIN);
    set_capabilities(None, sets).context("capset")?;
    Ok(())
}
