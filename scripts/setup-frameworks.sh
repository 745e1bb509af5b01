#!/usr/bin/env bash
# The `setup` of book.toml's framework languages (python-fastmcp, ts-fastmcp, ts-agents,
# python-agents): `scripts/setup-languages.sh --frameworks`, as one path with no arguments (the
# book's tests rewrite each element of a `setup` list into a path of the repository).
exec "$(dirname "$0")/setup-languages.sh" --frameworks
