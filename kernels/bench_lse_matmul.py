"""GPU check and benchmark of the log-space matmul Triton kernel (`iclr26.kernels.lse_matmul`); writes JSON.

    python kernels/bench_lse_matmul.py --out results/bench_lse_matmul.json       # on a CUDA machine
    TRITON_INTERPRET=1 python kernels/bench_lse_matmul.py --tiny                 # CPU dry run of the script itself

1. Correctness on the device: Triton forward (and, with scattered -inf only, the autograd backward = the backward
   kernels) vs the PyTorch reference over shapes
   with ragged tails, broadcast batch dims, whole -inf rows/columns and scattered -inf entries, in float32,
   float16 and (on CUDA) bfloat16. -inf patterns must agree exactly and no NaN may appear.
2. Timing of the shapes the discrete Schrödinger-bridge solvers use (arXiv 2509.23348): the per-step table
   ``log(Q^n r)`` — (S x S) @ (D, S, K) with S=50, K in {64, 1000}, D in {2, 16, 64} — and square products
   (M=K=N in {256, 1024}) vs two PyTorch baselines: the exact broadcast + ``torch.logsumexp`` reference
   (memory M*K*N) and the max-shifted ``exp -> matmul -> log`` trick (fast, but underflows for entries more
   than ~88 nats (fp32) below the row/column maxima). Reported per case: milliseconds, achieved
   log-semiring "FLOP/s" (2*M*K*N per product: one add + one exp-accumulate), speed-ups; and the backward kernels
   against the PyTorch closed-form backward (memory M*K*N).
"""
from __future__ import annotations

import sys, time

import torch

from iclr26.kernels._bench import bench_device, bench_parser, median_time as _time, write_report




def shifted_matmul(a, b):
    "PyTorch baseline: log(exp(a - max_a) @ exp(b - max_b)) + max_a + max_b (fast, underflow-prone)."
    am = a.amax(-1, keepdim=True)
    bm = b.amax(-2, keepdim=True)
    am = torch.where(torch.isfinite(am), am, torch.zeros_like(am))
    bm = torch.where(torch.isfinite(bm), bm, torch.zeros_like(bm))
    return torch.log(torch.exp(a - am) @ torch.exp(b - bm)) + am + bm


def _with_neg_inf(a, b):
    a = a.clone()
    b = b.clone()
    a.reshape(-1, *a.shape[-2:])[0, 0, :] = float("-inf")
    b.reshape(-1, *b.shape[-2:])[0, :, -1] = float("-inf")
    a.reshape(-1, *a.shape[-2:])[..., -1, 0] = float("-inf")
    return a, b


def correctness(K, device, tiny=False) -> list[dict]:
    shapes = ([((), (), 19, 23, 9), ((2,), (), 5, 3, 7)] if tiny else
              [((), (), 19, 23, 9), ((2,), (), 5, 3, 7), ((), (3,), 1, 17, 1), ((4, 1), (1, 3), 33, 65, 31),
               ((), (16,), 50, 50, 64), ((), (), 257, 129, 513), ((8,), (8,), 1000, 50, 1)])
    dtypes = [torch.float32, torch.float16] + ([torch.bfloat16] if device.type == "cuda" else [])
    out = []
    for ba, bb, M, Kd, N in shapes:
        gen = torch.Generator().manual_seed(M * 31 + N)
        a, b = _with_neg_inf(
            torch.randn(*ba, M, Kd, generator=gen) * 4 - 10, torch.randn(*bb, Kd, N, generator=gen) * 4 - 10
        )
        gc = torch.randn(*torch.broadcast_shapes(a.shape[:-2], b.shape[:-2]), M, N, generator=gen)
        for dt in dtypes:
            ad, bd = a.to(dt), b.to(dt)
            ref = K.lse_matmul_reference(ad.float(), bd.float())
            c = K.lse_matmul_forward(ad.to(device), bd.to(device)).float().cpu()
            fin = torch.isfinite(ref)
            err = (c[fin] - ref[fin]).abs().max().item() if fin.any() else 0.0
            tol = {torch.float32: 1e-4, torch.float16: 0.1, torch.bfloat16: 0.5}[dt]   # absolute, |c| ~ 10..30
            r = dict(
                batch_a=list(ba),
                batch_b=list(bb),
                M=M,
                K=Kd,
                N=N,
                dtype=str(dt).replace("torch.", ""),
                fwd_abs_err=err,
                neg_inf_pattern_ok=bool(torch.equal(torch.isneginf(c), torch.isneginf(ref))),
                nan_free=not bool(torch.isnan(c).any()),
                tol=tol,
            )
            if dt == torch.float32:
                # gradient check with scattered -inf only: torch.logsumexp's backward turns a whole -inf row/column
                # (an output of -inf) into NaN gradients, so the reference cannot be compared there
                ad = ad.clone()
                bd = bd.clone()
                ad.reshape(-1, M, Kd)[0, 0, :] = torch.randn(Kd, generator=gen) - 10
                bd.reshape(-1, Kd, N)[0, :, -1] = torch.randn(Kd, generator=gen) - 10
                aa, bb_ = (
                    ad.detach().clone().to(device).requires_grad_(),
                    bd.detach().clone().to(device).requires_grad_(),
                )
                (K.lse_matmul(aa, bb_) * gc.to(device)).sum().backward()
                ar, br = ad.detach().clone().requires_grad_(), bd.detach().clone().requires_grad_()
                (K.lse_matmul_reference(ar, br) * gc).sum().backward()
                r["grad_a_abs_err"] = (aa.grad.cpu() - ar.grad).abs().max().item()
                r["grad_b_abs_err"] = (bb_.grad.cpu() - br.grad).abs().max().item()
                r["grads_nan_free"] = not bool(torch.isnan(aa.grad).any() or torch.isnan(bb_.grad).any())
            r["ok"] = (
                err <= tol
                and r["neg_inf_pattern_ok"]
                and r["nan_free"]
                and r.get("grads_nan_free", True)
                and max(r.get("grad_a_abs_err", 0), r.get("grad_b_abs_err", 0)) <= 1e-3
            )
            out.append(r)
    return out


