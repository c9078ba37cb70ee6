"""Triton kernels for lmKAN layers (lookup multivariate Kolmogorov-Arnold networks, arXiv 2509.07103).

An lmKAN layer maps ``x`` of shape ``(B, N_in)`` to ``y`` of shape ``(B, N_out)`` with

    y[b, q] = sum_p f_qp(x[b, 2p], x[b, 2p+1]),

where each ``f_qp`` is a bilinear (second-order B-spline) interpolant of a ``(G+1) x (G+1)`` table on a
static grid whose inner knots are quantiles of the Laplace distribution (``knots``, ``G + 1`` values).
The parameter table has the paper's layout ``(G+1, G+1, N_out, N_in/2)``.

This module holds

* ``_lmkan_fwd_kernel``: program per (batch tile x output tile), loop over input pairs, locate the
  cell of each input, gather the four corner values and accumulate them with fused multiply-adds.
  Deterministic, no atomics.
* ``_lmkan_bwd_kernel``: program per (batch tile x input pair), loop over output tiles; the input
  gradient is reduced in registers (deterministic), the table gradient is scattered with
  ``tl.atomic_add`` (on a GPU the order of float additions, hence the last bits, can vary run to run).
* ``lmkan_forward`` / ``lmkan_backward``: launchers that check shapes, dtypes and devices.
* ``LMKANFunction`` / ``lmkan``: the ``torch.autograd.Function`` wrapping both.
* ``lmkan_reference``: a pure-PyTorch reference of the same computation (gather + weighted sum).

Set ``TRITON_INTERPRET=1`` before importing this module to run the Triton path on CPU tensors.
Arithmetic is float32 inside the kernels for float16/bfloat16/float32 inputs; the output has ``x``'s dtype.
"""
from __future__ import annotations

import torch

from . import check_triton_path, import_triton, interpreting

triton, tl = import_triton()   # (None, None) without triton: the references still work
HAS_TRITON = triton is not None

__all__ = ["HAS_TRITON", "interpreting", "locate_reference", "lmkan_reference", "lmkan_forward", "lmkan_backward",
           "LMKANFunction", "lmkan"]

_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


