"""Triton kernel for the log-space matrix product (the log-semiring "matmul").

For ``a`` of shape ``(..., M, K)`` and ``b`` of shape ``(..., K, N)`` (batch dims broadcast)

    c[..., i, j] = log sum_k exp(a[..., i, k] + b[..., k, j]),

the product of two non-negative matrices ``exp(a) @ exp(b)`` computed without leaving log space. It is the
operation that dominates discrete Schrödinger-bridge solvers (arXiv 2509.23348): every potential
``u = Q^n r`` of a CP-form potential, every cumulative reference matrix ``Q^n``, every normaliser.
Entries may be ``-inf`` (zero probabilities); a row/column that is all ``-inf`` gives ``-inf``, never NaN.

This module holds

* ``_lse_matmul_kernel``: one program per (batch, M tile, N tile); it streams ``K`` in blocks and keeps a
  running maximum and a rescaled running sum per output (the "online logsumexp" of flash attention), so
  nothing of size M x K x N is ever stored. Arithmetic is float32 for float16/bfloat16/float32 inputs.
* ``lse_matmul_forward``: the launcher (checks shapes, dtypes, devices; broadcasts batch dims).
* ``_lse_matmul_grad_a_kernel`` / ``_lse_matmul_grad_b_kernel``: the backward pass, the closed form
  ``grad_a[i,k] = sum_j g[i,j] exp(a[i,k] + b[k,j] - c[i,j])`` (and ``grad_b[k,j] = sum_i ...``), streamed over
  ``N`` (resp. ``M``) in blocks, so it too never stores an M x K x N tensor; ``lse_matmul_backward_triton``
  launches them.
* ``LSEMatmulFunction`` / ``lse_matmul``: autograd wrapper (Triton forward and backward); ``lse_matmul_backward``
  is the PyTorch closed form (materialises M x K x N), kept as the reference of the backward kernels.
* ``lse_matmul_reference``: a pure-PyTorch reference (broadcast and ``torch.logsumexp``).

Set ``TRITON_INTERPRET=1`` before importing this module to run the Triton path on CPU tensors.
"""
from __future__ import annotations

import torch

from . import check_triton_path, import_triton, interpreting   # the project's shared rule (re-exported: `interpreting`)

triton, tl = import_triton()   # (None, None) without triton: the reference still works
HAS_TRITON = triton is not None

__all__ = ["HAS_TRITON", "interpreting", "lse_matmul_reference", "lse_matmul_forward", "lse_matmul_backward",
           "lse_matmul_backward_triton", "LSEMatmulFunction", "lse_matmul"]

_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


