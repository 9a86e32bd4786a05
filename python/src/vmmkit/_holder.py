"""The process that holds a :class:`vmmkit.Machine` open under ``vmmkit run``:
prints the machine's settings (its ``VMMKIT_*`` variables and
``LD_LIBRARY_PATH``) as one JSON line, then waits for its standard input to
close (the machine closing, or its owner dying). Its arguments only name
what it holds the machine for, in ``vmmkit run``'s report."""

import json
import os
import sys

if __name__ == "__main__":
    settings = {k: v for k, v in os.environ.items() if k.startswith("VMMKIT_") or k == "LD_LIBRARY_PATH"}
    print(json.dumps(settings), flush=True)
    sys.stdin.read()
