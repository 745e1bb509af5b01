"""The helpers of interop/ import one way: no module reaches itself through the modules it imports,
function-local imports included (history.py and render_book.py used to import each other inside
functions). Run: python3 -m unittest discover -s interop (interop/run.sh runs it).
"""

from __future__ import annotations

import ast
import unittest
from pathlib import Path

INTEROP = Path(__file__).resolve().parent


def imports(source: str, local: set[str]) -> set[str]:
    """The modules of `local` that `source` imports anywhere (top level or inside a function)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & local


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `graph` (module -> modules it imports), as a path, or None."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return path[path.index(module):] + [module]
        if module in done:
            return None
        for imported in sorted(graph[module]):
            found = visit(imported, path + [module])
            if found:
                return found
        done.add(module)
        return None

    for module in sorted(graph):
        found = visit(module, [])
        if found:
            return found
    return None


def graph_of(sources: dict[str, str]) -> dict[str, set[str]]:
    local = set(sources)
    return {name: imports(text, local) - {name} for name, text in sources.items()}


class ImportDirection(unittest.TestCase):
    def test_the_helpers_import_one_way(self) -> None:
        sources = {path.stem: path.read_text() for path in INTEROP.glob("*.py") if not path.stem.startswith("test_")}
        graph = graph_of(sources)
        self.assertIn("history", graph["render_book"], "render_book.py renders the history section through history.py")
        self.assertIsNone(cycle(graph), f"an import circle between the helpers of interop/: {cycle(graph)}")

    def test_a_function_local_import_back_is_a_circle(self) -> None:
        # The check has teeth: the shape this test replaced is found.
        sources = {
            "render_book": "import history\n",
            "history": "def render():\n    import render_book\n    return render_book\n",
            "outcomes": "",
        }
        self.assertEqual(cycle(graph_of(sources)), ["history", "render_book", "history"])


if __name__ == "__main__":
    unittest.main()
