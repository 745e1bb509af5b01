#!/usr/bin/env python3
"""The tree's layout rules (ARCHITECTURE.md, CONTRIBUTING.md), checked on every tracked Rust file:

- no file over 500 lines (a file one sitting long; split along a seam, see CONTRIBUTING.md);
- unit tests in a sibling `NAME_tests.rs`, declared `#[cfg(test)] #[path = "NAME_tests.rs"] mod tests;`
  (no inline `mod tests { ... }` block, no `foo/tests.rs`);
- no `foo.rs` beside a `foo/` folder (a folder module is `foo/mod.rs`).

    python3 scripts/check-layout.py      # prints each breach, exits 1 if there is one

Import circles are checked by scripts/import-cycles.py.
"""

import re
import subprocess
import sys
from pathlib import Path

LIMIT = 500


def main():
    files = subprocess.run(
        ["git", "ls-files", "*.rs"], capture_output=True, text=True, check=True
    ).stdout.split()
    problems = []
    for name in files:
        path = Path(name)
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if lines > LIMIT:
            problems.append(f"{name}: {lines} lines (at most {LIMIT})")
        for number, line in enumerate(text.splitlines(), 1):
            if re.match(r"\s*(pub(\([^)]*\))?\s+)?mod\s+tests\s*\{", line):
                problems.append(f"{name}:{number}: inline `mod tests {{`; unit tests go in a sibling NAME_tests.rs")
        if path.name == "tests.rs" and path.parent.with_suffix(".rs").exists():
            problems.append(f"{name}: unit tests go in {path.parent.name}_tests.rs beside {path.parent.name}.rs")
        if path.suffix == ".rs" and path.with_suffix("").is_dir() and path.name not in ("mod.rs", "main.rs", "lib.rs"):
            # a Cargo test target (`tests/NAME.rs` with `tests/NAME/`) is not a module folder
            if (path.with_suffix("") / "mod.rs").exists() or not path.parent.name == "tests":
                problems.append(f"{name}: beside a folder {path.with_suffix('')}/ (a folder module is NAME/mod.rs)")
    for problem in problems:
        print(problem)
    print(f"layout: {len(files)} Rust files, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
