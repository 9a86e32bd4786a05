"""The Python API without pytest's fixture: Machine, Report, ls, the command."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import vmmkit

CHILD = Path(__file__).with_name("hip_child.py")


def test_the_command_is_installed_and_runs_as_a_module() -> None:
    # The console script beside this interpreter (on PATH once the venv is active).
    script = Path(sysconfig.get_path("scripts")) / "vmmkit"
    for cmd in ([str(script), "--version"], [sys.executable, "-m", "vmmkit", "--version"]):
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        assert out.stdout.startswith("vmmkit "), out


def test_the_package_holds_the_drop_ins_and_headers() -> None:
    for name in ("vmmkit", "libascendcl.so", "libamdhip64.so"):
        assert (vmmkit.lib_dir() / name).is_file(), name
    assert (vmmkit.include_dir() / "acl" / "acl.h").is_file()


def test_a_machine_reports_what_a_process_left() -> None:
    with vmmkit.Machine(devices=2, memory="512M") as m:
        m.run([sys.executable, str(CHILD), "alloc", "keep"], check=True)
        listing = m.ls()
        assert listing.in_use and len(listing.devices) == 2
    r = m.report
    assert r is not None and r.leaked
    (p,) = r.processes
    assert p.exited and [(leak.created_by, leak.bytes) for _, leak in r.leaks] == [("hipMalloc", 1 << 20)]
    assert r.process(p.name) == p
    assert "something was left unreleased" in r.text


def test_ls_of_an_unused_root(tmp_path: Path) -> None:
    listing = vmmkit.ls(tmp_path)
    assert not listing.in_use and listing.devices == []


def test_report_parses_a_newer_report() -> None:
    r = vmmkit.Report.from_json(
        '{"command": ["p"], "status": "exit status 0", "processes": [], "shared": ['
        '{"key": "0x1", "bytes": 4096, "place": "device 0", "exporter": null, "importers": [], "root": "/r",'
        ' "later": 1}], "gc": {"processes": 0, "entries": 0, "bytes": 0}, "leaked": false, "later": true}'
    )
    assert r.shared[0].root == "/r" and r.shared[0].exporter is None and not r.leaked
