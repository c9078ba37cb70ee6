"""House rules that hold across every notebook (issue #28): one shape of per-scale config table."""
import ast, json

import pytest

from conftest import ROOT

PAPERS = sorted(p for p in (ROOT / "nbs").glob("[0-9][0-9]_*.ipynb") if p.name[:2] not in ("00", "03"))


def config_calls(nb_path):
    "Every `scale_config(...)` call in the notebook's code cells (cells with IPython magics skipped)."
    out = []
    for c in json.loads(nb_path.read_text())["cells"]:
        if c["cell_type"] != "code": continue
        try:
            tree = ast.parse("".join(c["source"]))
        except SyntaxError:
            continue
        out += [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "scale_config"]
    return out


@pytest.mark.parametrize("nb", PAPERS, ids=lambda p: p.stem)
def test_config_is_one_column_table(nb):
    "`cfg = scale_config({\"smoke\": {...}, \"demo\": {...}, \"full\": {...}}, scale)`: the table written as a literal."
    calls = config_calls(nb)
    assert len(calls) == 1, f"{nb.name}: expected one scale_config call, found {len(calls)}"
    table = calls[0].args[0]
    assert isinstance(table, ast.Dict), f"{nb.name}: pass the column table itself to scale_config, not a comprehension"
    keys = [k.value if isinstance(k, ast.Constant) else None for k in table.keys]
    assert keys == ["smoke", "demo", "full"], f"{nb.name}: the table's columns are {keys}"


# --- the headline protocol (issue #49) ------------------------------------------------------------------------------
from iclr26 import cli, core  # noqa: E402

PAPER_KEYS = [(p.key, p.stem) for p in cli.papers(ROOT)]
FULL = ROOT / "results" / "full"


@pytest.mark.parametrize("key,stem", PAPER_KEYS, ids=[k for k, _ in PAPER_KEYS])
def test_full_result_headlines_carry_evidence(key, stem):
    "Each paper's committed full result has a headline, and each headline its evidence or the reason it lacks it."
    f = FULL / f"{key}.json"
    assert f.exists(), f"{stem}: no committed full result {f.name}"
    r = json.loads(f.read_text())
    hs = [c for c in r["claims"] if c.get("kind") == "headline"]
    assert hs, f"{key}: the committed full result marks no headline"
    for h in hs:
        core.check_evidence(h)      # malformed or missing evidence raises, naming the field
        assert not core.missing_evidence(h), f"{key}: {h['name']!r} lacks {core.missing_evidence(h)}"
        for k in ("null", "oracle"):
            if h.get(k) is not None:
                assert h.get(f"{k}_passed") == core._holds(h[k], h["op"], h["threshold"]), f"{key}: {k}_passed"
        v = core.claim_verdict(h)
        assert h.get("verdict") == v, f"{key}: {h['name']!r} stores verdict {h.get('verdict')!r}, its fields give {v!r}"
        if h.get("null_passed"): assert v in ("vacuous", "unreachable"), f"{key}: a null passes but the verdict is {v}"
        if h.get("oracle_passed") is False: assert v == "unreachable", f"{key}: the oracle fails but the verdict is {v}"


@pytest.mark.parametrize("key,stem", PAPER_KEYS, ids=[k for k, _ in PAPER_KEYS])
def test_protocol_log_after_config(key, stem):
    "Every paper notebook keeps a protocol log: a markdown table right after its config cell."
    cells = json.loads((ROOT / "nbs" / f"{stem}.ipynb").read_text())["cells"]
    src = ["".join(c["source"]) for c in cells]
    i = next(i for i, (c, s) in enumerate(zip(cells, src)) if c["cell_type"] == "code" and "scale_config(" in s)
    after = [s for c, s in zip(cells[i + 1:i + 3], src[i + 1:i + 3]) if c["cell_type"] == "markdown"]
    log = next((s for s in after if s.lstrip().startswith("## Protocol log")), None)
    assert log is not None, f"{stem}: no '## Protocol log' markdown cell right after the config cell"
    head = next((l for l in log.splitlines() if l.startswith("|")), "")
    assert "commit" in head.lower() and log.count("\n|") >= 2, \
        f"{stem}: the protocol log needs a table with a commit column"


