//! The launcher's command line, `mdbook-snippets __sandbox [FLAGS] -- PROGRAM ARGS...`: an
//! interface of the verifier with itself (`sandbox.rs` writes it, `launcher.rs` runs it), read
//! by `main` before clap, by hand: the launcher and the PID namespace's init are started once
//! or twice per snippet, and building clap's whole command tree cost each of them more than
//! the rest of their startup in user space (issue 38). A list it cannot read is an error on
//! stderr and exit 2, as clap's.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// `mdbook-snippets __sandbox`: the launcher's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LauncherArgs {
    /// `--probe`: print what the kernel allows (`namespaces: ...`, `landlock: ...`) and exit.
    pub probe: bool,
    /// `--init`: be the init of a launcher's PID namespace (stdin: a pipe the launcher holds
    /// open).
    pub init: bool,
    /// `--parent PID`: the process that started this one (the verifier): the launcher ends
    /// when it does.
    pub parent: Option<i32>,
    /// `--namespaces`: run the program in a new user and PID namespace (else: as a subreaper).
    pub namespaces: bool,
    /// `--landlock`: run the program under Landlock, writing only under `--writable` paths.
    pub landlock: bool,
    /// `--writable PATH` (repeated): a file or directory the program may write.
    pub writable: Vec<PathBuf>,
    /// `--keep PATH` (repeated): a path the run needs that a private `/tmp` would hide.
    pub keep: Vec<PathBuf>,
    /// `--hide PATH` (repeated): a directory the program must not see (the cache).
    pub hide: Vec<PathBuf>,
    /// `--bounded PATH` (repeated): a directory that gets a tmpfs of `--scratch-limit` bytes.
    pub bounded: Vec<PathBuf>,
    /// `--scratch-limit BYTES`: the size of each private tmpfs (default 1 GiB).
    pub scratch_limit: u64,
    /// `--process-limit N`: `RLIMIT_NPROC` of the program.
    pub process_limit: Option<u64>,
    /// `--memory-limit BYTES`: `RLIMIT_AS` of the program.
    pub memory_limit: Option<u64>,
    /// `--file-size-limit BYTES`: `RLIMIT_FSIZE` of the program.
    pub file_size_limit: Option<u64>,
    /// `--no-network`: a network namespace with only a loopback.
    pub no_network: bool,
    /// After `--`: the program and its arguments.
    pub command: Vec<OsString>,
}

impl Default for LauncherArgs {
    fn default() -> Self {
        LauncherArgs {
            probe: false,
            init: false,
            parent: None,
            namespaces: false,
            landlock: false,
            writable: Vec::new(),
            keep: Vec::new(),
            hide: Vec::new(),
            bounded: Vec::new(),
            scratch_limit: 1 << 30,
            process_limit: None,
            memory_limit: None,
            file_size_limit: None,
            no_network: false,
            command: Vec::new(),
        }
    }
}

/// Reads the arguments after `__sandbox`. Each flag at most once but the repeated paths;
/// `--flag VALUE` or `--flag=VALUE`; everything after the first `--` is the command.
pub(crate) fn parse(args: impl IntoIterator<Item = OsString>) -> Result<LauncherArgs, String> {
    let mut parsed = LauncherArgs::default();
    let mut seen: Vec<&'static str> = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            parsed.command = args.collect();
            return Ok(parsed);
        }
        let text = arg.to_str().ok_or_else(|| {
            format!(
                "unexpected argument `{}` (not UTF-8)",
                arg.to_string_lossy()
            )
        })?;
        let (name, inline) = match text.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(OsString::from(value))),
            _ => (text, None),
        };
        let flag = FLAGS
            .iter()
            .find(|flag| flag.name == name)
            .ok_or_else(|| format!("unexpected argument `{text}`"))?;
        if !flag.repeated {
            if seen.contains(&flag.name) {
                return Err(format!("`{}` given more than once", flag.name));
            }
            seen.push(flag.name);
        }
        let value = if flag.takes_value {
            match inline {
                Some(value) => Some(value),
                None => Some(
                    args.next()
                        .ok_or_else(|| format!("`{}` needs a value", flag.name))?,
                ),
            }
        } else if inline.is_some() {
            return Err(format!("`{}` takes no value", flag.name));
        } else {
            None
        };
        (flag.set)(&mut parsed, value.as_deref().unwrap_or_default())
            .map_err(|error| format!("`{}`: {error}", flag.name))?;
    }
    Ok(parsed)
}

/// One flag: its name, whether it takes a value or may repeat, and what it sets.
struct Flag {
    name: &'static str,
    takes_value: bool,
    repeated: bool,
    set: Setter,
}

/// What a flag sets, from its value (empty for a switch).
type Setter = fn(&mut LauncherArgs, &OsStr) -> Result<(), String>;

/// A flag's shape: a switch takes no value, a value flag takes one and may be given once, a
/// paths flag takes one each time it is given.
const fn flag(name: &'static str, takes_value: bool, repeated: bool, set: Setter) -> Flag {
    Flag {
        name,
        takes_value,
        repeated,
        set,
    }
}

const fn switch(name: &'static str, set: Setter) -> Flag {
    flag(name, false, false, set)
}

const fn value(name: &'static str, set: Setter) -> Flag {
    flag(name, true, false, set)
}

const fn paths(name: &'static str, set: Setter) -> Flag {
    flag(name, true, true, set)
}

const FLAGS: &[Flag] = &[
    switch("--probe", |args, _| {
        args.probe = true;
        Ok(())
    }),
    switch("--init", |args, _| {
        args.init = true;
        Ok(())
    }),
    value("--parent", |args, value| {
        args.parent = Some(number(value)?);
        Ok(())
    }),
    switch("--namespaces", |args, _| {
        args.namespaces = true;
        Ok(())
    }),
    switch("--landlock", |args, _| {
        args.landlock = true;
        Ok(())
    }),
    paths("--writable", |args, value| {
        args.writable.push(value.into());
        Ok(())
    }),
    paths("--keep", |args, value| {
        args.keep.push(value.into());
        Ok(())
    }),
    paths("--hide", |args, value| {
        args.hide.push(value.into());
        Ok(())
    }),
    paths("--bounded", |args, value| {
        args.bounded.push(value.into());
        Ok(())
    }),
    value("--scratch-limit", |args, value| {
        args.scratch_limit = number(value)?;
        Ok(())
    }),
    value("--process-limit", |args, value| {
        args.process_limit = Some(number(value)?);
        Ok(())
    }),
    value("--memory-limit", |args, value| {
        args.memory_limit = Some(number(value)?);
        Ok(())
    }),
    value("--file-size-limit", |args, value| {
        args.file_size_limit = Some(number(value)?);
        Ok(())
    }),
    switch("--no-network", |args, _| {
        args.no_network = true;
        Ok(())
    }),
];

/// A decimal number of the flag's type.
fn number<T: std::str::FromStr>(value: &OsStr) -> Result<T, String> {
    value
        .to_str()
        .and_then(|text| text.parse().ok())
        .ok_or_else(|| format!("`{}` is not a valid number", value.to_string_lossy()))
}

#[cfg(test)]
#[path = "launcher_args_tests.rs"]
mod tests;
