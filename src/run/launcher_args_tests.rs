use std::ffi::OsString;
use std::path::PathBuf;

use super::{LauncherArgs, parse};

fn args(list: &[&str]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
}

#[test]
fn reads_the_list_the_verifier_writes() {
    let parsed = parse(args(&[
        "--parent",
        "42",
        "--namespaces",
        "--process-limit",
        "4096",
        "--memory-limit=68719476736",
        "--file-size-limit",
        "1073741824",
        "--scratch-limit",
        "1048576",
        "--hide",
        "/t/cache",
        "--keep",
        "/t",
        "--keep",
        "/book",
        "--landlock",
        "--writable",
        "/tmp/s",
        "--no-network",
        "--bounded",
        "/tmp/s/work",
        "--bounded",
        "/tmp/s/tmp",
        "--",
        "/bin/prog",
        "--namespaces",
        "--",
    ]))
    .unwrap();
    assert_eq!(
        parsed,
        LauncherArgs {
            parent: Some(42),
            namespaces: true,
            process_limit: Some(4096),
            memory_limit: Some(68719476736),
            file_size_limit: Some(1073741824),
            scratch_limit: 1048576,
            hide: vec![PathBuf::from("/t/cache")],
            keep: vec![PathBuf::from("/t"), PathBuf::from("/book")],
            landlock: true,
            writable: vec![PathBuf::from("/tmp/s")],
            no_network: true,
            bounded: vec![PathBuf::from("/tmp/s/work"), PathBuf::from("/tmp/s/tmp")],
            // Everything after the first `--` is the program's, flags included.
            command: args(&["/bin/prog", "--namespaces", "--"]),
            ..LauncherArgs::default()
        }
    );
}

#[test]
fn the_defaults_and_the_init_and_the_probe() {
    assert_eq!(parse(args(&[])).unwrap(), LauncherArgs::default());
    assert_eq!(LauncherArgs::default().scratch_limit, 1 << 30);
    let init = parse(args(&["--init"])).unwrap();
    assert!(init.init && !init.probe && init.command.is_empty());
    let probe = parse(args(&["--probe", "--landlock", "--namespaces"])).unwrap();
    assert!(probe.probe && probe.landlock && probe.namespaces && !probe.init);
}

#[test]
fn a_list_it_cannot_read_is_refused_with_the_reason() {
    for (list, error) in [
        (&["--bogus"][..], "unexpected argument `--bogus`"),
        (&["/bin/prog"][..], "unexpected argument `/bin/prog`"),
        (&["--parent"][..], "`--parent` needs a value"),
        (
            &["--parent", "x"][..],
            "`--parent`: `x` is not a valid number",
        ),
        (
            &["--memory-limit=-1"][..],
            "`--memory-limit`: `-1` is not a valid number",
        ),
        (&["--init", "--init"][..], "`--init` given more than once"),
        (&["--namespaces=yes"][..], "`--namespaces` takes no value"),
        (
            &["--scratch-limit", "1", "--scratch-limit", "2"][..],
            "`--scratch-limit` given more than once",
        ),
    ] {
        assert_eq!(parse(args(list)), Err(error.to_owned()), "{list:?}");
    }
}

#[test]
fn paths_may_repeat_and_hold_equals_signs() {
    let parsed = parse(args(&[
        "--writable",
        "/a=b",
        "--writable=/c",
        "--hide",
        "/h1",
        "--hide",
        "/h2",
    ]))
    .unwrap();
    assert_eq!(
        parsed.writable,
        vec![PathBuf::from("/a=b"), PathBuf::from("/c")]
    );
    assert_eq!(
        parsed.hide,
        vec![PathBuf::from("/h1"), PathBuf::from("/h2")]
    );
}
