#!/usr/bin/env bash
# Does a book that mixes Rust and another language take the sum of both, or the longer of the
# two? `scripts/bench-languages.sh [RUNS]` writes a book of 4 Python snippets that sleep 3 s each
# and 2 Rust snippets with `serde_json` as a dependency, then times, each in a fresh target dir
# with `--no-cache --jobs 2`: the whole book, the Rust chapter alone, the Python chapter alone.
# Prints the median of each and the mixed / (Rust + Python) ratio (1 would be no overlap).
set -euo pipefail
runs=${1:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-common.sh
source "$root/scripts/bench-common.sh"
bench_setup debug

new_book "mixed" python py python3
printf '[preprocessor.snippets.dependencies]\nserde_json = "1"\n' >>"$book/book.toml"
for i in 1 2 3 4; do
    printf '```python\nimport time\ntime.sleep(3)\nprint(%s)\n```\n\n' "$i"
done >"$book/src/python.md"
printf '```rust\nprintln!("{}", serde_json::json!(1));\n```\n\n```rust\nprintln!("two");\n```\n' \
    >"$book/src/rust.md"

for run in $(seq "$runs"); do
    for label in mixed rust python; do
        case $label in
            mixed) only=() ;;
            *) only=(--chapter "src/$label.md") ;;
        esac
        export CARGO_TARGET_DIR="$work/target-$label-$run"
        time_it "$label" 0 "$bin" test "$book" --quiet --no-cache --jobs 2 "${only[@]}"
        rm -rf "$CARGO_TARGET_DIR"
    done
done
mixed=$(median mixed) rust=$(median rust) python=$(median python)
echo "mixed $mixed s, rust alone $rust s, python alone $python s (medians of $runs)"
awk -v m="$mixed" -v r="$rust" -v p="$python" \
    'BEGIN { printf "mixed / (rust + python) = %.2f; mixed / max = %.2f\n", m / (r + p), m / (r > p ? r : p) }'
