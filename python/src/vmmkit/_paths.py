"""Where the packaged command, drop-in libraries and headers are."""

from __future__ import annotations

import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def lib_dir() -> Path:
    """The directory of the packaged ``vmmkit`` command and the drop-ins
    ``libascendcl.so`` and ``libamdhip64.so`` (link C programs with
    ``-L`` it; ``vmmkit run`` finds the drop-ins there by itself and gives
    them every name programs load them by, such as ``libamdhip64.so.6``)."""
    return _HERE / "_bin"


def binary() -> Path:
    """The ``vmmkit`` command: ``VMMKIT_BINARY`` when set, else the packaged one."""
    env = os.environ.get("VMMKIT_BINARY")
    return Path(env) if env else lib_dir() / "vmmkit"


def include_dir() -> Path:
    """The ACL headers (``#include <acl/acl.h>``) the drop-in implements."""
    return _HERE / "include"
