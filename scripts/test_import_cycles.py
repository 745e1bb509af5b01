#!/usr/bin/env python3
"""Tests of scripts/import-cycles.py on small crates written here: `python3 scripts/test_import_cycles.py`."""

import atexit
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).with_name("import-cycles.py")


def crate(files):
    root = Path(tempfile.mkdtemp(prefix="import-cycles-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def run(root):
    out = subprocess.run([sys.executable, SCRIPT, str(root)], capture_output=True, text=True)
    return out.returncode, out.stdout


class ImportCycles(unittest.TestCase):
    def test_two_files_that_import_each_other_are_a_circle(self):
        root = crate({
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "use crate::b::Bee;\npub struct Ay;\n",
            "b.rs": "pub struct Bee(crate::a::Ay);\n",
        })
        code, out = run(root)
        self.assertEqual(code, 1, out)
        self.assertIn("circle of 2 files", out)
        self.assertIn("a.rs:1 -> ", out)

    def test_one_way_arrows_are_no_circle(self):
        root = crate({
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "use crate::b::{Bee, other::{self}};\npub struct Ay(Bee);\n",
            "b.rs": "pub struct Bee;\n// crate::a::Ay in a comment\nconst S: &str = \"crate::a::Ay\";\n",
        })
        self.assertEqual(run(root), (0, "no import circles in 3 files\n"))

    def test_a_facade_that_reexports_is_followed_to_the_defining_file(self):
        # stage/mod.rs re-exports Core from core.rs; user.rs names it through the facade, and
        # core.rs uses nothing of user.rs: no circle, though mod.rs re-exports user.rs too.
        root = crate({
            "lib.rs": "mod stage;\n",
            "stage/mod.rs": "mod core;\nmod user;\npub use core::Core;\npub use user::run;\n",
            "stage/core.rs": "pub struct Core;\n",
            "stage/user.rs": "use super::Core;\npub fn run(_: Core) {}\n",
        })
        self.assertEqual(run(root)[0], 0)
        # ...but a file that uses what mod.rs itself defines, while mod.rs uses it, is a circle
        (root / "stage/mod.rs").write_text("mod core;\nmod user;\npub struct Own;\nfn f() { user::run(); }\n")
        (root / "stage/user.rs").write_text("pub fn run() { let _ = super::Own; }\n")
        self.assertEqual(run(root)[0], 1)

    def test_unit_tests_in_a_path_file_and_inline_are_not_circles(self):
        root = crate({
            "main.rs": "mod a;\nfn main() {}\n",
            "a.rs": "pub fn f() {}\n#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod tests;\n"
                    "#[cfg(test)]\nmod inline { use super::f; }\n",
            "a_tests.rs": "use super::*;\n",
        })
        self.assertEqual(run(root), (0, "no import circles in 3 files\n"))

    def test_names_with_as_in_them_and_aliases_are_read_whole(self):
        # `tasks` once lost its tail to the alias rule (`use super::tasks` read as `super::t`)
        root = crate({
            "lib.rs": "mod stage;\n",
            "stage/mod.rs": "mod tasks;\nmod user;\npub struct Own;\nfn f() { user::run(); }\n",
            "stage/tasks.rs": "pub struct Task;\n",
            "stage/user.rs": "use super::tasks;\nuse super::tasks::Task as Renamed;\npub fn run() {}\n",
        })
        code, out = run(root)
        self.assertEqual(code, 0, out)

    def test_folders_mode_finds_two_stages_that_import_each_other(self):
        # no two files import each other, but plan/ uses build/ and build/ uses plan/
        root = crate({
            "main.rs": "mod plan;\nmod build;\nfn main() {}\n",
            "plan/mod.rs": "mod a;\nmod b;\n",
            "plan/a.rs": "pub struct A;\n",
            "plan/b.rs": "use crate::build::c::C;\npub struct B(C);\n",
            "build/mod.rs": "pub mod c;\nmod d;\n",
            "build/c.rs": "pub struct C;\n",
            "build/d.rs": "use crate::plan::a::A;\npub struct D(A);\n",
        })
        self.assertEqual(run(root)[0], 0)
        out = subprocess.run([sys.executable, SCRIPT, "--folders", str(root)], capture_output=True, text=True)
        self.assertEqual(out.returncode, 1, out.stdout)
        self.assertIn("circle of 2 folders", out.stdout)

    def test_names_from_other_crates_are_ignored(self):
        root = crate({
            "lib.rs": "mod a;\npub use other_crate::thing;\npub struct Top;\nfn g() { a::f(); }\n",
            "a.rs": "use crate::thing;\npub fn f() { std::mem::drop(thing); }\n",
        })
        self.assertEqual(run(root)[0], 0)


if __name__ == "__main__":
    unittest.main()
