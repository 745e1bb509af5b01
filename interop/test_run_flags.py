"""Tests of interop/run.sh's `--no-build` (what .ci/run starts the matrix with): a missing test
server or rmcp program is refused with exit 2 naming it, before anything is installed, and the
flag is refused beside `--install-only`. Each runs a copy of run.sh in an empty tree, so a step
past the check would fail differently (no scripts/setup-languages.sh there).
Run with `python3 -m unittest discover -s interop`."""

from __future__ import annotations

import shutil
import stat
import subprocess
import tempfile
import unittest
from pathlib import Path

RUN_SH = Path(__file__).resolve().parent / "run.sh"


class NoBuild(unittest.TestCase):
    def run_sh(self, tree: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
        (tree / "interop").mkdir(exist_ok=True)
        shutil.copy(RUN_SH, tree / "interop" / "run.sh")
        return subprocess.run(["bash", str(tree / "interop" / "run.sh"), *arguments], capture_output=True, text=True, timeout=60)

    def executable(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    def test_a_missing_server_is_named_before_any_install(self) -> None:
        with tempfile.TemporaryDirectory() as tree:
            result = self.run_sh(Path(tree), "--no-build")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--no-build: no target/release/mcp-testserver", result.stderr)
        self.assertNotIn("setup-languages", result.stderr)

    def test_a_missing_rmcp_program_is_named_unless_only_leaves_rmcp_out(self) -> None:
        with tempfile.TemporaryDirectory() as name:
            tree = Path(name)
            self.executable(tree / "target" / "release" / "mcp-testserver")
            result = self.run_sh(tree, "--no-build", "--only", "sdks")
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn("--no-build: no target/debug/rmcp-scenarios", result.stderr)
            # Without rmcp among the cells, the check passes and the run goes on to its installs
            # (missing in this tree: a different error, after the check).
            result = self.run_sh(tree, "--no-build", "--only", "python")
            self.assertNotIn("rmcp-scenarios", result.stderr)
            self.assertIn("setup-languages", result.stderr)

    def test_no_build_is_refused_beside_install_only(self) -> None:
        with tempfile.TemporaryDirectory() as tree:
            result = self.run_sh(Path(tree), "--install-only", "--no-build")
        self.assertEqual(result.returncode, 2)
        self.assertIn("usage: interop/run.sh", result.stderr)


if __name__ == "__main__":
    unittest.main()
