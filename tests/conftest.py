"""Test-session settings. TRITON_INTERPRET must be set before any kernel module imports triton."""
import os
from pathlib import Path

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")   # Triton kernels run on the CPU in the interpreter
os.environ.setdefault("ICLR26_QUIET", "1")       # no progress bars in test logs
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("HF_HUB_OFFLINE", "1")     # nothing is downloaded from a hub at run time
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build" / "test"                 # executed notebooks and results of the test run (ignored)


@pytest.fixture(scope="module")
def one_torch_thread():
    "Tiny models gain nothing from threads, and on a shared 2-core machine extra threads only spin."
    import torch
    n = torch.get_num_threads(); torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)
