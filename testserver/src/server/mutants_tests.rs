//! Unit tests of `mutants.rs`.

use super::*;

#[test]
fn names_are_unique_kebab_case_and_parse_back() {
    let mut names = std::collections::HashSet::new();
    for mutant in Mutant::ALL {
        let name = mutant.name();
        assert!(names.insert(name), "duplicate name {name}");
        assert!(
            name.split('-')
                .all(|word| !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase())),
            "{name} is not lower-case kebab-case"
        );
        assert_eq!(name.parse::<Mutant>(), Ok(mutant));
        assert!(
            mutant.rule().contains("(20"),
            "{name}: no revision in its rule"
        );
    }
    let error = "cancel-ignord".parse::<Mutant>().unwrap_err().to_string();
    assert!(error.starts_with("unknown mutant `cancel-ignord`; known mutants: cancel-ignored, "));
}

#[test]
fn the_variable_names_a_mutant_or_none_and_an_unknown_name_is_an_error() {
    let var = |value: Option<&str>| from_var(value.map(OsString::from));
    assert_eq!(var(None), Ok(None));
    assert_eq!(var(Some("")), Ok(None));
    assert_eq!(var(Some("  ")), Ok(None));
    assert_eq!(var(Some("cancel-ignored")), Ok(Some(Mutant::CancelIgnored)));
    assert_eq!(
        var(Some(" progress-backwards\n")),
        Ok(Some(Mutant::ProgressBackwards))
    );
    assert_eq!(
        var(Some("Cancel-Ignored")),
        Err(UnknownMutant("Cancel-Ignored".into()))
    );
}
