"""CANN sample 7 (two processes sharing device memory through
aclrtMemExportToShareableHandle / aclrtMemImportFromShareableHandle, the
importer's pid on the trustlist) built against the wheel's headers and
libascendcl.so, and run on the test's private machine.

    VMMKIT_SAMPLES=emulator/shims/ascendcl/tests/c pytest python/examples
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import vmmkit

SAMPLES = Path(os.environ.get("VMMKIT_SAMPLES", "emulator/shims/ascendcl/tests/c")).resolve()


@pytest.fixture
def pair(tmp_path: Path) -> Path:
    if not (SAMPLES / "sample7_a.c").is_file() or shutil.which("cc") is None:
        pytest.skip(f"needs a C compiler and the CANN samples in {SAMPLES}")
    for name in ("sample7_a", "sample7_b"):
        subprocess.run(
            ["cc", "-std=c11", "-I", vmmkit.include_dir(), "-I", SAMPLES, "-o", tmp_path / name,
             SAMPLES / f"{name}.c", "-L", vmmkit.lib_dir(), "-lascendcl"],
            check=True,
        )
    (tmp_path / "file").mkdir()
    return tmp_path


@pytest.mark.vmmkit(devices=2, memory="1G")
def test_cann_sample7_pair(machine, pair):
    a = machine.popen(["./sample7_a"], cwd=pair, stdout=subprocess.PIPE, text=True)
    b = machine.run(["./sample7_b"], cwd=pair, capture_output=True, text=True)
    assert b.returncode == 0, b.stderr
    out, _ = a.communicate(timeout=60)
    assert a.returncode == 0
    assert "Source data: 123" in out and "Destination data: 123" in b.stdout
