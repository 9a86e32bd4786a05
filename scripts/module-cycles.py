#!/usr/bin/env python3
"""Lists the circles of files in each crate's module graph.

A file depends on another when it names a path into it (`use crate::a::b`,
`crate::a::f()`, `super::x`, `self::y` inside a `mod.rs`). A circle is a
strongly connected component of that graph with more than one file; a file
and its own `mod.rs` parent count like any other pair. Child-module
declarations (`mod x;`) are not edges: a parent owning a child is not a
dependency, only naming something inside it is.

    scripts/module-cycles.py            # every crate, one line per circle
    scripts/module-cycles.py --wide 5   # exit 1 if a circle has 5+ files
    scripts/module-cycles.py --layers   # one node per top-level module

A path through a re-export (`pub use error::AclError` in `acl/mod.rs`) is
followed to the file that defines the item, so a parent that only re-exports
does not join its children's circles. `--layers` asks the coarser question
of layering: with each top-level module (`core`, `acl`, `rule`, ...) as one
node, does a lower layer reach back up into a higher one?

The count is the issue's measure for "the seam": a vendor's files should
depend on the generic ones, never the other way round.
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def crates():
    for toml in sorted(ROOT.glob("**/Cargo.toml")):
        if "target" in toml.parts or toml.parent == ROOT:
            continue
        src = toml.parent / "src"
        if (src / "lib.rs").exists():
            yield toml.parent.relative_to(ROOT), src


def module_of(src: Path, file: Path):
    rel = file.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    if parts and parts[0] == "bin":
        return None
    if parts == ["main"]:
        return None
    return tuple(parts)


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def expand_use(tree: str):
    """Expands a use tree such as `crate::{a, b::{c, d}}` into flat paths."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix, s):
        depth, start, items = 0, 0, []
        for i, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                items.append(s[start:i])
                start = i + 1
        items.append(s[start:])
        for item in items:
            if not item:
                continue
            m = re.match(r"^(.*?)::\{(.*)\}$", item, flags=re.S)
            if m:
                walk(prefix + m.group(1).split("::"), m.group(2))
            elif item.startswith("{") and item.endswith("}"):
                walk(prefix, item[1:-1])
            else:
                item = re.sub(r"\bas\b.*$", "", item)
                out.append(prefix + [p for p in item.split("::") if p])

    walk([], tree)
    return out


def paths_in(text: str):
    text = strip_comments(text)
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        yield from expand_use(m.group(1))
    for m in re.finditer(rf"\b((?:crate|super|self)(?:::{IDENT})+)", text):
        yield m.group(1).split("::")


def absolute(here, is_dir_mod, path):
    """The path from the crate root, or None if it leaves the crate."""
    if not path or path[0] not in ("crate", "super", "self"):
        return None
    if path[0] == "crate":
        base, rest = [], path[1:]
    else:
        base = list(here) if is_dir_mod else list(here[:-1])
        rest = list(path)
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    return base + rest


def reexports(text):
    """`pub use` items of a file: name -> relative path, and glob prefixes."""
    named, globs = {}, []
    for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", strip_comments(text)):
        for p in expand_use(m.group(1)):
            if p and p[-1] == "*":
                globs.append(p[:-1])
            elif p:
                named[p[-1]] = p
    return named, globs


def resolve(files, exports, here, is_dir_mod, path, depth=0):
    full = absolute(here, is_dir_mod, path)
    if full is None:
        return None
    for n in range(len(full), -1, -1):
        target = tuple(full[:n])
        if target not in files:
            continue
        rest = full[n:]
        if rest and depth < 8:
            named, globs = exports[target]
            tdir = files[target].name in ("mod.rs", "lib.rs")
            if rest[0] in named:
                via = named[rest[0]]
                if via[0] not in ("crate", "super", "self"):
                    via = ["self"] + via
                found = resolve(files, exports, target, tdir, via + rest[1:], depth + 1)
                if found is not None:
                    return found
            for g in globs:
                if g[0] not in ("crate", "super", "self"):
                    g = ["self"] + g
                found = resolve(files, exports, target, tdir, g + rest, depth + 1)
                if found is not None and found != target:
                    return found
        return target
    return None


def sccs(nodes, edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
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
            out.append(comp)

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wide", type=int, default=0, help="exit 1 if a circle has at least this many files")
    ap.add_argument("--layers", action="store_true", help="one node per top-level module")
    args = ap.parse_args()
    total_files = total_circles = widest = 0
    for crate, src in crates():
        files = {}
        for f in sorted(src.rglob("*.rs")):
            m = module_of(src, f)
            if m is not None:
                files[m] = f
        exports = {m: reexports(f.read_text()) for m, f in files.items()}
        edges = {}
        for m, f in files.items():
            is_dir_mod = f.name in ("mod.rs", "lib.rs")
            deps = set()
            for p in paths_in(f.read_text()):
                t = resolve(files, exports, m, is_dir_mod, p)
                if t is not None and t != m and t != ():
                    deps.add(t)
            edges[m] = deps
        if args.layers:
            layer = lambda m: m[:1]
            nodes = sorted({layer(m) for m in files if m})
            ledges = {}
            for m, deps in edges.items():
                for d in deps:
                    if m and layer(d) != layer(m):
                        ledges.setdefault(layer(m), set()).add(layer(d))
            for comp in sccs(nodes, ledges):
                if len(comp) < 2:
                    continue
                total_circles += 1
                total_files += len(comp)
                widest = max(widest, len(comp))
                print(f"{crate}: {len(comp)} modules: {' '.join(sorted(c[0] for c in comp))}")
            continue
        for comp in sccs(list(files), edges):
            if len(comp) < 2:
                continue
            total_circles += 1
            total_files += len(comp)
            widest = max(widest, len(comp))
            names = sorted(str(files[c].relative_to(ROOT)) for c in comp)
            print(f"{crate}: {len(comp)} files: {' '.join(names)}")
    unit = "modules" if args.layers else "files"
    print(f"{total_circles} circles, {total_files} {unit} in them, widest {widest}")
    if args.wide and widest >= args.wide:
        sys.exit(1)


if __name__ == "__main__":
    main()
