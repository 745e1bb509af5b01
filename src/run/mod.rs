//! Running and judging: a process per snippet (deadline, output cap, clean environment),
//! nothing it starts outliving its verdict, expected output against actual, the verdict, the
//! result cache, and the mutant runs of `test --mutants`.

pub(crate) mod cache;
pub(crate) mod compare;
pub(crate) mod containment;
pub(crate) mod judge;
pub(crate) mod mutants;
pub(crate) mod process;
