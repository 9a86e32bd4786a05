"""The pytest plugin, run by pytester on test files of its own: each inner
test starts HIP processes (``hip_child.py``) on its machine."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

CHILD = Path(__file__).with_name("hip_child.py")
HEADER = f"import sys\nimport pytest\nCHILD = {str(CHILD)!r}\nPY = sys.executable\n"


def inner(pytester: pytest.Pytester, body: str, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_inner=HEADER + body)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def test_a_process_that_frees_everything_passes(pytester: pytest.Pytester) -> None:
    r = inner(
        pytester,
        """
def test_clean(machine):
    assert machine.run([PY, CHILD, "alloc", "free"]).returncode == 0
""",
    )
    r.assert_outcomes(passed=1)


def test_a_leak_fails_the_test_with_the_report(pytester: pytest.Pytester) -> None:
    r = inner(
        pytester,
        """
def test_leaky(machine):
    assert machine.run([PY, CHILD, "alloc", "keep"]).returncode == 0
""",
    )
    r.assert_outcomes(failed=1)
    r.stdout.fnmatch_lines(["*left accelerator memory unreleased*", "*from hipMalloc*"])


def test_leaks_ok_lets_a_test_leak(pytester: pytest.Pytester) -> None:
    r = inner(
        pytester,
        """
@pytest.mark.vmmkit_leaks_ok
def test_marked(machine):
    machine.run([PY, CHILD, "alloc", "keep"], check=True)

@pytest.mark.vmmkit(leaks_ok=True)
def test_by_keyword(vmmkit_machine):
    vmmkit_machine.run([PY, CHILD, "alloc", "keep"], check=True)
""",
    )
    r.assert_outcomes(passed=2)


def test_the_marker_sets_the_machine(pytester: pytest.Pytester) -> None:
    r = inner(
        pytester,
        """
