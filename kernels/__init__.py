"""Triton kernels of iclr26, installed as ``iclr26.kernels``, and the one dispatch rule they all share.

Each kernel lives in its own module (``kernels/<name>.py``) with the ``@triton.jit`` kernel(s), a thin
launcher that checks shapes, dtypes and devices, and a pure-PyTorch reference of the same computation.
This package holds what every kernel module and every paper module that calls one needs, once:

* ``triton_available()`` / ``interpreting()``: is ``triton`` installed; does it run in its CPU interpreter
  (``TRITON_INTERPRET=1``, which must be set before a kernel module is imported: Triton reads it when
  ``@triton.jit`` decorates a kernel).
* ``import_triton()``: ``(triton, triton.language)``, or ``(None, None)`` when triton is not installed. Only a
  *missing* triton is tolerated (``ImportError``); any other error while importing it propagates. A kernel
  module starts with ``triton, tl = import_triton()`` and defines its kernels under ``if triton is not None:``.
* ``require_triton()`` / ``check_triton_path(*tensors)``: the launcher's guard. It raises a clear
  ``RuntimeError`` when triton is missing (with the reason it failed to import) and a ``ValueError`` for
  CPU tensors outside the interpreter. It is called only on the Triton path, so a CPU user without
  triton never sees it.
* ``select_backend(*tensors, backend="auto")`` and ``dispatch(kernel, reference, *args, backend=...)``: the
  rule of the project (see ``select_backend``): CUDA tensors -> the Triton kernel, CPU tensors -> the
  PyTorch reference; ``backend="triton"`` runs the kernel on CPU tensors under ``TRITON_INTERPRET=1``.

Paper modules import their kernel module at the top (``from iclr26.kernels import lmkan as _kernel``; it
imports without triton) and dispatch with ``dispatch``/``select_backend``: no lazy imports, no
``try/except Exception`` around an import.

Adopting the helpers in a kernel module (``kernels/anybcq.py`` and ``kernels/lmkan.py`` do this)::

    from . import check_triton_path, import_triton, interpreting   # re-export `interpreting` in __all__
    triton, tl = import_triton()                                     # replaces try/except ImportError
    HAS_TRITON = triton is not None
    if HAS_TRITON:
        @triton.jit
        def _my_kernel(...): ...
    def my_op(a, b):                                                 # the launcher
        ...shape and dtype checks...
        check_triton_path(a, b, what="my_op (the Triton path)")      # replaces the HAS_TRITON / CUDA checks

and in the paper module (instead of ``try: import ... except Exception``)::

    from iclr26.kernels import dispatch, my_kernel as _kernel
    y = dispatch(_kernel.my_op, my_op_reference, a, b)               # CUDA -> Triton, CPU -> the reference

A kernel gets its GPU check by having ``kernels/bench_<name>.py`` (see ``kernels/_bench.py``) and
``tests/test_kernel_<name>.py``: ``kernels/gpu_check.py`` (``make gpu-check``) finds both by name.
"""
from __future__ import annotations

import importlib, importlib.util, os, warnings

__all__ = ["BACKENDS", "triton_available", "interpreting", "import_triton", "require_triton", "check_triton_path",
           "select_backend", "dispatch"]

BACKENDS = ("auto", "torch", "triton")
_TRITON_ERROR: ImportError | None = None   # why `import triton` failed (None: not tried yet, or it worked)
_WARNED_NO_TRITON = False


def triton_available() -> bool:
    "True when the `triton` package can be found (it is optional for CPU-only users)."
    return importlib.util.find_spec("triton") is not None


def interpreting() -> bool:
    "True when Triton runs in its CPU interpreter (`TRITON_INTERPRET` set to anything but '' or '0')."
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def import_triton():
    """`(triton, triton.language)`, or `(None, None)` when triton is not installed.

    Only `ImportError` is caught (and remembered for `require_triton`'s message): a bug inside triton or in
    the caller is never swallowed."""
    global _TRITON_ERROR
    try:
        triton = importlib.import_module("triton")
        tl = importlib.import_module("triton.language")
    except ImportError as e:
        _TRITON_ERROR = e
        return None, None
    _TRITON_ERROR = None
    return triton, tl


def require_triton(what: str = "the Triton path") -> None:
    "Raise a clear `RuntimeError` when triton cannot be imported; called only where the Triton path is needed."
    if _TRITON_ERROR is None and triton_available(): return
    reason = f": {_TRITON_ERROR}" if _TRITON_ERROR is not None else " (it is not installed)"
    raise RuntimeError(f"{what} needs the `triton` package{reason}; install it (`pip install triton`, or the "
                       "project's `dev` extra), or use the PyTorch reference (CPU tensors, backend='torch')")


def _tensors(args) -> list:
    import torch
    return [a for a in args if isinstance(a, torch.Tensor)]


def _device_type(tensors, what: str) -> str:
    devs = {t.device for t in tensors}
    if len(devs) > 1: raise ValueError(f"{what}: tensors must be on one device, got {sorted(map(str, devs))}")
    return next(iter(devs)).type if devs else "cpu"


def check_triton_path(*tensors, what: str = "the Triton path") -> None:
    """The launcher's guard: triton importable, and `tensors` (None entries skipped) on one CUDA device, or on the
    CPU under `TRITON_INTERPRET=1`. Raises `RuntimeError` (no triton) or `ValueError` (devices)."""
    require_triton(what)
    dev = _device_type(_tensors(tensors), what)
    if dev != "cuda" and not interpreting():
        raise ValueError(f"{what} needs CUDA tensors (or TRITON_INTERPRET=1 for CPU tensors); "
                         f"the operands are on {dev}")


def select_backend(*tensors, backend: str = "auto") -> str:
    """'triton' or 'torch' for operands `tensors` (non-tensors are ignored), by the project's rule:

    * `backend="torch"`: the PyTorch reference, anywhere.
    * `backend="triton"`: the Triton kernel; CUDA tensors, or CPU tensors under `TRITON_INTERPRET=1`
      (`check_triton_path` raises otherwise, and when triton is missing).
    * `backend="auto"` (default): CUDA tensors -> 'triton'; CPU tensors -> 'torch', also under the interpreter
      (test sessions set `TRITON_INTERPRET=1` process-wide, and the interpreter is far too slow to train with;
      ask for `backend="triton"` to run a kernel in it). On CUDA without triton, 'torch' with a one-time warning.
    Tensors on different devices are a `ValueError`."""
    global _WARNED_NO_TRITON
    if backend not in BACKENDS: raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    ts = _tensors(tensors)
    dev = _device_type(ts, "dispatch")
    if backend == "torch": return "torch"
    if backend == "triton":
        check_triton_path(*ts)
        return "triton"
    if dev != "cuda": return "torch"
    if _TRITON_ERROR is not None or not triton_available():
        if not _WARNED_NO_TRITON:
            warnings.warn("CUDA tensors but no `triton` package: falling back to the PyTorch reference", RuntimeWarning)
            _WARNED_NO_TRITON = True
        return "torch"
    return "triton"


def dispatch(kernel, reference, *args, backend: str = "auto", **kwargs):
    """`kernel(*args, **kwargs)` or `reference(*args, **kwargs)`, chosen by `select_backend` from the tensors among
    `args` and `kwargs`. Errors inside either function propagate unchanged."""
    which = select_backend(*args, *kwargs.values(), backend=backend)
    return (kernel if which == "triton" else reference)(*args, **kwargs)
