"""GPU check of every Triton kernel: its compiled tests, then its benchmark; one JSON file per kernel (make gpu-check).

    python kernels/gpu_check.py                                   # on a CUDA machine: results/gpu/<kernel>.json
    TRITON_INTERPRET=1 python kernels/gpu_check.py --tiny --out DIR   # CPU dry run of the whole check (a test does it)

For every kernel ``<name>`` that has a benchmark ``kernels/bench_<name>.py`` (today: anybcq, lmkan, lse_matmul):

1. its tests, ``pytest tests/test_kernel_<name>.py``, with ``TRITON_INTERPRET=0``: on a GPU they run the *compiled*
   kernels on CUDA tensors (conftest turns the interpreter on only when the variable is unset). The shared tests of
   ``tests/test_kernels.py`` run once first. With ``--tiny`` the tests are only collected (the CPU suite runs them
   in the interpreter anyway);
2. its benchmark, ``python kernels/bench_<name>.py --out <out>/<name>.json`` (correctness on the device, then the
   timing table: shape, dtype, time, GB/s or FLOP/s, speed-up over the PyTorch baseline); ``--tiny`` passes
   ``--tiny`` (tiny shapes, in the interpreter);
3. a ``gpu_check`` block added to ``<out>/<name>.json``: test counts, return codes, seconds, compiled or not.

``<out>/summary.json`` collects the verdicts and the speed-ups, and a table is printed. The exit code is 0 only if
every test and every correctness row passed. The whole check keeps to ``--budget`` seconds (default 450, under
the 8 minutes a GPU check may take): each step's timeout is its weighted share of the time left.
"""
from __future__ import annotations

import argparse, json, os, subprocess, sys, tempfile, time
import xml.etree.ElementTree as ET
from pathlib import Path

__all__ = ["kernels", "run_tests", "run_bench", "main"]

ROOT = Path(__file__).resolve().parent.parent
KERNELS_DIR = Path(__file__).resolve().parent


def kernels() -> list[str]:
    """Names of the kernels `kernels/<name>.py` that have a benchmark script `kernels/bench_<name>.py` (a bench script
    without its kernel, such as `bench_anybcq_real.py`, a CPU table on the real model, is not a kernel benchmark)."""
    names = (p.stem[len("bench_"):] for p in KERNELS_DIR.glob("bench_*.py"))
    return sorted(n for n in names if (KERNELS_DIR / f"{n}.py").exists())


def _env(tiny: bool) -> dict:
    "The children's environment: compiled Triton on the GPU, the interpreter (one thread) for the dry run."
    env = dict(os.environ, TRITON_INTERPRET="1" if tiny else "0", ICLR26_QUIET="1")
    if tiny: env.setdefault("OMP_NUM_THREADS", "1")
    return env


def _tail(text, n: int = 3000) -> str:
    if isinstance(text, bytes): text = text.decode(errors="replace")
    return text[-n:] if text else ""


