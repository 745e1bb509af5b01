#!/usr/bin/env bash
# Installs one Python framework into its own venv: interop/frameworks/python/install.sh VENV PIP-ARGS...
# (`-r requirements/NAME.txt` for the pin, `PACKAGE==VERSION ...` for another release).
# uv (PyPI `uv`, pinned below) does the install: it resolves and installs a framework in 3 to 7 s
# where pip takes about a minute. It lives in a small venv of its own under target/interop/frameworks/uv.
# `--compile-bytecode`: every module is compiled once here, by uv's workers, rather than in each cell
# (uv installs no .pyc by default, and a cell run with PYTHONDONTWRITEBYTECODE=1, as on the CI
# machine, compiled every module it imported, every time: about half of a cell's CPU).
set -euo pipefail
UV_PIN=uv==0.13.9
venv=$1; shift
root=$(cd "$(dirname "$0")/../../.." && pwd)
uv_home=$root/target/interop/frameworks/uv
# One bootstrap at a time: scripts/setup-languages.sh (the book's venvs) and the frameworks'
# installs may start together.
mkdir -p "$(dirname "$uv_home")"
exec 8>"$uv_home.lock"
command -v flock >/dev/null && flock 8
if [[ ! -x $uv_home/bin/uv || "$(cat "$uv_home/.pin" 2>/dev/null)" != "$UV_PIN" ]]; then
    rm -rf "$uv_home"
    python3 -m venv "$uv_home"
    "$uv_home/bin/pip" install --quiet --disable-pip-version-check "$UV_PIN"
    echo "$UV_PIN" > "$uv_home/.pin"
fi
exec 8>&-
rm -rf "$venv"
"$uv_home/bin/uv" venv --quiet --python python3 "$venv"
VIRTUAL_ENV=$venv "$uv_home/bin/uv" pip install --quiet --compile-bytecode "$@"
