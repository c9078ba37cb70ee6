"""The docs site: built once per session from inputs of its own, then loaded in headless Chromium.

The site fixture never reads another test's leftovers (it used to reuse test_notebooks' executed notebooks
when they happened to exist): it executes the core notebook at smoke scale into a temporary folder, writes
one smoke results file there, and builds the site from those and the committed full-scale results, so
these tests give the same answer alone, first, last or in any order.
"""
import base64, json, os, shutil, subprocess, tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

from conftest import ROOT
from iclr26.cli import build_docs, notebook_info, notebooks, run_notebook
from iclr26.core import load_results

pytestmark = pytest.mark.docs

SMOKE_PAGE = "19_mase"  # labelled as a smoke run of the reader's own
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    base = tmp_path_factory.mktemp("docs")
    executed, results = base / "nbs", base / "results"
    assert run_notebook(notebook_info(ROOT / "nbs" / "00_core.ipynb"), "smoke", executed, results).ok
    from iclr26.core import claim, record
    old = os.environ.get("ICLR26_RESULTS")
    os.environ["ICLR26_RESULTS"] = str(results)
    try: record("docs_probe", "smoke", {}, [claim("probe holds", 1, ">=", 0, kind="check")])
    finally:
        if old is None: del os.environ["ICLR26_RESULTS"]
        else: os.environ["ICLR26_RESULTS"] = old
    # a paper notebook as a reader's smoke run leaves it (papermill records the parameters it injected)
    nb = json.loads((ROOT / "nbs" / f"{SMOKE_PAGE}.ipynb").read_text())
    nb["metadata"]["papermill"] = {"parameters": {"scale": "smoke"}}
    (executed / f"{SMOKE_PAGE}.ipynb").write_text(json.dumps(nb))
    return build_docs("smoke", execute=False, executed=executed, out=base / "site", results=results,
                      stage=base / "stage")


def dom(page: Path) -> str:
    if CHROMIUM is None:
        if os.environ.get("CI"): pytest.fail("chromium is missing in CI (make browser installs it)")
        pytest.skip("chromium not installed (make browser installs it)")
    with tempfile.TemporaryDirectory() as prof:
        r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update", "--disable-sync",
                            f"--user-data-dir={prof}", "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


class _Imgs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs = []
    def handle_starttag(self, tag, attrs):
        if tag == "img": self.srcs.append(dict(attrs).get("src") or "")


def images(html: str) -> list[str]:
    "The `src` of every <img> element of a page."
    p = _Imgs()
    p.feed(html)
    return p.srcs


def png_files(page: Path, html: str) -> list[Path]:
    "The PNG files that the page's <img> elements load, when they exist on disk."
    out = []
    for s in images(html):
        if s.startswith(("data:", "http:", "https:")) or not s.lower().endswith(".png"): continue
        f = (page.parent / unquote(s.split("#")[0].split("?")[0])).resolve()
        if f.is_file() and f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n": out.append(f)
    return out


def inline_pngs(html: str) -> list[bytes]:
    "The decoded inline PNG pictures (a notebook's figure outputs) of a page."
    return [base64.b64decode(s.split(",", 1)[1]) for s in images(html) if s.startswith("data:image/png;base64,")]


def _paper_with_full_figures():
    keys = {nb.key: nb for nb in notebooks().values() if nb.number >= 10}
    for r in load_results("full", base=ROOT / "results"):
        if r["paper"] in keys and r.get("figures") and keys[r["paper"]].path.stem != SMOKE_PAGE:
            return keys[r["paper"]], r
    pytest.skip("no committed full-scale result with figures")


def test_site_files(site):
    for f in ("index.html", "scoreboard.html", "scoreboard.png", "00_core.html", "api/core.html",
              "site_libs/katex/katex.min.js"):
        assert (site / f).exists(), f
    assert "cdn.jsdelivr.net/npm/katex" not in (site / "00_core.html").read_text(), "KaTeX must be served from the site"


