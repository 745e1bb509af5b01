#!/usr/bin/env bash
# Attacks the built verifier the way a hostile or careless book, environment or user would
# (issue 16) and prints one line per attack: `NAME: ok (what was checked)` or
# `NAME: FAILED (why)` (`NAME: skipped (why)` only where the machine cannot stage the attack:
# a tmpfs needs root or user namespaces). Exit 1 if any attack failed.
#
# No attack trusts the exit code alone: each also checks what it is about (a verdict, pass and
# fail, in the report; a marker file only a snippet that really ran writes; the pids of what it
# detached, gone; a secret absent where it must not be and present where it should), so each
# FAILs against a stand-in binary (`/bin/true`, `/bin/false`, or a script that exits with the
# code an attack expects and does nothing).
#
# Usage: scripts/soak-verifier.sh [PATH-TO-mdbook-snippets]   (default: target/debug/, built
# if missing). Bounded: every run has a `timeout`, snippets sleep at most 40 s and are expected
# to be killed long before; nothing touches the network; everything lives in one temporary
# directory, removed at the end. About 60-90 s on a quiet machine (a 2 GB input is hashed; a
# compile that never ends waits for its 10 s build-timeout).

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
    local tag
    while read -r tag; do
        pkill -9 -f -- "$tag"
    done < <(cat "$WORK/tokens" 2>/dev/null)
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
    # One line, whatever a failure quotes (a report, stderr): whitespace runs become one space.
    outcome=$(tr -s '[:space:]' ' ' <<<"$outcome")
    outcome=${outcome% }
    ((${#outcome} <= 600)) || outcome="${outcome:0:600}..."
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
# chapter. Without SUMMARY.md when $4 = nosummary. Its snippets may write $WORK/NAME/pids/ (the
# book's `writable`; nothing else of the book), where they leave their marker files.
sh_book() {
    local dir=$WORK/$1
    mkdir -p "$dir/src" "$dir/pids"
    cat >"$dir/book.toml" <<EOF
[book]
title = "soak"

[preprocessor.snippets]
writable = ["$dir/pids"]
$2

[preprocessor.snippets.languages.sh]
command = ["sh", "{file}"]
extension = "sh"
EOF
    [[ ${4:-} == nosummary ]] || echo "- [A](a.md)" >"$dir/src/SUMMARY.md"
    printf '%s' "$3" >"$dir/src/a.md"
    echo "$dir"
}

# A book (sh_book NAME) whose chapter is one `sh` snippet: BODY, with ATTRIBUTES after `sh` (e.g.
# ",timeout=2") and sh_book's TABLE lines.
#   one_sh_book NAME BODY [ATTRIBUTES] [TABLE]
one_sh_book() {
    sh_book "$1" "${4:-}" "# A

\`\`\`sh${3:-}
$2
\`\`\`
"
}

# Fails the attack unless the report $2 (default $OUT) says `$1` (e.g. "1 passed, 1 failed").
verdicts() {
    grep -q "^$1\$" <<<"${2-$OUT}" || fail "expected \"$1\", got exit $CODE: $(tail -c 300 <<<"${2-$OUT}") $(tail -c 300 <<<"$ERR")"
}

# The line a snippet of book $1 runs to leave marker $2 (in the book's writable pids/), which
# `ran` then checks: `$(mark "$name" started)` in a chapter, `ran "$dir/pids/started"` after.
mark() { echo "touch $WORK/$1/pids/$2"; }

# Fails the attack unless the snippet that writes marker file $1 ran.
ran() {
    [[ -e $1 ]] || fail "the snippet writing $(basename "$1") never ran (exit $CODE: $(tail -c 200 <<<"$OUT"))"
}

# The processes of the attacks carry a token in their command line (`sleep 40.TOKEN`,
# `sh -c SCRIPT NAME-TOKEN`): a snippet in a PID namespace of its own knows no pid the OS
# outside knows. Prints what is still running with token $1 (and kills it); fails if any.
left_with() {
    local pids
    for _ in $(seq 100); do
        pids=$(pgrep -f -- "$1") || return 0
        sleep 0.02
    done
    echo "still running with $1: $(tr '\n' ' ' <<<"$pids")"
    # shellcheck disable=SC2086
    kill -9 $pids 2>/dev/null
    return 1
}
# A token no other process has (digits: `sleep 40.TOKEN`), kept for the cleanup.
token() {
    local tag=$$$RANDOM$RANDOM
    echo "$tag" >>"$WORK/tokens"
    echo "$tag"
}

# Runs the verifier on book $1 with a bound of $2 seconds, then the rest of the arguments
# (and $VERIFIER_ENV, NAME=VALUE words, in its environment alone); sets CODE, OUT, ERR,
# SECONDS_TAKEN.
verify() {
    local book=$1 bound=$2
    shift 2
    local started=$EPOCHREALTIME
    # shellcheck disable=SC2086 # VERIFIER_ENV: NAME=VALUE words for the verifier alone.
    timeout -k 1 "$bound" env ${VERIFIER_ENV:-} "$BIN" test "$book" --quiet --target-dir "$TARGET" "$@" \
        >"$WORK/out" 2>"$WORK/err"
    CODE=$?
    SECONDS_TAKEN=$(awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $started }")
    OUT=$(cat "$WORK/out")
    ERR=$(cat "$WORK/err")
}

attack_setsid_holding_stdout() {
    local name=$1 dir tag left
    tag=$(token)
    dir=$(sh_book "$name" "" "# A

\`\`\`sh,timeout=5
setsid sh -c 'echo started > $WORK/$name/pids/started; exec sleep 40.$tag' &
while [ ! -s $WORK/$name/pids/started ]; do sleep 0.01; done
echo parent done
\`\`\`

\`\`\`text,output
parent done
\`\`\`
")
    verify "$dir" 30 --no-cache
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    verdicts "1 passed, 0 failed"
    ! slower_than 4 || fail "took ${SECONDS_TAKEN}s for timeout=5"
    ran "$dir/pids/started"
    left=$(left_with "40.$tag") || fail "$left"
    echo "setsid child sleeping 40 s with stdout open: passed in ${SECONDS_TAKEN}s, child gone"
}

attack_closed_stdout() {
    local name=$1 dir tag left
    tag=$(token)
    dir=$(one_sh_book "$name" "(setsid sh -c 'exec >/dev/null 2>&1; echo started > $WORK/$name/pids/started; exec sleep 40.$tag' &)
while [ ! -s $WORK/$name/pids/started ]; do sleep 0.01; done")
    verify "$dir" 30 --no-cache
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    ran "$dir/pids/started"
    left=$(left_with "40.$tag") || fail "$left after the verifier exited"
    verdicts "1 passed, 0 failed"
    echo "double fork, setsid, stdout closed: gone when the verifier exits"
}

attack_deadline_with_pipe_holder() {
    local name=$1 dir tag left
    tag=$(token)
    dir=$(one_sh_book "$name" "setsid sh -c 'echo started > $WORK/$name/pids/started; exec sleep 40.$tag' &
while :; do sleep 0.1; done" ",timeout=2")
    verify "$dir" 30 --no-cache
    [[ $CODE == 1 ]] || fail "exit $CODE: $OUT"
    grep -q "timed out" <<<"$OUT" || fail "exit $CODE: $OUT"
    ! slower_than 6 || fail "took ${SECONDS_TAKEN}s for timeout=2"
    ran "$dir/pids/started"
    left=$(left_with "40.$tag") || fail "$left"
    echo "timeout=2 held (${SECONDS_TAKEN}s) while a setsid child kept the pipes; child gone"
}

attack_many_detached() {
    local name=$1 dir tag left written
    tag=$(token)
    dir=$(one_sh_book "$name" "for i in \$(seq 20); do setsid sh -c \"echo started > $WORK/$name/pids/started\$i; exec sleep 40.$tag\" & done
while [ \$(ls $WORK/$name/pids | grep -c started) -lt 20 ]; do sleep 0.01; done
echo spawned")
    verify "$dir" 30 --no-cache
    written=$(find "$dir/pids" -maxdepth 1 -name 'started*' -size +0 | wc -l)
    left=$(left_with "40.$tag")
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    ((written == 20)) || fail "$written of 20 children started"
    verdicts "1 passed, 0 failed"
    [[ -z $left ]] || fail "$left"
    echo "20 setsid children holding stdout: all gone, ${SECONDS_TAKEN}s"
}

# Three snippets, two at a time: the first detaches a child that sleeps 40 s and returns at
# once; the second's detached child prints "late child" after 0.5 s, which its expected output
# needs, so the first run's end must not kill it; the third is the second with a wrong expected
# output, so that a blanket pass is caught. Both detached children must be gone afterwards.
attack_parallel_attribution() {
    local name=$1 dir tag left line
    tag=$(token)
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
setsid sh -c 'echo started > $WORK/$name/pids/first; exec sleep 40.$tag' &
while [ ! -s $WORK/$name/pids/first ]; do sleep 0.01; done
echo first
\`\`\`

\`\`\`sh
setsid sh -c 'echo started > $WORK/$name/pids/second; sleep 0.5; echo late child' second-$tag &
sleep 1
\`\`\`

\`\`\`text,output
late child
\`\`\`

\`\`\`sh
setsid sh -c 'sleep 0.5; echo late child' &
sleep 1
\`\`\`

\`\`\`text,output
not this
\`\`\`
")
    verify "$dir" 30 --no-cache --jobs 2
    [[ $CODE == 1 ]] || fail "exit $CODE, expected 1: $OUT $ERR"
    verdicts "2 passed, 1 failed"
    line=$(grep -n '^```text,output' "$dir/src/a.md" | sed -n 2p | cut -d: -f1)
    grep -q "src/a.md:[0-9]* (output differs, [^)]*error at line $line)" <<<"$OUT" || fail "not the third snippet failed: $OUT"
    ran "$dir/pids/first"
    ran "$dir/pids/second"
    left=$(left_with "$tag") || fail "$left"
    echo "--jobs 2: the late child of one run kept its output while the other ended, the wrong one failed, both detached children gone"
}

# Sends signal $2 to a verifier running a snippet that loops and has detached a child; expects
# exit code $3 and both processes gone.
attack_signal() {
    local name=$1 signal=$2 code=$3 dir tag verifier got left
    tag=$(token)
    dir=$(one_sh_book "$name" "setsid sh -c 'echo started > $WORK/$name/pids/child; exec sleep 40.$tag' &
echo started > $WORK/$name/pids/main
exec sh -c 'while :; do sleep 0.1; done' main-$tag")
    "$BIN" test "$dir" --quiet --no-cache --target-dir "$TARGET" >/dev/null 2>&1 &
    verifier=$!
    for _ in $(seq 500); do
        [[ -s $dir/pids/child && -s $dir/pids/main ]] && (($(pgrep -f -c -- "$tag") >= 2)) && break
        kill -0 "$verifier" 2>/dev/null || break
        sleep 0.02
    done
    kill -"$signal" "$verifier" 2>/dev/null
    for _ in $(seq 500); do
        kill -0 "$verifier" 2>/dev/null || break
        sleep 0.02
    done
    kill -9 "$verifier" 2>/dev/null
    wait "$verifier"
    got=$?
    [[ $got == "$code" ]] || fail "exit $got, expected $code"
    ran "$dir/pids/main"
    ran "$dir/pids/child"
    left=$(left_with "$tag") || fail "$left"
    ! find "$TARGET" -name '*partial*' | grep -q . || fail "partial cache file left"
    echo "exit $code, the looping snippet and its setsid child gone, no partial cache entry"
}

# A huge timeout means no deadline: a snippet that sleeps 1 s passes after it (not at once), the
# one with a wrong expected output still fails, and nothing panics.
attack_huge_timeouts() {
    local name=$1 dir run
    dir=$(sh_book "$name" "timeout = 9223372036854775807" "# A

\`\`\`sh,timeout=18446744073709551615
sleep 1
echo fine
$(mark "$name" ran-attribute)
\`\`\`

\`\`\`text,output
fine
\`\`\`

\`\`\`sh
sleep 1
$(mark "$name" ran-default)
\`\`\`

\`\`\`sh
echo right
\`\`\`

\`\`\`text,output
wrong
\`\`\`
")
    for run in "--timeout 18446744073709551615" "book.toml"; do
        rm -f "$dir"/pids/ran-*
        if [[ $run == book.toml ]]; then
            verify "$dir" 30 --no-cache
        else
            verify "$dir" 30 --no-cache --timeout 18446744073709551615
        fi
        ! grep -q panicked <<<"$ERR" || fail "$run: $ERR"
        [[ $CODE == 1 ]] || fail "$run: exit $CODE, expected 1: $OUT $ERR"
        verdicts "2 passed, 1 failed"
        ran "$dir/pids/ran-attribute"
        ran "$dir/pids/ran-default"
        slower_than 0.9 || fail "$run: passed in ${SECONDS_TAKEN}s, though a snippet sleeps 1 s"
    done
    echo "--timeout 2^64-1, timeout = 2^63-1 in book.toml, timeout=2^64-1 attribute: no panic; 1 s snippets ran and passed, a wrong output failed"
}

attack_zero_jobs_and_timeout() {
    local name=$1 dir jobs
    dir=$(one_sh_book "$name" "$(mark "$name" ran)")
    verify "$dir" 30 --jobs 0
    jobs=$CODE
    grep -q -- "--jobs" <<<"$ERR" || fail "--jobs 0: exit $CODE, no error naming --jobs: $ERR"
    verify "$dir" 30 --timeout 0
    grep -q -- "--timeout" <<<"$ERR" || fail "--timeout 0: exit $CODE, no error naming --timeout: $ERR"
    [[ $jobs == 2 && $CODE == 2 ]] || fail "exit $jobs (--jobs 0), $CODE (--timeout 0)"
    [[ ! -e $dir/pids/ran ]] || fail "the snippet ran though the arguments were refused"
    # The positive control: the same book, arguments accepted, runs the snippet.
    verify "$dir" 30 --jobs 1 --timeout 1
    ran "$dir/pids/ran"
    echo "--jobs 0 and --timeout 0 refused with exit 2 and an error naming them, nothing run; --jobs 1 --timeout 1 ran"
}

attack_symlink_cycle() {
    local name=$1 dir
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
$(mark "$name" ran-a)
\`\`\`
" nosummary)
    mkdir -p "$dir/src/part"
    # A chapter in a real subdirectory: found once (not again through the links), and its
    # wrong expected output fails, so the scan's chapters were really verified.
    # shellcheck disable=SC2016 # backticks of Markdown, not a command.
    printf '# B\n\n```sh\ntouch %s\necho b\n```\n\n```text,output\nnot b\n```\n' \
        "$dir/pids/ran-b" >"$dir/src/part/b.md"
    ln -s .. "$dir/src/part/up"
    ln -s ../.. "$dir/src/part/top"
    ln -s / "$dir/src/root"
    verify "$dir" 30 --no-cache
    [[ $CODE == 1 ]] || fail "exit $CODE, expected 1: $OUT $ERR"
    verdicts "1 passed, 1 failed"
    grep -q "src/part/b.md:[0-9]* (output differs, [^)]*error at line 8)" <<<"$OUT" || fail "not part/b.md failed: $OUT"
    ran "$dir/pids/ran-a"
    ran "$dir/pids/ran-b"
    echo "two cycles and a link to / under src: scan ended in ${SECONDS_TAKEN}s, each chapter verified once (a pass, a fail)"
}

# The same 400,000 lines against `...` + 1,000 of them + the true last line (must pass), and +
# a last line the output does not have (must fail: backtracking's worst case for a mismatch).
attack_long_output_ellipsis() {
    local name=$1 dir line ticks
    ticks=$(yes tick | head -n 1000)
    dir=$(sh_book "$name" "output-limit = 16777216" "# A

\`\`\`sh
yes tick | head -n 400000
echo end
\`\`\`

\`\`\`text,output
...
$ticks
end
\`\`\`

\`\`\`sh
yes tick | head -n 400000
echo end
\`\`\`

\`\`\`text,output
...
$ticks
tock
\`\`\`
")
    verify "$dir" 60 --no-cache
    [[ $CODE == 1 ]] || fail "exit $CODE after ${SECONDS_TAKEN}s, expected 1: $(tail -c 300 <<<"$OUT") $ERR"
    verdicts "1 passed, 1 failed"
    line=$(grep -n '^```text,output' "$dir/src/a.md" | sed -n 2p | cut -d: -f1)
    grep -q "src/a.md:[0-9]* (output differs, [^)]*error at line $line)" <<<"$OUT" || fail "not the second snippet failed: $(tail -c 300 <<<"$OUT")"
    ! slower_than 10 || fail "took ${SECONDS_TAKEN}s"
    echo "400,000 equal lines against ... + 1,000 of them + the last line: the true one passed, a wrong one failed, in ${SECONDS_TAKEN}s together (was 44.7 s for one)"
}

# A snippet prints the whole environment and the secret. By default the secret's value must
# appear nowhere: not in the report, the JUnit file, the page mdBook renders through the
# preprocessor, or the cache; each of these must show the snippet's output (`token=unset`), so
# that its absence means something. Listed in `pass-env`, the snippet sees it.
attack_secret_env() {
    local name=$1 dir open secret snippet where page
    secret=soak-secret-$RANDOM$RANDOM$RANDOM
    snippet="# A

\`\`\`sh
env
echo \"token=\${MY_SECRET_TOKEN:-unset}\"
echo \"\${MY_SECRET_TOKEN:-}\" >&2
echo \"\${MY_SECRET_TOKEN:-}\" > leaked
\`\`\`
"
    dir=$(sh_book "$name" "command = \"$BIN\"" "$snippet")
    # The page, when mdBook is here (the preprocessor runs the snippet; its cache is $TARGET-$name).
    page="no mdbook on PATH: no page rendered"
    if command -v mdbook >/dev/null; then
        MY_SECRET_TOKEN=$secret CARGO_TARGET_DIR=$TARGET-$name timeout -k 1 60 mdbook build "$dir" \
            >"$WORK/$name-build" 2>&1 || fail "mdbook build failed: $(tail -c 300 "$WORK/$name-build")"
        ! grep -qrF -- "$secret" "$dir/book" || fail "the secret's value is on the rendered page"
        grep -q "token=unset" "$dir/book/a.html" || fail "the rendered page lacks the snippet's output"
        page="rendered page"
    fi
    # The report, the JUnit file and the cache (a run that writes it: no --no-cache).
    MY_SECRET_TOKEN=$secret verify "$dir" 30 --junit "$WORK/$name.xml"
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    verdicts "1 passed, 0 failed"
    grep -q "token=unset" "$WORK/$name.xml" || fail "the JUnit file lacks the snippet's output"
    grep -rq "token=unset" "$TARGET" || fail "the cache lacks the snippet's output"
    where=$(grep -rlF -- "$secret" "$dir" "$WORK/$name.xml" "$WORK/$name-build" "$TARGET-$name" \
        "$TARGET" "$WORK/out" "$WORK/err" 2>/dev/null)
    [[ -z $where ]] || fail "the secret's value is in $(tr '\n' ' ' <<<"$where")"
    open=$(sh_book "$name-listed" 'pass-env = ["MY_SECRET_TOKEN"]' "$snippet")
    MY_SECRET_TOKEN=$secret verify "$open" 30 --no-cache --junit "$WORK/$name-listed.xml"
    [[ $CODE == 0 ]] || fail "pass-env: exit $CODE: $OUT $ERR"
    grep -q "token=$secret" "$WORK/$name-listed.xml" || fail "pass-env did not pass MY_SECRET_TOKEN"
    echo "a snippet printing the environment: MY_SECRET_TOKEN's value in no report, JUnit file, $page or cache; seen when listed in pass-env"
}

attack_quoted_fence() {
    local name=$1 dir
    dir=$(sh_book "$name" "" "# A

> \`\`\`rust
> std::fs::write(\"$WORK/$name/pids/ran\", \"\").unwrap();
> assert_eq!(1 + 1, 2);

After the quote.

> \`\`\`rust
> assert_eq!(1 + 1, 3);

After the second quote.
")
    verify "$dir" 120 --no-cache
    [[ $CODE == 1 ]] || fail "exit $CODE, expected 1: $OUT $ERR"
    verdicts "1 passed, 1 failed"
    grep -q "src/a.md:[0-9]* (failed at run time, [^)]*error at line 10)" <<<"$OUT" || fail "not the second block failed: $OUT"
    ran "$dir/pids/ran"
    echo "two fences the end of their > quote closes are tested (as rustdoc): the true assertion passed, the false one failed"
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
$(mark "$name" ran)
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
    ran "$dir/pids/ran"
    echo "full tmpfs: verdicts reported, exit 2 naming the disk, no partial file"
}

attack_full_disk_build() {
    local name=$1 dir=$WORK/$1
    mkdir -p "$dir/src"
    printf '[book]\ntitle = "soak"\n' >"$dir/book.toml"
    echo "- [A](a.md)" >"$dir/src/SUMMARY.md"
    # shellcheck disable=SC2016 # backticks of Markdown, not a command.
    printf '# A\n\n```rust\nprintln!("one");\n```\n' >"$dir/src/a.md"
    # shellcheck disable=SC2016 # $MOUNT is the inner shell's.
    in_tmpfs "$name" 300k "$dir" "" 'echo "compiled: $(find "$MOUNT/target" -name "*.rcgu.o" | wc -l) object files" >&2'
    [[ $CODE == 2 ]] || fail "exit $CODE: $(head -c 400 <<<"$OUT") $ERR"
    grep -q "No space left on device" <<<"$ERR" || fail "error does not name the disk: $ERR"
    ! grep -q "does not compile" <<<"$OUT" || fail "a snippet blamed for the full disk: $OUT"
    # The build really ran on the small disk (a stand-in printing the message would leave it
    # empty): rustc's object files are there.
    grep -q "^compiled: [1-9][0-9]* object files" <<<"$ERR" ||
        fail "nothing was compiled on the small disk: $(grep compiled <<<"$ERR")"
        echo "300 KiB target dir: exit 2 naming the disk, no snippet blamed"
}

# A snippet whose child leaves the session (Perl's `POSIX::setsid`) and its pipes, then forks and
# exits in a loop as fast as it can (every 1000th hop appends to a log): the /proc scan never saw
# a hop alive, each one it read already a zombie. $2: MDBOOK_SNIPPETS_SANDBOX (default auto).
attack_fork_hopper() {
    local name=$1 mode=${2:-auto} dir tag before after left
    tag=$(token)
    dir=$(one_sh_book "$name" "perl -MPOSIX -e 'POSIX::setsid();
open STDIN, \"<\", \"/dev/null\"; open STDOUT, \">\", \"/dev/null\"; open STDERR, \">\", \"/dev/null\";
my \$hops = 0;
until (-e \"$WORK/$name/pids/stop\") {
    fork and POSIX::_exit(0);
    next if ++\$hops % 1000 != 1;
    open my \$log, \">>\", \"$WORK/$name/pids/hops\"; print \$log \"\$hops\\n\"; close \$log;
}' hopper-$tag &
while [ ! -s $WORK/$name/pids/hops ]; do sleep 0.01; done
sleep 0.2
echo parent done")
    MDBOOK_SNIPPETS_SANDBOX=$mode verify "$dir" 30 --no-cache
    sleep 0.3
    before=$(wc -l <"$dir/pids/hops" 2>/dev/null || echo 0)
    sleep 1
    after=$(wc -l <"$dir/pids/hops" 2>/dev/null || echo 0)
    touch "$dir/pids/stop"
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    verdicts "1 passed, 0 failed"
    ((before > 0)) || fail "the chain never hopped"
    ((before == after)) || fail "the fork-and-exit chain still runs after the verdict ($before -> $after hops)"
    left=$(left_with "hopper-$tag") || fail "$left"
    grep -q "containment: " <<<"$ERR" || fail "no containment line: $ERR"
    echo "setsid fork-and-exit chain (about $((after * 1000)) hops) stopped with the verdict; $(grep -o 'containment: .*' <<<"$ERR")"
}

# A snippet whose child leaves its session and group, goes to /, clears its environment (the
# run's marker) and closes its pipes, then sleeps: nothing tied it to its run.
attack_mark_dropper() {
    local name=$1 mode=${2:-auto} dir tag left
    tag=$(token)
    dir=$(one_sh_book "$name" "cat > \"\$TMPDIR/dropper.sh\" <<'END'
exec </dev/null >/dev/null 2>&1
echo started > $WORK/$name/pids/started
exec sleep 40.$tag
END
setsid sh -c 'cd / && exec env -i /bin/sh \"\$0\"' \"\$TMPDIR/dropper.sh\" &
while [ ! -s $WORK/$name/pids/started ]; do sleep 0.01; done
echo parent done")
    MDBOOK_SNIPPETS_SANDBOX=$mode verify "$dir" 30 --no-cache
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    verdicts "1 passed, 0 failed"
    [[ -s $dir/pids/started ]] || fail "the mark-dropper never started"
    left=$(left_with "40.$tag") || fail "$left after the verifier exited"
    echo "a process with no mark of its run (env -i, cd /, setsid, pipes closed) is gone; $(grep -o 'containment: .*' <<<"$ERR")"
}

# A snippet that reads /proc/$PPID/environ, then every ancestor's and every visible process's,
# printing any MY_SECRET_TOKEN: the verifier's secret must reach neither the JUnit file nor
# the report.
attack_proc_environ() {
    local name=$1 mode=${2:-auto} dir secret
    secret=soak-environ-$RANDOM$RANDOM$RANDOM
    dir=$(one_sh_book "$name" "{ tr '\\0' '\\n' < /proc/\$PPID/environ; } 2>&1 | grep -a MY_SECRET_TOKEN
read -r _ _ _ parent _ < /proc/self/stat
while [ \"\$parent\" -gt 1 ]; do
  echo \"ancestor \$parent\"
  { tr '\\0' '\\n' < /proc/\$parent/environ; } 2>&1 | grep -a MY_SECRET_TOKEN
  read -r _ _ _ parent _ < /proc/\$parent/stat
done
for environ in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \$environ 2>/dev/null | grep -a MY_SECRET_TOKEN; done
echo walked")
    # The secret in the verifier's environment alone (not `timeout`'s, not this shell's): without a
    # PID namespace a snippet reads the environment of the user's dumpable processes, the
    # documented limit of the fallback; the verifier is never one of them.
    VERIFIER_ENV="MY_SECRET_TOKEN=$secret" MDBOOK_SNIPPETS_SANDBOX=$mode verify "$dir" 30 --no-cache --junit "$WORK/$name.xml"
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    verdicts "1 passed, 0 failed"
    grep -q "walked" "$WORK/$name.xml" || fail "the JUnit file lacks the snippet's output"
    ! grep -qF -- "$secret" "$WORK/$name.xml" "$WORK/out" "$WORK/err" || fail "the verifier's secret is in the report or the JUnit file"
    echo "/proc/\$PPID/environ, every ancestor's and every visible process's: no secret in report or JUnit; $(grep -o 'containment: .*' <<<"$ERR")"
}

# A snippet that appends to every cache entry, the chapter and book.toml, and plants a cache
# entry and a chapter: a later run must still see the verifier's own verdicts.
attack_book_and_cache_writes() {
    local name=$1 dir cache before after planted
    dir=$(one_sh_book "$name" "echo cached")
    verify "$dir" 30
    [[ $CODE == 0 ]] || fail "first run: exit $CODE: $OUT $ERR"
    cache=$TARGET/mdbook-snippets/cache
    [[ -n $(find "$cache" -type f 2>/dev/null) ]] || fail "no cache entry under $cache"
    cat >>"$dir/src/a.md" <<END

\`\`\`sh
for file in \$(find $cache -type f) $dir/src/a.md $dir/book.toml; do echo forged >> "\$file"; done
echo forged > $cache/planted-by-snippet
echo forged > $dir/src/planted.md
echo tried
\`\`\`
END
    before=$(find "$cache" "$dir/src" "$dir/book.toml" -type f -exec sha256sum {} + | sort)
    verify "$dir" 30
    after=$(find "$cache" "$dir/src" "$dir/book.toml" -type f -exec sha256sum {} + | sort)
    planted=$(find "$cache" "$dir/src" -name 'planted*')
    [[ -z $planted ]] || fail "the snippet planted $planted"
    [[ $CODE == 0 ]] || fail "exit $CODE: $OUT $ERR"
    verdicts "2 passed, 0 failed"
    # Every file the first run left is unchanged (the second run adds its own entry).
    [[ -z $(comm -23 <(echo "$before") <(echo "$after")) ]] ||
        fail "a cache entry or a source changed: $(comm -23 <(echo "$before") <(echo "$after") | head -3)"
    ! grep -q "forged" "$dir/book.toml" || fail "book.toml was written"
    echo "a snippet appending to every cache entry, the chapter and book.toml: nothing written; $(grep -o 'containment: .*' <<<"$ERR")"
}

# A book whose language setup detaches a child and hangs (both tagged $2; $3: a line run first,
# `trap '' TERM` to ignore SIGTERM; $4: more lines for the language table). Prints its directory.
setup_book() {
    local name=$1 tag=$2 trap=${3:-} dir=$WORK/$1
    mkdir -p "$dir/src"
    cat >"$dir/book.toml" <<END
[book]
title = "soak"

[preprocessor.snippets.languages.sh]
command = ["sh", "{file}"]
extension = "sh"
setup = ["sh", "hang.sh"]
${4:-}
END
    cat >"$dir/hang.sh" <<END
$trap
echo started > started
setsid sh -c 'while :; do sleep 1; done' child-$tag &
exec sh -c 'while :; do sleep 1; done' main-$tag
END
    echo "- [A](a.md)" >"$dir/src/SUMMARY.md"
    # shellcheck disable=SC2016 # backticks of Markdown, not a command.
    printf '# A\n\n```sh\necho ran > ran\n```\n' >"$dir/src/a.md"
    echo "$dir"
}

# A setup that hangs, with setup-timeout = 2: the run fails naming it, within bounds, and the
# setup and its detached child are gone; no snippet ran.
attack_hanging_setup() {
    local name=$1 dir tag left
    tag=$(token)
    dir=$(setup_book "$name" "$tag" "" "setup-timeout = 2")
    verify "$dir" 40 --no-cache
    [[ $CODE == 2 ]] || fail "exit $CODE, expected 2: $ERR"
    grep -qF "timed out: \`sh hang.sh\` ran for 2 s (\`setup-timeout\`)" <<<"$ERR" || fail "no timeout named: $ERR"
    [[ -e $dir/started ]] || fail "the setup never started"
    [[ ! -e $dir/pids/ran ]] || fail "a snippet ran after a failed setup"
    ! slower_than 20 || fail "took ${SECONDS_TAKEN}s for setup-timeout = 2"
    left=$(left_with "$tag") || fail "$left"
    echo "setup hanging with a detached child: stopped at setup-timeout = 2 (${SECONDS_TAKEN}s), exit 2 naming it, both gone"
}

# SIGTERM to a verifier whose setup (and its detached child) ignore SIGTERM: exit 143, both gone.
attack_setup_ignoring_sigterm() {
    local name=$1 dir tag verifier got left
    tag=$(token)
    dir=$(setup_book "$name" "$tag" "trap '' TERM")
    "$BIN" test "$dir" --quiet --no-cache --target-dir "$TARGET" >/dev/null 2>&1 &
    verifier=$!
    for _ in $(seq 500); do
        [[ -e $dir/started ]] && (($(pgrep -f -c -- "$tag") >= 2)) && break
        kill -0 "$verifier" 2>/dev/null || break
        sleep 0.02
    done
    [[ -e $dir/started ]] || fail "the setup never started"
    kill -TERM "$verifier" 2>/dev/null
    for _ in $(seq 500); do
        kill -0 "$verifier" 2>/dev/null || break
        sleep 0.02
    done
    kill -9 "$verifier" 2>/dev/null
    wait "$verifier"
    got=$?
    left=$(left_with "$tag") || fail "exit $got; $left"
    [[ $got == 143 ]] || fail "exit $got, expected 143"
    echo "SIGTERM while a SIGTERM-deaf setup and its setsid child ran: exit 143, both gone"
}

# Issue 26, the verdict half: nothing a snippet or a careless user does fakes a verdict.

# A server that refuses an unknown mutant name (as mcp-testserver does) made a misspelt
# `kills=` count as killed; with the book's `mutants` list it is an error before anything runs.
attack_misspelt_kills() {
    local name=$1 dir
    dir=$(sh_book "$name" "mutants = [\"sh\", \"-c\", \"printf 'cancel-ignored\\\\trule\\\\n'\"]" "# A

\`\`\`sh,kills=cancel-ignord
$(mark "$name" ran)
case \"\${MDBOOK_SNIPPETS_MUTANT-}\" in
    '') echo stopped ;;
    cancel-ignored) echo 'still running' ;;
    *) echo \"unknown mutant \$MDBOOK_SNIPPETS_MUTANT\" >&2; exit 2 ;;
esac
\`\`\`

\`\`\`text,output
stopped
\`\`\`
")
    verify "$dir" 30 --no-cache --mutants
    [[ $CODE == 2 ]] || fail "exit $CODE, expected 2: $OUT $ERR"
    grep -q "src/a.md:3: \`kills=cancel-ignord\`: no such mutant" <<<"$ERR" || fail "no error naming the claim: $ERR"
    [[ ! -e $dir/pids/ran ]] || fail "the snippet ran though its claim was refused"
    sed -i 's/cancel-ignord/cancel-ignored/' "$dir/src/a.md"
    verify "$dir" 30 --no-cache --mutants
    [[ $CODE == 0 ]] || fail "spelt right: exit $CODE: $OUT $ERR"
    grep -q "^mutants: 1 killed, 0 survived$" <<<"$OUT" || fail "spelt right, not killed: $OUT"
    echo "kills=cancel-ignord refused at src/a.md:3 with exit 2, nothing run; spelt right, killed"
}

attack_kills_not_run() {
    local name=$1 dir
    dir=$(sh_book "$name" "" "# A

\`\`\`sh,no_run,kills=cancel-ignored
$(mark "$name" ran)
\`\`\`

\`\`\`sh,ignore,kills=cancel-ignored
$(mark "$name" ran)
\`\`\`

\`\`\`rust,compile_fail,kills=cancel-ignored
let x: u32 = \"no\";
\`\`\`
")
    verify "$dir" 30 --no-cache --mutants
    [[ $CODE == 2 ]] || fail "exit $CODE, expected 2: $OUT $ERR"
    for line in 3 7 11; do
        grep -q "src/a.md:$line: \`kills=cancel-ignored\` on a snippet that does not run" <<<"$ERR" ||
            fail "no error at src/a.md:$line: $ERR"
    done
    [[ ! -e $dir/pids/ran ]] || fail "a snippet ran though the claims were refused"
    echo "kills= on no_run, ignore (sh) and compile_fail (Rust): exit 2 naming each line, nothing run"
}

# The entry of a snippet that does not compile, rewritten into a pass by hand.
attack_forged_cache_entry() {
    local name=$1 dir entry forged=0 text
    dir=$WORK/$name
    mkdir -p "$dir/src"
    printf '[book]\ntitle = "soak"\n' >"$dir/book.toml"
    echo "- [A](a.md)" >"$dir/src/SUMMARY.md"
    # shellcheck disable=SC2016 # backticks of Markdown, not a command.
    printf '# A\n\n```rust\n// %s\nlet forged_entry: u32 = "no";\n```\n' "$WORK" >"$dir/src/a.md"
    verify "$dir" 300
    [[ $CODE == 1 ]] || fail "exit $CODE, expected 1: $OUT $ERR"
    for entry in "$TARGET"/mdbook-snippets/cache/*.json; do
        text=$(cat "$entry")
        [[ $text == *'{"DidNotCompile"'*forged_entry* ]] || continue
        printf '%s%s' "${text%%\{\"DidNotCompile\"*}" \
            '{"Ran":{"exit":{"Code":0},"stdout":"","stderr":"","artifacts":[]}}' >"$entry"
        forged=$((forged + 1))
    done
    ((forged == 1)) || fail "$forged entries of a snippet that does not compile, expected 1"
    verify "$dir" 300
    [[ $CODE == 1 ]] || fail "forged entry taken: exit $CODE: $OUT"
    verdicts "0 passed, 1 failed"
    grep -l '{"DidNotCompile"' "$TARGET"/mdbook-snippets/cache/*.json | xargs grep -q forged_entry ||
        fail "the entry was not written again"
    echo "a DidNotCompile entry rewritten into an exit-0 run: a miss, the snippet still fails, the entry rewritten"
}

attack_timeout_cached() {
    local name=$1 dir
    dir=$(one_sh_book "$name" "echo serving
while :; do sleep 1; done" ",timeout=2")
    verify "$dir" 30
    [[ $CODE == 1 ]] || fail "exit $CODE, expected 1: $OUT"
    grep -q "timed out" <<<"$OUT" || fail "not timed out: $OUT"
    slower_than 1.9 || fail "the first run took ${SECONDS_TAKEN}s, under its 2 s timeout"
    verify "$dir" 30
    [[ $CODE == 1 ]] || fail "warm: exit $CODE, expected 1: $OUT"
    grep -q "timed out" <<<"$OUT" || fail "warm: not timed out: $OUT"
    ! slower_than 1.5 || fail "the warm run took ${SECONDS_TAKEN}s: the timeout was paid again"
    echo "a never-ending snippet (timeout=2) cached as timed out: the warm run took ${SECONDS_TAKEN}s"
}

# Runs the verifier on a book whose one snippet leaves, as an artifact, what $2 makes (a shell
# command on \$A, the artifact's path), bounded to 30 s and 3 GB of address space (a /dev/zero
# read whole would otherwise take the machine's memory); $3 is what the report must say.
artifact_attack() {
    local name=$1 dir
    dir=$(one_sh_book "$name" "A=\$MDBOOK_SNIPPETS_ARTIFACTS/10-wire.txt
$2
echo made" "" "timeout = 3")
    ulimit -v 3000000
    verify "$dir" 30 --no-cache
    [[ $CODE == 1 ]] || fail "exit $CODE after ${SECONDS_TAKEN}s, expected 1: $OUT $(tail -c 300 <<<"$ERR")"
    grep -q "artifact \`10-wire.txt\` $3" <<<"$OUT" || fail "no failure naming the artifact: $OUT"
}

attack_fifo_artifact() {
    # shellcheck disable=SC2016 # $A is the snippet's.
    artifact_attack "$1" 'mkfifo "$A"' "is a FIFO"
    echo "a FIFO artifact with timeout = 3: the snippet failed naming it in ${SECONDS_TAKEN}s (was: still running at 40 s)"
}

attack_dev_zero_artifact() {
    # shellcheck disable=SC2016 # $A is the snippet's.
    artifact_attack "$1" 'ln -s /dev/zero "$A"' "is a symbolic link"
    echo "a link to /dev/zero as an artifact: the snippet failed naming it, under 3 GB of address space"
}

attack_directory_artifact() {
    # shellcheck disable=SC2016 # $A is the snippet's.
    artifact_attack "$1" 'mkdir "$A"' "is a directory"
    echo "a directory as an artifact: the snippet failed naming it (was: exit 2)"
}

attack_huge_artifact() {
    local largest
    # The cache is shared with the other attacks (one of which caches 2 MB of output under its
    # own 16 MiB limit): only the entries this run wrote count.
    touch "$WORK/$1.before"
    # shellcheck disable=SC2016 # $A is the snippet's.
    artifact_attack "$1" 'truncate -s 300M "$A"' "takes the artifacts over the output limit"
    largest=$(find "$TARGET/mdbook-snippets/cache" -type f -newer "$WORK/$1.before" -printf '%s\n' 2>/dev/null | sort -n | tail -1)
    ((${largest:-0} < 1048576)) || fail "a cache entry of $largest bytes"
    echo "a 300 MB artifact: the snippet failed, not read, largest cache entry ${largest:-0} bytes (was 287 MB)"
}

# An input that is a FIFO or /dev/zero, and a 2 GB one (sparse), hashed under 1 GB of address
# space.
attack_inputs() {
    local name=$1 dir input
    dir=$(one_sh_book "$name" "$(mark "$name" ran)")
    mkfifo "$dir/fifo"
    cp "$dir/book.toml" "$dir/book.toml.orig"
    for input in fifo /dev/zero; do
        { cat "$dir/book.toml.orig"; echo "inputs = [\"$input\"]"; } >"$dir/book.toml"
        verify "$dir" 30 --no-cache
        [[ $CODE == 2 ]] || fail "inputs = [\"$input\"]: exit $CODE after ${SECONDS_TAKEN}s, expected 2: $ERR"
        grep -q "is not a regular file or a directory" <<<"$ERR" || fail "inputs = [\"$input\"]: $ERR"
    done
    [[ ! -e $dir/pids/ran ]] || fail "the snippet ran though its inputs were refused"
    truncate -s 2G "$dir/big.bin"
    { cat "$dir/book.toml.orig"; echo 'inputs = ["big.bin"]'; } >"$dir/book.toml"
    ulimit -v 1000000
    verify "$dir" 600 --no-cache
    [[ $CODE == 0 ]] || fail "a 2 GB input under 1 GB of address space: exit $CODE: $ERR"
    ran "$dir/pids/ran"
    echo "inputs = a FIFO, /dev/zero: exit 2 at once naming them; a 2 GB input hashed under 1 GB of address space in ${SECONDS_TAKEN}s"
}

attack_escape_sequences() {
    local name=$1 dir
    dir=$(one_sh_book "$name" "printf 'visible \\033[8mHIDDEN\\033[0m\\rOVERWRITTEN\\n' >&2
exit 3")
    verify "$dir" 30 --no-cache --junit "$dir/report.xml"
    [[ $CODE == 1 ]] || fail "exit $CODE: $OUT"
    ! grep -q $'\e' <<<"$OUT" || fail "a raw ESC in the report"
    grep -qF 'visible \u{1b}[8mHIDDEN\u{1b}[0m\rOVERWRITTEN' <<<"$OUT" || fail "not shown escaped: $OUT"
    grep -qF 'visible \u{1b}[8mHIDDEN' "$dir/report.xml" || fail "not shown escaped in JUnit"
    echo "ESC[8m and a carriage return printed by a snippet: shown escaped in the report and JUnit"
}

# The chapter edited while the run is under way: a hand-written block now where the
# mismatched expected block was must not be overwritten by --bless.
attack_bless_during_edit() {
    local name=$1 dir pid
    dir=$(sh_book "$name" "" "# A

\`\`\`sh
echo new
\`\`\`

\`\`\`text,output
old
\`\`\`

\`\`\`sh
$(mark "$name" started)
i=0; while [ ! -e $WORK/$name/go ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i+1)); done
\`\`\`
")
    timeout -k 1 60 "$BIN" test "$dir" --quiet --no-cache --bless --target-dir "$TARGET" \
        >"$WORK/out" 2>"$WORK/err" &
    pid=$!
    for _ in $(seq 400); do [[ -e $dir/pids/started ]] && break; sleep 0.05; done
    [[ -e $dir/pids/started ]] || fail "the waiting snippet never started: $(cat "$WORK/err")"
    # A hand-written block where the expected block's fence was (line 7).
    # shellcheck disable=SC2016 # backticks of Markdown, not a command.
    sed -i 's/^# A$/# A\n\nIntro.\n\nMore.\n\n```text\nhand-written\n```/' "$dir/src/a.md"
    cp "$dir/src/a.md" "$dir/edited.md"
    touch "$dir/go"
    wait "$pid"
    CODE=$?
    [[ $CODE == 1 ]] || fail "exit $CODE: $(cat "$WORK/out" "$WORK/err")"
    cmp -s "$dir/src/a.md" "$dir/edited.md" || fail "the chapter was rewritten: $(head -c 300 "$dir/src/a.md")"
    grep -q "not blessed: the chapter changed during the run" "$WORK/err" || fail "no warning: $(cat "$WORK/err")"
    echo "the chapter edited during a --bless run: its hand-written block kept, the stale block refused with a warning"
}

# Issue 33's side doors, each under the full containment (the tests in
# tests/testsuite/hostile/side_doors.rs run them under every one).

# A snippet types into the terminal the verifier runs in (TIOCSTI through /dev/tty and its
# descriptors) and writes through a descriptor the caller left open (fd 3).
attack_terminal_and_descriptors() {
    local name=$1 dir
    command -v script >/dev/null || skip "no script(1) for a pseudo-terminal"
    command -v python3 >/dev/null || skip "no python3 for TIOCSTI"
    dir=$(one_sh_book "$name" "$(mark "$name" ran)
echo leaked >&3 2>/dev/null
python3 - 2>/dev/null <<'PY'
import fcntl, os, termios
fds = [0, 1, 2]
try:
    fds.append(os.open('/dev/tty', os.O_RDWR))
except OSError:
    pass
for fd in fds:
    try:
        for c in b'echo INJ' + b'ECTED\\n':
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
    except OSError:
        pass
PY
true")
    : >"$WORK/leak"
    OUT=$(timeout -k 1 60 script -qec "exec 3>>$WORK/leak; $BIN test $dir --quiet --no-cache --target-dir $TARGET" /dev/null 2>&1)
    CODE=$?
    ran "$dir/pids/ran"
    ! grep -q INJECTED <<<"$OUT" || fail "the terminal received the snippet's input: $(tail -c 200 <<<"$OUT")"
    [[ ! -s $WORK/leak ]] || fail "the snippet wrote through fd 3"
    echo "under a pseudo-terminal with fd 3 open: no input injected, nothing written through fd 3"
}

# /dev/shm and /tmp are the machine's: what a snippet leaves there must not outlive the run
# (in a namespace), and the cache's secret must not be readable (under Landlock).
attack_shared_places_and_key() {
    local name=$1 dir tag
    tag=$(token)
    dir=$(one_sh_book "$name" "$(mark "$name" ran)
echo x > /dev/shm/soak-$tag; echo x > /tmp/soak-$tag
cat $TARGET/mdbook-snippets/cache/mac-key > $WORK/$name/pids/key 2>/dev/null
true")
    verify "$dir" 60
    verify "$dir" 60 --no-cache
    ran "$dir/pids/ran"
    [[ ! -s $dir/pids/key ]] || fail "the snippet read the cache's secret"
    if grep -q "pid namespace" <<<"$ERR"; then
        [[ ! -e /dev/shm/soak-$tag && ! -e /tmp/soak-$tag ]] || fail "a file in /dev/shm or /tmp outlived the run"
    fi
    rm -f "/dev/shm/soak-$tag" "/tmp/soak-$tag"
    echo "the cache's secret unreadable; /dev/shm and /tmp private in a namespace"
}

# output-limit = 100 after a pass with 2,000 bytes of output: the cached pass must not stand.
attack_output_limit_key() {
    local name=$1 dir
    dir=$(one_sh_book "$name" "head -c 2000 /dev/zero | tr '\\\\0' x")
    verify "$dir" 60
    verdicts "1 passed, 0 failed"
    sed -i 's/^\[preprocessor.snippets\]$/[preprocessor.snippets]\noutput-limit = 100/' "$dir/book.toml"
    verify "$dir" 60
    verdicts "0 passed, 1 failed"
    echo "a pass with 2,000 bytes of output, then output-limit = 100: fails, cache or not"
}

# A FIFO at a cache entry's path must not hang the next run.
attack_fifo_cache_entry() {
    local name=$1 dir entry
    dir=$(one_sh_book "$name" "echo fifo-entry-$name")
    verify "$dir" 60
    entry=$(grep -l "fifo-entry-$name" "$TARGET"/mdbook-snippets/cache/*.json | head -1)
    [[ -n $entry ]] || fail "no cache entry was written"
    rm -f "$entry" && mkfifo "$entry"
    verify "$dir" 30
    [[ $CODE != 124 && $CODE != 137 ]] || fail "a FIFO entry hung the run"
    verdicts "1 passed, 0 failed"
    rm -f "$entry"
    echo "a FIFO in place of a cache entry: a miss, the snippet ran again"
}

# const _: () = loop {}; must fail at build-timeout, not hold the run.
attack_never_ending_compile() {
    local name=$1 dir
    dir=$WORK/$name
    mkdir -p "$dir/src"
    printf '[book]\ntitle = "loop"\n\n[preprocessor.snippets]\nbuild-timeout = 10\n' >"$dir/book.toml"
    echo "- [A](a.md)" >"$dir/src/SUMMARY.md"
    printf '# A\n\n```rust\n#![allow(long_running_const_eval)]\nconst _: () = loop {};\nfn main() {}\n```\n' >"$dir/src/a.md"
    verify "$dir" 240 --no-cache
    [[ $CODE == 1 ]] || fail "exit $CODE after $SECONDS_TAKEN s: $(tail -c 300 <<<"$OUT")"
    grep -q "build-timeout" <<<"$OUT" || fail "the failure does not name build-timeout: $(tail -c 300 <<<"$OUT")"
    echo "a compile that never ends: failed at build-timeout = 10 s ($SECONDS_TAKEN s in all)"
}

# The mutants command gets no secret, and a background child that keeps its stdout does not
# hold the run; a setup cannot read the cache's secret.
attack_mutants_and_setup() {
    local name=$1 dir
    dir=$(sh_book "$name" "mutants = [\"sh\", \"$WORK/$name/list.sh\"]" "# A

\`\`\`sh,kills=m1
test -z \"\${MDBOOK_SNIPPETS_MUTANT-}\"
\`\`\`
")
    printf 'echo "secret=$SOAK_SECRET" > %s/pids/seen\ncat %s/mdbook-snippets/cache/mac-key >> %s/pids/seen 2>/dev/null\n(sleep 40 &)\nprintf "m1\\trule\\n"\n' \
        "$dir" "$TARGET" "$dir" >"$dir/list.sh"
    VERIFIER_ENV="SOAK_SECRET=hunter2" verify "$dir" 30 --mutants --no-cache
    [[ $CODE == 0 ]] || fail "exit $CODE after $SECONDS_TAKEN s: $(tail -c 300 <<<"$OUT") $(tail -c 300 <<<"$ERR")"
    [[ $(cat "$dir/pids/seen") == "secret=" ]] || fail "the mutants command saw: $(head -c 100 "$dir/pids/seen")"
    echo "the mutants command: no secret, no cache key, its background child held nothing ($SECONDS_TAKEN s)"
}

# file-size-limit = 1: a 3 MB file fails the snippet, naming the limit.
attack_file_size_limit() {
    local name=$1 dir
    dir=$(one_sh_book "$name" "$(mark "$name" ran)
head -c 3000000 /dev/zero > big" "" "file-size-limit = 1")
    verify "$dir" 60 --no-cache
    ran "$dir/pids/ran"
    verdicts "0 passed, 1 failed"
    grep -q "file-size-limit" <<<"$OUT" || fail "the failure does not name file-size-limit: $(tail -c 300 <<<"$OUT")"
    echo "a 3 MB file under file-size-limit = 1: failed, naming the limit"
}

# network = false: a listener on the machine's loopback is out of the snippet's reach.
attack_machine_loopback() {
    local name=$1 dir port pid
    command -v python3 >/dev/null || skip "no python3 for a listener"
    python3 -c 'import socket, time; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(60)' >"$WORK/port" &
    pid=$!
    for _ in $(seq 100); do [[ -s $WORK/port ]] && break; sleep 0.05; done
    port=$(cat "$WORK/port")
    dir=$(sh_book "$name" "network = false" "# A

\`\`\`sh
$(mark "$name" ran)
python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", $port), timeout=2)' 2>/dev/null && echo reached || echo refused
\`\`\`

\`\`\`text,output
refused
\`\`\`
")
    verify "$dir" 60 --no-cache
    kill "$pid" 2>/dev/null
    grep -q "pid namespace" <<<"$ERR" || skip "no namespaces here: network = false does nothing"
    ran "$dir/pids/ran"
    verdicts "1 passed, 0 failed"
    echo "network = false: the machine's loopback listener unreachable"
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
attack setsid-fork-hopper attack_fork_hopper auto
attack setsid-fork-hopper-fallback attack_fork_hopper no-namespaces
attack setsid-fork-hopper-no-landlock attack_fork_hopper off
attack mark-dropper attack_mark_dropper auto
attack mark-dropper-fallback attack_mark_dropper no-namespaces
attack mark-dropper-no-landlock attack_mark_dropper off
attack verifier-environ-through-proc attack_proc_environ auto
attack verifier-environ-no-landlock attack_proc_environ off
attack snippet-writes-book-and-cache attack_book_and_cache_writes
attack hanging-setup attack_hanging_setup
attack sigterm-deaf-setup attack_setup_ignoring_sigterm
attack misspelt-kills-name attack_misspelt_kills
attack kills-on-snippets-that-do-not-run attack_kills_not_run
attack forged-cache-entry attack_forged_cache_entry
attack timed-out-snippet-cached attack_timeout_cached
attack fifo-artifact attack_fifo_artifact
attack dev-zero-artifact attack_dev_zero_artifact
attack directory-artifact attack_directory_artifact
attack 300-mb-artifact attack_huge_artifact
attack fifo-dev-zero-and-2-gb-inputs attack_inputs
attack escape-sequences-in-output attack_escape_sequences
attack bless-during-an-edit attack_bless_during_edit
attack terminal-and-inherited-descriptors attack_terminal_and_descriptors
attack shared-places-and-cache-key attack_shared_places_and_key
attack output-limit-in-cache-key attack_output_limit_key
attack fifo-cache-entry attack_fifo_cache_entry
attack never-ending-compile attack_never_ending_compile
attack mutants-command-contained attack_mutants_and_setup
attack file-size-limit attack_file_size_limit
attack machine-loopback-with-network-false attack_machine_loopback

exit $FAILED
