"""The iclr26 command: clear errors for unknown papers and scales, listing, scoreboard."""
import os, subprocess, sys
from pathlib import Path

import pytest

from conftest import ROOT

EXE = Path(sys.executable).parent / "iclr26"


def run(*args, **kw):
    return subprocess.run([str(EXE), *args], cwd=ROOT, capture_output=True, text=True, timeout=120, **kw)


def test_list():
    r = run("list")
    assert r.returncode == 0
    assert "smoke, demo, full" in r.stdout and "arena" in r.stdout


def test_unknown_paper_is_a_clear_error():
    r = run("reproduce", "no_such_paper", "--scale", "smoke")
    assert r.returncode == 2
    assert "unknown paper 'no_such_paper'" in r.stderr and "valid:" in r.stderr


@pytest.mark.parametrize("cmd", [["reproduce", "all"], ["scoreboard"], ["docs"]])
def test_unknown_scale_is_a_clear_error(cmd):
    r = run(*cmd, "--scale", "huge")
    assert r.returncode == 2
    assert "scale must be one of smoke, demo, full" in r.stderr


def test_no_command_shows_usage():
    r = run()
    assert r.returncode != 0 and "usage" in r.stderr


def test_scoreboard_empty_and_markdown(tmp_path):
    r = run("scoreboard", "--results", str(tmp_path), "--markdown", str(tmp_path / "s.md"))
    assert r.returncode == 0 and "no results yet" in r.stdout
    assert (tmp_path / "s.md").read_text().startswith("_no results")


def test_readme_is_up_to_date(tmp_path):
    from iclr26.cli import readme
    out = readme(out=tmp_path / "README.md")
    assert out.read_text() == (ROOT / "README.md").read_text(), "README.md is stale: run `.venv/bin/iclr26 readme`"


