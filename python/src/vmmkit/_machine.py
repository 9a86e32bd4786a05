"""A private emulated machine that several processes share: one
``vmmkit run`` kept open while they run, its report read when it closes.

``vmmkit run`` makes the machine (a fresh emulator root, the drop-ins under
every name programs load them by, the journal every process writes) and
runs a small holder process on it; the holder hands its environment back
and waits. Processes started with :attr:`Machine.env` (or through
:meth:`Machine.run` / :meth:`Machine.popen`) use that machine. When the
machine closes, the processes it started are waited for (then killed, past
the timeout), the holder ends, and ``vmmkit run`` collects what is left and
writes its report, the same as for a single program.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from ._paths import binary
from ._report import Listing, PathLike, Report, ls

def _is_machine_var(name: str) -> bool:
    return name.startswith("VMMKIT_") or name == "LD_LIBRARY_PATH"


class MachineError(RuntimeError):
    """The machine could not start, or did not end as it should."""


class Machine:
    """A private emulated machine, open from :meth:`start` (or ``with``) to :meth:`close`.

    :param devices: emulated devices (``--devices``).
    :param memory: memory per device, e.g. ``"1G"`` (``--memory``).
    :param faults: faults to inject, in the syntax of ``VMMKIT_FAULTS``.
    :param streams: ``eager``, ``async`` or ``adversarial[:SEED]`` (``VMMKIT_STREAMS``).
    :param trace: write every call of every process there, as Chrome trace-event JSON.
    :param env: extra variables for every process on the machine.
    :param timeout: seconds each process may run before it is killed.
    :param dir: where to make the machine (default: ``/dev/shm``).
    :param name: what the machine is for (a test's id), in the report's command.
    :param stand_ins: give the processes vmmkit's stand-ins for the vendors'
        companion libraries (``librocfft.so.0``, ``libroctracer64.so.4``;
        ``vmmkit run --stand-ins``).
    """

    def __init__(
        self,
        devices: Optional[int] = None,
        memory: Optional[str] = None,
        faults: Optional[str] = None,
        streams: Optional[str] = None,
        trace: Optional[PathLike] = None,
        env: Optional[dict[str, str]] = None,
        timeout: float = 120.0,
        dir: Optional[PathLike] = None,
        name: str = "",
        stand_ins: bool = False,
    ) -> None:
        self.devices = devices
        self.memory = memory
        self.faults = faults
        self.streams = streams
        self.trace = Path(trace) if trace is not None else None
        self.extra_env = dict(env or {})
        self.timeout = timeout
        self.dir = dir
        self.name = name
        self.stand_ins = stand_ins
        self.env: dict[str, str] = {}
        """The environment of a process on this machine (this process's, with the machine's settings)."""
        self.report: Optional[Report] = None
        """The report, once closed."""
        self.left_running: list[list[str]] = []
        """Commands still running at close (they were killed)."""
        self._holder: Optional[subprocess.Popen[str]] = None
        self._scratch: Optional[tempfile.TemporaryDirectory[str]] = None
        self._children: list[subprocess.Popen[Any]] = []

    # -- life -------------------------------------------------------------

    def start(self) -> Machine:
        """Starts the machine; returns it."""
        if self._holder is not None:
            raise MachineError("the machine is already started")
        self._scratch = tempfile.TemporaryDirectory(prefix="vmmkit-machine-")
        scratch = Path(self._scratch.name)
        cmd = [str(binary()), "run", "--report", str(scratch / "report.json")]
        if self.devices is not None:
            cmd += ["--devices", str(self.devices)]
        if self.memory is not None:
            cmd += ["--memory", str(self.memory)]
        if self.faults is not None:
            cmd += ["--faults", self.faults]
        if self.trace is not None:
            self.trace.parent.mkdir(parents=True, exist_ok=True)
            cmd += ["--trace", str(self.trace)]
        if self.dir is not None:
            cmd += ["--dir", os.fspath(self.dir)]
        if self.stand_ins:
            cmd += ["--stand-ins"]
        cmd += ["--", sys.executable, "-m", "vmmkit._holder", *([self.name] if self.name else [])]
        # This process's environment, less what `vmmkit run` sets itself.
        base = {k: v for k, v in os.environ.items() if k not in _RUN_SETS}
        if self.streams is not None:
            base["VMMKIT_STREAMS"] = self.streams
        base.update(self.extra_env)
        self._stderr = open(scratch / "stderr", "w+")
        self._holder = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=base, text=True
        )
        assert self._holder.stdout is not None
        line = self._holder.stdout.readline()
        if not line:
            self._holder.wait(timeout=self.timeout)
            self._stderr.seek(0)
            err = self._stderr.read()
            self._cleanup()
            raise MachineError(f"vmmkit run did not start the machine: {' '.join(cmd)}\n{err}")
        settings: dict[str, str] = json.loads(line)
        env = {k: v for k, v in base.items() if not _is_machine_var(k)}
        env.update(settings)
        self.env = env
        return self

    def close(self) -> Report:
        """Waits for the processes (kills those past the timeout), ends the
        machine and returns its report."""
        if self.report is not None:
            return self.report
        if self._holder is None:
            raise MachineError("the machine was not started")
        for p in self._children:
            try:
                p.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                self.left_running.append([str(a) for a in p.args] if isinstance(p.args, (list, tuple)) else [str(p.args)])
        assert self._holder.stdin is not None
        self._holder.stdin.close()
        try:
            self._holder.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self._holder.kill()
            self._holder.wait()
        self._stderr.seek(0)
        text = self._stderr.read()
        scratch = Path(self._scratch.name) if self._scratch else Path(".")
        try:
            self.report = Report.load(scratch / "report.json", text)
        except FileNotFoundError:
            raise MachineError(f"vmmkit run wrote no report:\n{text}") from None
        finally:
            self._cleanup()
        return self.report

    def _cleanup(self) -> None:
        if self._holder is not None and self._holder.stdout is not None:
            self._holder.stdout.close()
        if getattr(self, "_stderr", None) is not None:
            self._stderr.close()
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    def __enter__(self) -> Machine:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- processes ----------------------------------------------------------

    @property
    def root(self) -> Path:
        """The machine's emulator root (``VMMKIT_ROOT``)."""
        return Path(self.env["VMMKIT_ROOT"])

    def _env(self, env: Optional[dict[str, str]]) -> dict[str, str]:
        if not self.env:
            raise MachineError("the machine is not started")
        merged = dict(self.env)
        merged.update(env or {})
        return merged

    def run(
        self, args: Union[Sequence[Union[str, PathLike]], str], *, env: Optional[dict[str, str]] = None, **kw: Any
    ) -> subprocess.CompletedProcess[Any]:
        """:func:`subprocess.run` on this machine (``timeout`` defaults to the machine's)."""
        kw.setdefault("timeout", self.timeout)
        return subprocess.run(args, env=self._env(env), **kw)

    def popen(
        self, args: Union[Sequence[Union[str, PathLike]], str], *, env: Optional[dict[str, str]] = None, **kw: Any
    ) -> subprocess.Popen[Any]:
        """:class:`subprocess.Popen` on this machine; waited for (or killed) at close."""
        p = subprocess.Popen(args, env=self._env(env), **kw)
        self._children.append(p)
        return p

    def ls(self) -> Listing:
        """What the machine's root holds now."""
        return ls(self.root)


# What `vmmkit run` sets itself, so never taken from this process's environment.
_RUN_SETS = frozenset({"VMMKIT_ROOT", "VMMKIT_JOURNAL", "VMMKIT_JOURNAL_CALLS"})