# --- literate shape (issue #62): the notebooks that had their literate pass keep it ----------------------------------
import re  # noqa: E402
import statistics  # noqa: E402

# every notebook with exported code (issue #62 done: 00-04, then 10-28); index.ipynb exports nothing
LITERATE_DONE = sorted(p.stem for p in (ROOT / "nbs").glob("*.ipynb") if p.stem != "index")
_DEF = re.compile(r"^(?:async\s+)?(?:def|class)\s+(\w+)", re.M)
_EQ_REF = re.compile(r"#.*\bEq(?:uation)?s?\.?\s*\(?\d", re.I)
_EQ_TAG = re.compile(r"\\tag\{(\d+)\}")


def literate_shape(path):
    "The figures of ../shared/tools/literate_stats.py: exported-cell sizes, definitions per cell, shown share."
    cells = json.loads(path.read_text())["cells"]
    src = ["".join(c["source"]) for c in cells]
    exp = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and src[i].lstrip().startswith("#| export")]
    sizes = [len(src[i].splitlines()) for i in exp]
    shown = 0
    for i in exp:
        names = _DEF.findall(src[i])
        nxt = next((src[j] for j in range(i + 1, len(cells)) if cells[j]["cell_type"] == "code"), "")
        shown += bool(names) and not nxt.lstrip().startswith("#| export") and any(n in nxt for n in names)
    with_defs = sum(bool(_DEF.findall(src[i])) for i in exp)
    return {"median": statistics.median(sizes), "largest": max(sizes),
            "defs_per_cell": sum(len(_DEF.findall(src[i])) for i in exp) / len(exp),
            "shown": shown / max(with_defs, 1), "eq_refs": sum(len(_EQ_REF.findall(s)) for s in src),
            "eq_tags": len({t for s in src for t in _EQ_TAG.findall(s)})}


@pytest.mark.parametrize("stem", LITERATE_DONE)
def test_literate_shape_is_kept(stem):
    s = literate_shape(ROOT / "nbs" / f"{stem}.ipynb")
    assert s["median"] <= 20 and s["largest"] <= 80, \
        f"{stem}: exported cells median {s['median']}, largest {s['largest']}"
    assert s["defs_per_cell"] <= 1.5, f"{stem}: {s['defs_per_cell']:.2f} definitions per exported cell"
    assert s["shown"] >= 0.8, f"{stem}: only {s['shown']:.0%} of exported cells are followed by a cell that uses them"
    assert s["eq_refs"] >= s["eq_tags"], f"{stem}: {s['eq_tags']} numbered equations but {s['eq_refs']} Eq. comments"


# --- "Use it" (issue #61.3): every paper notebook ends with the lines that apply its method to the reader's own -------
@pytest.mark.parametrize("key,stem", PAPER_KEYS, ids=[k for k, _ in PAPER_KEYS])
def test_use_it_section(key, stem):
    "A '## Use it on your own ...' markdown cell after 'What we found', then a plain code cell using `iclr26`."
    cells = json.loads((ROOT / "nbs" / f"{stem}.ipynb").read_text())["cells"]
    src = ["".join(c["source"]) for c in cells]
    use = [i for i, (c, s) in enumerate(zip(cells, src)) if c["cell_type"] == "markdown" and s.startswith("## Use it")]
    assert len(use) == 1, f"{stem}: expected one '## Use it' section, found {len(use)}"
    found = [i for i, (c, s) in enumerate(zip(cells, src)) if c["cell_type"] == "markdown" and "## What we found" in s]
    assert found and found[0] < use[0], f"{stem}: the 'Use it' section belongs after 'What we found'"
    code = next((s for c, s in zip(cells[use[0] + 1:], src[use[0] + 1:]) if c["cell_type"] == "code"), "")
    assert "iclr26" in code and not code.lstrip().startswith("#| export"), \
        f"{stem}: the 'Use it' section needs a plain code cell that uses the package"
