#!/usr/bin/env python3
"""Turns rule ids in Rust doc comments into intra-doc links that rustdoc checks.

A rule id written as plain text (`ACL-MAP-003`) can drift: the rule is
renumbered or removed and the comment still names it. Written as a link to
its record (`[ACL-MAP-003](vmmkit_sys::acl::rules::MAP_003)`), rustdoc
resolves it, and CI denies rustdoc's warnings, so a stale id fails the build.

    scripts/rule-links.py          # rewrite the doc comments under */src
    scripts/rule-links.py --check  # exit 1 if any plain id is left, or any
                                   # id (linked or not, in any comment) names
                                   # no rule

Only doc comments (`///`, `//!`) of crates that depend on `vmmkit-sys` are
rewritten; fenced code blocks in them are left alone. `--check` also reads
ordinary comments and tests, where no link is possible, and fails on an id
that names no rule.
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENDORS = {"ACL": "acl", "HIP": "hip", "CUDA": "cuda"}
ID = re.compile(r"\b(ACL|HIP|CUDA)-([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d{3}[a-z]?)\b")
# Reference ids with no record: each rule table's module docs list them
# under "Not here, and why" (`//! * CUDA-IPC-007: …`); a comment may cite
# them as plain text.
NOT_RECORDS = {
    m.group(1)
    for folder in VENDORS.values()
    for m in re.finditer(
        r"^//! \* ((?:ACL|HIP|CUDA)-[A-Z0-9-]+):", (ROOT / "sys" / "src" / folder / "rules.rs").read_text(), flags=re.M
    )
}
# An id already inside a link: `[ACL-MAP-003](…)` or `[`ACL-MAP-003`](…)`.
LINKED = re.compile(r"\[`?(?:ACL|HIP|CUDA)-[A-Z0-9-]+`?\]\(([^)]*)\)")


def rule_names():
    names = {}
    for prefix, folder in VENDORS.items():
        text = (ROOT / "sys" / "src" / folder / "rules.rs").read_text()
        for m in re.finditer(r"^    ([A-Z][A-Z0-9_]*) \{$", text, flags=re.M):
            names[f"{prefix}-{m.group(1).replace('_', '-')}"] = (folder, m.group(1))
    return names


def crate_roots():
    """(src dir, path prefix to the rule tables) of every crate that can link."""
    for toml in sorted(ROOT.glob("**/Cargo.toml")):
        if "target" in toml.parts or toml.parent == ROOT:
            continue
        src = toml.parent / "src"
        if not src.is_dir():
            continue
        if toml.parent == ROOT / "sys":
            yield src, "crate"
        elif re.search(r"^vmmkit-sys(\.workspace)?\s*=", toml.read_text(), flags=re.M):
            yield src, "vmmkit_sys"


def link_line(line, names, base, unknown, where):
    out, pos = [], 0
    spans = [m.span() for m in LINKED.finditer(line)]
    # Inline code that is not just an id (`foo(ACL-MAP-003)`) is left alone.
    code = [m.span() for m in re.finditer(r"`[^`]*`", line) if not ID.fullmatch(m.group(0)[1:-1])]
    for m in ID.finditer(line):
        s, e = m.span()
        if any(a <= s < b for a, b in spans) or any(a < s < b for a, b in code):
            continue
        rid = m.group(0)
        if rid in NOT_RECORDS:
            continue
        if rid not in names:
            unknown.append(f"{where}: {rid}")
            continue
        folder, name = names[rid]
        target = f"{base}::{folder}::rules::{name}"
        ticked = s > 0 and line[s - 1] == "`" and e < len(line) and line[e] == "`"
        if ticked:
            s, e = s - 1, e + 1
            text = f"[`{rid}`]({target})"
        else:
            text = f"[{rid}]({target})"
        out.append(line[pos:s])
        out.append(text)
        pos = e
    out.append(line[pos:])
    return "".join(out)


def rewrite(path, names, base, unknown):
    lines = path.read_text().split("\n")
    fenced = False
    changed = False
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*//[/!])(.*)$", line)
        if not m:
            fenced = False
            continue
        body = m.group(2)
        if body.strip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        new = link_line(body, names, base, unknown, f"{path.relative_to(ROOT)}:{i + 1}")
        if new != body:
            lines[i] = m.group(1) + new
            changed = True
    if changed:
        path.write_text("\n".join(lines))
    return changed


def check(names):
    bad, plain = [], []
    roots = {src: base for src, base in crate_roots()}
    for path in sorted(ROOT.glob("**/*.rs")):
        rel = path.relative_to(ROOT)
        if "target" in rel.parts or any(p.startswith(".") for p in rel.parts):
            continue
        linkable = any(path.is_relative_to(src) for src in roots)
        fenced = False
        for i, line in enumerate(path.read_text().split("\n")):
            m = re.match(r"^\s*//([/!])?(.*)$", line) or re.search(r"//([/!])?(.*)$", line)
            if not m:
                fenced = False
                continue
            body = m.group(2)
            if m.group(1) and body.strip().startswith("```"):
                fenced = not fenced
            for id_ in ID.finditer(body):
                if id_.group(0) not in names and id_.group(0) not in NOT_RECORDS:
                    bad.append(f"{rel}:{i + 1}: {id_.group(0)} names no rule")
            if m.group(1) and linkable and not fenced and line.lstrip().startswith("//"):
                probe = []
                if link_line(body, names, "x", probe, "") != body:
                    plain.append(f"{rel}:{i + 1}: a plain rule id in a doc comment")
    for line in bad + plain:
        print(line)
    return not bad and not plain


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    names = rule_names()
    if args.check:
        sys.exit(0 if check(names) else 1)
    unknown, files = [], 0
    for src, base in crate_roots():
        for path in sorted(src.rglob("*.rs")):
            files += rewrite(path, names, base, unknown)
    print(f"{files} files rewritten")
    for u in unknown:
        print(f"unknown rule id: {u}")
    sys.exit(1 if unknown else 0)


if __name__ == "__main__":
    main()
