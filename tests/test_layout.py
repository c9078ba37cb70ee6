"""The project's layout check (../shared/tools/check_layout.py, when the shared folder is beside the checkout)."""
import subprocess, sys

import pytest

from conftest import ROOT

CHECK = ROOT.parent / "shared" / "tools" / "check_layout.py"


@pytest.mark.skipif(not CHECK.exists(), reason="../shared/tools/check_layout.py is not beside this checkout")
def test_layout_has_no_problem():
    r = subprocess.run([sys.executable, str(CHECK), str(ROOT)], capture_output=True, text=True, timeout=60)
    problems = [l for l in r.stdout.splitlines() if "PROBLEM" in l]
    assert not problems, "\n".join(problems)
