# Helpers of the benchmark scripts (sourced, not run): timing a command into a series, medians
# and per-run ratios, a cold start. Expects `$work` (where logs go) and `CARGO_TARGET_DIR`.

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