@pytest.mark.vmmkit(devices=3, memory="256M", streams="eager")
def test_settings(machine):
    out = machine.run([PY, CHILD, "count"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "3"
    assert machine.env["VMMKIT_STREAMS"] == "eager"
    listing = machine.ls()
    assert listing.in_use and [d.capacity for d in listing.devices] == [256 << 20] * 3
""",
    )
    r.assert_outcomes(passed=1)


@pytest.fixture
def report_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    out = tmp_path / "report-out.json"
    monkeypatch.setenv("REPORT_OUT", str(out))
    return out


def test_two_processes_share_memory_and_the_report_says_so(pytester: pytest.Pytester, report_out: Path) -> None:
    r = inner(
        pytester,
        """
import json, os

@pytest.fixture
def shared_report(machine):
    yield machine
    # After the test: the machine is closed and its report parsed.
    r = machine.report
    with open(os.environ["REPORT_OUT"], "w") as f:
        json.dump({"names": sorted(p.name for p in r.processes), "shared": len(r.shared),
                   "importers": [len(s.importers) for s in r.shared], "leaked": r.leaked}, f)

def test_pair(shared_report, tmp_path):
    machine = shared_report
    handle = str(tmp_path / "handle")
    exporter = machine.popen([PY, CHILD, "export", handle])
    out = machine.run([PY, CHILD, "import", handle], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0x5a"
    assert exporter.wait(timeout=60) == 0
""",
    )
    r.assert_outcomes(passed=1)
    got = json.loads(report_out.read_text())
    assert len(got["names"]) == 2 and got["names"][0] == got["names"][1], got
    assert {k: got[k] for k in ("shared", "importers", "leaked")} == {"shared": 1, "importers": [1], "leaked": False}


def test_trace_writes_one_file_per_test(pytester: pytest.Pytester, tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    r = inner(
        pytester,
        """
def test_one(machine):
    machine.run([PY, CHILD, "alloc", "free"], check=True)

def test_two(machine):
    machine.run([PY, CHILD, "count"], check=True)
""",
        "--vmmkit-trace",
        str(traces),
    )
    r.assert_outcomes(passed=2)
    files = sorted(p.name for p in traces.iterdir())
    assert files == ["test_inner.py_test_one.json", "test_inner.py_test_two.json"], files
    events = json.loads((traces / files[0]).read_text())["traceEvents"]
    calls = {e["name"] for e in events if e["ph"] == "X"}
    assert {"hipMalloc", "hipFree"} <= calls, calls
    assert sum(1 for e in events if e["name"] == "process_name") == 1


def test_a_process_left_running_is_killed_and_fails_the_test(pytester: pytest.Pytester) -> None:
    r = inner(
        pytester,
        """
@pytest.mark.vmmkit(timeout=1)
def test_sleeper(machine):
    machine.popen([PY, "-c", "import time; time.sleep(60)"])
""",
    )
    r.assert_outcomes(failed=1)
    r.stdout.fnmatch_lines(["*still running at the end of the test*"])


def run_traced(pytester: pytest.Pytester, tmp_path: Path, body: str) -> list[dict]:
    traces = tmp_path / "traces"
    r = inner(pytester, body, "--vmmkit-trace", str(traces))
    r.assert_outcomes(passed=1)
    (trace,) = traces.iterdir()
    return json.loads(trace.read_text())["traceEvents"]


def test_unsupported_calls_are_traced_noted_once_and_counted(pytester: pytest.Pytester, tmp_path: Path) -> None:
    events = run_traced(
        pytester,
        tmp_path,
        """
def test_unsupported(machine):
    out = machine.run([PY, CHILD, "unsupported"], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["801", "801", "801"], out.stdout
    notes = [l for l in out.stderr.splitlines() if l.startswith("vmmkit: ")]
    assert notes == ["vmmkit: hipModuleLoadData is not supported: needs device code",
                     "vmmkit: hipGraphClone is not supported: not emulated by vmmkit yet"], out.stderr
    quiet = machine.run([PY, CHILD, "unsupported"], capture_output=True, text=True, check=True,
                        env={"VMMKIT_QUIET": "1"})
    assert "not supported" not in quiet.stderr, quiet.stderr
""",
    )
    calls = [e for e in events if e["ph"] == "X"]
    assert [e["name"] for e in calls].count("hipModuleLoadData") == 4, calls
    load = next(e for e in calls if e["name"] == "hipModuleLoadData")
    assert load["args"]["returned"] == "801"
    assert load["args"]["message"].startswith("hipModuleLoadData: needs device code"), load
    assert sum(1 for e in events if e["name"] == "process_name") == 2, "each process counted"


def test_out_parameters_are_traced_by_value(pytester: pytest.Pytester, tmp_path: Path) -> None:
    events = run_traced(
        pytester,
        tmp_path,
        """
def test_pair(machine, tmp_path):
    handle = str(tmp_path / "handle")
    exporter = machine.popen([PY, CHILD, "export", handle])
    machine.run([PY, CHILD, "import", handle], check=True)
    assert exporter.wait(timeout=60) == 0
""",
    )
    calls = {e["name"]: e for e in events if e["ph"] == "X"}
    # hipMalloc's first argument is where the pointer goes: shown with the pointer written.
    addr, arrow, value = calls["hipMalloc"]["args"]["ptr"].partition(" \u2192 ")
    assert arrow and value.startswith("0x"), calls["hipMalloc"]
    # The importer's pointer comes from hipIpcOpenMemHandle's out-parameter.
    assert " \u2192 0x" in calls["hipIpcOpenMemHandle"]["args"]["devPtr"], calls["hipIpcOpenMemHandle"]
    # hipFree's argument is the same pointer the exporter's hipMalloc wrote.
    assert calls["hipFree"]["args"]["ptr"] == value
    # The IPC handle the exporter got is shown by its bytes, and the importer passed the same ones.
    _, arrow, written = calls["hipIpcGetMemHandle"]["args"]["handle"].partition(" \u2192 ")
    assert arrow and written.startswith("hipIpcMemHandle_t(") and "zero bytes" in written, calls["hipIpcGetMemHandle"]
    assert calls["hipIpcOpenMemHandle"]["args"]["handle"] == written, calls["hipIpcOpenMemHandle"]
    names = sorted(e["args"]["name"] for e in events if e["name"] == "process_name")
    assert len(names) == 2, names


def test_one_process_with_both_drop_ins_is_one_process(pytester: pytest.Pytester, tmp_path: Path) -> None:
    events = run_traced(
        pytester,
        tmp_path,
        """
def test_both(machine):
    machine.run([PY, CHILD, "both"], check=True)
""",
    )
    assert sum(1 for e in events if e["name"] == "process_name") == 1, events
    assert sum(1 for e in events if e["name"] == "exit") == 1
    calls = {e["name"] for e in events if e["ph"] == "X"}
    assert {"aclrtMalloc", "hipMalloc"} <= calls


def test_stand_ins_only_when_asked(pytester: pytest.Pytester) -> None:
    body = """
LOAD = "import ctypes; print(ctypes.CDLL('libroctracer64.so.4').roctracer_open_pool_expl(None, None))"

def test_load(machine):
    r = machine.run([PY, "-c", LOAD], capture_output=True, text=True)
    print(r.stdout, r.stderr)
    assert r.returncode == 0 and r.stdout.strip() == "-8"
    assert "libroctracer64.so.4 is a stand-in" in r.stderr
"""
    inner(pytester, body).assert_outcomes(failed=1)
    inner(pytester, body, "--vmmkit-stand-ins").assert_outcomes(passed=1)
    marked = body.replace("def test_load", "@pytest.mark.vmmkit(stand_ins=True)\ndef test_load")
    inner(pytester, marked).assert_outcomes(passed=1)
