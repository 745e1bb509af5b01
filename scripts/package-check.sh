#!/usr/bin/env bash
# Every package of the workspace that can be published (no `publish = false`) is ready for
# crates.io: its metadata is complete (description, license, repository, readme, keywords,
# categories), `cargo package --list` ships only its sources, README and license files, and
# `cargo publish --dry-run` (which builds the packaged sources alone) passes.
#
#   scripts/package-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "package-check: FAIL $*" >&2; exit 1; }

packages=$(cargo metadata --locked --no-deps --format-version 1 | python3 -c '
import json, sys
required = ["description", "license", "repository", "readme", "keywords", "categories"]
for package in json.load(sys.stdin)["packages"]:
    if package["publish"] == []:
        continue
    missing = [key for key in required if not package.get(key)]
    if missing:
        name, keys = package["name"], ", ".join(missing)
        sys.exit(f"package-check: FAIL {name}: no {keys} in its Cargo.toml")
    print(package["name"])
')
[[ -n $packages ]] || fail "no publishable package found"

# What a package may ship: its Rust sources, tests, benches and examples, the manifest and lock
# file, the verifier's build script (`build.rs`), the README and both license files (which it must
# ship), and the page's stylesheet that
# `mdbook-snippets install` writes (`include_str!`).
allowed='^(\.cargo_vcs_info\.json|Cargo\.toml|Cargo\.toml\.orig|Cargo\.lock|build\.rs|README\.md|LICENSE-MIT|LICENSE-APACHE|(src|tests|benches|examples)/.*\.rs|book/theme/snippets\.css)$'
args=()
for package in $packages; do
    list=$(cargo package --locked --allow-dirty --list -p "$package" 2>/dev/null) \
        || { cargo package --locked --allow-dirty --list -p "$package" >&2 || true; fail "cargo package --list -p $package"; }
    extra=$(grep -Ev "$allowed" <<<"$list" || true)
    [[ -z $extra ]] || fail "$package ships files that do not belong in it:"$'\n'"$extra"
    for file in README.md LICENSE-MIT LICENSE-APACHE Cargo.toml; do
        grep -qx "$file" <<<"$list" || fail "$package does not ship $file"
    done
    echo "package-check: $package ships $(wc -l <<<"$list") files: $(grep -c '\.rs$' <<<"$list") Rust files, README.md, LICENSE-MIT, LICENSE-APACHE"
    args+=(-p "$package")
done

# The dry run builds each package against the others through a local registry whose sources
# cargo unpacks under $CARGO_HOME/registry/src/-HASH/NAME-VERSION, and an unpacked source that
# already exists is reused, not unpacked again. The HASH depends on the checkout's path, so a
# second run from the same path (a CI clone in the same directory) would build against the
# sources of the first: remove our packages' unpacked copies from those local registries first.
for package in $packages; do
    rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/"$package"-[0-9]*
done
# The packaged manifests lose the workspace's `[profile.dev]` (Cargo.toml: line-tables-only
# debug info, sha2 optimized), and cargo verifies in the workspace's target dir
# (rust-lang/cargo#15783; measured with cargo 1.95): given the same profile, the dry run reuses
# every dependency `cargo build`/`cargo test` already built with the same features (6 crates
# compiled instead of 151, 45 s of CPU instead of 143 s: CONTRIBUTING, "The loop's time").
CARGO_PROFILE_DEV_DEBUG=line-tables-only CARGO_PROFILE_DEV_PACKAGE_SHA2_OPT_LEVEL=3 \
    cargo publish --dry-run --locked --allow-dirty --quiet "${args[@]}"
echo "package-check: cargo publish --dry-run passed for $packages" | tr '\n' ' '
echo
