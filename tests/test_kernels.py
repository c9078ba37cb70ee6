"""Triton works here (compiled on a GPU, in its interpreter on the CPU), every kernel module in kernels/ imports, and
the one dispatch rule of `iclr26.kernels` (CUDA -> Triton, CPU -> the PyTorch reference) holds.

Each kernel's own tests (tests/test_kernel_<name>.py) compare its Triton path with its PyTorch reference.
"""
import importlib
from pathlib import Path

import pytest
import torch

from conftest import ROOT

triton = pytest.importorskip("triton")
import triton.language as tl

import iclr26.kernels as KP
from helpers import DEV

assert DEV == "cuda" or KP.interpreting(), "conftest must set TRITON_INTERPRET=1 before triton is imported on a CPU"


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
    x, y = torch.randn(n, dtype=dtype, device=DEV), torch.randn(n, dtype=dtype, device=DEV)
    out = torch.empty_like(x)
    _axpy_kernel[(triton.cdiv(n, 128),)](x, y, out, 2.0, n, BLOCK=128)
    torch.testing.assert_close(out, 2.0 * x + y)


KERNELS = sorted(p.stem for p in (ROOT / "kernels").glob("*.py")
                 if p.stem != "__init__" and not p.stem.startswith("bench"))


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
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path)]
    r = subprocess.run(cmd + [str(ROOT)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    names = zipfile.ZipFile(next(tmp_path.glob("iclr26-*.whl"))).namelist()
    assert "iclr26/kernels/__init__.py" in names and "iclr26/core.py" in names
    assert "iclr26/data/lmarena_elo.json" in names, "package data (the arena ratings) missing from the wheel"
    assert all(f"iclr26/kernels/{k}.py" in names for k in KERNELS)


# ---------------------------------------------------------------------------------------------
# the shared helpers of iclr26.kernels: one interpreting(), one import rule, one dispatch rule
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value,expected", [("1", True), ("0", False), ("", False), ("true", True)])
def test_interpreting_reads_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv("TRITON_INTERPRET", value)
    assert KP.interpreting() is expected
    monkeypatch.delenv("TRITON_INTERPRET")
    assert KP.interpreting() is False


def test_kernel_modules_share_the_helpers():
    "No kernel module defines its own interpreting() or swallows errors around its imports."
    for name in [k for k in KERNELS if not k.startswith("_") and k != "gpu_check"]:
        mod = importlib.import_module(f"iclr26.kernels.{name}")
        assert mod.interpreting is KP.interpreting, name
        assert mod.HAS_TRITON is (mod.triton is not None), name
    users = [p for p in (ROOT / "iclr26").glob("*.py") if "from .kernels import" in p.read_text()]
    assert {p.stem for p in users} >= {"anybcq", "lmkan", "discrete_sb"}
    for path in [ROOT / "kernels" / f"{k}.py" for k in KERNELS] + users:
        src = path.read_text()
        assert "except Exception" not in src, f"{path.name}: a bare `except Exception` would swallow real bugs"
        assert "def interpreting" not in src, f"{path.name}: use iclr26.kernels.interpreting"
        assert 'import_module("iclr26.kernels' not in src, f"{path.name}: import the kernel module at the top"


def test_select_backend_rule(monkeypatch):
    x = torch.zeros(2, 3)
    assert KP.select_backend(x, backend="torch") == "torch"
    assert KP.select_backend(x, None, 3, backend="auto") == "torch"          # CPU -> the reference (also interpreted)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert KP.select_backend(x) == "torch"
    assert KP.select_backend(x, backend="triton") == "triton"               # asked for: the kernel in the interpreter
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    with pytest.raises(ValueError, match="CUDA tensors"):
        KP.select_backend(x, backend="triton")
    with pytest.raises(ValueError, match="backend must be one of"):
        KP.select_backend(x, backend="cuda")
    with pytest.raises(ValueError, match="one device"):
        KP.select_backend(x, torch.zeros(2, device="meta"))


def test_auto_on_cuda_picks_triton_and_falls_back_without_it(monkeypatch):
    monkeypatch.setattr(KP, "_device_type", lambda ts, what: "cuda")       # pretend the operands are on a GPU
    assert KP.select_backend(torch.zeros(1)) == "triton"
    monkeypatch.setattr(KP, "_TRITON_ERROR", ImportError("No module named 'triton'"))
    monkeypatch.setattr(KP, "_WARNED_NO_TRITON", False)
    with pytest.warns(RuntimeWarning, match="falling back"):
        assert KP.select_backend(torch.zeros(1)) == "torch"


def test_missing_triton_errors_only_on_the_triton_path(monkeypatch):
    monkeypatch.setattr(KP, "_TRITON_ERROR", ImportError("No module named 'triton'"))
    x = torch.zeros(2)
    assert KP.select_backend(x) == "torch"                                   # CPU users never see it
    assert KP.dispatch(lambda t: "kernel", lambda t: "reference", x) == "reference"
    with pytest.raises(RuntimeError, match="needs the `triton` package: No module named 'triton'"):
        KP.select_backend(x, backend="triton")
    with pytest.raises(RuntimeError, match="bcq_matmul needs the `triton` package"):
        KP.require_triton("bcq_matmul")


def test_import_triton_catches_only_import_errors(monkeypatch):
    monkeypatch.setattr(KP, "_TRITON_ERROR", None)
    def missing(name):
        raise ModuleNotFoundError(f"No module named {name!r}")
    monkeypatch.setattr(KP.importlib, "import_module", missing)
    assert KP.import_triton() == (None, None)
    assert isinstance(KP._TRITON_ERROR, ImportError)
    def broken(name):
        raise AttributeError("a real bug inside triton")
    monkeypatch.setattr(KP.importlib, "import_module", broken)
    with pytest.raises(AttributeError, match="real bug"):
        KP.import_triton()


def test_dispatch_passes_arguments_and_never_swallows_errors(monkeypatch):
    x = torch.ones(3)
    assert KP.dispatch(lambda t, s=1: ("k", s), lambda t, s=1: ("r", s), x, s=2) == ("r", 2)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert KP.dispatch(lambda t, s=1: ("k", s), lambda t, s=1: ("r", s), t=x, backend="triton") == ("k", 1)
    def buggy(t):
        raise KeyError("bug in the reference")
    with pytest.raises(KeyError, match="bug in the reference"):
        KP.dispatch(buggy, buggy, x)
