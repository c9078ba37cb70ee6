"""The iclr26 command: clear errors for unknown papers and scales, listing, scoreboard."""
import json, os, subprocess, sys
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
    "argparse's choices: the flag and the valid scales are named (issue #60)."
    r = run(*cmd, "--scale", "huge")
    assert r.returncode == 2
    assert "argument --scale: invalid choice: 'huge'" in r.stderr and "'smoke', 'demo', 'full'" in r.stderr


@pytest.mark.parametrize("cmd", ["reproduce", "scoreboard", "docs"])
def test_help_lists_the_scales(cmd):
    r = run(cmd, "--help")
    assert r.returncode == 0 and "{smoke,demo,full}" in r.stdout


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
    r = run("scoreboard", "--all", "--results", str(board), "--markdown", str(board / "s.md"), "--figure",
            str(board / "s.png"))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.index("Headline verdict per paper") < out.index("Headline claims and their evidence") \
        < out.index("Every claim, per paper")
    line = lambda key: next(l for l in out.splitlines() if l.split()[1:2] == [key])
    assert "holds" in line("arena") and "0123456" in line("arena") and "⚠" not in line("arena")
    assert "fails" in line("lmkan") and "abcdef0+dirty ⚠" in line("lmkan")
    assert "no headline marked" in line("mase")           # old results: never a guessed verdict
    assert "not run yet" in line("duet") and "no headline marked" not in line("duet")
    assert "warning: lmkan (full) is not reproducible" in out and "warning: mase (full) is not reproducible" not in out
    md = (board / "s.md").read_text()
    assert md.index("## Headline claims") < md.index("## Every claim, per paper") and "![" in md
    assert "| **holds** |" in md and "| **fails**" in md and "abcdef0+dirty ⚠ |" in md
    assert "ours [95 % CI]" in md and "| null |" in md and "How to read the verdicts" in md
    assert "(23_arena.html#what-we-found)" in md, "the reason links to the notebook's What we found"
    assert md.index("(toolkit)") > md.index("### [26. lmKAN") > md.index("[28 anybcq]"), "toolkits follow the papers"
    from PIL import Image
    assert Image.open(board / "s.png").size[0] > 500


@pytest.mark.parametrize("columns", [60, 100, 160])
@pytest.mark.parametrize("every", [[], ["--all"]])
def test_scoreboard_fits_the_terminal(board, columns, every):
    "The terminal table fits $COLUMNS: cells wrap, nothing is printed at a fixed 150 columns (issue #61)."
    env = {**os.environ, "COLUMNS": str(columns)}
    r = run("scoreboard", *every, "--results", str(board), env=env)
    assert r.returncode == 0, r.stderr
    wide = [l for l in r.stdout.splitlines() if len(l) > columns]
    assert not wide, wide[:3]
    real = run("scoreboard", *every, env=env)    # the committed results: long claims and reasons wrap too
    assert real.returncode == 0 and max(map(len, real.stdout.splitlines())) <= columns


def _committed_headlines():
    from iclr26.core import load_results
    rs = load_results("full", base=ROOT / "results")
    return rs, sum(c.get("kind") == "headline" for r in rs if r["paper"] != "zoo" for c in r["claims"])


@pytest.mark.parametrize("columns", [80, 150])
def test_scoreboard_is_short_and_reads_as_words(columns):
    "By default one line per paper (its reason may wrap) and one per headline (two below ~110 columns), no raw ids."
    rs, n_head = _committed_headlines()
    n_papers = len({r["paper"] for r in rs} - {"zoo"})
    out = run("scoreboard", "--scale", "full", env={**os.environ, "COLUMNS": str(columns)}).stdout
    lines = out.splitlines()
    per_headline = 1 if columns >= 120 else 2
    assert len(lines) <= 12 + 3 * n_papers + per_headline * n_head, len(lines)
    assert "real_target_speedup_pard_over_ar_T0" not in out and "SmolLM2 speed-up T=0: PARD / autoregressive" in out
    assert "d16_dlightsb_cond_shape" not in out and "3.67" in out, "the paper's value stands beside the label"
    assert "--all" in out, "the short table says how to see every claim"
    every = run("scoreboard", "--scale", "full", "--all", env={**os.environ, "COLUMNS": str(columns)}).stdout
    assert "results file: real_target_speedup_pard_over_ar_T0" in every, "--all names the file's claim"
    assert len(every.splitlines()) > 5 * len(lines)


