#!/usr/bin/env python3
"""Import circles between the files of a Rust crate.

    python3 scripts/import-cycles.py [--edges] [--folders] DIR...

Each DIR is a crate's source folder (`src`, `testserver/src`, `snippets/src`). From each crate
root in it (`lib.rs`, `main.rs`, `bin/*.rs`) the script follows `mod NAME;` declarations (and
their `#[path = "..."]`) to map every file to its module, then reads every path that names
something in the same crate: `crate::`, `super::`, `self::`, a child module's name, and the
trees of `use` declarations. A path is resolved to the file that defines the item it names,
following `pub use` re-exports, so a `mod.rs` that only re-exports is not counted as a user of
its children's users. `mod NAME;` itself is not an import.

It prints every set of two or more files that import one another (a strongly connected
component of the file graph), with the lines that make the circle, and exits 1 if there is
one; 0 and `no import circles in N files` otherwise. `--edges` prints every file-to-file edge.
`--folders` reads each top-level folder of DIR (a pipeline stage: `src/run/`, `src/plan/`) as one
node, and each file at the top of DIR as its own: then a circle is two stages that import each
other, though no two of their files do.

Standard library only; a heuristic reader, not a compiler: comments, strings and char literals
are blanked before reading, and names it cannot resolve (macros, prelude items, other crates)
are ignored.
"""

import re
import sys
from pathlib import Path

ITEM = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+|async\s+|const\s+|extern\s+\"[^\"]*\"\s+)*"
    r"(?:struct|enum|union|trait|type|fn|const|static|mod)\s+(\w+)",
    re.M,
)
MACRO = re.compile(r"macro_rules!\s*(\w+)")
MOD_DECL = re.compile(r"((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;")
PATH_ATTR = re.compile(r'#\[path\s*=\s*"([^"]+)"\]')
INLINE_MOD = re.compile(r"(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*\{")
USE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
PATH = re.compile(r"(?<![\w:$])((?:crate|super|self)(?:\s*::\s*\w+)+|\w+(?:\s*::\s*\w+)+)")


