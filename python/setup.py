"""Builds the vmmkit wheel: the Python package plus, in ``vmmkit/_bin/``,
the ``vmmkit`` command and the drop-in libraries ``libascendcl.so`` and
``libamdhip64.so`` from the Rust workspace one directory up, the stand-ins
for companion libraries (``vmmkit/_bin/stand-ins/``, for ``vmmkit run
--stand-ins``), and the ACL headers in ``vmmkit/include/``.

``cargo build --release`` builds the three (set ``VMMKIT_PREBUILT=DIR`` to
take them from DIR instead); each is copied with its debug information
stripped. The wheel is tagged ``py3-none-manylinux_2_<N>_<arch>``, N being
the newest glibc symbol version the three need (read with ``objdump -T``),
which is what ``auditwheel show`` checks; their only other needs are
``libgcc_s.so.1`` and glibc itself, both in the manylinux policy.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1 carries bdist_wheel itself
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover - older setuptools
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
WORKSPACE = HERE.parent
PRODUCTS = ("vmmkit", "libascendcl.so", "libamdhip64.so")
PACKAGES = ("vmmkit-conformance", "vmmkit-shim-ascendcl", "vmmkit-shim-amdhip64")
HEADERS = WORKSPACE / "emulator" / "shims" / "ascendcl" / "include"
STAND_INS = "stand-ins"  # vmmkit_standins::DIR, beside the command


def built_products() -> Path:
    """The directory holding the three products, built now unless prebuilt."""
    pre = os.environ.get("VMMKIT_PREBUILT")
    if pre:
        return Path(pre)
    cmd = ["cargo", "build", "--release", "--lib", "--bin", "vmmkit"]
    for p in PACKAGES:
        cmd += ["-p", p]
    subprocess.run(cmd, cwd=WORKSPACE, check=True)
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=WORKSPACE,
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(json.loads(meta.stdout)["target_directory"]) / "release"


def glibc_minor(files: list[Path]) -> int:
    """The newest ``GLIBC_2.N`` symbol version any of ``files`` needs."""
    newest = 17  # manylinux2014, the oldest tag pip still installs
    for f in files:
        out = subprocess.run(["objdump", "-T", str(f)], check=True, capture_output=True, text=True).stdout
        for m in re.finditer(r"GLIBC_2\.(\d+)", out):
            newest = max(newest, int(m.group(1)))
    return newest


class BuildPyWithCargo(build_py):
    """build_py, then the Rust products and the headers into the package."""

    def run(self) -> None:
        super().run()
        pkg = Path(self.build_lib) / "vmmkit"
        out = pkg / "_bin"
        out.mkdir(parents=True, exist_ok=True)
        src = built_products()
        for name in PRODUCTS:
            dst = out / name
            if dst.exists():
                dst.unlink()
            shutil.copyfile(src / name, dst)
            subprocess.run(["strip", "--strip-debug", str(dst)], check=True)
            dst.chmod(0o755)
        stand_ins = out / STAND_INS
        if stand_ins.exists():
            shutil.rmtree(stand_ins)
        stand_ins.mkdir()
        for lib in sorted((src / STAND_INS).glob("lib*.so*")):
            shutil.copyfile(lib, stand_ins / lib.name)
            (stand_ins / lib.name).chmod(0o755)
        inc = pkg / "include"
        if inc.exists():
            shutil.rmtree(inc)
        shutil.copytree(HEADERS, inc)


class BinaryDistribution(Distribution):
    """Holds platform binaries: installed to platlib, the wheel not pure."""

    def has_ext_modules(self) -> bool:
        return True


class ManylinuxWheel(bdist_wheel):
    """A wheel for any Python 3 on this platform, tagged manylinux by glibc."""

    def get_tag(self) -> tuple[str, str, str]:
        bin_dir = Path(self.bdist_dir) / "vmmkit" / "_bin"
        files = [bin_dir / n for n in PRODUCTS if (bin_dir / n).exists()]
        files += sorted((bin_dir / STAND_INS).glob("lib*.so*"))
        plat = f"manylinux_2_{glibc_minor(files)}_{platform.machine()}"
        return "py3", "none", plat


setup(distclass=BinaryDistribution, cmdclass={"build_py": BuildPyWithCargo, "bdist_wheel": ManylinuxWheel})