def _check(a, b, need_device=True, dtypes=_DTYPES):
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor): raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() < 2:
            raise ValueError(f"{name} must have at least 2 dims (..., rows, cols), got shape {tuple(t.shape)}")
        if t.dtype not in dtypes: raise TypeError(f"{name} must be one of {[str(d) for d in dtypes]}, got {t.dtype}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"inner dims differ: a has {a.shape[-1]} columns, b has {b.shape[-2]} rows")
    try:
        torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except RuntimeError:
        raise ValueError(
            f"batch dims of a {tuple(a.shape[:-2])} and b {tuple(b.shape[:-2])} do not broadcast"
        ) from None
    if a.device != b.device: raise ValueError(f"a and b must be on one device, got {a.device} and {b.device}")
    if need_device: check_triton_path(a, b, what="lse_matmul (the Triton path)")


# ---------------------------------------------------------------------------------------------
# pure-PyTorch reference
# ---------------------------------------------------------------------------------------------
def lse_matmul_reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    ("Pure-PyTorch `log(exp(a) @ exp(b))` by broadcasting to (..., M, K, N) and `torch.logsumexp` over K (float32 "
     "math or better).")
    _check(a, b, need_device=False, dtypes=_DTYPES + (torch.float64,))
    dt = torch.promote_types(a.dtype, b.dtype)
    work = torch.float64 if dt == torch.float64 else torch.float32
    terms = a.to(work).unsqueeze(-1) + b.to(work).unsqueeze(-3)
    if a.shape[-1] == 0:   # empty sum
        return terms.new_full(terms.shape[:-3] + (a.shape[-2], b.shape[-1]), float("-inf")).to(dt)
    return torch.logsumexp(terms, dim=-2).to(dt)


# ---------------------------------------------------------------------------------------------
# Triton kernel
# ---------------------------------------------------------------------------------------------
if HAS_TRITON:
    @triton.jit
    def _lse_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                           sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        pid_z = tl.program_id(0)
        pid_m = tl.program_id(1)
        pid_n = tl.program_id(2)
        rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        mm = rm < M
        mn = rn < N
        m_run = tl.full((BLOCK_M, BLOCK_N), float("-inf"), tl.float32)
        s_run = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        a_base = a_ptr + pid_z * sab
        b_base = b_ptr + pid_z * sbb
        for k0 in range(0, K, BLOCK_K):
            rk = k0 + tl.arange(0, BLOCK_K)
            mk = rk < K
            at = tl.load(a_base + rm[:, None] * sam + rk[None, :] * sak,
                         mask=mm[:, None] & mk[None, :], other=float("-inf")).to(tl.float32)     # (BM, BK)
            bt = tl.load(b_base + rk[:, None] * sbk + rn[None, :] * sbn,
                         mask=mk[:, None] & mn[None, :], other=float("-inf")).to(tl.float32)     # (BK, BN)
            x = at[:, :, None] + bt[None, :, :]                                                 # (BM, BK, BN)
            m_new = tl.maximum(m_run, tl.max(x, axis=1))
            safe = tl.where(m_new == float("-inf"), 0.0, m_new)      # all -inf so far: shift by 0, sums stay 0
            s_run = s_run * tl.exp(m_run - safe) + tl.sum(tl.exp(x - safe[:, None, :]), axis=1)
            m_run = m_new
        safe = tl.where(m_run == float("-inf"), 0.0, m_run)
        out = safe + tl.log(s_run)                                   # log(0) = -inf for empty rows
        tl.store(c_ptr + pid_z * scb + rm[:, None] * scm + rn[None, :] * scn, out.to(c_ptr.dtype.element_ty),
                 mask=mm[:, None] & mn[None, :])


    @triton.jit
    def _lse_matmul_grad_a_kernel(a_ptr, b_ptr, c_ptr, g_ptr, ga_ptr, M, N, K,
                                  sab, sam, sak, sbb, sbk, sbn, scb, scm, scn, sgb, sgm, sgn, sob, som, sok,
                                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        # grad_a[i, k] = sum_j g[i, j] exp(a[i, k] + b[k, j] - c[i, j]); one program per (batch, M tile, K tile)
        pid_z = tl.program_id(0)
        pid_m = tl.program_id(1)
        pid_k = tl.program_id(2)
        rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
        mm = rm < M
        mk = rk < K
        at = tl.load(a_ptr + pid_z * sab + rm[:, None] * sam + rk[None, :] * sak,
                     mask=mm[:, None] & mk[None, :], other=float("-inf")).to(tl.float32)            # (BM, BK)
        acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
        for n0 in range(0, N, BLOCK_N):
            rn = n0 + tl.arange(0, BLOCK_N)
            mn = rn < N
            bt = tl.load(b_ptr + pid_z * sbb + rk[:, None] * sbk + rn[None, :] * sbn,
                         mask=mk[:, None] & mn[None, :], other=float("-inf")).to(tl.float32)        # (BK, BN)
            ct = tl.load(c_ptr + pid_z * scb + rm[:, None] * scm + rn[None, :] * scn,
                         mask=mm[:, None] & mn[None, :], other=float("-inf")).to(tl.float32)        # (BM, BN)
            gt = tl.load(g_ptr + pid_z * sgb + rm[:, None] * sgm + rn[None, :] * sgn,
                         mask=mm[:, None] & mn[None, :], other=0.0).to(tl.float32)
            ok = ct != float("-inf")                                # an empty output has no gradient
            cs = tl.where(ok, ct, 0.0)
            gs = tl.where(ok, gt, 0.0)
            x = at[:, :, None] + bt[None, :, :] - cs[:, None, :]                                     # (BM, BK, BN)
            acc += tl.sum(tl.exp(x) * gs[:, None, :], axis=2)
        tl.store(ga_ptr + pid_z * sob + rm[:, None] * som + rk[None, :] * sok, acc.to(ga_ptr.dtype.element_ty),
                 mask=mm[:, None] & mk[None, :])

    @triton.jit
    def _lse_matmul_grad_b_kernel(a_ptr, b_ptr, c_ptr, g_ptr, gb_ptr, M, N, K,
                                  sab, sam, sak, sbb, sbk, sbn, scb, scm, scn, sgb, sgm, sgn, sob, sok, son,
                                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        # grad_b[k, j] = sum_i g[i, j] exp(a[i, k] + b[k, j] - c[i, j]); one program per (batch, K tile, N tile)
        pid_z = tl.program_id(0)
        pid_k = tl.program_id(1)
        pid_n = tl.program_id(2)
        rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        mk = rk < K
        mn = rn < N
        bt = tl.load(b_ptr + pid_z * sbb + rk[:, None] * sbk + rn[None, :] * sbn,
                     mask=mk[:, None] & mn[None, :], other=float("-inf")).to(tl.float32)            # (BK, BN)
        acc = tl.zeros((BLOCK_K, BLOCK_N), dtype=tl.float32)
        for m0 in range(0, M, BLOCK_M):
            rm = m0 + tl.arange(0, BLOCK_M)
            mm = rm < M
            at = tl.load(a_ptr + pid_z * sab + rm[:, None] * sam + rk[None, :] * sak,
                         mask=mm[:, None] & mk[None, :], other=float("-inf")).to(tl.float32)        # (BM, BK)
            ct = tl.load(c_ptr + pid_z * scb + rm[:, None] * scm + rn[None, :] * scn,
                         mask=mm[:, None] & mn[None, :], other=float("-inf")).to(tl.float32)        # (BM, BN)
            gt = tl.load(g_ptr + pid_z * sgb + rm[:, None] * sgm + rn[None, :] * sgn,
                         mask=mm[:, None] & mn[None, :], other=0.0).to(tl.float32)
            ok = ct != float("-inf")
            cs = tl.where(ok, ct, 0.0)
            gs = tl.where(ok, gt, 0.0)
            x = at[:, :, None] + bt[None, :, :] - cs[:, None, :]                                     # (BM, BK, BN)
            acc += tl.sum(tl.exp(x) * gs[:, None, :], axis=0)
        tl.store(gb_ptr + pid_z * sob + rk[:, None] * sok + rn[None, :] * son, acc.to(gb_ptr.dtype.element_ty),
                 mask=mk[:, None] & mn[None, :])


def _blocks(M, N, K, block_m, block_n, block_k):
    "Power-of-two tiles; 16 x 16 x 16 by default (the (BM, BK, BN) register tile is 4096 floats)."
    d = lambda n: min(16, max(1 if interpreting() else 16, triton.next_power_of_2(max(n, 1))))
    block_m = d(M) if block_m is None else block_m
    block_n = d(N) if block_n is None else block_n
    block_k = d(K) if block_k is None else block_k
    for name, v in (("block_m", block_m), ("block_n", block_n), ("block_k", block_k)):
        if not isinstance(v, int) or v < 1 or v & (v - 1): raise ValueError(f"{name} must be a power of two, got {v!r}")
    return block_m, block_n, block_k


def _flatten_batch(a, b):
    "Broadcast batch dims and view both operands as (Z, rows, cols) (stride 0 where a batch dim is broadcast)."
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a3 = a.expand(*batch, *a.shape[-2:]).reshape(-1, *a.shape[-2:])
    b3 = b.expand(*batch, *b.shape[-2:]).reshape(-1, *b.shape[-2:])
    return batch, a3, b3


def lse_matmul_forward(a: torch.Tensor, b: torch.Tensor, block_m: int | None = None, block_n: int | None = None,
                       block_k: int | None = None) -> torch.Tensor:
    "Triton `log(exp(a) @ exp(b))` for `a` (..., M, K) and `b` (..., K, N) -> (..., M, N) in the promoted input dtype."
    _check(a, b)
    M, K, N = a.shape[-2], a.shape[-1], b.shape[-1]
    dt = torch.promote_types(a.dtype, b.dtype)
    batch, a3, b3 = _flatten_batch(a, b)
    Z = a3.shape[0]
    c = torch.empty(Z, M, N, device=a.device, dtype=dt)
    if Z and M and N:
        if K == 0:
            c.fill_(float("-inf"))
        else:
            bm, bn, bk = _blocks(M, N, K, block_m, block_n, block_k)
            grid = (Z, triton.cdiv(M, bm), triton.cdiv(N, bn))
            _lse_matmul_kernel[grid](a3, b3, c, M, N, K, *a3.stride(), *b3.stride(), *c.stride(),
                                     BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk)
    return c.reshape(*batch, M, N)


def lse_matmul_backward(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, grad_c: torch.Tensor,
                        need_a: bool = True, need_b: bool = True) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """Gradients of `sum(grad_c * c)` for `c = lse_matmul(a, b)`: `exp(a_ik + b_kj - c_ij)` weighted sums (PyTorch).
    Terms whose `a_ik + b_kj` is -inf contribute 0; outputs have the shapes of `a` and `b` (broadcast dims summed)."""
    work = torch.float32 if a.dtype != torch.float64 else torch.float64
    af, bf, cf, gf = a.to(work), b.to(work), c.to(work), grad_c.to(work)
    x = af.unsqueeze(-1) + bf.unsqueeze(-3)                       # (..., M, K, N)
    p = torch.exp(x - cf.unsqueeze(-2))
    p = torch.where(torch.isneginf(x), torch.zeros((), dtype=work, device=x.device), p)
    w = p * gf.unsqueeze(-2)
    ga = gb = None
    if need_a: ga = _sum_to(w.sum(-1), a.shape).to(a.dtype)
    if need_b: gb = _sum_to(w.sum(-3), b.shape).to(b.dtype)
    return ga, gb


def _sum_to(t: torch.Tensor, shape) -> torch.Tensor:
    "Sum a broadcast gradient back to `shape`."
    while t.dim() > len(shape): t = t.sum(0)
    for i, (n, m) in enumerate(zip(t.shape, shape)):
        if m == 1 and n != 1: t = t.sum(i, keepdim=True)
    return t


def lse_matmul_backward_triton(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, grad_c: torch.Tensor,
                               need_a: bool = True, need_b: bool = True, block_m: int | None = None,
                               block_n: int | None = None, block_k: int | None = None):
    """Triton gradients of `sum(grad_c * c)` for `c = lse_matmul(a, b)` (same contract as `lse_matmul_backward`): two
    kernels stream the closed form over N (for `grad_a`) and over M (for `grad_b`); float32 accumulation."""
    _check(a, b)
    M, K, N = a.shape[-2], a.shape[-1], b.shape[-1]
    batch, a3, b3 = _flatten_batch(a, b)
    Z = a3.shape[0]
    c3 = c.expand(*batch, M, N).reshape(Z, M, N)
    g3 = grad_c.to(c.dtype).expand(*batch, M, N).reshape(Z, M, N)
    ga = gb = None
    if Z == 0 or M == 0 or N == 0 or K == 0:
        if need_a: ga = torch.zeros_like(a)
        if need_b: gb = torch.zeros_like(b)
        return ga, gb
    bm, bn, bk = _blocks(M, N, K, block_m, block_n, block_k)
    if need_a:
        ga3 = torch.empty(Z, M, K, device=a.device, dtype=torch.float32)
        _lse_matmul_grad_a_kernel[(Z, triton.cdiv(M, bm), triton.cdiv(K, bk))](
            a3, b3, c3, g3, ga3, M, N, K, *a3.stride(), *b3.stride(), *c3.stride(), *g3.stride(), *ga3.stride(),
            BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk)
        ga = _sum_to(ga3.reshape(*batch, M, K), a.shape).to(a.dtype)
    if need_b:
        gb3 = torch.empty(Z, K, N, device=a.device, dtype=torch.float32)
        _lse_matmul_grad_b_kernel[(Z, triton.cdiv(K, bk), triton.cdiv(N, bn))](
            a3, b3, c3, g3, gb3, M, N, K, *a3.stride(), *b3.stride(), *c3.stride(), *g3.stride(), *gb3.stride(),
            BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk)
        gb = _sum_to(gb3.reshape(*batch, K, N), b.shape).to(b.dtype)
    return ga, gb


class LSEMatmulFunction(torch.autograd.Function):
    "Autograd wrapper: Triton forward, Triton backward (streamed closed form; no M x K x N tensor either way)."
    @staticmethod
    def forward(ctx, a, b):
        c = lse_matmul_forward(a, b)
        ctx.save_for_backward(a, b, c)
        return c

    @staticmethod
    def backward(ctx, grad_c):
        a, b, c = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        return lse_matmul_backward_triton(a, b, c, grad_c, need_a=need_a, need_b=need_b)


def lse_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    "Differentiable log-space matrix product on the Triton path (CUDA, or CPU under `TRITON_INTERPRET=1`)."
    return LSEMatmulFunction.apply(a, b)
