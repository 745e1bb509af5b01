# Helpers of the benchmark scripts (sourced, not run): the binary and a scratch book, timing a
# command into a series, medians and per-run ratios, a cold start. Expects `$root` (the
# repository), `$work` (where logs go: `bench_setup` makes one) and `CARGO_TARGET_DIR`.

# The doctests the benches time run with libtest's own default (a thread per core), not the
# repository's `.cargo/config.toml` (four tests at a time, for its own test suite), which cargo
# finds from the bench books under target/.
export RUST_TEST_THREADS=${RUST_TEST_THREADS:-$(nproc)}

# bench_setup PROFILE: builds mdbook-snippets (PROFILE: `debug` or `release`) and sets `bin` to
# it, and `work` to a fresh temporary directory, removed when the script exits.
bench_setup() {
    local profile=$1 flags=()
    [[ $profile == release ]] && flags=(--release)
    cargo build --quiet "${flags[@]}" --manifest-path "$root/Cargo.toml" --bin mdbook-snippets
    bin="${CARGO_TARGET_DIR:-$root/target}/$profile/mdbook-snippets"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
}

# new_book TITLE LANGUAGE EXTENSION PROGRAM: sets `book` to `$work/book`, with an empty `src/`
# and a `book.toml` declaring LANGUAGE (snippets in files `*.EXTENSION`, run as
# `PROGRAM FILE`); the caller appends the rest of `book.toml` and writes the chapters.
new_book() {
    book="$work/book"
    mkdir -p "$book/src"
    printf '[book]\ntitle = "%s"\n[preprocessor.snippets.languages.%s]\n' "$1" "$2" >"$book/book.toml"
    printf 'command = ["%s", "{file}"]\nextension = "%s"\n' "$4" "$3" >>"$book/book.toml"
}

# time_it LABEL EXPECTED_EXIT COMMAND...: runs COMMAND, records its wall time in seconds as
# LABEL, and its CPU time (user + system, of every process it waited for: cargo, rustc, the
# snippets) as LABEL_cpu. On a machine other work shares, the CPU time is the steadier figure.
declare -A seconds
time_it() {
    local label=$1 expected=$2
    shift 2
    echo "timing: $label" >&2
    local status=0 times
    times=$(mktemp)
    # bash's `time` reports the children's user and system time (getrusage RUSAGE_CHILDREN).
    local TIMEFORMAT='%R %U %S'
    { time "$@" >"$work/$label.log" 2>&1 || status=$?; } 2>"$times"
    if [[ $status != "$expected" ]]; then
        rm -f "$times"
        echo "error: $label exited with $status (expected $expected); see $work/$label.log" >&2
        tail -n 30 "$work/$label.log" >&2
        exit 2
    fi
    local wall cpu
    read -r wall cpu < <(awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$times")
    rm -f "$times"
    echo "  $label: $wall s wall, $cpu s CPU" >&2
    seconds[$label]="${seconds[$label]:-} $wall"
    seconds[${label}_cpu]="${seconds[${label}_cpu]:-} $cpu"
}

# The median of the runs recorded for LABEL.
median() {
    tr ' ' '\n' <<<"${seconds[$1]}" | grep . | sort -n \
        | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.2f", v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# record_ratio NAME A B: the ratio of the latest runs of A and B, so that each ratio compares
# two figures measured moments apart (`record_ratio NAME_cpu A_cpu B_cpu` for CPU time).
record_ratio() {
    local a b
    a=$(awk '{ print $NF }' <<<"${seconds[$2]}")
    b=$(awk '{ print $NF }' <<<"${seconds[$3]}")
    seconds[$1]="${seconds[$1]:-} $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')"
}

# Removes every generated snippet crate and its build output (not the dependencies'), so the
# next run of mdbook-snippets is cold.
forget_generated() {
    rm -rf "$CARGO_TARGET_DIR/mdbook-snippets"
    rm -rf "$CARGO_TARGET_DIR"/debug/{deps,.fingerprint,incremental,build}/snippets[-_]* \
        "$CARGO_TARGET_DIR"/debug/{deps,.fingerprint}/{own,cf,th}[-_]* \
        "$CARGO_TARGET_DIR"/debug/snippets-* "$CARGO_TARGET_DIR"/debug/{own,cf,th}-*
}

