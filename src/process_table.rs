//! The process table as `/proc` shows it (Linux): each process's parent, process group and
//! whether it is a zombie, from `/proc/PID/stat`. Depends on nothing; the build's deadline
//! (`build/deadline.rs`), the launcher (`run/launcher.rs`) and the marker scan
//! (`run/marker_scan.rs`) walk the process tree through it. Where there is no `/proc`, the
//! table is empty.

/// One line of `/proc/PID/stat`, the fields the verifier uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Process {
    pub pid: i32,
    pub parent: i32,
    pub group: i32,
    /// Exited, not yet reaped (`Z`), or dead (`X`).
    pub zombie: bool,
}

/// Every process `/proc` shows.
pub(crate) fn scan() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            read(&pid.to_string())
        })
        .collect()
}

/// The processes whose parent is one of `parents`.
pub(crate) fn children_of(parents: impl Fn(i32) -> bool) -> impl Iterator<Item = i32> {
    scan()
        .into_iter()
        .filter(move |process| parents(process.parent))
        .map(|process| process.pid)
}

/// The process `/proc/NAME` is (`self`, or a pid), if it still exists.
pub(crate) fn read(name: &str) -> Option<Process> {
    let stat = std::fs::read_to_string(format!("/proc/{name}/stat")).ok()?;
    parse(&stat)
}

/// A `/proc/PID/stat` line: `pid (comm) state ppid pgrp ...`; comm may hold spaces and
/// parentheses, so the fields after it are found from the last `)`.
fn parse(stat: &str) -> Option<Process> {
    let pid = stat.split_whitespace().next()?.parse().ok()?;
    let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
    let state = fields.next()?;
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some(Process {
        pid,
        parent,
        group,
        zombie: state == "Z" || state == "X",
    })
}

#[cfg(test)]
#[path = "process_table_tests.rs"]
mod tests;
