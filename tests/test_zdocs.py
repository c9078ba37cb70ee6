"""The docs site: built from the executed notebooks of the test run, then loaded in headless Chromium.

Runs last (file name) so that test_notebooks has left executed notebooks in _build/test/nbs; notebooks
without an executed copy are rendered from their sources.
"""
import os, shutil, subprocess, tempfile
from pathlib import Path

import pytest

from conftest import BUILD, ROOT
from iclr26.cli import build_docs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    if not (BUILD / "nbs" / "00_core.ipynb").exists():  # run alone: execute the core notebook for its figure
        from iclr26.cli import notebook_info, run_notebook
        assert run_notebook(notebook_info(ROOT / "nbs" / "00_core.ipynb"), "smoke", BUILD / "nbs", BUILD / "results").ok
    if not list((BUILD / "results" / "smoke").glob("*.json")):  # run alone: one results file for the scoreboard
        import os
        from iclr26.core import claim, record
        os.environ["ICLR26_RESULTS"] = str(BUILD / "results")
        try: record("docs_probe", "smoke", {}, [claim("probe", 1, ">=", 0)])
        finally: del os.environ["ICLR26_RESULTS"]
    return build_docs("smoke", execute=False, executed=BUILD / "nbs", out=out, results=BUILD / "results")


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


def test_site_files(site):
    for f in ("index.html", "scoreboard.html", "00_core.html", "api/core.html", "site_libs/katex/katex.min.js"):
        assert (site / f).exists(), f
    assert "cdn.jsdelivr.net/npm/katex" not in (site / "00_core.html").read_text(), "KaTeX must be served from the site"


def test_home_page_has_paper_index(site):
    html = dom(site / "index.html")
    assert "The papers" in html and "<table" in html
    assert "Information-efficient arena evaluation" in html
    assert "make test" in html


def test_notebook_page_has_figure_and_rendered_math(site):
    html = dom(site / "00_core.html")
    assert "<img" in html and "image/png" in html or ".png" in html, "no figure on the page"
    assert 'class="katex"' in html, "equations were not rendered by KaTeX"


def test_scoreboard_page_has_table(site):
    html = dom(site / "scoreboard.html")
    assert "<table" in html and "figure" in html and "status" in html


def test_api_reference_page(site):
    html = dom(site / "api" / "core.html")
    assert "record" in html and "claim" in html
