use super::*;

#[test]
fn a_name_with_spaces_and_parentheses_is_skipped() {
    assert_eq!(
        parse("42 (a b) (c)) Z 7 9 9 0 -1"),
        Some(Process {
            pid: 42,
            parent: 7,
            group: 9,
            zombie: true,
        })
    );
    assert_eq!(parse("42 (sh"), None);
}

#[test]
fn this_process_is_in_the_table_with_its_parent() {
    let me = read("self").expect("/proc/self/stat");
    assert_eq!(me.pid, std::process::id() as i32);
    assert_eq!(me.parent, std::os::unix::process::parent_id() as i32);
    assert!(scan().iter().any(|process| process.pid == me.pid));
}