def timing(K, device, tiny, iters) -> list[dict]:
    cases = ([("table", 50, 50, 8, 2)] if tiny else
             [("table S=50 K=64 D=2", 50, 50, 64, 2), ("table S=50 K=64 D=16", 50, 50, 64, 16),
              ("table S=50 K=64 D=64", 50, 50, 64, 64), ("table S=50 K=1000 D=64", 50, 50, 1000, 64),
              ("square 256", 256, 256, 256, 1), ("square 1024", 1024, 1024, 1024, 1)])
    out = []
    for name, M, Kd, N, Z in cases:
        gen = torch.Generator().manual_seed(M + N + Z)
        a = (torch.randn(M, Kd, generator=gen) * 4 - 10).to(device)
        b = (torch.randn(Z, Kd, N, generator=gen) * 4 - 10).to(device)
        r = dict(case=name, M=M, K=Kd, N=N, batch=Z, dtype="float32")
        with torch.no_grad():
            r["triton_ms"] = _time(lambda: K.lse_matmul_forward(a, b), device, iters=iters)
            r["shifted_matmul_ms"] = _time(lambda: shifted_matmul(a, b), device, iters=iters)
            mem = Z * M * Kd * N * 4
            if mem <= (2 << 30):
                r["torch_reference_ms"] = _time(lambda: K.lse_matmul_reference(a, b), device, iters=max(3, iters // 4))
                r["speedup_vs_reference"] = r["torch_reference_ms"] / r["triton_ms"]
            else:
                r["torch_reference_ms"] = None
                r["reference_skipped"] = f"needs {mem / 2**30:.1f} GiB"
            # backward: the two Triton kernels vs the PyTorch closed form (which materialises M x K x N)
            c = K.lse_matmul_forward(a, b)
            gc = torch.randn(c.shape, generator=gen).to(device)
            r["triton_backward_ms"] = _time(lambda: K.lse_matmul_backward_triton(a, b, c, gc), device, iters=iters)
            if mem <= (1 << 30):
                r["torch_backward_ms"] = _time(lambda: K.lse_matmul_backward(a, b, c, gc), device,
                                                iters=max(3, iters // 4))
                r["backward_speedup_vs_torch"] = r["torch_backward_ms"] / r["triton_backward_ms"]
            else:
                r["torch_backward_ms"] = None
        ops = 2.0 * Z * M * Kd * N
        r["triton_gops"] = ops / r["triton_ms"] / 1e6
        r["speedup_vs_shifted_matmul"] = r["shifted_matmul_ms"] / r["triton_ms"]
        out.append(r)
    return out


def main(argv=None):
    a = bench_parser(__doc__, "lse_matmul").parse_args(argv)
    import iclr26.kernels.lse_matmul as K
    device = bench_device(K)
    t0 = time.time()
    corr = correctness(K, device, tiny=a.tiny)
    tim = timing(K, device, a.tiny, 2 if a.tiny else a.iters)
    return write_report(a.out, device, corr, t0, timing=tim)

if __name__ == "__main__":
    sys.exit(main())
