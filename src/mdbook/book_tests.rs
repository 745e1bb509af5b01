use super::*;

/// Without SUMMARY.md: links to directories (two cycles back to the top, one out of the
/// tree) are not followed, so the scan ends; a link to a file is read.
#[test]
fn the_fallback_scan_follows_no_directory_link() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("elsewhere.md"), "# Elsewhere\n").unwrap();
    let book = tempfile::tempdir().unwrap();
    let src = book.path().join("src");
    std::fs::create_dir_all(src.join("part")).unwrap();
    std::fs::write(src.join("a.md"), "# A\n").unwrap();
    std::fs::write(src.join("part/b.md"), "# B\n").unwrap();
    std::os::unix::fs::symlink(&src, src.join("part/up")).unwrap();
    std::os::unix::fs::symlink("..", src.join("part/again")).unwrap();
    std::os::unix::fs::symlink(outside.path(), src.join("out")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("elsewhere.md"), src.join("linked.md")).unwrap();
    // A scan that followed the links would not end (2^40 paths before ELOOP): give it a
    // minute on a thread.
    let (done, finished) = std::sync::mpsc::channel();
    let scanned = src.clone();
    std::thread::spawn(move || {
        let mut files = Vec::new();
        let result = markdown_files(&scanned, &mut files).map(|()| files);
        let _ = done.send(result);
    });
    let mut files = finished
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the scan ends")
        .unwrap();
    files.sort();
    assert_eq!(
        files,
        [
            src.join("a.md"),
            src.join("linked.md"),
            src.join("part/b.md")
        ]
    );
}

#[test]
fn summary_links_in_order() {
    let summary = "# Summary\n\n[Intro](intro.md)\n\n- [One](part/one.md#top)\n  - [Draft]()\n- [Web](https://example.com)\n- [Again](intro.md)\n";
    assert_eq!(
        summary_chapters(summary),
        vec![PathBuf::from("intro.md"), PathBuf::from("part/one.md")]
    );
}
