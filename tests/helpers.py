"""Shared test helpers: import them with `from helpers import ...` (pytest puts tests/ on the path).

One relative error and one set of edge inputs for every test file (the kernel benchmarks use the same two, from
`iclr26.kernels._bench`), the device the kernel tests run on, and the marker for tests of a Triton path.
"""
import pytest
import torch

from iclr26.kernels import interpreting
from iclr26.kernels._bench import edge_inputs, rel_err

__all__ = ["DEV", "rel_err", "edge_inputs", "to_dev", "needs_triton_path"]

DEV = "cuda" if torch.cuda.is_available() else "cpu"   # kernel tests run compiled on a GPU, interpreted on the CPU

# a test of a Triton path: CUDA, or the interpreter (conftest sets TRITON_INTERPRET=1 for the CPU test session)
needs_triton_path = pytest.mark.skipif(DEV == "cpu" and not interpreting(), reason="needs CUDA or TRITON_INTERPRET=1")


def to_dev(t):
    "`t` on the test device (`None` stays `None`)."
    return t.to(DEV) if t is not None else None
