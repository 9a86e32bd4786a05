#!/usr/bin/env python3
"""Counts the duplicate-code pairs whose two sides belong to different vendors.

Runs the `duplicates` tool over the tree (or reads its output from a file
given as the argument) and keeps the rows whose two places lie under
different vendors' folders or files (acl/ascendcl, hip/amdhip64, cuda).
Rows marked boilerplate, C headers, test fixtures in C/C++ and the ABI
type files (`sys/src/*/types.rs`) are listed apart: the issue asks for no
cross-vendor pair outside those. A pair whose two files a row of the table
in docs/adding-a-vendor.md ("What stays alike across vendors") names is
vendor data or an ABI fact, said there why; it is marked `[explained]`, and
the last line counts the pairs no row explains.

    scripts/cross-vendor-duplicates.py            # run duplicates, then count
    scripts/cross-vendor-duplicates.py dups.txt   # count a saved run
"""

import re
import subprocess
import sys
from pathlib import Path

VENDORS = {"acl": "acl", "ascendcl": "acl", "hip": "hip", "amdhip64": "hip", "cuda": "cuda"}


def vendor(path):
    for part in re.split(r"[/._-]", path):
        if part in VENDORS:
            return VENDORS[part]
    return None


def exempt(path):
    return (
        path.endswith((".h", ".hh", ".hpp", ".c", ".cc", ".cpp"))
        or re.search(r"sys/src/[a-z]+/types\.rs$", path) is not None
    )


def explained():
    """The pairs of files the docs' table says why they stay alike."""
    doc = Path(__file__).resolve().parent.parent / "docs" / "adding-a-vendor.md"
    lines = doc.read_text().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("## What stays alike across vendors")), None)
    pairs = set()
    if start is None:
        return pairs
    for line in lines[start + 1 :]:
        if line.startswith("## "):
            break
        if not line.startswith("| `"):
            continue
        files = [f for f in line.split("|")[1].split("`")[1::2] if "/" in f]
        pairs |= {frozenset((a, b)) for a in files for b in files if a != b}
    return pairs


def main():
    if len(sys.argv) > 1:
        text = open(sys.argv[1]).read()
    else:
        text = subprocess.run(
            ["duplicates", "--most", "200", "--seconds", "300"], capture_output=True, text=True, check=False
        ).stdout
    kept, apart = [], []
    for line in text.splitlines():
        m = re.match(r"^D\d+ (\S+):\d+-\d+ ~ (\S+):\d+-\d+", line)
        if not m:
            continue
        a, b = m.group(1), m.group(2)
        va, vb = vendor(a), vendor(b)
        if not va or not vb or va == vb:
            continue
        (apart if "boilerplate" in line or exempt(a) or exempt(b) else kept).append(line)
    known = explained()
    left = 0
    for line in kept:
        a, b = re.match(r"^D\d+ (\S+):\d+-\d+ ~ (\S+):", line).groups()
        if frozenset((a, b)) in known:
            line += " [explained]"
        else:
            left += 1
        print(line)
    print(f"{len(kept)} cross-vendor pairs ({len(apart)} more that are boilerplate, C/C++ or ABI types); "
          f"{left} not explained in docs/adding-a-vendor.md")
    if "more pairs" in text:
        print("note: duplicates cut its list; raise --most to see every pair", file=sys.stderr)


if __name__ == "__main__":
    main()