def blank(text):
    """Comments, strings and char literals replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    keep = lambda s: re.sub(r"[^\n]", " ", s)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(keep(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(keep(text[i:j]))
            i = j
        elif m := re.compile(r'b?r(#*)"').match(text, i) if c in "rb" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) else None:
            end = '"' + m.group(1)
            j = text.find(end, m.end())
            j = n if j < 0 else j + len(end)
            out.append(keep(text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(keep(text[i : j + 1]))
            i = j + 1
        elif c == "'" and (m := re.compile(r"'(?:\\(?:x..|u\{[^}]*\}|.)|[^'\\])'").match(text, i)):
            out.append(keep(m.group(0)))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def use_paths(tree):
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"] (aliases dropped)."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))
    out = []

    def walk(prefix, s):
        depth, start, parts = 0, 0, []
        for k, ch in enumerate(s):
            depth += ch == "{"
            depth -= ch == "}"
            if ch == "," and depth == 0:
                parts.append(s[start:k])
                start = k + 1
        parts.append(s[start:])
        for p in filter(None, parts):
            if "{" in p:
                head, rest = p.split("{", 1)
                walk(prefix + head, rest[: rest.rfind("}")])
            else:
                out.append(prefix + p)

    walk("", tree)
    return [re.sub(r"::self$", "", p) for p in out]


class Module:
    def __init__(self, path, file, text):
        self.path, self.file, self.text = path, file, text
        self.children = {}  # name -> module path
        self.items = set(ITEM.findall(text)) | set(MACRO.findall(text))
        self.reexports = {}  # name -> full use path, for `pub use`
        self.globs = []  # `pub use x::*` paths


def load(root_file, crate):
    mods, todo = {}, [((), root_file)]
    while todo:
        mpath, f = todo.pop()
        raw = f.read_text(encoding="utf-8")
        text = blank(raw)
        m = mods[mpath] = Module(mpath, f, text)
        is_dir_owner = f.name in ("mod.rs", "lib.rs", "main.rs") or f.parent.name == "bin" and mpath == ()
        base = f.parent if is_dir_owner else f.parent / f.stem
        for decl in MOD_DECL.finditer(text):
            name = decl.group(2)
            # the attribute's string is blanked in `text`; read it from the same span of `raw`
            explicit = PATH_ATTR.search(raw[decl.start(1) : decl.end(1)])
            if explicit:
                child = f.parent / explicit.group(1)
            elif (base / f"{name}.rs").exists():
                child = base / f"{name}.rs"
            else:
                child = base / name / "mod.rs"
            if child.exists():
                m.children[name] = mpath + (name,)
                todo.append((mpath + (name,), child))
        for vis, tree in USE.findall(text):
            if vis:
                for p in use_paths(tree):
                    last = p.split("::")[-1]
                    if last == "*":
                        m.globs.append(p[:-3])
                    else:
                        m.reexports[last] = p
    return mods


def lines_of(text):
    starts = [0]
    for k, ch in enumerate(text):
        if ch == "\n":
            starts.append(k + 1)
    return starts


def resolve(mods, here, segs, seen=None):
    """The module path of the file that defines what `segs` names, seen from module `here`."""
    seen = seen or set()
    key = (here, tuple(segs))
    if key in seen:
        return None
    seen.add(key)
    segs = list(segs)
    if segs[0] == "crate":
        cur, segs = (), segs[1:]
    elif segs[0] in ("self", "super"):
        cur = here
        while segs and segs[0] in ("self", "super"):
            cur = cur[:-1] if segs.pop(0) == "super" else cur
    elif segs[0] in mods.get(here, Module((), None, "")).children:
        cur = here
    else:
        return None
    while segs and segs[0] in mods[cur].children:
        cur = mods[cur].children[segs.pop(0)]
    if not segs or segs[0] == "*":
        return cur
    name, m = segs[0], mods[cur]
    if name in m.items:
        return cur
    if name in m.reexports:
        # None: re-exported from another crate, which is no edge inside this one
        return resolve(mods, cur, m.reexports[name].split("::"), seen)
    for g in m.globs:
        target = resolve(mods, cur, g.split("::") + [name], seen)
        if target is not None and target != cur:
            return target
    return cur


def edges_of(mods):
    edges = {}
    for mpath, m in mods.items():
        starts = lines_of(m.text)
        line = lambda pos: next(i for i in range(len(starts), 0, -1) if starts[i - 1] <= pos)
        # inline modules (`mod tests { ... }`): paths inside them resolve from there
        spans = []
        for im in INLINE_MOD.finditer(m.text):
            depth, j = 1, im.end()
            while j < len(m.text) and depth:
                depth += {"{": 1, "}": -1}.get(m.text[j], 0)
                j += 1
            spans.append((im.start(), j, mpath + (im.group(1),)))
        scope = lambda pos: max((s for s in spans if s[0] <= pos < s[1]), key=lambda s: s[0], default=None)
        found = []
        for um in USE.finditer(m.text):
            found += [(um.start(), p) for p in use_paths(um.group(2))]
        use_spans = [(um.start(), um.end()) for um in USE.finditer(m.text)]
        for pm in PATH.finditer(m.text):
            if not any(a <= pm.start() < b for a, b in use_spans):
                found.append((pm.start(), re.sub(r"\s+", "", pm.group(1))))
        for pos, p in found:
            sc = scope(pos)
            here = mpath
            segs = p.split("::")
            if sc:
                # an inline module: `super::` leaves it, anything else is read from the file
                inner = segs[0] == "super"
                segs = segs[1:] if inner else segs
                if not segs:
                    continue
            target = resolve(mods, here, segs)
            if target is None or target not in mods or mods[target].file == m.file:
                continue
            edges.setdefault((m.file, mods[target].file), []).append(line(pos))
    return edges


def sccs(nodes, edges):
    graph = {n: set() for n in nodes}
    for a, b in edges:
        graph[a].add(b)
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            strong(v)
    return out


def main(argv):
    show_edges = "--edges" in argv
    folders = "--folders" in argv
    dirs = [a for a in argv if a not in ("--edges", "--folders")]
    if not dirs:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    circles, files = 0, 0
    for d in map(Path, dirs):
        roots = [d / r for r in ("lib.rs", "main.rs") if (d / r).exists()]
        roots += sorted((d / "bin").glob("*.rs")) if (d / "bin").is_dir() else []
        if not roots:
            print(f"{d}: no lib.rs, main.rs or bin/*.rs", file=sys.stderr)
            return 2
        for root in roots:
            mods = load(root, root)
            nodes = {m.file for m in mods.values()}
            files += len(nodes)
            edges = edges_of(mods)
            if folders:
                stage = lambda f: d / f.relative_to(d).parts[0]
                nodes = {stage(f) for f in nodes}
                merged = {}
                for (a, b), ls in edges.items():
                    if stage(a) != stage(b):
                        merged.setdefault((stage(a), stage(b)), []).extend(f"{a.relative_to(d)}:{n}" for n in ls)
                edges = merged
            if show_edges:
                for (a, b), ls in sorted(edges.items()):
                    print(f"{a} -> {b} (line {', '.join(map(str, sorted(set(ls), key=str)))})")
            for comp in sccs(nodes, edges):
                circles += 1
                print(f"circle of {len(comp)} {'folders' if folders else 'files'} from {root}:")
                inside = set(comp)
                for (a, b), ls in sorted(edges.items()):
                    if a in inside and b in inside:
                        where = f"{a}:{min(ls)}" if not folders else f"{a} ({sorted(set(ls))[0]}, {len(set(ls))} use(s))"
                        print(f"  {where} -> {b}")
    if circles:
        print(f"{circles} import circle(s)")
        return 1
    print(f"no import circles in {files} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