def test_headline_labels_are_words_with_the_papers_value():
    from iclr26.cli import HEADLINE_LABELS, headline_label
    rs, _ = _committed_headlines()
    for r in rs:
        for c in (c for c in r["claims"] if c.get("kind") == "headline"):
            label, paper = headline_label(r["paper"], c["name"], str(c.get("paper", "")))
            assert " " in label and len(label) <= (44 if (r["paper"], c["name"]) in HEADLINE_LABELS else 200), label
            assert paper and len(paper) <= 36, (c["name"], paper)
    assert headline_label("pard", "measured_cpu_speedup_pard_over_ar_T0_largest", "3.67")[1] == "3.67"
    assert headline_label("x", "an_id", "")[0] == "an id"           # no entry: an id's underscores read as spaces


def test_smoke_scoreboard_keeps_the_committed_full_results(tmp_path):
    "A smoke run's scoreboard shows each paper's committed full verdict, its own verdict beside it as indicative."
    import json
    (tmp_path / "smoke").mkdir()
    r = _result("arena", [("headline", True)], scale="smoke")
    r["reproducible"] = True
    (tmp_path / "smoke" / "arena.json").write_text(json.dumps(r))
    env = {**os.environ, "COLUMNS": "150"}
    out = run("scoreboard", "--scale", "smoke", "--results", str(tmp_path), env=env).stdout
    lines = out.splitlines()
    full = {x["paper"]: x for x in _committed_headlines()[0]}
    from iclr26.core import headline_verdict
    arena = next(i for i, l in enumerate(lines) if l.split()[1:2] == ["arena"])
    assert f" {headline_verdict(full['arena'])} " in lines[arena] and "full " in lines[arena]
    note = next(l for l in lines[arena:] if "smoke run" in l)
    assert "(indicative): holds" in note
    pard = next(l for l in lines if l.split()[1:2] == ["pard"])
    assert headline_verdict(full["pard"]) in pard, "papers the smoke run did not touch keep their full verdict"
    only = run("scoreboard", "--scale", "smoke", "--results", str(tmp_path), "--only", env=env).stdout
    assert "not run yet" in next(l for l in only.splitlines() if l.split()[1:2] == ["pard"])


def test_overview_figure_has_ticks_room_and_its_own_verdict_column(tmp_path):
    "Issue #61: x tick labels on the left panel, no verdict text on the markers, no marker on an axis edge."
    import copy
    import matplotlib
    matplotlib.use("Agg")
    from iclr26.cli import overview_figure, paper_labels
    from iclr26.core import headline_summary
    rs, _ = _committed_headlines()
    s = headline_summary(rs, paper_labels())
    fig = overview_figure(s, tmp_path / "o.png")
    ax, mid, bars = fig.axes[:3]
    x0, x1 = ax.get_xlim()
    xs = [x for c in ax.collections for x, _ in c.get_offsets()]
    assert xs and all(x0 * 1.1 < x < x1 / 1.1 for x in xs), (x0, x1, min(xs), max(xs))
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels() if t.get_text()], "the left panel has x tick labels"
    assert not ax.texts and len(mid.texts) == len(s), "the verdicts stand in their own column, not on the markers"
    assert bars.get_xlim()[1] > max(x["n_claims"] for x in s), "the longest bar ends inside the panel"
    planted = copy.deepcopy(s[:2])
    planted[0]["headlines"][0]["ratio"] = 1e-6                 # beyond the limits: at the edge, its value written
    f2 = overview_figure(planted)
    assert [t.get_text() for t in f2.axes[0].texts] == ["1e-06"]
    from PIL import Image
    assert Image.open(tmp_path / "o.png").size[0] > 1000


def test_scoreboard_shows_the_headline_evidence(board):
    "Per headline: ours with its CI, the test, the null and the oracle through the same test, the verdict and why."
    import json
    f = board / "full" / "arena.json"
    r = json.loads(f.read_text())
    r["claims"][0].update(ci=[1.5, 2.5], null=0.2, oracle=3.0, protocol="ours: a test", paper="+1.2 points")
    f.write_text(json.dumps(r))
    out = run("scoreboard", "--all", "--results", str(board), env={**os.environ, "COLUMNS": "120"}).stdout
    assert "ours 2 [1.5, 2.5] · test >= 1 · null 0.2 ✗ · oracle 3 ✓" in out
    assert "the whole CI [1.5, 2.5] passes >= 1" in out and "paper: +1.2 points" in out


