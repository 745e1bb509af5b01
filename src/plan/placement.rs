//! Where a snippet goes in the generated crate, decided before building from its attributes
//! and a syntactic look at its code, sans-IO. Most snippets are modules of one binary per
//! edition; a snippet whose code assumes it is a crate's root cannot be one, and becomes a
//! binary of its own (in the same cargo invocation, so it builds in parallel with the rest),
//! as rustdoc would compile it.

/// Where one snippet's code lives in the generated crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Placement {
    /// A module of its edition's dispatching binary.
    Merged,
    /// The root of a binary of its own: the code names `crate::` paths (which in a module
    /// would name the generated crate), has crate-level `#![..]` attributes, exports macros,
    /// needs `extern crate` at the root, or defines symbols that must be unique in a binary.
    OwnBinary,
    /// `compile_fail`: a binary of its own, so its (expected) errors break nothing else.
    CompileFail,
    /// `test_harness`: a test target, its `#[test]` functions run by libtest.
    TestHarness,
}

impl Placement {
    /// rustdoc's `standalone_crate`: a snippet that would be merged gets a binary of its own.
    pub(crate) fn standalone(self, standalone_crate: bool) -> Placement {
        match self {
            Placement::Merged if standalone_crate => Placement::OwnBinary,
            other => other,
        }
    }

    /// The prefix of the cargo target name of a snippet placed on its own.
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Placement::Merged => "merged",
            Placement::OwnBinary => "own",
            Placement::CompileFail => "cf",
            Placement::TestHarness => "th",
        }
    }
}

/// Decides where a snippet goes: `compile_fail` and `test_harness` by attribute, the others by
/// [`needs_crate_root`].
pub(crate) fn placement(
    code: &str,
    edition: &str,
    compile_fail: bool,
    test_harness: bool,
) -> Placement {
    if compile_fail {
        Placement::CompileFail
    } else if test_harness {
        Placement::TestHarness
    } else if needs_crate_root(code, edition) || !delimiters_balance(code) {
        Placement::OwnBinary
    } else {
        Placement::Merged
    }
}

/// Whether `code` (hidden lines included) only works at a crate's root. Comments are skipped;
/// a match inside a string literal errs on the safe side (a binary of its own works for every
/// snippet, it is only slower to build).
pub(crate) fn needs_crate_root(code: &str, edition: &str) -> bool {
    code.lines().any(|line| {
        let line = crate::source::unhide(line);
        let code = line.split("//").next().unwrap_or_default();
        let trimmed = code.trim_start();
        let names_crate_root = code.match_indices("crate::").any(|(at, _)| {
            // `$crate::` counts: in a macro it names the crate root too. `my_crate::` is
            // another crate.
            let before = code[..at].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
        });
        names_crate_root
            || trimmed.starts_with("#![")
            || trimmed.starts_with("#[macro_export]")
            || trimmed.starts_with("#[macro_use]")
            || code.contains("no_mangle")
            // Foreign items: a library to link (`#[link(name = "..")]`) or symbols to resolve
            // can fail the link of the whole binary, which no file position explains.
            || trimmed.starts_with("#[link")
            || is_extern_block(trimmed)
            || code.contains("#[export_name")
            || trimmed.starts_with("#[global_allocator]")
            || trimmed.starts_with("#[panic_handler]")
            // In 2015, `use` paths start at the crate root and `extern crate` binds a name in
            // the module it is in, so both mean the root; a `use` of `std`, `core` (linked at
            // every root) or `self::` means the same from a module.
            || (edition == "2015"
                && (uses_the_crate_root_2015(trimmed)
                    || trimmed.starts_with("extern crate ")
                    || names_the_crate_root_2015(code)))
    })
}

/// Whether `code` (hidden lines included) splits into tokens: its delimiters close and its
/// literals end. rustc stops at the first file of a crate that does not (an unclosed
/// delimiter hides every later module's errors), so in a merged binary each build would reveal
/// one such snippet; alone in its binary, each fails at once, with rustc's own message.
pub(crate) fn delimiters_balance(code: &str) -> bool {
    let unhidden: Vec<String> = code.lines().map(crate::source::unhide).collect();
    unhidden
        .join("\n")
        .parse::<proc_macro2::TokenStream>()
        .is_ok()
}

/// A 2015 path that starts with `::` (`::a::foo()`), which names an item of the crate root
/// unless it is `std` or `core`.
fn names_the_crate_root_2015(code: &str) -> bool {
    code.match_indices("::").any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let leading = !before.is_some_and(|c| c.is_alphanumeric() || "_>):".contains(c));
        let first = code[at + 2..]
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or_default();
        leading && !first.is_empty() && !matches!(first, "std" | "core")
    })
}

/// A 2015 `use` item whose path is resolved from the crate root and would mean something else
/// (or nothing) in a module of the generated crate.
fn uses_the_crate_root_2015(trimmed: &str) -> bool {
    let Some(path) = trimmed
        .strip_prefix("pub use ")
        .or_else(|| trimmed.strip_prefix("use "))
    else {
        return false;
    };
    let path = path.trim_start().trim_start_matches("::");
    let first = path
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or_default();
    !matches!(first, "std" | "core" | "self")
}

/// `extern "C" {`, `extern {`, `unsafe extern "C" {` (not `extern "C" fn`, not `extern crate`).
fn is_extern_block(trimmed: &str) -> bool {
    let rest = trimmed.strip_prefix("unsafe ").unwrap_or(trimmed);
    let Some(rest) = rest.strip_prefix("extern") else {
        return false;
    };
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix('"') {
        Some(abi) => abi
            .split_once('"')
            .map_or("", |(_, after)| after)
            .trim_start(),
        None => rest,
    };
    rest.starts_with('{')
}

#[cfg(test)]
#[path = "placement_tests.rs"]
mod tests;
