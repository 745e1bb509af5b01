//! The book: every mutant is killed by at least one snippet that claims it.

use super::*;

#[test]
fn every_mutant_is_claimed_by_a_kills_word_in_the_book_and_every_claim_names_a_mutant() {
    let book = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../book");
    let mut claimed = std::collections::BTreeMap::<String, Vec<String>>::new();
    let mut chapters: Vec<_> = std::fs::read_dir(&book)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    chapters.sort();
    for chapter in chapters {
        let text = std::fs::read_to_string(&chapter).unwrap();
        let name = chapter.file_name().unwrap().to_string_lossy().into_owned();
        for (index, line) in text.lines().enumerate() {
            let Some(info) = line.trim_start().strip_prefix("```") else {
                continue;
            };
            for word in info.split(',').map(str::trim) {
                if let Some(mutant) = word.strip_prefix("kills=") {
                    claimed
                        .entry(mutant.to_owned())
                        .or_default()
                        .push(format!("{name}:{}", index + 1));
                }
            }
        }
    }
    let unknown: Vec<_> = claimed
        .iter()
        .filter(|(name, _)| name.parse::<Mutant>().is_err())
        .collect();
    assert!(unknown.is_empty(), "kills= names no mutant: {unknown:?}");
    let unclaimed: Vec<&str> = Mutant::ALL
        .iter()
        .map(|mutant| mutant.name())
        .filter(|name| !claimed.contains_key(*name))
        .collect();
    assert!(
        unclaimed.is_empty(),
        "no book snippet says it kills: {unclaimed:?}"
    );
}
