//! Unit tests of `artifact_files.rs`.

use serde_json::json;

use super::*;
use crate::transcript::{Direction, Side};

fn scratch(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!(
        "mcp-testserver-artifact-files-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

#[test]
fn names_follow_the_number_and_suffix() {
    assert_eq!(
        file_names(1, ""),
        ("10-wire_transcript.txt".into(), "11-sequence.svg".into())
    );
    assert_eq!(
        file_names(3, "_server_2_2026-07-28"),
        (
            "30-wire_transcript_server_2_2026-07-28.txt".into(),
            "31-sequence_server_2_2026-07-28.svg".into()
        )
    );
}

#[test]
fn write_next_takes_the_first_free_number_and_writes_the_renderings() {
    let directory = scratch("next");
    let transcript = Transcript::new(Side::Server);
    transcript.record(
        Direction::In,
        json!({"jsonrpc": "2.0", "method": "ping", "id": 1}),
    );
    let first = write_next(&directory, &transcript).unwrap();
    let second = write_next(&directory, &transcript).unwrap();
    assert!(first.0.ends_with("10-wire_transcript.txt"), "{first:?}");
    assert!(second.0.ends_with("20-wire_transcript.txt"), "{second:?}");
    assert!(second.1.ends_with("21-sequence.svg"), "{second:?}");
    assert_eq!(
        std::fs::read_to_string(&first.0).unwrap(),
        transcript.render()
    );
    assert_eq!(
        std::fs::read_to_string(&second.1).unwrap(),
        transcript.to_svg()
    );
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn check_directory_refuses_a_missing_path_and_a_file() {
    let directory = scratch("check");
    assert!(check_directory(&directory).is_ok());
    assert_eq!(
        std::fs::read_dir(&directory).unwrap().count(),
        0,
        "the probe file is removed"
    );
    let missing = directory.join("missing");
    let error = format!("{:#}", check_directory(&missing).unwrap_err());
    assert!(error.contains("no such directory"), "{error}");
    let file = directory.join("file");
    std::fs::write(&file, "").unwrap();
    let error = format!("{:#}", check_directory(&file).unwrap_err());
    assert!(error.ends_with("not a directory"), "{error}");
    std::fs::remove_dir_all(&directory).unwrap();
}
