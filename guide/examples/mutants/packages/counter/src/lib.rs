//! A counter the example book documents, with two mutants: each breaks one behaviour when
//! `MDBOOK_SNIPPETS_MUTANT` names it (`mdbook-snippets test --mutants` sets it).

/// Counts up from zero.
#[derive(Debug, Default)]
pub struct Counter {
    count: u64,
}

fn broken(mutant: &str) -> bool {
    std::env::var("MDBOOK_SNIPPETS_MUTANT").is_ok_and(|name| name == mutant)
}

impl Counter {
    /// Adds one.
    pub fn increment(&mut self) {
        if !broken("increment-skipped") {
            self.count += 1;
        }
    }

    /// Back to zero.
    pub fn reset(&mut self) {
        if !broken("reset-ignored") {
            self.count = 0;
        }
    }

    /// The count so far.
    pub fn get(&self) -> u64 {
        self.count
    }
}