def test_scoreboard_into_a_closed_pipe_exits_quietly():
    "`iclr26 scoreboard | head` must not end in a BrokenPipeError traceback (issue #60)."
    p = subprocess.Popen([str(EXE), "scoreboard"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()                              # the reader has gone before the first line is written
    err = p.stderr.read().decode()
    p.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    r = subprocess.run(f"'{EXE}' scoreboard | head -3", shell=True, cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.stdout.count("\n") == 3 and "Traceback" not in r.stderr and "Error" not in r.stderr, r.stderr


def test_readme_table_has_the_headline_columns():
    "README: per paper the claim, the paper's number, ours [CI], null, oracle, the verdict and why (issue #49)."
    from iclr26.cli import papers_markdown
    arena = _result("arena", [("headline", False), ("claim", True)])
    arena["reproducible"] = True
    arena["claims"][0].update(ci=[0.2, 0.8], null=0.1, oracle=1.5, paper=1.2, protocol="paper: §4")
    md = papers_markdown(results=[arena])
    head = next(l for l in md.splitlines() if l.startswith("| paper |"))
    for col in ("headline claim", "paper's number", "ours [95 % CI]", "test", "null", "oracle", "verdict", "why",
                "claims hold", "commit"):
        assert f"| {col} |" in head, col
    row = next(l for l in md.splitlines() if "23_arena" in l)
    assert "| **fails** |" in row and "| 1/2 |" in row and "0.5 [0.2, 0.8]" in row and "0.1 ✗" in row and "1.5 ✓" in row
    assert "the whole CI [0.2, 0.8] fails >= 1" in row and "(nbs/23_arena.ipynb#what-we-found)" in row
    coarse = next(line for line in md.splitlines() if "22_coarse" in line)
    assert "| **not run yet** |" in coarse and "| no headline marked |" not in row
    assert md.startswith("Committed full-scale runs: 1 fails, 18 not run yet.")
    pard = _result("pard", [("headline", False)])
    pard["claims"][0].update(name="measured_cpu_speedup_pard_over_ar_T0_largest", paper=3.67)
    row = next(line for line in papers_markdown(results=[pard]).splitlines() if "12_pard" in line)
    assert "| speed-up T=0: PARD / autoregressive | 3.67 |" in row, "a readable label, the paper's number beside it"


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


# --- no silent long runs, outputs where the user asked, install hints (issue #60 items 5 and 6) ----------------------

@pytest.fixture
def fake_runs(monkeypatch):
    "run_notebook replaced by a stub that records its arguments and writes a small results file, as a notebook would."
    import json
    from iclr26 import cli
    calls = []

    def fake(nb, scale, out_dir, results=None, seed=None, timeout=None, **kw):
        calls.append({"key": nb.key, "scale": scale, "out": Path(out_dir), "results": results})
        if results is not None:
            r = _result(nb.key, [("headline", True)], scale=scale)
            r["reproducible"] = True
            (Path(results) / scale).mkdir(parents=True, exist_ok=True)
            (Path(results) / scale / f"{nb.key}.json").write_text(json.dumps(r))
        return cli.RunResult(nb.key, True, 0.1, Path(out_dir) / nb.path.name)

    monkeypatch.setattr(cli, "run_notebook", fake)
    return calls


def test_reproduce_without_a_paper_runs_nothing(fake_runs, capsys):
    "`iclr26 reproduce` alone used to start every notebook: it must name the keys and what 'all' would take."
    from iclr26.cli import main
    assert main(["reproduce"]) == 2 and not fake_runs
    err = capsys.readouterr().err
    assert "or 'all'" in err and "arena" in err
    assert "notebooks, about" in err and "budget" in err, "the expected time of `all` is printed"
    r = run("reproduce", "--scale", "smoke")
    assert r.returncode == 2 and "or 'all'" in r.stderr and "Traceback" not in r.stderr


def test_reproduce_prints_the_time_and_where_first_and_the_verdicts_last(fake_runs, capsys, tmp_path, monkeypatch):
    from iclr26.cli import main, runnable
    monkeypatch.setenv("COLUMNS", "200")
    out, res = tmp_path / "nbs", tmp_path / "res"
    assert main(["reproduce", "all", "--scale", "smoke", "--out", str(out), "--results", str(res)]) == 0
    text = capsys.readouterr().out
    assert len(fake_runs) == len(runnable()) and {c["results"] for c in fake_runs} == {res.resolve()}
    first = text.index("[1/")
    assert -1 < text.index("expected to take about") < first, "the expected time comes before the first run"
    assert -1 < text.index(f"executed notebooks -> {out.resolve()}") < first
    assert -1 < text.index(f"results and figures -> {res.resolve() / 'smoke'}") < first
    tail = text[text.index("Headline verdicts:"):]
    arena = next(l for l in tail.splitlines() if l.split()[:1] == ["arena"])
    assert "holds" in arena and "indicative: a smoke run; the committed full run:" in arena
    assert f"iclr26 scoreboard --scale smoke --results {res.resolve()}" in tail, "how to see it beside the full runs"


def test_reproduce_from_another_folder_keeps_out_of_the_checkout(fake_runs, monkeypatch, tmp_path, capsys):
    "Run from another folder with --out, the results go beside --out (or in that folder), never into the checkout."
    from iclr26.cli import main
    monkeypatch.setenv("ICLR26_ROOT", str(ROOT))
    monkeypatch.delenv("ICLR26_RESULTS", raising=False)
    monkeypatch.chdir(tmp_path)
    before = sorted((ROOT / "results").rglob("*"))
    assert main(["reproduce", "arena", "--scale", "smoke", "--out", "run/nbs"]) == 0
    assert fake_runs[-1]["out"] == (tmp_path / "run" / "nbs").resolve()
    assert fake_runs[-1]["results"] == (tmp_path / "run" / "results").resolve()
    assert (tmp_path / "run" / "results" / "smoke" / "arena.json").exists()
    assert main(["reproduce", "arena", "--scale", "smoke"]) == 0
    assert fake_runs[-1]["results"] == (tmp_path / "results").resolve()
    assert fake_runs[-1]["out"] == (tmp_path / "_build" / "smoke" / "nbs").resolve()
    assert sorted((ROOT / "results").rglob("*")) == before, "nothing was written into the checkout's results/"
    assert f"results and figures -> {(tmp_path / 'results' / 'smoke').resolve()}" in capsys.readouterr().out


def test_reproduce_inside_the_checkout_keeps_its_results_folder(fake_runs, monkeypatch, tmp_path):
    "`make run` and `make full` (cwd: the checkout, --out _build/...) still write the checkout's results/."
    from iclr26.cli import output_dirs
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("ICLR26_RESULTS", raising=False)
    assert output_dirs("smoke", "_build/smoke/nbs") == ((ROOT / "_build/smoke/nbs").resolve(), ROOT / "results")
    monkeypatch.setenv("ICLR26_RESULTS", str(tmp_path))            # the environment's results folder is honoured
    assert output_dirs("smoke")[1] == tmp_path.resolve()


@pytest.mark.parametrize("bad", ["-5", "0", "nan", "abc"])
def test_timeout_must_be_a_positive_number(bad):
    r = run("reproduce", "arena", "--scale", "smoke", f"--timeout={bad}")
    assert r.returncode == 2 and "argument --timeout:" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_reproduce_api_checks_timeout(fake_runs):
    from iclr26.cli import reproduce
    with pytest.raises(ValueError, match="timeout must be a positive"): reproduce(["arena"], "smoke", timeout=-5)
    assert not fake_runs


def test_docs_without_a_choice_runs_nothing(monkeypatch, tmp_path, capsys):
    "`iclr26 docs` used to execute every notebook silently: without --execute/--no-execute it says what would run."
    from iclr26 import cli
    monkeypatch.setattr(cli, "reproduce", lambda *a, **k: pytest.fail("docs executed notebooks without being asked"))
    monkeypatch.setattr(cli.subprocess, "run", lambda *a, **k: pytest.fail("docs built without being asked"))
    args = ["docs", "--scale", "smoke", "--executed", str(tmp_path / "none"), "--out", str(tmp_path / "s")]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    bare = [nb.key for nb in cli.runnable().values() if not (ROOT / "results" / "full" / "nbs" / nb.path.name).exists()]
    assert "--execute" in err and "--no-execute" in err and "takes about" in err
    assert bare and bare[0] in err, "names a notebook with neither an executed copy nor a committed executed run"
    assert not (tmp_path / "s").exists()
    monkeypatch.undo()
    r = run("docs", "--execute", "--no-execute")
    assert r.returncode == 2 and "not allowed with argument" in r.stderr


def test_docs_execute_prints_the_plan_first(monkeypatch, tmp_path, capsys):
    from iclr26 import cli
    order = []
    monkeypatch.setattr(cli, "reproduce", lambda names, *a, **k: order.append(("run", len(names))) or [])
    class Stop(Exception): pass
    def smalldocs(*a, **k): raise Stop
    monkeypatch.setattr(cli.subprocess, "run", smalldocs)
    with pytest.raises(Stop):
        cli.build_docs("smoke", True, tmp_path / "none", tmp_path / "s", tmp_path / "r", stage=tmp_path / "st")
    out = capsys.readouterr().out
    # the notebooks with neither an executed copy of this build nor a committed full run's executed notebook
    bare = [nb for nb in cli.runnable().values() if not (ROOT / "results" / "full" / "nbs" / nb.path.name).exists()]
    assert "have no executed copy" in out and "takes about" in out and order and order[0][1] == len(bare)


def test_missing_extra_names_the_install_command(fake_runs, monkeypatch, capsys):
    "`reproduce homdp` without networkx used to fail inside papermill with a bare ModuleNotFoundError."
    import importlib.util
    from iclr26 import cli
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a, **k: None if name == "networkx" else real(name, *a, **k))
    assert cli.main(["reproduce", "homdp", "--scale", "smoke"]) == 2 and not fake_runs
    err = capsys.readouterr().err
    assert "pip install 'iclr26[homdp]'" in err and "networkx" in err and "extra 'homdp'" in err
    assert cli.missing_extra("homdp") == ["networkx"] and cli.missing_extra("duet") == []
    assert cli.main(["reproduce", "arena", "--scale", "smoke", "--results", str(ROOT / "_build" / "test-cli")]) == 0


def test_extras_come_from_pyproject_or_the_installed_metadata(tmp_path):
    "Every paper's extra is found, in the checkout's pyproject.toml and (outside a checkout) the package metadata."
    import tomllib
    from iclr26.cli import extra_requirements, papers
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    keys = {p.key for p in papers()}
    assert {"homdp", "mase", "arena", "discrete_sb"} <= set(deps) & keys
    for k in set(deps) & keys: assert extra_requirements(k) == deps[k]
    (tmp_path / "nbs").mkdir()                    # a folder without pyproject.toml: the installed metadata answers
    meta = extra_requirements("discrete_sb", tmp_path)
    assert meta is not None and any(r.lower().startswith("pot") for r in meta), meta
    assert extra_requirements("duet", tmp_path) is None


def _gate_notebook(path):
    "A two-cell notebook (key `gatetoy`): its first cell records a failed gate, its second prints."
    from iclr26 import cli
    cells = ["#| default_exp gatetoy\nfrom iclr26.core import claim, record\n"
             "record('gatetoy', 'smoke', {}, [claim('bad', 0, '>=', 1, kind='check')])",
             "print('after the gate')"]
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": s, "outputs": [],
                                           "execution_count": None} for s in cells],
                                "nbformat": 4, "nbformat_minor": 4,
                                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                            "language": "python"}}}))
    return cli.notebook_info(path)


def test_keep_going_runs_past_a_failed_gate_and_still_reports_it(tmp_path):
    "At scale full `reproduce` keeps going: the executed notebook reaches its end, the run is still a failure."
    from iclr26 import cli
    nb = _gate_notebook(tmp_path / "99_gatetoy.ipynb")
    for keep in (False, True):
        r = cli.run_notebook(nb, "smoke", tmp_path / f"out{keep}", tmp_path / "res", keep_going=keep)
        last = json.loads(r.output.read_text())["cells"][-1]["outputs"]
        assert not r.ok and ("ran to its end" in r.error) == keep, r.error
        assert any("after the gate" in "".join(o.get("text", "")) for o in last) == keep
    assert "ICLR26_KEEP_GOING" not in os.environ, "the switch is the kernel's, not left in the caller's environment"