def run_tests(files: list[Path], tiny: bool, timeout: float, extra: tuple[str, ...] = ()) -> dict:
    "Run (or with `tiny` only collect) pytest on `files`; counts from its JUnit XML, return code, seconds."
    files = [f for f in files if f.exists()]
    if not files: return dict(files=[], skipped_reason="no test files beside this checkout", rc=0, ok=True)
    with tempfile.TemporaryDirectory() as d:
        xml = Path(d) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", f"--junitxml={xml}",
               *map(str, files), *extra] + (["--collect-only"] if tiny else [])
        t0 = time.time()
        try:
            p = subprocess.run(cmd, cwd=ROOT, env=_env(tiny), capture_output=True, text=True, timeout=max(5, timeout))
            rc, out = p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out = 124, f"timed out after {timeout:.0f} s\n" + _tail(e.stdout)
        res = dict(files=[str(f.relative_to(ROOT)) for f in files], rc=rc, seconds=round(time.time() - t0, 1),
                   compiled=not tiny, collected_only=tiny)
        if xml.exists() and not tiny:
            s = ET.parse(xml).getroot()
            s = s if s.tag == "testsuite" else s.find("testsuite")
            res.update({k: int(s.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")})
        elif tiny:
            res["collected"] = sum(1 for line in out.splitlines() if "::" in line)
    res["ok"] = rc == 0
    if not res["ok"]: res["output_tail"] = _tail(out)
    return res


def run_bench(name: str, out: Path, tiny: bool, timeout: float, iters: int | None = None) -> dict:
    "Run `kernels/bench_<name>.py --out out/<name>.json`; return code, seconds, whether its correctness rows passed."
    f = out / f"{name}.json"
    if f.exists(): f.unlink()
    cmd = [sys.executable, str(KERNELS_DIR / f"bench_{name}.py"), "--out", str(f)] + (["--tiny"] if tiny else []) + \
        (["--iters", str(iters)] if iters else [])
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=ROOT, env=_env(tiny), capture_output=True, text=True, timeout=max(5, timeout))
        rc, text = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        rc, text = 124, f"timed out after {timeout:.0f} s"
    res = dict(rc=rc, seconds=round(time.time() - t0, 1), report=f.exists())
    if f.exists(): res["all_correct"] = bool(json.loads(f.read_text()).get("all_correct"))
    res["ok"] = rc == 0 and res.get("all_correct", False)
    if not res["ok"]: res["output_tail"] = _tail(text)
    return res


def _speedups(report: dict) -> list[dict]:
    "Per timing row: its shape fields (ints/strings) and its times, throughputs and speed-ups."
    rows = []
    for r in report.get("timing", []):
        keep = {k: v for k, v in r.items() if isinstance(v, (int, str)) and not isinstance(v, bool)}
        keep.update({k: float(f"{v:.4g}") for k, v in r.items() if isinstance(v, float) and
                     (k.startswith("speedup") or k.endswith(("_ms", "_us", "GBps", "tflops", "gops")))})
        rows.append(keep)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "results" / "gpu"), help="folder of the JSON files")
    ap.add_argument("--tiny", action="store_true", help="CPU dry run: tiny shapes in the interpreter, tests collected")
    ap.add_argument("--budget", type=float, default=450.0, help="seconds for the whole check")
    ap.add_argument("--iters", type=int, default=None, help="timing iterations per case (default: each script's)")
    ap.add_argument("--kernels", nargs="*", default=None, help=f"a subset of {kernels()}")
    a = ap.parse_args(argv)
    names = kernels() if not a.kernels else a.kernels
    unknown = sorted(set(names) - set(kernels()))
    if unknown: ap.error(f"unknown kernels {unknown}; known: {kernels()}")
    if not a.tiny:
        import torch
        if not torch.cuda.is_available():
            print("no CUDA device: run on a GPU, or `--tiny` (TRITON_INTERPRET=1) for a CPU dry run", file=sys.stderr)
            return 2
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    deadline = t0 + a.budget
    # step weights: the shared tests 1, a kernel's tests 2, its benchmark 4 (it compiles every dtype and tile)
    weights = [1.0] + [2.0, 4.0] * len(names)

    def share() -> float:
        "Seconds for the next step: its weighted share of the time left (a quick step leaves more to the next)."
        w = weights.pop(0)
        return (deadline - time.time()) * w / (w + sum(weights))

    common = run_tests([ROOT / "tests" / "test_kernels.py"], a.tiny, share(), extra=("-k", "not wheel"))
    summary = dict(tiny=a.tiny, compiled=not a.tiny, common_tests=common, kernels={})
    for name in names:
        tests = run_tests([ROOT / "tests" / f"test_kernel_{name}.py"], a.tiny, share())
        bench = run_bench(name, out, a.tiny, share(), a.iters)
        f = out / f"{name}.json"
        report = json.loads(f.read_text()) if f.exists() else dict(kernel=name, all_correct=False)
        report["gpu_check"] = dict(tests=tests, bench={k: v for k, v in bench.items() if k != "report"},
                                   compiled=not a.tiny)
        f.write_text(json.dumps(report, indent=1) + "\n")
        summary["kernels"][name] = dict(ok=tests["ok"] and bench["ok"], tests_ok=tests["ok"], bench_ok=bench["ok"],
                                        tests=tests.get("tests", tests.get("collected")),
                                        failures=tests.get("failures"), all_correct=report.get("all_correct"),
                                        timing=_speedups(report))
        print(f"{name:12s} tests {'ok' if tests['ok'] else 'FAILED'} ({tests.get('seconds', 0)} s)   "
              f"bench {'ok' if bench['ok'] else 'FAILED'} ({bench['seconds']} s)   -> {f}")
        for row in summary["kernels"][name]["timing"]:
            sp = {k: v for k, v in row.items() if k.startswith("speedup")}
            if sp: print(f"    {', '.join(f'{k}={v}' for k, v in row.items() if isinstance(v, (int, str)))}: {sp}")
    summary["ok"] = common["ok"] and all(k["ok"] for k in summary["kernels"].values())
    summary["wall_s"] = round(time.time() - t0, 1)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"gpu check {'passed' if summary['ok'] else 'FAILED'} in {summary['wall_s']} s -> {out / 'summary.json'}")
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
