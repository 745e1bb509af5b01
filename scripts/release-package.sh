#!/usr/bin/env bash
# Packs one release binary of mdbook-snippets the way `[package.metadata.binstall]` in Cargo.toml
# expects it (scripts/check-binstall.py checks the two agree), with its checksum:
#
#   scripts/release-package.sh TARGET BINARY OUT_DIR
#
# writes OUT_DIR/mdbook-snippets-vVERSION-TARGET.tar.gz, holding the directory
# mdbook-snippets-vVERSION-TARGET/ with the binary, README.md and the licences, and
# OUT_DIR/mdbook-snippets-vVERSION-TARGET.tar.gz.sha256 (`sha256sum` format); prints the archive's
# path. VERSION is the package's version in Cargo.toml. Used by .github/workflows/release.yml.
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: scripts/release-package.sh TARGET BINARY OUT_DIR" >&2; exit 2; }
target=$1 binary=$2 out=$3
repo="$(cd "$(dirname "$0")/.." && pwd)"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -n 1)
[[ -n "$version" ]] || { echo "release-package: error: no version in Cargo.toml" >&2; exit 2; }
[[ -f "$binary" ]] || { echo "release-package: error: $binary does not exist" >&2; exit 2; }
name="mdbook-snippets-v$version-$target"
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$binary" "$stage/$name/"
cp "$repo/README.md" "$repo/LICENSE-MIT" "$repo/LICENSE-APACHE" "$stage/$name/"
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
if command -v sha256sum >/dev/null; then
    (cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
else
    (cd "$out" && shasum -a 256 "$name.tar.gz" >"$name.tar.gz.sha256")
fi
echo "$out/$name.tar.gz"
