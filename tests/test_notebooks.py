"""Every notebook in nbs/ runs with papermill (papers and toolkits at scale='smoke'); its results file has no failed
gate.

Executed copies go to _build/test/nbs and results to _build/test/results, where the docs test picks them up.
Every test here carries the `notebook` marker: `make test-fast` deselects them (`-m "not notebook and not docs"`).
"""
import json, os
from pathlib import Path

import pytest

from conftest import BUILD, ROOT
from iclr26.cli import notebook_info, run_notebook

NBS = sorted((ROOT / "nbs").glob("*.ipynb"))
# a hard stop; the budget is 60 s (see the durations report)
SMOKE_LIMIT_S = float(os.environ.get("ICLR26_SMOKE_LIMIT", 240))
# ipykernel logs "Kernel is running over TCP without encryption ..." at every start (a local kernel on loopback):
# its app log goes to ERROR only; cell output, warnings raised in cells and tracebacks are untouched.
QUIET_KERNEL = ["--IPKernelApp.log_level=ERROR"]
# Notebooks whose smoke run is known to fail these gates, with the measured cause. Such a run is an expected
# failure (xfail, strict): any *other* error or failed gate still fails, and a run whose gates all hold fails
# as XPASS, so the entry must then be removed. Keep this list short and say why in the issue.
KNOWN_GATE_FAILURES = {
    "14_duet": ({"teacher sanity: forget EM with prefix", "teacher sanity: retain EM with prefix"},
                "at smoke scale (zoo `small`, 400 steps) DUET's prefixed teacher has not learnt the forget rule: it "
                "refuses most prefixed questions (forget EM 0.25, retain 0.232; gates <= 0.20, >= 0.90) and the "
                "notebook stops at its sanity gate; the rule-first curriculum needs `medium` and 2,400 steps "
                "(~10 min), where the gate holds (full, 172d18a: 0.00, 1.00; issue #30; 48b7974: worst "
                "of three held-out domains 0.00, 0.985)"),
}


@pytest.fixture(autouse=True)
def quiet_kernel(monkeypatch):
    "Start the notebooks' kernels with `QUIET_KERNEL` (unless the caller of papermill already passes arguments)."
    import papermill
    execute = papermill.execute_notebook

    def quiet(*args, **kwargs):
        kwargs.setdefault("extra_arguments", QUIET_KERNEL)
        return execute(*args, **kwargs)
    monkeypatch.setattr(papermill, "execute_notebook", quiet)


@pytest.mark.notebook
@pytest.mark.timeout(SMOKE_LIMIT_S + 60)
@pytest.mark.parametrize("path", NBS, ids=[p.stem for p in NBS])
def test_notebook(path: Path):
    nb = notebook_info(path)
    results = BUILD / "results"
    f = results / "smoke" / f"{nb.key}.json"
    if f.exists(): f.unlink()
    r = run_notebook(nb, "smoke", BUILD / "nbs", results=results, timeout=SMOKE_LIMIT_S)
    if path.stem in KNOWN_GATE_FAILURES:
        names, why = KNOWN_GATE_FAILURES[path.stem]
        assert f.exists(), f"{path.name} failed before recording its claims: {r.error}"
        failed = {c["name"] for c in json.loads(f.read_text())["claims"] if c["gate"] and not c["passed"]}
        assert failed, f"{path.name}: every gate holds now; remove it from KNOWN_GATE_FAILURES"
        assert failed <= names, f"{path.name}: unexpected failed gates {sorted(failed - names)}"
        pytest.xfail(f"known gate failure: {why}")
    assert r.ok, f"{path.name} failed after {r.seconds:.0f} s: {r.error}"
    if nb.runnable:  # papers and toolkits (a `scale` parameter) record their claims
        assert f.exists(), f"{path.name} ran but wrote no results file {f}"
        res = json.loads(f.read_text())
        failed = [c for c in res["claims"] if c["gate"] and not c["passed"]]
        assert not failed, f"failed gates: {failed}"
        assert res["claims"], "a notebook that records must record at least one claim"


@pytest.mark.notebook
@pytest.mark.timeout(120)
def test_kernel_start_is_quiet(tmp_path, capfd):
    "A papermill run prints no ipykernel 'over TCP without encryption' warning (its stderr is the test's stderr)."
    import nbformat
    nbf = nbformat.v4
    spec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb = nbf.new_notebook(cells=[nbf.new_code_cell("print('ran')")], metadata={"kernelspec": spec})
    src = tmp_path / "quiet.ipynb"
    nbformat.write(nb, src)
    r = run_notebook(notebook_info(src), "smoke", tmp_path / "out", timeout=60)
    assert r.ok, r.error
    assert "ran" in json.dumps(nbformat.read(r.output, as_version=4).cells[0].outputs)
    assert "without encryption" not in capfd.readouterr().err
