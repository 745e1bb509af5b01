//! Links the verifier as a position-dependent executable on Linux (issue 38). Each snippet
//! starts this executable twice (its sandbox launcher and its PID namespace's init, `run/`),
//! and as a position-independent one the dynamic loader first wrote some 23,000 relocated
//! pointers into its read-only data, about a hundred copy-on-write page faults per start: a
//! third of the launcher's and the init's own CPU time. Position-dependent, those pointers are
//! written by the linker; the price is that the executable's own image loads at a fixed
//! address (its stack, heap and libraries are still randomised).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux") {
        println!("cargo::rustc-link-arg-bin=mdbook-snippets=-no-pie");
    }
}