# ---------------------------------------------------------------------------------------------
# pure-PyTorch reference
# ---------------------------------------------------------------------------------------------
def locate_reference(x: torch.Tensor, knots: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Cell index `i = clamp(floor(G * sigma(x)), 0, G-1)` (sigma = Laplace CDF) and in-cell offset
    `u = (x - b_i)/(b_{i+1} - b_i)`."""
    G = knots.numel() - 1
    e = torch.exp(-x.abs())
    s = torch.where(x > 0, 1.0 - 0.5 * e, 0.5 * e)
    i = (s * G).to(torch.int64).clamp_(0, G - 1)
    lo, hi = knots[i], knots[i + 1]
    return i, (x - lo) / (hi - lo)


def lmkan_reference(x: torch.Tensor, table: torch.Tensor, knots: torch.Tensor) -> torch.Tensor:
    "Pure-PyTorch lmKAN layer: gather the four corners of each pair's cell and sum the bilinear weights (float32 math)."
    _check(x, table, knots, need_device=False)
    xf, t, k = x.float(), table.float(), knots.float()
    i, u = locate_reference(xf, k)
    i1, i2, u1, u2 = i[:, 0::2], i[:, 1::2], u[:, 0::2], u[:, 1::2]
    p = torch.arange(t.shape[3], device=x.device)
    corner = lambda a, c: t[i1 + a, i2 + c, :, p]            # (B, P, N_out)
    y = (((1 - u1) * (1 - u2))[..., None] * corner(0, 0) + ((1 - u1) * u2)[..., None] * corner(0, 1)
         + (u1 * (1 - u2))[..., None] * corner(1, 0) + (u1 * u2)[..., None] * corner(1, 1)).sum(1)
    return y.to(x.dtype)


def _check(x, table, knots, need_device=True):
    for name, t in (("x", x), ("table", table), ("knots", knots)):
        if not isinstance(t, torch.Tensor): raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if x.dim() != 2: raise ValueError(f"x must be 2-D (batch, in_features), got shape {tuple(x.shape)}")
    if x.shape[1] % 2: raise ValueError(f"x must have an even number of features (inputs are paired), got {x.shape[1]}")
    if table.dim() != 4 or table.shape[0] != table.shape[1]:
        raise ValueError(f"table must have shape (G+1, G+1, out_features, in_features/2), got {tuple(table.shape)}")
    if table.shape[3] != x.shape[1] // 2:
        raise ValueError(f"table's last dim ({table.shape[3]}) must be x.shape[1]/2 = {x.shape[1] // 2}")
    if knots.dim() != 1 or knots.numel() != table.shape[0]:
        raise ValueError(f"knots must be 1-D with G+1 = {table.shape[0]} values, got shape {tuple(knots.shape)}")
    if table.shape[0] < 4: raise ValueError(f"the grid needs G >= 3 cells, got G = {table.shape[0] - 1}")
    if x.dtype not in _DTYPES: raise TypeError(f"x must be float16, bfloat16 or float32, got {x.dtype}")
    if table.dtype not in _DTYPES: raise TypeError(f"table must be float16, bfloat16 or float32, got {table.dtype}")
    if not knots.is_floating_point(): raise TypeError(f"knots must be floating point, got {knots.dtype}")
    if len({x.device, table.device, knots.device}) != 1:
        raise ValueError(f"x, table and knots must be on one device, got {x.device}, {table.device}, {knots.device}")
    if need_device: check_triton_path(x, table, knots, what="the lmKAN Triton path")


# ---------------------------------------------------------------------------------------------
# Triton kernels
# ---------------------------------------------------------------------------------------------
if HAS_TRITON:
    @triton.jit
    def _locate(x, k_ptr, G):
        "Cell index and in-cell offset of `x` on the Laplace-quantile grid (`G` cells, knots at `k_ptr`)."
        e = tl.exp(-tl.abs(x))
        s = tl.where(x > 0, 1.0 - 0.5 * e, 0.5 * e)
        i = (s * G).to(tl.int32)                        # s >= 0, so truncation is floor
        i = tl.minimum(tl.maximum(i, 0), G - 1)
        lo = tl.load(k_ptr + i)
        hi = tl.load(k_ptr + i + 1)
        return i, (x - lo) / (hi - lo), 1.0 / (hi - lo)

    @triton.jit
    def _lmkan_fwd_kernel(x_ptr, t_ptr, k_ptr, y_ptr, B, N_OUT, NP, G,
                          sxb, sxi, st0, st1, st2, st3, syb, syq,
                          BLOCK_B: tl.constexpr, BLOCK_Q: tl.constexpr):
        pid_b = tl.program_id(0)
        pid_q = tl.program_id(1)
        rb = pid_b * BLOCK_B + tl.arange(0, BLOCK_B)
        rq = pid_q * BLOCK_Q + tl.arange(0, BLOCK_Q)
        mb = rb < B
        mq = rq < N_OUT
        m2 = mb[:, None] & mq[None, :]
        acc = tl.zeros((BLOCK_B, BLOCK_Q), dtype=tl.float32)
        qoff = (rq * st2)[None, :]
        for p in range(0, NP):
            x1 = tl.load(x_ptr + rb * sxb + (2 * p) * sxi, mask=mb, other=0.0).to(tl.float32)
            x2 = tl.load(x_ptr + rb * sxb + (2 * p + 1) * sxi, mask=mb, other=0.0).to(tl.float32)
            i1, u1, _h1 = _locate(x1, k_ptr, G)
            i2, u2, _h2 = _locate(x2, k_ptr, G)
            base = (i1 * st0 + i2 * st1 + p * st3)[:, None] + qoff
            t00 = tl.load(t_ptr + base, mask=m2, other=0.0).to(tl.float32)
            t01 = tl.load(t_ptr + base + st1, mask=m2, other=0.0).to(tl.float32)
            t10 = tl.load(t_ptr + base + st0, mask=m2, other=0.0).to(tl.float32)
            t11 = tl.load(t_ptr + base + st0 + st1, mask=m2, other=0.0).to(tl.float32)
            v1 = (1.0 - u1)[:, None]
            w1 = u1[:, None]
            v2 = (1.0 - u2)[:, None]
            w2 = u2[:, None]
            acc += (v1 * v2) * t00
            acc += (v1 * w2) * t01
            acc += (w1 * v2) * t10
            acc += (w1 * w2) * t11
        tl.store(y_ptr + rb[:, None] * syb + rq[None, :] * syq, acc.to(y_ptr.dtype.element_ty), mask=m2)

    @triton.jit
    def _lmkan_bwd_kernel(x_ptr, t_ptr, k_ptr, gy_ptr, gx_ptr, gt_ptr, B, N_OUT, G,
                          sxb, sxi, st0, st1, st2, st3, sgb, sgq, sgxb, sgxi,
                          NEED_X: tl.constexpr, NEED_T: tl.constexpr,
                          BLOCK_B: tl.constexpr, BLOCK_Q: tl.constexpr):
        pid_b = tl.program_id(0)
        p = tl.program_id(1)
        rb = pid_b * BLOCK_B + tl.arange(0, BLOCK_B)
        mb = rb < B
        x1 = tl.load(x_ptr + rb * sxb + (2 * p) * sxi, mask=mb, other=0.0).to(tl.float32)
        x2 = tl.load(x_ptr + rb * sxb + (2 * p + 1) * sxi, mask=mb, other=0.0).to(tl.float32)
        i1, u1, ih1 = _locate(x1, k_ptr, G)
        i2, u2, ih2 = _locate(x2, k_ptr, G)
        v1 = (1.0 - u1)[:, None]
        w1 = u1[:, None]
        v2 = (1.0 - u2)[:, None]
        w2 = u2[:, None]
        cell = (i1 * st0 + i2 * st1 + p * st3)[:, None]
        d1 = tl.zeros((BLOCK_B,), dtype=tl.float32)
        d2 = tl.zeros((BLOCK_B,), dtype=tl.float32)
        for q0 in range(0, N_OUT, BLOCK_Q):
            rq = q0 + tl.arange(0, BLOCK_Q)
            mq = rq < N_OUT
            m2 = mb[:, None] & mq[None, :]
            g = tl.load(gy_ptr + rb[:, None] * sgb + rq[None, :] * sgq, mask=m2, other=0.0).to(tl.float32)
            off = cell + (rq * st2)[None, :]
            if NEED_X:
                t00 = tl.load(t_ptr + off, mask=m2, other=0.0).to(tl.float32)
                t01 = tl.load(t_ptr + off + st1, mask=m2, other=0.0).to(tl.float32)
                t10 = tl.load(t_ptr + off + st0, mask=m2, other=0.0).to(tl.float32)
                t11 = tl.load(t_ptr + off + st0 + st1, mask=m2, other=0.0).to(tl.float32)
                d1 += tl.sum(g * (v2 * (t10 - t00) + w2 * (t11 - t01)), axis=1)
                d2 += tl.sum(g * (v1 * (t01 - t00) + w1 * (t11 - t10)), axis=1)
            if NEED_T:  # gt is a contiguous float32 buffer with the table's strides
                tl.atomic_add(gt_ptr + off, g * (v1 * v2), mask=m2)
                tl.atomic_add(gt_ptr + off + st1, g * (v1 * w2), mask=m2)
                tl.atomic_add(gt_ptr + off + st0, g * (w1 * v2), mask=m2)
                tl.atomic_add(gt_ptr + off + st0 + st1, g * (w1 * w2), mask=m2)
        if NEED_X:
            tl.store(gx_ptr + rb * sgxb + (2 * p) * sgxi, (d1 * ih1).to(gx_ptr.dtype.element_ty), mask=mb)
            tl.store(gx_ptr + rb * sgxb + (2 * p + 1) * sgxi, (d2 * ih2).to(gx_ptr.dtype.element_ty), mask=mb)


def _blocks(B: int, N_out: int, block_b: int | None, block_q: int | None) -> tuple[int, int]:
    "Power-of-two tile sizes: 32 x 32 by default (enough programs to fill a GPU at batch 1024; few in the interpreter)."
    if block_b is None: block_b = 32
    # block_q >= 16 on a GPU (no tl.dot, but narrower tiles waste lanes); any power of two in the interpreter
    if block_q is None:
        block_q = min(32, max(1 if interpreting() else 16, triton.next_power_of_2(N_out)))
    for name, v in (("block_b", block_b), ("block_q", block_q)):
        if not isinstance(v, int) or v < 1 or v & (v - 1): raise ValueError(f"{name} must be a power of two, got {v!r}")
    return block_b, block_q


def lmkan_forward(x: torch.Tensor, table: torch.Tensor, knots: torch.Tensor,
                  block_b: int | None = None, block_q: int | None = None) -> torch.Tensor:
    "Triton forward of an lmKAN layer: `x` (B, N_in), `table` (G+1, G+1, N_out, N_in/2), `knots` (G+1,) -> (B, N_out)."
    _check(x, table, knots)
    B, N_out, NP, G = x.shape[0], table.shape[2], table.shape[3], table.shape[0] - 1
    knots = knots.to(torch.float32).contiguous()
    y = torch.empty(B, N_out, device=x.device, dtype=x.dtype)
    if B == 0 or N_out == 0: return y
    if NP == 0: return y.zero_()
    bb, bq = _blocks(B, N_out, block_b, block_q)
    grid = (triton.cdiv(B, bb), triton.cdiv(N_out, bq))
    _lmkan_fwd_kernel[grid](x, table, knots, y, B, N_out, NP, G, x.stride(0), x.stride(1), *table.stride(),
                            y.stride(0), y.stride(1), BLOCK_B=bb, BLOCK_Q=bq)
    return y


def lmkan_backward(x: torch.Tensor, table: torch.Tensor, knots: torch.Tensor, grad_y: torch.Tensor,
                   need_x: bool = True, need_table: bool = True,
                   block_b: int | None = None,
                   block_q: int | None = None) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    "Triton backward: gradients of `sum(grad_y * y)` with respect to `x` and `table` (None where not needed)."
    _check(x, table, knots)
    B, N_out, NP, G = x.shape[0], table.shape[2], table.shape[3], table.shape[0] - 1
    if not isinstance(grad_y, torch.Tensor) or grad_y.shape != (B, N_out):
        raise ValueError(f"grad_y must have shape {(B, N_out)}, got {getattr(grad_y, 'shape', type(grad_y).__name__)}")
    if grad_y.device != x.device: raise ValueError(f"grad_y must be on {x.device}, got {grad_y.device}")
    knots = knots.to(torch.float32).contiguous()
    gx = torch.zeros_like(x) if need_x else None
    gt = torch.zeros(table.shape, device=x.device, dtype=torch.float32) if need_table else None
    if B and N_out and NP and (need_x or need_table):
        bb, bq = _blocks(B, N_out, block_b, block_q)
        tstr = table.stride()
        if need_table and gt.stride() != tstr:      # the kernel indexes gt with the table's strides
            tbl = table.contiguous()
            tstr = tbl.stride()
        else:
            tbl = table
        dummy = gt if gt is not None else gx
        _lmkan_bwd_kernel[(triton.cdiv(B, bb), NP)](
            x, tbl, knots, grad_y, gx if gx is not None else dummy, gt if gt is not None else dummy, B, N_out, G,
            x.stride(0), x.stride(1), *tstr, grad_y.stride(0), grad_y.stride(1),
            gx.stride(0) if gx is not None else 0, gx.stride(1) if gx is not None else 0,
            NEED_X=bool(need_x), NEED_T=bool(need_table), BLOCK_B=bb, BLOCK_Q=bq)
    return gx, (gt.to(table.dtype) if gt is not None else None)


class LMKANFunction(torch.autograd.Function):
    "Autograd wrapper: forward and backward both run the Triton kernels."
    @staticmethod
    def forward(ctx, x, table, knots):
        ctx.save_for_backward(x, table, knots)
        return lmkan_forward(x, table, knots)

    @staticmethod
    def backward(ctx, grad_y):
        x, table, knots = ctx.saved_tensors
        gx, gt = lmkan_backward(x, table, knots, grad_y.contiguous(),
                                need_x=ctx.needs_input_grad[0], need_table=ctx.needs_input_grad[1])
        return gx, gt, None


def lmkan(x: torch.Tensor, table: torch.Tensor, knots: torch.Tensor) -> torch.Tensor:
    "Differentiable lmKAN layer on the Triton path (CUDA, or CPU under `TRITON_INTERPRET=1`)."
    return LMKANFunction.apply(x, table, knots)
