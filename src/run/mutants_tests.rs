use super::*;

#[test]
fn each_mutant_has_a_key_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path().to_path_buf(), "env".to_owned(), true);
    let snippet = cache.key(&["fn main() {}"]);
    let other_snippet = cache.key(&["fn main() { }"]);
    let keys = [
        snippet.clone(),
        cache_key(&cache, &snippet, "cancel-ignored"),
        cache_key(&cache, &snippet, "late-response"),
        cache_key(&cache, &other_snippet, "cancel-ignored"),
    ];
    for (index, key) in keys.iter().enumerate() {
        assert!(!keys[index + 1..].contains(key), "{keys:?}");
    }
    assert_eq!(keys[1], cache_key(&cache, &snippet, "cancel-ignored"));
}
