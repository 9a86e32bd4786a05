"""``vmmkit`` on PATH and ``python -m vmmkit``: the packaged command, as is."""

from __future__ import annotations

import os
import sys

from ._paths import binary


def main() -> None:
    """Replaces this process with the packaged ``vmmkit`` and its arguments."""
    exe = str(binary())
    os.execv(exe, [exe, *sys.argv[1:]])


if __name__ == "__main__":
    main()
