"""Typed views of what the ``vmmkit`` command writes as JSON: the report of
``vmmkit run --report FILE`` (:class:`Report`) and the listing of
``vmmkit ls --format json`` (:class:`Listing`, read by :func:`ls`).

Fields the command adds later are ignored, and ones it does not write yet
take their defaults, so a newer or older command still parses.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from ._paths import binary

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class Leak:
    """One object a process left unreleased at exit."""

    kind: str
    """``Physical``, ``Export``, ``Import``, ``Retain``, ``IpcOpen``, …"""
    what: str
    """Address or handle, size, place, references, in words."""
    bytes: int
    created_by: str
    """The entry point that created it (empty: not through one)."""
    key: Optional[int] = None
    """The shareable key, for exported or imported memory."""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Leak:
        return cls(d["kind"], d["what"], int(d["bytes"]), d.get("created_by", ""), d.get("key"))


@dataclass(frozen=True)
class Process:
    """One process of the run that used the emulator."""

    pid: int
    ppid: int
    name: str
    """Its program's file name."""
    argv: list[str]
    forked: bool
    """Forked from its parent without an ``exec``."""
    exited: bool
    """Ended through ``exit``; ``False``: killed by a signal, or ``_exit``."""
    leaks: list[Leak] = field(default_factory=list)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Process:
        return cls(
            int(d["pid"]),
            int(d.get("ppid", 0)),
            d.get("name", ""),
            list(d.get("argv", [])),
            bool(d.get("forked", False)),
            bool(d.get("exited", False)),
            [Leak.from_dict(x) for x in d.get("leaks", [])],
        )


@dataclass(frozen=True)
class Holder:
    """A process's part in one shared allocation."""

    pid: int
    call: str
    """The entry point it exported or imported in."""
    held_at_end: bool

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Holder:
        return cls(int(d["pid"]), d.get("call", ""), bool(d.get("held_at_end", False)))


@dataclass(frozen=True)
class Shared:
    """Memory one process exported, and who imported it."""

    key: str
    """The shareable handle, as hex."""
    bytes: int
    place: str
    exporter: Optional[Holder]
    """``None``: exported outside this run."""
    importers: list[Holder] = field(default_factory=list)
    root: Optional[str] = None
    """The emulator root it was shared in (commands that write it)."""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Shared:
        exporter = d.get("exporter")
        return cls(
            d["key"],
            int(d.get("bytes", 0)),
            d.get("place", ""),
            Holder.from_dict(exporter) if exporter else None,
            [Holder.from_dict(x) for x in d.get("importers", [])],
            d.get("root"),
        )

    @property
    def holders(self) -> list[Holder]:
        """The exporter (if in this run), then the importers."""
        return ([self.exporter] if self.exporter else []) + self.importers


@dataclass(frozen=True)
class Collected:
    """What gc collected after the run."""

    processes: int = 0
    entries: int = 0
    bytes: int = 0


@dataclass(frozen=True)
class Report:
    """The report of one ``vmmkit run``: what each process left unreleased,
    what was shared between them, and what gc collected afterwards."""

    command: list[str]
    status: str
    """How the command ended: ``exit status 0``, ``killed by signal 9``."""
    processes: list[Process]
    shared: list[Shared]
    gc: Collected
    leaked: bool
    """Anything left: an object at exit, or memory or an exported handle gc collected."""
    text: str = ""
    """The report for people, as ``vmmkit run`` printed it (when known)."""

    @classmethod
    def from_dict(cls, d: dict[str, Any], text: str = "") -> Report:
        gc = d.get("gc", {})
        return cls(
            list(d.get("command", [])),
            d.get("status", ""),
            [Process.from_dict(p) for p in d.get("processes", [])],
            [Shared.from_dict(s) for s in d.get("shared", [])],
            Collected(int(gc.get("processes", 0)), int(gc.get("entries", 0)), int(gc.get("bytes", 0))),
            bool(d.get("leaked", False)),
            text,
        )

    @classmethod
    def from_json(cls, text: str) -> Report:
        """Parses the JSON that ``vmmkit run --report FILE`` writes."""
        return cls.from_dict(json.loads(text))

    @classmethod
    def load(cls, path: PathLike, text: str = "") -> Report:
        """Reads the file ``vmmkit run --report FILE`` wrote."""
        return cls.from_dict(json.loads(Path(path).read_text()), text)

    @property
    def leaks(self) -> list[tuple[Process, Leak]]:
        """Every object left unreleased at exit, with its process."""
        return [(p, leak) for p in self.processes for leak in p.leaks]

    def process(self, name: str) -> Process:
        """The one process whose program is ``name`` (``KeyError`` if none or several)."""
        found = [p for p in self.processes if p.name == name]
        if len(found) != 1:
            raise KeyError(f"{len(found)} processes named {name!r} in {[p.name for p in self.processes]}")
        return found[0]


@dataclass(frozen=True)
class Device:
    device: int
    capacity: int
    used: int


@dataclass(frozen=True)
class RootProcess:
    pid: int
    alive: bool


@dataclass(frozen=True)
class Exported:
    """An exported shareable handle in a root."""

    shareable_handle: str
    size: int
    location: str
    exporter_pid: int
    exporter_alive: bool
    trustlist: str
    """``on`` or ``off``."""
    trusted_pids: list[int]
    holders: list[int]


@dataclass(frozen=True)
class SharedEvent:
    """An event or notify shared across processes."""

    key: str
    kind: str
    creator_pid: int
    creator_alive: bool
    withdrawn: bool
    holders: list[int]


@dataclass(frozen=True)
class Listing:
    """What an emulator root holds now (``vmmkit ls``)."""

    root: str
    in_use: bool
    """``False``: no program has used the root yet (the lists are empty)."""
    devices: list[Device]
    processes: list[RootProcess]
    exported: list[Exported]
    shared_events: list[SharedEvent]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Listing:
        def each(kind: Any, key: str) -> list[Any]:
            names = kind.__dataclass_fields__.keys()
            return [kind(**{k: v for k, v in x.items() if k in names}) for x in d.get(key, [])]

        return cls(
            d["root"],
            bool(d.get("in_use", False)),
            each(Device, "devices"),
            each(RootProcess, "processes"),
            each(Exported, "exported"),
            each(SharedEvent, "shared_events"),
        )


def ls(root: Optional[PathLike] = None, env: Optional[dict[str, str]] = None) -> Listing:
    """What the emulator root ``root`` holds now (default: ``VMMKIT_ROOT`` of
    ``env``, else of this process, else ``/dev/shm/vmmkit-<uid>``).

    Raises :class:`subprocess.CalledProcessError` when the root cannot be opened.
    """
    cmd = [str(binary()), "ls", "--format", "json"]
    if root is not None:
        cmd += ["--root", os.fspath(root)]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, timeout=60)
    return Listing.from_dict(json.loads(out.stdout))
