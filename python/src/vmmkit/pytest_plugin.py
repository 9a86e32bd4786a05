"""The pytest plugin (entry point ``pytest11``): each test that asks for the
``vmmkit_machine`` fixture (or its short name ``machine``) gets a private
emulated machine; the processes it starts there are checked for leaks when
the test ends.

Settings per test, with the ``vmmkit`` marker::

    @pytest.mark.vmmkit(devices=2, memory="1G", faults=None, streams="adversarial",
                        leaks_ok=False, timeout=120, stand_ins=False)

``leaks_ok=True`` (or the marker ``vmmkit_leaks_ok``) lets a test leave
memory unreleased. The report is ``machine.report`` once the test has run
and is printed with the test's other output when it fails.

Options: ``--vmmkit-trace DIR`` writes one Chrome trace-event file per test
(``DIR/<test id>.json``); ``--vmmkit-stand-ins`` gives every test's machine
the stand-ins for the vendors' companion libraries (``vmmkit run
--stand-ins``), as ``stand_ins=True`` does for one test.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Generator, Optional

import pytest

from ._machine import Machine

_KEY = pytest.StashKey[Machine]()
# Set when the leak check failed the test (its message has the report).
_FAILED = pytest.StashKey[bool]()
_SETTINGS = ("devices", "memory", "faults", "streams", "timeout", "env", "stand_ins")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("vmmkit", "emulated accelerator machines (vmmkit)")
    group.addoption(
        "--vmmkit-trace",
        metavar="DIR",
        default=None,
        help="write every call of each test's processes to DIR/<test id>.json (Chrome trace-event JSON)",
    )
    group.addoption(
        "--vmmkit-stand-ins",
        action="store_true",
        default=False,
        help="give each test's machine stand-ins for the vendors' companion libraries (librocfft.so.0, "
        "libroctracer64.so.4), as `vmmkit run --stand-ins`",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "vmmkit(devices=None, memory=None, faults=None, streams=None, leaks_ok=False, timeout=120, env=None, "
        "stand_ins=False): "
        "settings of the test's emulated machine",
    )
    config.addinivalue_line("markers", "vmmkit_leaks_ok: the test's processes may leave memory unreleased")


def _trace_file(config: pytest.Config, nodeid: str) -> Optional[Path]:
    d = config.getoption("--vmmkit-trace")
    if not d:
        return None
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_")
    return Path(d).resolve() / f"{name}.json"


def _leaks_ok(item: pytest.Item) -> bool:
    m = item.get_closest_marker("vmmkit")
    return item.get_closest_marker("vmmkit_leaks_ok") is not None or bool(m and m.kwargs.get("leaks_ok"))


@pytest.fixture
def vmmkit_machine(request: pytest.FixtureRequest) -> Generator[Machine, None, None]:
    """A private emulated machine for this test: ``machine.env``,
    ``machine.run([...])``, ``machine.popen([...])``, ``machine.root``,
    ``machine.ls()``; ``machine.report`` after the test."""
    marker = request.node.get_closest_marker("vmmkit")
    kwargs: dict[str, Any] = {k: v for k, v in (marker.kwargs if marker else {}).items() if k in _SETTINGS}
    if request.config.getoption("--vmmkit-stand-ins"):
        kwargs.setdefault("stand_ins", True)
    m = Machine(
        trace=_trace_file(request.config, request.node.nodeid),
        name=request.node.nodeid,
        **kwargs,
    )
    m.start()
    request.node.stash[_KEY] = m
    try:
        yield m
    finally:
        report = m.close()
        if report.text and not request.node.stash.get(_FAILED, False):
            request.node.add_report_section("teardown", "vmmkit", report.text)


@pytest.fixture
def machine(vmmkit_machine: Machine) -> Machine:
    """The ``vmmkit_machine`` fixture, by its short name."""
    return vmmkit_machine


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, None]:
    """Closes the test's machine as the test ends, so that a leak fails the
    test itself (not its teardown)."""
    outcome = yield
    m = item.stash.get(_KEY, None)
    if m is None:
        return
    report = m.close()
    if outcome.excinfo is not None:
        return
    problems = []
    if m.left_running:
        problems.append("still running at the end of the test (killed): " + "; ".join(" ".join(c) for c in m.left_running))
    if report.leaked and not _leaks_ok(item):
        problems.append("a process left accelerator memory unreleased (mark the test vmmkit_leaks_ok to allow it)")
    if problems:
        msg = "vmmkit: " + "\nvmmkit: ".join(problems) + "\n" + report.text
        item.stash[_FAILED] = True
        try:
            outcome.force_exception(pytest.fail.Exception(msg, pytrace=False))
        except AttributeError:  # pluggy < 1.1
            pytest.fail(msg, pytrace=False)
