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
* ``LSEMatmulFunction`` / ``lse_matmul``: autograd wrapper; the backward pass is the closed form
  ``grad_a[i,k] = sum_j g[i,j] exp(a[i,k] + b[k,j] - c[i,j])`` (and symmetrically for ``b``), evaluated
  in PyTorch.
* ``lse_matmul_reference``: a pure-PyTorch reference (broadcast and ``torch.logsumexp``).

Set ``TRITON_INTERPRET=1`` before importing this module to run the Triton path on CPU tensors.
"""
from __future__ import annotations

import os

import torch

try:
    import triton
    import triton.language as tl
    HAS_TRITON = True
except ImportError:  # triton is optional: the reference still works
    triton = tl = None
    HAS_TRITON = False

__all__ = ["HAS_TRITON", "interpreting", "lse_matmul_reference", "lse_matmul_forward", "lse_matmul_backward",
           "LSEMatmulFunction", "lse_matmul"]

_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


def interpreting() -> bool:
    "True when Triton runs in its CPU interpreter (`TRITON_INTERPRET=1`)."
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def _check(a, b, need_device=True, dtypes=_DTYPES):
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor): raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() < 2: raise ValueError(f"{name} must have at least 2 dims (..., rows, cols), got shape {tuple(t.shape)}")
        if t.dtype not in dtypes: raise TypeError(f"{name} must be one of {[str(d) for d in dtypes]}, got {t.dtype}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"inner dims differ: a has {a.shape[-1]} columns, b has {b.shape[-2]} rows")
    try:
        torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except RuntimeError:
        raise ValueError(f"batch dims of a {tuple(a.shape[:-2])} and b {tuple(b.shape[:-2])} do not broadcast") from None
    if a.device != b.device: raise ValueError(f"a and b must be on one device, got {a.device} and {b.device}")
    if need_device:
        if not HAS_TRITON: raise RuntimeError("the Triton path needs the `triton` package")
        if a.device.type != "cuda" and not interpreting():
            raise ValueError(f"the Triton path needs CUDA tensors (or TRITON_INTERPRET=1 for CPU tensors); a is on {a.device}")


# ---------------------------------------------------------------------------------------------
# pure-PyTorch reference
# ---------------------------------------------------------------------------------------------
def lse_matmul_reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    "Pure-PyTorch `log(exp(a) @ exp(b))` by broadcasting to (..., M, K, N) and `torch.logsumexp` over K (float32 math or better)."
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


class LSEMatmulFunction(torch.autograd.Function):
    "Autograd wrapper: Triton forward, closed-form PyTorch backward."
    @staticmethod
    def forward(ctx, a, b):
        c = lse_matmul_forward(a, b)
        ctx.save_for_backward(a, b, c)
        return c

    @staticmethod
    def backward(ctx, grad_c):
        a, b, c = ctx.saved_tensors
        return lse_matmul_backward(a, b, c, grad_c, need_a=ctx.needs_input_grad[0], need_b=ctx.needs_input_grad[1])


def lse_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    "Differentiable log-space matrix product on the Triton path (CUDA, or CPU under `TRITON_INTERPRET=1`)."
    return LSEMatmulFunction.apply(a, b)
