"""Shared plumbing of the kernel benchmark scripts (`kernels/bench_*.py`): timer, arguments, device, report.

Each script keeps its own correctness cases and timing table; this module only holds what they all do the
same way, so a fix to the timer, the error measure or the report format lands in every benchmark at once.
The test suite uses the same `rel_err` and `edge_inputs` (through `tests/helpers.py`), so a kernel's tests
and its GPU check measure errors the same way.

A new kernel's benchmark (``kernels/bench_<name>.py``) needs only: ``main(argv)`` that parses
``bench_parser(__doc__, name)`` (``--out``, ``--iters``, ``--tiny``), picks ``bench_device(kernel_module)``,
and ends with ``write_report(...)``; ``kernels/gpu_check.py`` (``make gpu-check``) then finds and runs it
with ``--out results/gpu/<name>.json``, after the kernel's compiled tests ``tests/test_kernel_<name>.py``.
"""
from __future__ import annotations

import argparse, json, platform, sys, time
from pathlib import Path

import torch

__all__ = ["rel_err", "edge_inputs", "median_time", "bench_parser", "bench_device", "write_report"]


def rel_err(a: torch.Tensor, b: torch.Tensor) -> float:
    "Relative error `max |a - b| / max |b|` in float32 on the CPU (`b` is the reference; 0 for empty tensors)."
    a, b = a.detach().float().cpu(), b.detach().float().cpu()
    if a.shape != b.shape: raise ValueError(f"a and b must have one shape, got {tuple(a.shape)} and {tuple(b.shape)}")
    if a.numel() == 0: return 0.0
    return ((a - b).abs().max() / b.abs().max().clamp_min(1e-12)).item()


def edge_inputs(B: int, N: int, knots: torch.Tensor, gen: torch.Generator, exact_knots: bool = True,
                scale: float = 2.0) -> torch.Tensor:
    """`(B, N)` float32 inputs that hit a grid's edge cases: row 0 = +6, row 1 = -6, row 2 = 0, then values 1e-5
    either side of every knot (and on it, with `exact_knots`), the rest `scale * randn` (from `gen`)."""
    x = torch.randn(B, N, generator=gen) * scale
    x[0] = 6.0
    if B > 1: x[1] = -6.0
    if B > 2: x[2] = 0.0
    knots = knots.float().cpu()
    near = torch.cat([knots - 1e-5, knots + 1e-5] + ([knots] if exact_knots else []))
    rest = x[3:].reshape(-1)
    m = min(len(near), rest.numel())
    rest[:m] = near[:m]
    x[3:] = rest.view_as(x[3:])
    return x


def median_time(fn, device: torch.device, warmup: int = 3, iters: int = 20, unit: str = "ms") -> float:
    "Median wall time of `fn()` in `unit` ('ms' or 'us'); CUDA events on a GPU, `perf_counter` elsewhere."
    if unit not in ("ms", "us"): raise ValueError(f"unit must be 'ms' or 'us', got {unit!r}")
    if iters < 1: raise ValueError(f"iters must be >= 1, got {iters}")
    scale = 1.0 if unit == "ms" else 1e3
    for _ in range(warmup): fn()
    if device.type == "cuda": torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        if device.type == "cuda":
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            torch.cuda.synchronize()
            ts.append(scale * a.elapsed_time(b))
        else:
            t0 = time.perf_counter()
            fn()
            ts.append(scale * 1e3 * (time.perf_counter() - t0))
    ts.sort()
    return ts[len(ts) // 2]


def bench_parser(doc: str, name: str) -> argparse.ArgumentParser:
    "The arguments every benchmark takes: `--out` (JSON path), `--iters`, `--tiny` (CPU interpreter dry run)."
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--out", default=f"results/bench_{name}.json")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--tiny", action="store_true", help="small shapes: a dry run on CPU under TRITON_INTERPRET=1")
    return ap


def bench_device(kernel_module) -> torch.device:
    "CUDA when present; the CPU only under the Triton interpreter (else exit with a message)."
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cpu" and not kernel_module.interpreting():
        sys.exit("no CUDA device: run on a GPU, or with TRITON_INTERPRET=1 --tiny for a dry run")
    return device


def write_report(out: str | Path, device: torch.device, correctness: list[dict], t0: float, **fields) -> int:
    """Write the JSON report (environment, `all_correct`, correctness rows, `fields`), print a summary, and return
    the exit code (1 when a correctness row failed)."""
    res = dict(device=torch.cuda.get_device_name() if device.type == "cuda" else "cpu (triton interpreter)",
               torch=torch.__version__, triton=__import__("triton").__version__, python=platform.python_version(),
               all_correct=all(r["ok"] for r in correctness), correctness=correctness, **fields,
               wall_s=round(time.time() - t0, 1))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps({k: v for k, v in res.items() if k != "correctness"}, indent=1))
    print("all correct:", res["all_correct"], "->", out)
    return 0 if res["all_correct"] else 1