def test_home_page_has_paper_index(site):
    html = dom(site / "index.html")
    assert "The papers" in html and "<table" in html and "How to read the verdicts" in html
    for col in ("headline claim", "ours [95 % CI]", "null", "oracle", "verdict", "why"):
        assert f">{col}<" in html, col
    assert "Information-efficient arena evaluation" in html
    assert 'href="23_arena.html#what-we-found"' in html, "the reason links to the notebook's What we found"
    assert 'id="what-we-found"' in dom(site / "23_arena.html"), "the link's target exists on the paper page"
    assert "make test" in html


def test_notebook_page_has_figure_and_rendered_math(site):
    html = dom(site / "00_core.html")
    pngs = inline_pngs(html)
    assert pngs and all(p[:8] == b"\x89PNG\r\n\x1a\n" and len(p) > 2000 for p in pngs), "no figure output on the page"
    assert 'class="katex"' in html, "equations were not rendered by KaTeX"


def test_paper_page_shows_the_committed_full_run(site):
    nb, r = _paper_with_full_figures()
    page = site / f"{nb.path.stem}.html"
    html = dom(page)
    assert "The committed reproduction (scale" in html and "full" in html
    assert r["commit"][:7] in html, "the page must name the commit of the run it shows"
    assert "<table" in html and "Headline verdict" in html
    files = png_files(page, html)
    want = {Path(f).name for f in r["figures"]}
    shown = {f.name for f in files}
    assert files and want <= shown, f"figures missing from {page.name}: {want - shown}"
    if (ROOT / "results" / "full" / "nbs" / nb.path.name).exists():   # the committed full run's executed notebook
        assert "executed at scale" in html and "not the reproduction" not in html, "the page shows the committed run"
        assert inline_pngs(html), "the committed run's executed notebook shows its figures"
    else:
        assert "shown unexecuted" in html, "the page must say that its code cells are not a run (none was executed)"
    assert 'class="katex"' in html


def test_pages_without_an_executed_run_say_so(site):
    "A paper whose full run has no committed executed notebook shows its code cells marked unexecuted."
    bare = [nb for nb in notebooks(ROOT).values() if nb.runnable and nb.path.stem != SMOKE_PAGE
            and not (ROOT / "results" / "full" / "nbs" / nb.path.name).exists()]
    if not bare: pytest.skip("every paper has a committed executed full run")
    assert "shown unexecuted" in dom(site / f"{bare[0].path.stem}.html")


def test_a_run_page_says_which_scale_it_shows(site):
    "A page built from the reader's own run labels its code cells with that run's scale (papermill's parameters)."
    html = dom(site / f"{SMOKE_PAGE}.html")
    assert "executed at scale" in html and "smoke" in html and "not the reproduction" in html
    assert "The committed reproduction" in html
    assert "The committed reproduction" not in dom(site / "00_core.html"), "a toolkit page has no paper run to show"


def test_scoreboard_page_leads_with_headlines(site):
    page = site / "scoreboard.html"
    html = dom(page)
    a, b = html.index('id="headline-claims"'), html.index('id="every-claim-per-paper"')  # the sections, not the TOC
    assert a < b
    head = html[a:b]
    assert "<table" in head and "verdict" in head and "commit" in head and "ours [95 % CI]" in head
    assert "#what-we-found" in head and "How to read the verdicts" in html[:a]
    assert any(f.name == "scoreboard.png" for f in png_files(page, html)), "the at-a-glance figure is missing"
    for r in load_results("full", base=ROOT / "results"):
        assert f"{r['paper']}" in html
    assert "docs_probe" in html and "(smoke)" in html, "this run's own (smoke) results are shown, labelled"


def test_api_reference_page(site):
    html = dom(site / "api" / "core.html")
    assert "record" in html and "claim" in html
    # every entry links to the line that defines it in the repository (issue #61.4)
    assert "https://github.com/iclr26/iclr26/blob/main/iclr26/core.py#L" in html
