"""Every notebook's "What we found" is tied to the committed full run it describes (issue #28).

The text is written by hand from `results/full/<key>.json`; these tests keep the two from drifting apart:
the section names the commit of the run, and states the value of each headline claim and of each failed gate.
Results recorded from a dirty or unknown tree (the older runs) are skipped: they are due for a re-run.
"""
import json
import math
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / "nbs").glob("[0-9][0-9]_*.ipynb"))


def findings(nb: dict) -> str:
    "The markdown of the 'What we found' section: its heading cell and the markdown cells up to the next '## '."
    out, inside = [], False
    for c in nb["cells"]:
        src = "".join(c["source"])
        if c["cell_type"] == "markdown" and re.match(r"\s*##\s+What we found", src):
            inside = True
        elif inside and c["cell_type"] == "markdown" and re.match(r"\s*##\s", src):
            break
        if inside and c["cell_type"] == "markdown":
            out.append(src)
    return "\n".join(out)


def result_key(nb: dict) -> str | None:
    "The key the notebook records its results under (`record(\"<key>\", ...)`)."
    for c in nb["cells"]:
        m = re.search(r'record\(\s*"(\w+)"', "".join(c["source"]))
        if m: return m.group(1)
    return None


def renderings(v: float) -> set[str]:
    "The ways a number is written in prose: 2-3 significant figures or decimals, a percentage for fractions."
    if float(v).is_integer() and abs(v) < 1e6:
        out = {f"{int(v)}", f"{v:.1f}", f"{v:.2f}", f"{int(v):,}"}
        return out | {s.replace("-", "−") for s in out}   # a typographic minus
    out = {f"{v:.2f}", f"{v:.3f}", f"{v:.2g}", f"{v:.3g}", f"{v:.1f}"}
    if abs(v) < 1: out |= {f"{100 * v:.0f} %", f"{100 * v:.0f}%", f"{100 * v:.1f} %", f"{100 * v:.1f}%"}
    out |= {s.replace("-", "−") for s in out}
    return {s for s in out if len(s.strip("-−0.")) >= 1 and len(s) >= 2 or s.lstrip("-−").isdigit()}


def mentions(text: str, v: float) -> bool:
    "Whether `text` states the number `v` (as a token, not a digit run inside another number)."
    return any(re.search(rf"(?<![\d.]){re.escape(s)}(?![\d])", text) for s in renderings(v))


CASES = []
for p in NOTEBOOKS:
    nb = json.loads(p.read_text())
    key = result_key(nb)
    f = ROOT / "results" / "full" / f"{key}.json"
    if key and f.exists(): CASES.append(pytest.param(p, f, id=key))


@pytest.mark.parametrize("nb_path,result_path", CASES)
def test_what_we_found_describes_the_committed_full_run(nb_path, result_path):
    r = json.loads(result_path.read_text())
    if not r.get("reproducible"):
        pytest.skip(f"{result_path.name}: recorded from {r.get('commit')!r} (dirty or unknown tree): due for a re-run")
    text = findings(json.loads(nb_path.read_text()))
    assert text, f"{nb_path.name} has no '## What we found' section"
    sha = r["commit"][:7]
    assert sha in text, f"{nb_path.name}: 'What we found' does not name the commit of results/full ({sha})"
    missing = []
    for c in r["claims"]:
        v = c.get("value")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v): continue
        if v != 0 and abs(v) < 1e-3: continue   # p-values and tiny errors are stated as bounds ("p < 1e-4")
        if c.get("kind") == "headline" or (c.get("gate") and not c.get("passed")):
            if not mentions(text, v): missing.append(f"{c['name']} = {v:.4g}")
    assert not missing, f"{nb_path.name}: 'What we found' does not state these values of the full run: {missing}"


def test_mentions_reads_prose_numbers():
    assert mentions("the ratio is 0.85 here", 0.8482) and mentions("slope −0.61", -0.6053)
    assert mentions("lookup 66 % exact", 0.664) and mentions("2 of 3 seeds", 2) and mentions("Spearman −1", -1.0)
    assert not mentions("the ratio is 10.85", 0.8482) and not mentions("0.851", 0.8482)


def test_the_paper_table_links_each_reason_to_what_we_found():
    "The README's and the site's reason column links to each paper's 'What we found' heading (issue #49)."
    from iclr26.cli import _anchor, findings_links, papers
    readme = (ROOT / "README.md").read_text()
    for link in ("github", "site"):
        found = findings_links(link=link)
        for p in papers():
            nb = json.loads(p.notebook.path.read_text())
            assert findings(nb), f"{p.stem} has no '## What we found' section to link to"
            page = f"nbs/{p.stem}.ipynb" if link == "github" else f"{p.stem}.html"
            assert found[p.key] == f"{page}#{_anchor('What we found')}", found[p.key]
    for href in findings_links(link="github").values():
        assert f"([what we found]({href}))" in readme, f"README.md does not link {href}"
