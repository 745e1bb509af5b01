use super::*;

#[test]
fn artifacts_are_read_back_in_name_order() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let write = |name: &str, content: &str| {
        std::fs::write(dir.path().join(name), content).expect("writable");
    };
    write("20-sequence.svg", "<svg/>");
    write("10-wire_transcript.txt", "in -> x");
    write("notes.bin", "skip");
    assert_eq!(
        read_artifacts(dir.path()).expect("readable"),
        vec![
            Artifact {
                title: "wire transcript".to_owned(),
                kind: ArtifactKind::Text,
                content: "in -> x".to_owned()
            },
            Artifact {
                title: "sequence".to_owned(),
                kind: ArtifactKind::Svg,
                content: "<svg/>".to_owned()
            },
        ]
    );
}
