use std::path::Path;

use super::book_prefix;

/// The book's directory as annotations name it, from the workspace and the current directory.
fn check(book_root: &str, workspace: Option<&str>, current: Option<&str>, expected: &str) {
    let prefix = book_prefix(
        Path::new(book_root),
        workspace.map(Path::new),
        current.map(Path::new),
    );
    assert_eq!(
        prefix,
        Path::new(expected),
        "{book_root} {workspace:?} {current:?}"
    );
}

#[test]
fn a_book_in_a_subfolder_of_the_checkout_is_named_from_its_root() {
    // A CI job started in the checkout, or in the book's folder: the same paths either way.
    check("/w/repo/docs", Some("/w/repo"), Some("/w/repo"), "docs");
    check(
        "/w/repo/docs",
        Some("/w/repo"),
        Some("/w/repo/docs"),
        "docs",
    );
    check("/w/repo", Some("/w/repo"), Some("/tmp"), "");
}

#[test]
fn without_a_workspace_paths_start_at_the_current_directory() {
    check("/home/me/repo/docs", None, Some("/home/me/repo"), "docs");
    check("/home/me/repo/docs", None, Some("/home/me/repo/docs"), "");
    // A workspace that does not hold the book (a book checked out elsewhere) does not count.
    check("/home/me/book", Some("/w/repo"), Some("/home/me"), "book");
}

#[test]
fn a_book_outside_both_is_named_by_its_absolute_path() {
    check("/srv/book", Some("/w/repo"), Some("/home/me"), "/srv/book");
    check("/srv/book", None, None, "/srv/book");
}
