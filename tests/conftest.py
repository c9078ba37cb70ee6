"""Test-session settings and markers. TRITON_INTERPRET must be set before any kernel module imports triton.

Shared helpers (relative error, edge inputs, the test device) are in tests/helpers.py.
"""
import os
from pathlib import Path

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")   # Triton kernels run on the CPU in the interpreter (unset: GPU check)
os.environ.setdefault("ICLR26_QUIET", "1")       # no progress bars in test logs
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("HF_HUB_OFFLINE", "1")     # nothing is downloaded from a hub at run time
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

try:   # property tests (hypothesis): CI replays one fixed sequence of examples, so a green run stays green
    from hypothesis import settings as _hyp_settings
    _hyp_settings.register_profile("ci", derandomize=True, print_blob=True)
    if os.environ.get("CI"): _hyp_settings.load_profile("ci")
except ImportError:
    pass

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build" / "test"                 # executed notebooks and results of the test run (ignored)

# whole files that belong to one marker, so that `make test-fast` (-m "not notebook and not docs and not slow")
# never starts a kernel or a browser, whatever a test in them is called
FILE_MARKERS = {"test_notebooks.py": "notebook", "test_zdocs.py": "docs"}
# tests measured at > ~15 s on one core in files whose owners had not marked them yet (node-id prefixes); a file's
# own `@pytest.mark.slow` is the better place, and an entry here can move there when the file is next edited
SLOW_TESTS: tuple[str, ...] = ()


def pytest_collection_modifyitems(config, items):
    for item in items:
        mark = FILE_MARKERS.get(item.path.name)
        if mark: item.add_marker(getattr(pytest.mark, mark))
        if SLOW_TESTS and item.nodeid.startswith(SLOW_TESTS): item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def one_torch_thread():
    "Tiny models gain nothing from threads, and on a shared 2-core machine extra threads only spin."
    import torch
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)
