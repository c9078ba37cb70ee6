"""GPU check and benchmark of the lmKAN Triton kernel (`iclr26.kernels.lmkan`); writes JSON.

    python kernels/bench_lmkan.py --out results/bench_lmkan.json            # on a CUDA machine
    TRITON_INTERPRET=1 python kernels/bench_lmkan.py --tiny                 # CPU dry run of the script itself

1. Correctness on the device: the Triton forward and backward vs the pure-PyTorch reference over
   shapes with ragged tails and edge inputs (±6, 0, 1e-5 around every knot) in float32, float16 and
   (on CUDA) bfloat16.
2. Timing at batch 1024 (default), shapes 128->128 and 256->256, G in {8, 26}: the lmKAN forward (and
   forward+backward) vs `nn.Linear` of the same shape and vs the *accuracy-matched MLP layer*, a linear
   layer whose FLOPs are `ratio` times the lmKAN layer's, where `ratio` is the FLOPs ratio at matched
   error measured by the notebook (read from `results/full/lmkan.json` when present, else `--ratio`).
   Reported per case: milliseconds, achieved FLOP/s (4 N_in N_out per sample for lmKAN, 2 N_in N_out for
   a linear layer), lookup bandwidth (4 table reads per (sample, output, pair)) and speed-ups.
The paper's reference point: >10x H100 throughput of lmKAN vs an accuracy-matched MLP on methane.
"""
from __future__ import annotations

import json, sys, time
from pathlib import Path

import torch

from iclr26.kernels._bench import bench_device, bench_parser, edge_inputs, median_time as _time, rel_err, write_report


def correctness(K, laplace_knots, device, tiny=False) -> list[dict]:
    shapes = [(37, 10, 13, 5), (5, 2, 1, 3)]
    if not tiny: shapes += [(1000, 130, 77, 8), (257, 256, 256, 26)]
    dtypes = [torch.float32, torch.float16] + ([torch.bfloat16] if device.type == "cuda" else [])
    out = []
    for B, N, Q, G in shapes:
        gen = torch.Generator().manual_seed(B * 31 + Q)
        kn = laplace_knots(G)
        t = torch.randn(G + 1, G + 1, Q, N // 2, generator=gen) * 0.5
        x = edge_inputs(B, N, kn, gen, exact_knots=False)   # df/dx jumps exactly on a knot
        gy = torch.randn(B, Q, generator=gen)
        for dt in dtypes:
            xd, td = x.to(dt), t.to(dt)
            ref = K.lmkan_reference(xd.float(), td.float(), kn)
            xa, ta = xd.float().clone().requires_grad_(), td.float().clone().requires_grad_()
            (K.lmkan_reference(xa, ta, kn) * gy).sum().backward()
            y = K.lmkan_forward(xd.to(device), td.to(device), kn.to(device)).float().cpu()
            gx, gt = K.lmkan_backward(xd.to(device), td.to(device), kn.to(device), gy.to(device).to(dt))
            tol = {torch.float32: 1e-5, torch.float16: 2e-2, torch.bfloat16: 5e-2}[dt]
            r = dict(B=B, N_in=N, N_out=Q, G=G, dtype=str(dt).replace("torch.", ""), fwd_rel_err=rel_err(y, ref),
                     grad_x_rel_err=rel_err(gx, xa.grad), grad_table_rel_err=rel_err(gt, ta.grad), tol=tol)
            r["ok"] = max(r["fwd_rel_err"], r["grad_x_rel_err"], r["grad_table_rel_err"]) <= tol
            out.append(r)
    return out


def timing(K, laplace_knots, device, batch, cases, ratio, iters) -> list[dict]:
    out = []
    for N, G in cases:
        gen = torch.Generator().manual_seed(N + G)
        kn = laplace_knots(G).to(device)
        t = (torch.randn(G + 1, G + 1, N, N // 2, generator=gen) * 0.05).to(device)
        x = torch.randn(batch, N, generator=gen).to(device)
        lin = torch.nn.Linear(N, N, bias=False).to(device)
        wide = max(1, round(2 * ratio * N))                        # Linear(N, wide): 2 N wide = ratio * 4 N N FLOPs
        mlp = torch.nn.Linear(N, wide, bias=False).to(device)
        with torch.no_grad():
            ms_kan = _time(lambda: K.lmkan_forward(x, t, kn), device, iters=iters)
            ms_lin = _time(lambda: lin(x), device, iters=iters)
            ms_mlp = _time(lambda: mlp(x), device, iters=iters)
        tr, xr = t.clone().requires_grad_(), x.clone().requires_grad_()
        ms_kan_fb = _time(lambda: K.lmkan(xr, tr, kn).sum().backward(), device, iters=max(3, iters // 2))
        ms_lin_fb = _time(lambda: lin(xr).sum().backward(), device, iters=max(3, iters // 2))
        flops_kan = 4 * N * N * batch
        out.append(dict(batch=batch, N_in=N, N_out=N, G=G, dtype="float32",
                        lmkan_fwd_ms=ms_kan, linear_fwd_ms=ms_lin, matched_mlp_fwd_ms=ms_mlp, matched_mlp_width=wide,
                        lmkan_fwd_bwd_ms=ms_kan_fb, linear_fwd_bwd_ms=ms_lin_fb,
                        lmkan_tflops=flops_kan / ms_kan / 1e9, linear_tflops=2 * N * N * batch / ms_lin / 1e9,
                        lmkan_lookup_GBps=batch * N * (N // 2) * 4 * 4 / ms_kan / 1e6,
                        speedup_vs_matched_mlp=ms_mlp / ms_kan, slowdown_vs_same_shape_linear=ms_kan / ms_lin))
    return out


def main(argv=None):
    ap = bench_parser(__doc__, "lmkan")
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--ratio", type=float, default=None,
                    help="FLOPs ratio at matched error (default: from results/full/lmkan.json, else 4)")
    a = ap.parse_args(argv)
    import iclr26.kernels.lmkan as K
    from iclr26.lmkan import laplace_knots
    device = bench_device(K)
    ratio = a.ratio
    if ratio is None:
        f = Path(__file__).resolve().parent.parent / "results" / "full" / "lmkan.json"
        try:
            cl = {c["name"]: c["value"] for c in json.loads(f.read_text())["claims"]}
            ratio = float(cl["teacher_flops_ratio_at_matched_mse"])
        except (OSError, KeyError, ValueError, TypeError):
            ratio = 4.0
    t0 = time.time()
    corr = correctness(K, laplace_knots, device, tiny=a.tiny)
    cases = [(16, 8)] if a.tiny else [(128, 8), (128, 26), (256, 8), (256, 26)]
    tim = timing(K, laplace_knots, device, 64 if a.tiny else a.batch, cases, ratio, 2 if a.tiny else a.iters)
    return write_report(a.out, device, corr, t0, flops_ratio_used=ratio, timing=tim)

if __name__ == "__main__":
    sys.exit(main())
