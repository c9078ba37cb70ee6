"""Screenshots of the built docs site in headless Chromium, to check by eye what a reader sees.

    python .ci/screenshots.py [SITE] [OUT] [PAGE ...]

SITE defaults to `_site`, OUT to `_build/screenshots`; the pages default to the home page, the scoreboard and
two paper pages. Each page is written as `<OUT>/<page>.png` at 1400 px wide (the first 2400 px of the page).
"""
import shutil, subprocess, sys, tempfile
from pathlib import Path

PAGES = ["index.html", "scoreboard.html", "23_arena.html", "15_plasticity.html"]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def shoot(page: Path, dest: Path, width: int = 1400, height: int = 2400) -> Path:
    "Render `page` (an HTML file) in headless Chromium into the PNG `dest`."
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if chromium is None: raise SystemExit("chromium not found (Debian: apt-get install chromium)")
    if not page.exists(): raise SystemExit(f"page not found: {page}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as prof:
        r = subprocess.run([chromium, *FLAGS, f"--user-data-dir={prof}", f"--window-size={width},{height}",
                            "--virtual-time-budget=10000", f"--screenshot={dest}", page.resolve().as_uri()],
                           capture_output=True, text=True, timeout=120)
    if r.returncode or not dest.exists(): raise SystemExit(f"chromium failed on {page}:\n{r.stderr[-2000:]}")
    return dest


if __name__ == "__main__":
    site = Path(sys.argv[1] if len(sys.argv) > 1 else "_site")
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "_build/screenshots")
    for name in sys.argv[3:] or PAGES:
        print(shoot(site / name, out / (Path(name).stem + ".png")))
