"""The iclr26 command: clear errors for unknown papers and scales, listing, scoreboard."""
import subprocess, sys
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
    "iclr26/*.py matches the notebooks (nbdev-export was run after the last notebook edit)."
    import shutil, tempfile
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for p in ("nbs", "iclr26", "kernels"):
            shutil.copytree(ROOT / p, tmp / p)
        shutil.copy(ROOT / "pyproject.toml", tmp)
        r = subprocess.run([str(Path(sys.executable).parent / "nbdev-export")], cwd=tmp, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        stale = [f.name for f in sorted((ROOT / "iclr26").glob("*.py")) if (tmp / "iclr26" / f.name).read_text() != f.read_text()]
        assert not stale, f"run .venv/bin/nbdev-export: these modules differ from their notebooks: {stale}"
