"""Triton kernels of iclr26, installed as ``iclr26.kernels``.

Each kernel lives in its own module with the ``@triton.jit`` kernel(s), a thin launcher that checks
shapes, dtypes and devices, and a pure-PyTorch reference of the same computation. Set
``TRITON_INTERPRET=1`` before importing a kernel module to run the Triton path on the CPU.
"""
import importlib.util

def triton_available() -> bool:
    "True when the `triton` package can be imported (it is optional for CPU-only users)."
    return importlib.util.find_spec("triton") is not None
