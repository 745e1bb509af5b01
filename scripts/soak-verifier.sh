#!/usr/bin/env bash
# Attacks the built verifier the way a hostile or careless book, environment or user would
# (issue 16) and prints one line per attack: `NAME: ok (what was checked)` or
# `NAME: FAILED (why)` (`NAME: skipped (why)` only where the machine cannot stage the attack:
# a tmpfs needs root or user namespaces). Exit 1 if any attack failed.
#
# Usage: scripts/soak-verifier.sh [PATH-TO-mdbook-snippets]   (default: target/debug/, built
# if missing). Bounded: every run has a `timeout`, snippets sleep at most 40 s and are expected
# to be killed long before; nothing touches the network; everything lives in one temporary
# directory, removed at the end. About 20-40 s on a quiet machine.

# The attack functions are called through `attack`, which shellcheck cannot follow.
# shellcheck disable=SC2317
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
BIN=${1:-target/debug/mdbook-snippets}
if [[ ! -x $BIN ]]; then
    cargo build -q --bin mdbook-snippets || exit 2
fi
BIN=$(realpath "$BIN")

WORK=$(mktemp -d /tmp/soak-verifier.XXXXXX)
TARGET=$WORK/target
FAILED=0
cleanup() {
    # Whatever an attack left behind is a failure already reported; do not leave it running.
    for pid_file in "$WORK"/*/pid*; do
        [[ -s $pid_file ]] && kill -9 "$(cat "$pid_file")" 2>/dev/null
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

# Every attack has one shape, the one `attack` in scripts/soak-server.sh gives its attacks: a
# function run by `attack NAME FUNCTION [ARGS]` (as `FUNCTION NAME ARGS`, in a subshell of its
# own) that sets up, runs, and either prints what it checked, or stops at the first check that
# fails with `fail WHY` (`skip WHY` where this machine cannot stage it). `attack` times it and
# prints its one line: `NAME: ok (what; N.N s)`, `NAME: FAILED (why)` or `NAME: skipped (why)`.
attack() {
    local name=$1 function=$2 started=$EPOCHREALTIME outcome status took
    shift 2
    outcome=$("$function" "$name" "$@")
    status=$?
    took=$(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $started }")
    case $status in
        0) echo "$name: ok ($outcome; $took s)" ;;
        3) echo "$name: skipped ($outcome)" ;;
        *) echo "$name: FAILED ($outcome)"; FAILED=1 ;;
    esac
}
fail() { echo "$*"; exit 1; }
skip() { echo "$*"; exit 3; }
slower_than() { awk "BEGIN { exit !($SECONDS_TAKEN > $1) }"; }

# A book in $WORK/NAME with `sh` snippets; $2 = extra [preprocessor.snippets] lines, $3 = the
# chapter. Without SUMMARY.md when $4 = nosummary.
sh_book() {
    local dir=$WORK/$1
    mkdir -p "$dir/src"
    cat >"$dir/book.toml" <<EOF
[book]
title = "soak"

[preprocessor.snippets]
$2

[preprocessor.snippets.languages.sh]
command = ["sh", "{file}"]
extension = "sh"
EOF
    [[ ${4:-} == nosummary ]] || echo "- [A](a.md)" >"$dir/src/SUMMARY.md"
    printf '%s' "$3" >"$dir/src/a.md"
    echo "$dir"
}

# Whether pid $1 is running (present and not a zombie).
running() {
    local state
    state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) || return 1
    [[ -n $state && $state != Z && $state != X ]]
}

# Waits up to 2 s for the pid in file $1 to be gone; prints what is left.
gone() {
    local pid
    pid=$(cat "$1" 2>/dev/null) || { echo "no pid written"; return 1; }
    for _ in $(seq 100); do
        running "$pid" || return 0
        sleep 0.02
    done
    echo "pid $pid still running"
    return 1
}

# Runs the verifier on book $1 with a bound of $2 seconds, then the rest of the arguments;
# sets CODE, OUT, ERR, SECONDS_TAKEN.
verify() {
    local book=$1 bound=$2
    shift 2
    local started=$EPOCHREALTIME
    timeout -k 1 "$bound" "$BIN" test "$book" --quiet --target-dir "$TARGET" "$@" \
        >"$WORK/out" 2>"$WORK/err"
    CODE=$?
    SECONDS_TAKEN=$(awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $started }")
    OUT=$(cat "$WORK/out")
    ERR=$(cat "$WORK/err")
}

attack_setsid_holding_stdout() {
    local name=$1 dir left
    dir=$(sh_book "$name" "" "# A

\`\`\`sh,timeout=5
setsid sh -c 'echo \$\$ > $WORK/$name/pid; exec sleep 40' &
while [ ! -s $WORK/$name/pid ]; do sleep 0.01; done
echo parent done
\`\`\`

\`\`\`text,output
parent done
\`\`\`
")
    verify "$dir" 30 --no-cache
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    ! slower_than 4 || fail "took ${SECONDS_TAKEN}s for timeout=5"
    left=$(gone "$dir/pid") || fail "$left"
    echo "setsid child sleeping 40 s with stdout open: passed in ${SECONDS_TAKEN}s, child gone"
}

attack_closed_stdout() {
    local name=$1 dir left
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
(setsid sh -c 'exec >/dev/null 2>&1; echo \$\$ > $WORK/$name/pid; exec sleep 40' &)
while [ ! -s $WORK/$name/pid ]; do sleep 0.01; done
\`\`\`
")
    verify "$dir" 30 --no-cache
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    left=$(gone "$dir/pid") || fail "$left after the verifier exited"
    echo "double fork, setsid, stdout closed: gone when the verifier exits"
}

attack_deadline_with_pipe_holder() {
    local name=$1 dir left
    dir=$(sh_book "$name" "" "# A

\`\`\`sh,timeout=2
setsid sh -c 'echo \$\$ > $WORK/$name/pid; exec sleep 40' &
while :; do sleep 0.1; done
\`\`\`
")
    verify "$dir" 30 --no-cache
    [[ $CODE == 1 ]] || fail "exit $CODE: $OUT"
    grep -q "timed out" <<<"$OUT" || fail "exit $CODE: $OUT"
    ! slower_than 6 || fail "took ${SECONDS_TAKEN}s for timeout=2"
    left=$(gone "$dir/pid") || fail "$left"
    echo "timeout=2 held (${SECONDS_TAKEN}s) while a setsid child kept the pipes; child gone"
}

attack_many_detached() {
    local name=$1 dir left=0 pid_file
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
for i in \$(seq 20); do setsid sh -c \"echo \\\$\\\$ > $WORK/$name/pid\$i; exec sleep 40\" & done
while [ \$(ls $WORK/$name | grep -c pid) -lt 20 ]; do sleep 0.01; done
echo spawned
\`\`\`
")
    verify "$dir" 30 --no-cache
    for pid_file in "$dir"/pid*; do
        gone "$pid_file" >/dev/null || left=$((left + 1))
    done
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    ((left == 0)) || fail "$left of 20 still running"
    echo "20 setsid children holding stdout: all gone, ${SECONDS_TAKEN}s"
}

attack_parallel_attribution() {
    local name=$1 dir
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
setsid sleep 40 &
echo first
\`\`\`

\`\`\`sh
setsid sh -c 'sleep 0.5; echo late child' &
sleep 1
\`\`\`

\`\`\`text,output
late child
\`\`\`
")
    verify "$dir" 30 --no-cache --jobs 2
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT"
    echo "ending one snippet did not kill the detached child of the one beside it"
}

# Sends signal $2 to a verifier running a snippet that loops and has detached a child; expects
# exit code $3 and both processes gone.
attack_signal() {
    local name=$1 signal=$2 code=$3 dir verifier got left
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
echo \$\$ > $WORK/$name/pid-main
setsid sh -c 'echo \$\$ > $WORK/$name/pid-child; exec sleep 40' &
while :; do sleep 0.1; done
\`\`\`
")
    "$BIN" test "$dir" --quiet --no-cache --target-dir "$TARGET" >/dev/null 2>&1 &
    verifier=$!
    for _ in $(seq 500); do
        [[ -s $dir/pid-child && -s $dir/pid-main ]] && break
        sleep 0.02
    done
    kill -"$signal" "$verifier"
    for _ in $(seq 500); do
        kill -0 "$verifier" 2>/dev/null || break
        sleep 0.02
    done
    kill -9 "$verifier" 2>/dev/null
    wait "$verifier"
    got=$?
    [[ $got == "$code" ]] || fail "exit $got, expected $code"
    left=$(gone "$dir/pid-main") || fail "$left"
    left=$(gone "$dir/pid-child") || fail "$left"
    ! find "$TARGET" -name '*partial*' | grep -q . || fail "partial cache file left"
    echo "exit $code, the looping snippet and its setsid child gone, no partial cache entry"
}

attack_huge_timeouts() {
    local name=$1 dir cli
    dir=$(sh_book "$name" "timeout = 9223372036854775807" "# A

\`\`\`sh,timeout=18446744073709551615
echo fine
\`\`\`
")
    verify "$dir" 30 --no-cache --timeout 18446744073709551615
    cli=$CODE
    verify "$dir" 30 --no-cache
    [[ $cli == 0 && $CODE == 0 ]] || fail "exit $cli (--timeout), $CODE (book.toml + attribute): $ERR"
    echo "--timeout 2^64-1, timeout = 2^63-1 in book.toml, timeout=2^64-1 attribute: no panic, passed"
}

attack_zero_jobs_and_timeout() {
    local name=$1 dir jobs
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
echo fine
\`\`\`
")
    verify "$dir" 30 --jobs 0
    jobs=$CODE
    verify "$dir" 30 --timeout 0
    [[ $jobs == 2 && $CODE == 2 ]] || fail "exit $jobs (--jobs 0), $CODE (--timeout 0)"
    echo "--jobs 0 and --timeout 0 refused with exit 2"
}

attack_symlink_cycle() {
    local name=$1 dir
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
echo a
\`\`\`
" nosummary)
    mkdir -p "$dir/src/part"
    ln -s .. "$dir/src/part/up"
    ln -s ../.. "$dir/src/part/top"
    ln -s / "$dir/src/root"
    verify "$dir" 30 --no-cache
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    grep -q "1 passed" <<<"$OUT" || fail "exit $CODE: $OUT $ERR"
    echo "two cycles and a link to / under src: scan ended, ${SECONDS_TAKEN}s"
}

attack_long_output_ellipsis() {
    local name=$1 dir
    dir=$(sh_book "$name" "output-limit = 16777216" "# A

\`\`\`sh
yes tick | head -n 400000
\`\`\`

\`\`\`text,output
...
$(yes tick | head -n 1000)
\`\`\`
")
    verify "$dir" 60 --no-cache
    [[ $CODE == 0 ]] || fail "exit $CODE after ${SECONDS_TAKEN}s"
    ! slower_than 10 || fail "took ${SECONDS_TAKEN}s"
    echo "400,000 equal lines against ... + 1,000 of them (backtracking's worst case) verified in ${SECONDS_TAKEN}s (was 44.7 s)"
}

attack_secret_env() {
    local name=$1 dir open closed
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
echo \"token=\${MY_SECRET_TOKEN:-unset}\"
\`\`\`

\`\`\`text,output
token=unset
\`\`\`
")
    MY_SECRET_TOKEN=hunter2 verify "$dir" 30 --no-cache
    closed=$CODE
    open=$(sh_book "$name-listed" 'pass-env = ["MY_SECRET_TOKEN"]' "# A

\`\`\`sh
echo \"token=\${MY_SECRET_TOKEN:-unset}\"
\`\`\`

\`\`\`text,output
token=hunter2
\`\`\`
")
    MY_SECRET_TOKEN=hunter2 verify "$open" 30 --no-cache
    [[ $closed == 0 ]] || fail "the snippet saw MY_SECRET_TOKEN"
    [[ $CODE == 0 ]] || fail "pass-env did not pass MY_SECRET_TOKEN"
    echo "MY_SECRET_TOKEN unseen by default, seen when listed in pass-env"
}

attack_quoted_fence() {
    local name=$1 dir
    dir=$(sh_book "$name" "" "# A

> \`\`\`rust
> assert_eq!(1 + 1, 2);

After the quote.
")
    verify "$dir" 120 --no-cache
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT"
    grep -q "1 passed, 0 failed" <<<"$OUT" || fail "exit $CODE: $OUT"
    echo "a fence the end of its > quote closes is tested (as rustdoc), not an unterminated chapter"
}

# The test's `support::tmpfs::test_on_tmpfs` in shell: runs the verifier on book $3 with its
# target dir on a tmpfs of size $2 (filled up first when $4 = fill), in a mount namespace of its
# own, then the shell command $5 ($MOUNT is the tmpfs). Sets CODE, OUT, ERR; skips the attack
# $1 when no mount namespace can be made here (no root and no user namespaces).
in_tmpfs() {
    local unshare_args=(--mount) fill=""
    [[ $(id -u) == 0 ]] || unshare_args=(--map-root-user --mount)
    unshare "${unshare_args[@]}" true 2>/dev/null ||
        skip "no root and no user namespaces: cannot mount a tmpfs"
    # shellcheck disable=SC2016 # $MOUNT is the inner shell's.
    [[ $4 == fill ]] && fill='(dd if=/dev/zero of="$MOUNT/fill" bs=4k 2>/dev/null; true) &&'
    mkdir -p "$WORK/$1-mount"
    # shellcheck disable=SC2016 # $MOUNT and $code are the inner shell's.
    MOUNT=$WORK/$1-mount timeout -k 1 120 unshare "${unshare_args[@]}" sh -c "
        mount -t tmpfs -o size=$2 tmpfs \"\$MOUNT\" && mkdir \"\$MOUNT/target\" && $fill
        $BIN test $3 --quiet --target-dir \"\$MOUNT/target\"; code=\$?; $5; exit \$code" \
        >"$WORK/out" 2>"$WORK/err"
    CODE=$?
    OUT=$(cat "$WORK/out")
    ERR=$(cat "$WORK/err")
}

attack_full_disk_cache() {
    local name=$1 dir
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
echo one
\`\`\`

\`\`\`sh
exit 3
\`\`\`
")
    # shellcheck disable=SC2016 # $MOUNT is the inner shell's.
    in_tmpfs "$name" 256k "$dir" fill \
        'echo leftovers: $(find "$MOUNT/target" -type f \( -name "*partial*" -o -empty \) | wc -l) >&2'
    [[ $CODE == 2 ]] || fail "exit $CODE: $OUT $ERR"
    grep -q "1 passed, 1 failed" <<<"$OUT" || fail "verdicts not reported: $OUT"
    grep -q "out of disk space" <<<"$ERR" || fail "error does not name the disk: $ERR"
    grep -q "leftovers: 0" <<<"$ERR" || fail "partial or empty files left: $ERR"
    echo "full tmpfs: verdicts reported, exit 2 naming the disk, no partial file"
}

attack_full_disk_build() {
    local name=$1 dir=$WORK/$1
    mkdir -p "$dir/src"
    printf '[book]\ntitle = "soak"\n' >"$dir/book.toml"
    echo "- [A](a.md)" >"$dir/src/SUMMARY.md"
    # shellcheck disable=SC2016 # backticks of Markdown, not a command.
    printf '# A\n\n```rust\nprintln!("one");\n```\n' >"$dir/src/a.md"
    in_tmpfs "$name" 300k "$dir" "" true
    [[ $CODE == 2 ]] || fail "exit $CODE: $(head -c 400 <<<"$OUT") $ERR"
    grep -q "No space left on device" <<<"$ERR" || fail "error does not name the disk: $ERR"
    echo "300 KiB target dir: exit 2 naming the disk, no snippet blamed"
}

attack detached-child-holds-stdout attack_setsid_holding_stdout
attack detached-child-closes-stdout attack_closed_stdout
attack timeout-with-pipe-holder attack_deadline_with_pipe_holder
attack many-detached-children attack_many_detached
attack parallel-runs-keep-their-children attack_parallel_attribution
attack sigterm-to-verifier attack_signal TERM 143
attack sigint-to-verifier attack_signal INT 130
attack huge-timeouts attack_huge_timeouts
attack zero-jobs-and-timeout attack_zero_jobs_and_timeout
attack symlink-cycle-without-summary attack_symlink_cycle
attack ellipsis-against-400k-lines attack_long_output_ellipsis
attack secret-in-environment attack_secret_env
attack fence-closed-by-quote attack_quoted_fence
attack full-disk-for-the-cache attack_full_disk_cache
attack full-disk-while-building attack_full_disk_build

exit $FAILED
