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

set -uo pipefail

cd "$(dirname "$0")/.."
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

ok() { echo "$1: ok ($2)"; }
slower_than() { awk "BEGIN { exit !($SECONDS_TAKEN > $1) }"; }
failed() { echo "$1: FAILED ($2)"; FAILED=1; }

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
    local name=detached-child-holds-stdout dir
    dir=$(sh_book $name "" "# A

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
    local left
    if [[ $CODE != 0 ]]; then failed $name "exit $CODE: $OUT $ERR"
    elif slower_than 4; then failed $name "took ${SECONDS_TAKEN}s for timeout=5"
    elif ! left=$(gone "$dir/pid"); then failed $name "$left"
    else ok $name "setsid child sleeping 40 s with stdout open: passed in ${SECONDS_TAKEN}s, child gone"
    fi
}

attack_closed_stdout() {
    local name=detached-child-closes-stdout dir
    dir=$(sh_book $name "" "# A

\`\`\`sh
(setsid sh -c 'exec >/dev/null 2>&1; echo \$\$ > $WORK/$name/pid; exec sleep 40' &)
while [ ! -s $WORK/$name/pid ]; do sleep 0.01; done
\`\`\`
")
    verify "$dir" 30 --no-cache
    local left
    if [[ $CODE != 0 ]]; then failed $name "exit $CODE: $OUT $ERR"
    elif ! left=$(gone "$dir/pid"); then failed $name "$left after the verifier exited"
    else ok $name "double fork, setsid, stdout closed: gone when the verifier exits"
    fi
}

attack_deadline_with_pipe_holder() {
    local name=timeout-with-pipe-holder dir
    dir=$(sh_book $name "" "# A

\`\`\`sh,timeout=2
setsid sh -c 'echo \$\$ > $WORK/$name/pid; exec sleep 40' &
while :; do sleep 0.1; done
\`\`\`
")
    verify "$dir" 30 --no-cache
    local left
    if [[ $CODE != 1 ]] || ! grep -q "timed out" <<<"$OUT"; then failed $name "exit $CODE: $OUT"
    elif slower_than 6; then failed $name "took ${SECONDS_TAKEN}s for timeout=2"
    elif ! left=$(gone "$dir/pid"); then failed $name "$left"
    else ok $name "timeout=2 held (${SECONDS_TAKEN}s) while a setsid child kept the pipes; child gone"
    fi
}

attack_many_detached() {
    local name=many-detached-children dir
    dir=$(sh_book $name "" "# A

\`\`\`sh
for i in \$(seq 20); do setsid sh -c \"echo \\\$\\\$ > $WORK/$name/pid\$i; exec sleep 40\" & done
while [ \$(ls $WORK/$name | grep -c pid) -lt 20 ]; do sleep 0.01; done
echo spawned
\`\`\`
")
    verify "$dir" 30 --no-cache
    local left=0 pid_file
    for pid_file in "$dir"/pid*; do
        gone "$pid_file" >/dev/null || left=$((left + 1))
    done
    if [[ $CODE != 0 ]]; then failed $name "exit $CODE: $OUT $ERR"
    elif ((left > 0)); then failed $name "$left of 20 still running"
    else ok $name "20 setsid children holding stdout: all gone, ${SECONDS_TAKEN}s"
    fi
}

attack_parallel_attribution() {
    local name=parallel-runs-keep-their-children dir
    dir=$(sh_book $name "" "# A

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
    if [[ $CODE != 0 ]]; then failed $name "exit $CODE: $OUT"
    else ok $name "ending one snippet did not kill the detached child of the one beside it"
    fi
}

# Sends signal $1 to a verifier running a snippet that loops and has detached a child; expects
# exit code $2 and both processes gone.
attack_signal() {
    local signal=$1 code=$2 name="sig${1,,}-to-verifier" dir
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
echo \$\$ > $WORK/$name/pid-main
setsid sh -c 'echo \$\$ > $WORK/$name/pid-child; exec sleep 40' &
while :; do sleep 0.1; done
\`\`\`
")
    "$BIN" test "$dir" --quiet --no-cache --target-dir "$TARGET" >/dev/null 2>&1 &
    local verifier=$!
    for _ in $(seq 500); do
        [[ -s $dir/pid-child && -s $dir/pid-main ]] && break
        sleep 0.02
    done
    kill -"$signal" $verifier
    for _ in $(seq 500); do
        kill -0 $verifier 2>/dev/null || break
        sleep 0.02
    done
    kill -9 $verifier 2>/dev/null
    wait $verifier
    local got=$? left
    if [[ $got != "$code" ]]; then failed "$name" "exit $got, expected $code"
    elif ! left=$(gone "$dir/pid-main") || ! left=$(gone "$dir/pid-child"); then failed "$name" "$left"
    elif find "$TARGET" -name '*partial*' | grep -q .; then failed "$name" "partial cache file left"
    else ok "$name" "exit $code, the looping snippet and its setsid child gone, no partial cache entry"
    fi
}

attack_huge_timeouts() {
    local name=huge-timeouts dir
    dir=$(sh_book $name "timeout = 9223372036854775807" "# A

\`\`\`sh,timeout=18446744073709551615
echo fine
\`\`\`
")
    verify "$dir" 30 --no-cache --timeout 18446744073709551615
    local cli=$CODE
    verify "$dir" 30 --no-cache
    local book=$CODE
    if [[ $cli != 0 || $book != 0 ]]; then failed $name "exit $cli (--timeout), $book (book.toml + attribute): $ERR"
    else ok $name "--timeout 2^64-1, timeout = 2^63-1 in book.toml, timeout=2^64-1 attribute: no panic, passed"
    fi
}

attack_zero_jobs_and_timeout() {
    local name=zero-jobs-and-timeout dir
    dir=$(sh_book $name "" "# A

\`\`\`sh
echo fine
\`\`\`
")
    verify "$dir" 30 --jobs 0
    local jobs=$CODE
    verify "$dir" 30 --timeout 0
    local timeout=$CODE
    if [[ $jobs != 2 || $timeout != 2 ]]; then failed $name "exit $jobs (--jobs 0), $timeout (--timeout 0)"
    else ok $name "--jobs 0 and --timeout 0 refused with exit 2"
    fi
}

attack_symlink_cycle() {
    local name=symlink-cycle-without-summary dir
    dir=$(sh_book $name "" "# A

\`\`\`sh
echo a
\`\`\`
" nosummary)
    mkdir -p "$dir/src/part"
    ln -s .. "$dir/src/part/up"
    ln -s ../.. "$dir/src/part/top"
    ln -s / "$dir/src/root"
    verify "$dir" 30 --no-cache
    if [[ $CODE != 0 ]] || ! grep -q "1 passed" <<<"$OUT"; then failed $name "exit $CODE: $OUT $ERR"
    else ok $name "two cycles and a link to / under src: scan ended, ${SECONDS_TAKEN}s"
    fi
}

attack_long_output_ellipsis() {
    local name=ellipsis-against-400k-lines dir
    dir=$(sh_book $name "output-limit = 16777216" "# A

\`\`\`sh
yes tick | head -n 400000
\`\`\`

\`\`\`text,output
...
$(yes tick | head -n 1000)
\`\`\`
")
    verify "$dir" 60 --no-cache
    if [[ $CODE != 0 ]]; then failed $name "exit $CODE after ${SECONDS_TAKEN}s"
    elif slower_than 10; then failed $name "took ${SECONDS_TAKEN}s"
    else ok $name "400,000 equal lines against ... + 1,000 of them (backtracking's worst case) verified in ${SECONDS_TAKEN}s (was 44.7 s)"
    fi
}

attack_secret_env() {
    local name=secret-in-environment dir open
    dir=$(sh_book $name "" "# A

\`\`\`sh
echo \"token=\${MY_SECRET_TOKEN:-unset}\"
\`\`\`

\`\`\`text,output
token=unset
\`\`\`
")
    MY_SECRET_TOKEN=hunter2 verify "$dir" 30 --no-cache
    local closed=$CODE
    open=$(sh_book $name-listed 'pass-env = ["MY_SECRET_TOKEN"]' "# A

\`\`\`sh
echo \"token=\${MY_SECRET_TOKEN:-unset}\"
\`\`\`

\`\`\`text,output
token=hunter2
\`\`\`
")
    MY_SECRET_TOKEN=hunter2 verify "$open" 30 --no-cache
    if [[ $closed != 0 ]]; then failed $name "the snippet saw MY_SECRET_TOKEN"
    elif [[ $CODE != 0 ]]; then failed $name "pass-env did not pass MY_SECRET_TOKEN"
    else ok $name "MY_SECRET_TOKEN unseen by default, seen when listed in pass-env"
    fi
}

attack_quoted_fence() {
    local name=fence-closed-by-quote dir
    dir=$(sh_book $name "" "# A

> \`\`\`rust
> assert_eq!(1 + 1, 2);

After the quote.
")
    verify "$dir" 120 --no-cache
    if [[ $CODE != 0 ]] || ! grep -q "1 passed, 0 failed" <<<"$OUT"; then failed $name "exit $CODE: $OUT"
    else ok $name "a fence the end of its > quote closes is tested (as rustdoc), not an unterminated chapter"
    fi
}

# $1 = name, $2 = tmpfs size, $3 = book dir, $4 = extra shell run after the verifier inside the
# namespace. Sets CODE, OUT, ERR; returns 1 if no mount namespace can be made here.
in_tmpfs() {
    local mount=$WORK/$1-mount unshare_args=(--mount)
    mkdir -p "$mount"
    [[ $(id -u) == 0 ]] || unshare_args=(--map-root-user --mount)
    unshare "${unshare_args[@]}" true 2>/dev/null || return 1
    timeout -k 1 120 unshare "${unshare_args[@]}" sh -c "
        mount -t tmpfs -o size=$2 tmpfs $mount && mkdir $mount/target &&
        { dd if=/dev/zero of=$mount/fill bs=4k 2>/dev/null; [ '$2' = 256k ] || rm $mount/fill; true; } &&
        $BIN test $3 --quiet --target-dir $mount/target; code=\$?; $4; exit \$code" \
        >"$WORK/out" 2>"$WORK/err"
    CODE=$?
    OUT=$(cat "$WORK/out")
    ERR=$(cat "$WORK/err")
}

attack_full_disk_cache() {
    local name=full-disk-for-the-cache dir
    dir=$(sh_book $name "" "# A

\`\`\`sh
echo one
\`\`\`

\`\`\`sh
exit 3
\`\`\`
")
    if ! in_tmpfs $name 256k "$dir" "echo leftovers: \$(find $WORK/$name-mount/target -type f \\( -name '*partial*' -o -empty \\) | wc -l) >&2"; then
        echo "$name: skipped (no root and no user namespaces: cannot mount a tmpfs)"
        return
    fi
    if [[ $CODE != 2 ]]; then failed $name "exit $CODE: $OUT $ERR"
    elif ! grep -q "1 passed, 1 failed" <<<"$OUT"; then failed $name "verdicts not reported: $OUT"
    elif ! grep -q "out of disk space" <<<"$ERR"; then failed $name "error does not name the disk: $ERR"
    elif ! grep -q "leftovers: 0" <<<"$ERR"; then failed $name "partial or empty files left: $ERR"
    else ok $name "full tmpfs: verdicts reported, exit 2 naming the disk, no partial file"
    fi
}

attack_full_disk_build() {
    local name=full-disk-while-building dir
    dir=$WORK/$name
    mkdir -p "$dir/src"
    printf '[book]\ntitle = "soak"\n' >"$dir/book.toml"
    echo "- [A](a.md)" >"$dir/src/SUMMARY.md"
    printf '# A\n\n```rust\nprintln!("one");\n```\n' >"$dir/src/a.md"
    if ! in_tmpfs $name 300k "$dir" "true"; then
        echo "$name: skipped (no root and no user namespaces: cannot mount a tmpfs)"
        return
    fi
    if [[ $CODE != 2 ]]; then failed $name "exit $CODE: $(head -c 400 <<<"$OUT") $ERR"
    elif ! grep -q "No space left on device" <<<"$ERR"; then failed $name "error does not name the disk: $ERR"
    else ok $name "300 KiB target dir: exit 2 naming the disk, no snippet blamed"
    fi
}

attack_setsid_holding_stdout
attack_closed_stdout
attack_deadline_with_pipe_holder
attack_many_detached
attack_parallel_attribution
attack_signal TERM 143
attack_signal INT 130
attack_huge_timeouts
attack_zero_jobs_and_timeout
attack_symlink_cycle
attack_long_output_ellipsis
attack_secret_env
attack_quoted_fence
attack_full_disk_cache
attack_full_disk_build

exit $FAILED
