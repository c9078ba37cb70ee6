"""Triton under the interpreter works on this machine, and every kernel module in kernels/ imports.

Each kernel's own tests (tests/test_kernel_<name>.py) compare its Triton path with its PyTorch reference.
"""
import importlib, os
from pathlib import Path

import pytest
import torch

from conftest import ROOT

triton = pytest.importorskip("triton")
import triton.language as tl

assert os.environ.get("TRITON_INTERPRET") == "1", "conftest must set TRITON_INTERPRET=1 before triton is imported"


@triton.jit
def _axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


@pytest.mark.parametrize("n", [1, 127, 128, 1000])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_interpreter_runs_a_kernel(n, dtype):
    x, y = torch.randn(n, dtype=dtype), torch.randn(n, dtype=dtype)
    out = torch.empty_like(x)
    _axpy_kernel[(triton.cdiv(n, 128),)](x, y, out, 2.0, n, BLOCK=128)
    torch.testing.assert_close(out, 2.0 * x + y)


KERNELS = sorted(p.stem for p in (ROOT / "kernels").glob("*.py") if p.stem != "__init__" and not p.stem.startswith("bench"))


@pytest.mark.parametrize("name", KERNELS or ["(none yet)"])
def test_kernel_modules_import(name):
    if name == "(none yet)":
        pytest.skip("no kernel modules yet")
    mod = importlib.import_module(f"iclr26.kernels.{name}")
    assert mod.__doc__, f"kernels/{name}.py needs a module docstring"


def test_kernels_package_maps_to_kernels_folder():
    import iclr26.kernels
    assert Path(iclr26.kernels.__file__).resolve().parent == (ROOT / "kernels").resolve()


def test_wheel_ships_kernels(tmp_path):
    "A wheel of the project installs kernels/ as iclr26.kernels."
    import subprocess, sys, zipfile
    pytest.importorskip("setuptools")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    names = zipfile.ZipFile(next(tmp_path.glob("iclr26-*.whl"))).namelist()
    assert "iclr26/kernels/__init__.py" in names and "iclr26/core.py" in names
    assert "iclr26/data/lmarena_elo.json" in names, "package data (the arena ratings) missing from the wheel"
    assert all(f"iclr26/kernels/{k}.py" in names for k in KERNELS)
