"""vmmkit: emulated accelerator memory sharing (Ascend CANN ACL, AMD HIP)
across real processes, on a machine without the accelerator.

- :class:`Machine`: a private emulated machine that several processes share
  (``machine.env``, ``machine.run``, ``machine.popen``), and its report.
- :class:`Report`: the report of ``vmmkit run --report FILE``: per process
  what it left unreleased, what was shared, what gc collected.
- :func:`ls`: what an emulator root holds now (``vmmkit ls``).
- :func:`binary`, :func:`lib_dir`, :func:`include_dir`: the packaged
  ``vmmkit`` command, drop-in libraries and ACL headers.

The pytest plugin (``vmmkit.pytest_plugin``) is loaded by pytest itself.
"""

from ._machine import Machine, MachineError
from ._paths import binary, include_dir, lib_dir
from ._report import (
    Collected,
    Device,
    Exported,
    Holder,
    Leak,
    Listing,
    Process,
    Report,
    RootProcess,
    Shared,
    SharedEvent,
    ls,
)

__all__ = [
    "Collected",
    "Device",
    "Exported",
    "Holder",
    "Leak",
    "Listing",
    "Machine",
    "MachineError",
    "Process",
    "Report",
    "RootProcess",
    "Shared",
    "SharedEvent",
    "binary",
    "include_dir",
    "lib_dir",
    "ls",
]
__version__ = "0.1.0"
