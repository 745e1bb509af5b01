#!/usr/bin/env bash
# The RUSTC_WRAPPER of scripts/bench-phases.sh (stable rustc, no `-Z time-passes`). Cargo runs it
# as `rustc-phases.sh [WORKSPACE_WRAPPER] RUSTC ARGS...`. Every crate but the generated snippet
# packages' (`--crate-name snippets_*`) is compiled as asked, untimed. For a snippet crate it
# appends a line to $PHASES_LOG:
#
#   CRATE START END WALL CPU [FRONT_WALL FRONT_CPU OBJ_WALL OBJ_CPU]
#
# START and END frame the real compilation (seconds since the epoch); WALL and CPU are its wall
# and CPU time (user + system of rustc and its threads and linker). With PHASES_SPLIT=1 the same
# compilation is first run twice into a scratch directory, stopped after the front end
# (`--emit=metadata`: parsing, expansion, type and borrow checking) and after code generation
# (`--emit=obj`: the same, plus LLVM, no link), and their times follow. Codegen is then OBJ -
# FRONT and the link WALL - OBJ.
set -uo pipefail

crate=
previous=
for arg in "$@"; do
    [[ $previous == --crate-name ]] && crate=$arg
    previous=$arg
done
if [[ -z ${PHASES_LOG:-} || $crate != snippets_* ]]; then
    exec "$@"
fi

# timed FILE COMMAND...: runs COMMAND (its stderr to this script's), writes "WALL CPU" to FILE.
timed() {
    local file=$1
    shift
    local TIMEFORMAT='%R %U %S'
    exec 3>&2
    { time "$@" 2>&3; } 2>"$file.raw"
    local status=$?
    exec 3>&-
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$file.raw" >"$file"
    return "$status"
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
extra=
if [[ ${PHASES_SPLIT:-0} == 1 ]]; then
    # The same arguments with another --emit and --out-dir.
    variant=()
    skip=0
    for arg in "$@"; do
        if ((skip)); then
            skip=0
            continue
        fi
        case $arg in
        --emit=*) ;;
        --out-dir) skip=1 ;;
        --out-dir=*) ;;
        *) variant+=("$arg") ;;
        esac
    done
    for emit in metadata obj; do
        mkdir -p "$scratch/$emit"
        timed "$scratch/$emit.time" "${variant[@]}" "--emit=$emit" --out-dir "$scratch/$emit" \
            2>/dev/null
        extra+=" $(cat "$scratch/$emit.time")"
    done
fi
start=$(date +%s.%N)
timed "$scratch/full.time" "$@"
status=$?
end=$(date +%s.%N)
echo "$crate $start $end $(cat "$scratch/full.time")$extra" >>"$PHASES_LOG"
exit "$status"