def test_package_is_exported_from_notebooks():
    "iclr26/*.py matches the notebooks (nbdev-export, then `iclr26 readme`, were run after the last notebook edit)."
    import shutil, tempfile
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for p in ("nbs", "iclr26", "kernels"):
            shutil.copytree(ROOT / p, tmp / p)
        shutil.copy(ROOT / "pyproject.toml", tmp)
        r = subprocess.run([str(Path(sys.executable).parent / "nbdev-export")], cwd=tmp, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        # nbdev-export lists only modules with a multi-line docstring in __init__.py; `iclr26 readme` lists them all
        from iclr26.cli import write_init
        write_init(tmp)
        stale = [f.name for f in sorted((ROOT / "iclr26").glob("*.py"))
                 if (tmp / "iclr26" / f.name).read_text() != f.read_text()]
        assert not stale, f"run `make export`: these modules differ from their notebooks: {stale}"


# --- papers from the notebooks' front matter, the package docstring, the headline scoreboard -------------------------

def test_papers_come_from_the_notebooks():
    from iclr26.cli import PLANNED, notebooks, papers
    ps = papers()
    assert [p.number for p in ps] == list(range(10, 29)), "19 papers, numbered 10..28"
    nbs = {nb.key: nb for nb in notebooks().values() if nb.number >= 10}
    for p in ps:
        if p.notebook is None:
            assert (p.number, p.key, p.stem, p.title) in PLANNED and p.key not in nbs
        else:
            assert p.notebook is nbs[p.key] or p.notebook == nbs[p.key]
            assert p.title and not p.title.startswith("#") and p.stem == p.notebook.path.stem
    arena = next(p for p in ps if p.key == "arena")
    assert arena.title == "Information-efficient arena evaluation" and arena.notebook.paper.startswith("Fewer Battles")


def test_a_notebook_replaces_its_planned_entry(tmp_path, monkeypatch):
    "A planned paper is listed until its notebook exists; then the notebook's own front matter wins."
    import json, shutil
    from iclr26 import cli
    from iclr26.cli import papers
    num, key, stem = 14, "planned_x", "14_planned_x"
    monkeypatch.setattr(cli, "PLANNED", [(num, key, stem, "A planned paper")])
    (tmp_path / "nbs").mkdir()
    shutil.copy(ROOT / "nbs" / "23_arena.ipynb", tmp_path / "nbs")
    ps = {p.key: p for p in papers(tmp_path)}
    assert ps[key].notebook is None and ps[key].title == "A planned paper" and list(ps) == [key, "arena"]
    cells = [{"cell_type": "markdown", "id": "a", "metadata": {},
              "source": [f"# {key}: a title from the notebook\n", "\n", "> One line.\n"]},
             {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": None, "outputs": [],
              "source": [f"#| default_exp {key}"]}]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nbs" / f"{stem}.ipynb").write_text(json.dumps(nb))
    ps = {p.key: p for p in papers(tmp_path)}
    assert ps[key].notebook is not None and ps[key].title == "A title from the notebook"
    assert ps[key].notebook.summary == "One line." and "arena" in ps


def test_package_docstring_lists_every_module(tmp_path):
    "help(iclr26) lists every module exported from a notebook (and the kernels), and __init__.py is up to date."
    import iclr26
    from iclr26.cli import package_docstring, write_init
    doc = package_docstring()
    generated = [f.stem for f in (ROOT / "iclr26").glob("*.py")
                 if "File to edit: ../nbs/" in f.read_text(errors="ignore")[:400] and not f.stem.startswith("_")]
    assert generated, "no generated modules found"
    for m in generated + ["kernels"]:
        assert f"- `iclr26.{m}`:" in doc, f"iclr26.{m} missing from the package docstring"
    out = write_init(out=tmp_path / "__init__.py")
    assert out.read_text() == (ROOT / "iclr26" / "__init__.py").read_text(), \
        "iclr26/__init__.py is stale: run `.venv/bin/iclr26 readme` (nbdev-export rewrites it with fewer modules)"
    assert iclr26.__doc__.strip() == doc.strip()


def _result(paper, kinds_passed, commit="0123456789abcdef", scale="full"):
    cs = [{"name": f"c{i}", "value": 2.0 if ok else 0.5, "op": ">=", "threshold": 1.0, "paper": 1.5, "gate": True,
           "passed": ok, "status": "pass" if ok else "FAIL", **({"kind": k} if k else {})}
          for i, (k, ok) in enumerate(kinds_passed)]
    return {"paper": paper, "scale": scale, "commit": commit, "passed": all(c["passed"] for c in cs), "claims": cs,
            "date": "2026-12-01T00:00:00+00:00", "wall_time_s": 1.0, "figures": []}


@pytest.fixture
def board(tmp_path):
    import json
    (tmp_path / "full").mkdir()
    rs = {"arena": _result("arena", [("headline", True), ("check", True), ("claim", False)]),
          "lmkan": _result("lmkan", [("headline", True), ("headline", False)], commit="abcdef0123+dirty"),
          "mase": _result("mase", [(None, True), (None, False)]),            # written before claims had a kind
          "tinylm": _result("tinylm", [("check", True)])}
    for k, r in rs.items():
        if k != "mase": r["reproducible"] = not r["commit"].endswith("+dirty")
        (tmp_path / "full" / f"{k}.json").write_text(json.dumps(r))
    return tmp_path


def test_scoreboard_leads_with_headlines(board):
    r = run("scoreboard", "--results", str(board), "--markdown", str(board / "s.md"), "--figure", str(board / "s.png"))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.index("Headline claims") < out.index("Every claim, per paper")
    line = lambda key: next(l for l in out.splitlines() if l.split()[1:2] == [key])
    assert "holds" in line("arena") and "0123456" in line("arena") and "⚠" not in line("arena")
    assert "fails" in line("lmkan") and "abcdef0+dirty ⚠" in line("lmkan")
    assert "no headline marked" in line("mase")           # old results: never a guessed verdict
    assert "not run yet" in line("duet") and "no headline marked" not in line("duet")
    assert "warning: lmkan (full) is not reproducible" in out and "warning: mase (full) is not reproducible" not in out
    md = (board / "s.md").read_text()
    assert md.index("## Headline claims") < md.index("## Every claim, per paper") and "![" in md
    assert "| holds |" in md and "| fails |" in md and "abcdef0+dirty ⚠ |" in md
    assert md.index("(toolkit)") > md.index("### [26. lmKAN") > md.index("[28 anybcq]"), "toolkits follow the papers"
    from PIL import Image
    assert Image.open(board / "s.png").size[0] > 500


def test_readme_status_is_the_headline_verdict():
    from iclr26.cli import papers_markdown
    arena = _result("arena", [("headline", False), ("claim", True)])
    arena["reproducible"] = True
    md = papers_markdown(results=[arena])
    row = next(l for l in md.splitlines() if "23_arena" in l)
    assert "| fails |" in row and "1/2 hold" in row
    coarse = next(line for line in md.splitlines() if "22_coarse" in line)
    assert "| no headline marked |" not in row and "| not run yet |" in coarse


def test_full_reproduce_refuses_a_dirty_tree(monkeypatch, capsys):
    "The CLI checks provenance before spending the run: a dirty tree at full scale is refused at once."
    from iclr26 import cli, core
    monkeypatch.delenv("ICLR26_ALLOW_DIRTY", raising=False)
    monkeypatch.setattr(core, "git_commit", lambda root=None: "0123abcd+dirty")
    monkeypatch.setattr(cli, "run_notebook", lambda *a, **k: pytest.fail("a notebook ran from a dirty tree"))
    assert cli.main(["reproduce", "arena", "--scale", "full"]) == 2
    assert "commit first, then run full" in capsys.readouterr().err


def test_notebooks_draw_inline_even_under_a_headless_backend(monkeypatch, tmp_path):
    "The tests set MPLBACKEND=Agg; a notebook's kernel must still draw inline, or its docs page has no figure."
    import papermill
    from iclr26.cli import notebook_info, run_notebook
    seen = {}
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setattr(
        papermill, "execute_notebook", lambda *a, **k: seen.update(backend=os.environ.get("MPLBACKEND"))
    )
    r = run_notebook(notebook_info(ROOT / "nbs" / "00_core.ipynb"), "smoke", tmp_path)
    assert r.ok and seen["backend"] == "module://matplotlib_inline.backend_inline"
    assert os.environ["MPLBACKEND"] == "Agg", "the caller's backend is restored"


def test_run_notebook_starts_a_quiet_kernel(monkeypatch, tmp_path):
    "ipykernel's 'running over TCP without encryption' warning would print on every run: the kernel logs errors only."
    import papermill
    from iclr26.cli import notebook_info, run_notebook
    seen = {}
    monkeypatch.setattr(papermill, "execute_notebook", lambda *a, **k: seen.update(k))
    assert run_notebook(notebook_info(ROOT / "nbs" / "00_core.ipynb"), "smoke", tmp_path).ok
    assert seen["extra_arguments"] == ["--IPKernelApp.log_level=ERROR"]
