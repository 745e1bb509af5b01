use super::*;

#[test]
fn idle_cores_are_the_cores_less_the_load() {
    assert_eq!(idle_cores(2, Some(0.3)), 2);
    assert_eq!(idle_cores(2, Some(1.0)), 1);
    // Eight engineers' builds on two cores: none idle (the caller still builds one binary).
    assert_eq!(idle_cores(2, Some(23.6)), 0);
    assert_eq!(idle_cores(4, None), 1);
}
