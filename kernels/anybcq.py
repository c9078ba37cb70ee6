"""Triton kernel for AnyBCQ bit-plane matrix products (binary-coded quantisation, arXiv 2510.10467).

A weight matrix ``W`` (``K`` inputs x ``N`` outputs, the transpose of ``nn.Linear.weight``) is stored as
``p_max`` binary bit-planes ``B_i in {-1, +1}^{K x N}`` packed 32 rows to an int32 word,

    qweight[K/32, p_max, N]  (int32),   bit j of qweight[w, i, n] = 1  <=>  B_i[32 w + j, n] = +1,

and, per precision ``p``, one scale per (group of ``g`` consecutive inputs, plane, output) and an optional
offset per (group, output). At precision ``p`` only the first ``p`` planes are read:

    y[m, n] = sum_k x[m, k] * ( sum_{i<p} alpha[k // g, i, n] * B_i[k, n] + beta[k // g, n] ).

This module holds

* ``_bcq_kernel``: one program per (row tile x output tile); loops over 32-row words of ``K`` and, inside,
  over the ``p`` planes with a **runtime** loop bound (no recompilation per precision). Each word is
  unpacked to a 32 x BLOCK_N tile of +-1, multiplied with the 32 activations of the tile (``tl.dot`` when
  BLOCK_M >= 16, a broadcast multiply-sum for GEMV-sized tiles), scaled by the plane's scales and
  accumulated in float32; the offset adds ``beta * sum(x over the tile)``. Deterministic, no atomics.
* ``bcq_matmul``: the launcher (checks shapes, dtypes, devices, ``1 <= p <= p_max``, the group size).
* ``pack_bitplanes`` / ``unpack_bitplanes`` / ``dequantize``: the storage format in PyTorch.
* ``bcq_matmul_reference`` (dequantise, then one matmul) and ``bcq_matmul_planes`` (plane by plane, group by
  group, as the kernel does): pure-PyTorch references of the same computation.

Set ``TRITON_INTERPRET=1`` before importing this module to run the Triton path on CPU tensors.
Arithmetic is float32 inside the kernel for float16/bfloat16/float32 inputs; the output has ``x``'s dtype.
"""
from __future__ import annotations

import torch

from . import check_triton_path, import_triton, interpreting

triton, tl = import_triton()   # (None, None) without triton: the references still work
HAS_TRITON = triton is not None

__all__ = ["HAS_TRITON", "interpreting", "pack_bitplanes", "unpack_bitplanes", "dequantize", "check_bcq",
           "bcq_matmul_reference", "bcq_matmul_planes", "bcq_matmul"]

_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
_SHIFTS = None


# ---------------------------------------------------------------------------------------------
# storage format and pure-PyTorch references
# ---------------------------------------------------------------------------------------------
def pack_bitplanes(planes: torch.Tensor) -> torch.Tensor:
    "Pack +-1 (or boolean, True = +1) planes of shape (p, K, N), K a multiple of 32, into int32 `qweight[K/32, p, N]`."
    if not isinstance(planes, torch.Tensor):
        raise TypeError(f"planes must be a torch.Tensor, got {type(planes).__name__}")
    if planes.dim() != 3: raise ValueError(f"planes must have shape (p, K, N), got {tuple(planes.shape)}")
    p, K, N = planes.shape
    if K % 32: raise ValueError(f"planes' K ({K}) must be a multiple of 32 (32 rows per int32 word)")
    bits = (planes > 0) if planes.dtype != torch.bool else planes
    bits = bits.to(torch.int64).view(p, K // 32, 32, N)
    shifts = torch.arange(32, device=planes.device, dtype=torch.int64).view(1, 1, 32, 1)
    words = (bits << shifts).sum(2)                                   # (p, K/32, N), values in [0, 2^32)
    words = torch.where(words >= 2 ** 31, words - 2 ** 32, words)     # two's complement into int32
    return words.to(torch.int32).permute(1, 0, 2).contiguous()


def unpack_bitplanes(qweight: torch.Tensor, p: int | None = None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    "The first `p` (default all) planes of `qweight[K/32, p_max, N]` as +-1 values of shape (p, K, N)."
    if not isinstance(qweight, torch.Tensor) or qweight.dtype != torch.int32 or qweight.dim() != 3:
        raise TypeError("qweight must be an int32 tensor of shape (K/32, p_max, N)")
    p = qweight.shape[1] if p is None else _check_p(p, qweight.shape[1])
    shifts = torch.arange(32, device=qweight.device, dtype=torch.int32).view(1, 1, 1, 32)
    bits = (qweight[:, :p, :, None] >> shifts) & 1                    # (K/32, p, N, 32)
    W, _, N, _ = bits.shape
    pm = bits.permute(1, 0, 3, 2).reshape(p, W * 32, N).to(dtype)
    return pm * 2 - 1


def _check_p(p, p_max) -> int:
    if isinstance(p, bool) or not isinstance(p, int): raise TypeError(f"p must be an int, got {type(p).__name__}")
    if p < 1: raise ValueError(f"p must be >= 1 (at least one bit-plane), got {p}")
    if p > p_max: raise ValueError(f"p={p} exceeds p_max={p_max}, the number of stored bit-planes")
    return p


def check_bcq(x: torch.Tensor | None, qweight: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor | None,
              p: int, group_size: int) -> tuple[int, int, int]:
    "Check the operands of a bit-plane product and return (K, N, number of groups); errors name the bad argument."
    if not isinstance(qweight, torch.Tensor):
        raise TypeError(f"qweight must be a torch.Tensor, got {type(qweight).__name__}")
    if qweight.dtype != torch.int32 or qweight.dim() != 3:
        raise TypeError(f"qweight must be int32 with shape (K/32, p_max, N), "
                        f"got {qweight.dtype} {tuple(qweight.shape)}")
    K, p_max, N = qweight.shape[0] * 32, qweight.shape[1], qweight.shape[2]
    _check_p(p, p_max)
    if isinstance(group_size, bool) or not isinstance(group_size, int):
        raise TypeError(f"group_size must be an int, got {type(group_size).__name__}")
    if group_size < 32 or group_size % 32:
        raise ValueError(f"group_size must be a positive multiple of 32, got {group_size}")
    if K % group_size: raise ValueError(f"K={K} is not divisible by group_size={group_size}")
    G = K // group_size
    if not isinstance(alpha, torch.Tensor): raise TypeError(f"alpha must be a torch.Tensor, got {type(alpha).__name__}")
    if alpha.dim() != 3 or alpha.shape[0] != G or alpha.shape[1] < p or alpha.shape[2] != N:
        raise ValueError(f"alpha must have shape (K/group_size={G}, >= p={p}, N={N}), got {tuple(alpha.shape)}")
    if alpha.dtype not in _DTYPES: raise TypeError(f"alpha must be float16, bfloat16 or float32, got {alpha.dtype}")
    if beta is not None:
        if not isinstance(beta, torch.Tensor):
            raise TypeError(f"beta must be a torch.Tensor or None, got {type(beta).__name__}")
        if beta.shape != (G, N): raise ValueError(f"beta must have shape ({G}, {N}), got {tuple(beta.shape)}")
        if beta.dtype not in _DTYPES: raise TypeError(f"beta must be float16, bfloat16 or float32, got {beta.dtype}")
    devs = {qweight.device, alpha.device} | ({beta.device} if beta is not None else set())
    if x is not None:
        if not isinstance(x, torch.Tensor): raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
        if x.dim() != 2: raise ValueError(f"x must be 2-D (rows, K), got shape {tuple(x.shape)}")
        if x.shape[1] != K: raise ValueError(f"x has {x.shape[1]} features but qweight packs K={K}")
        if x.dtype not in _DTYPES: raise TypeError(f"x must be float16, bfloat16 or float32, got {x.dtype}")
        devs.add(x.device)
    if len(devs) != 1:
        raise ValueError(f"x, qweight, alpha and beta must be on one device, got {sorted(map(str, devs))}")
    return K, N, G


def dequantize(qweight: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor | None, p: int, group_size: int,
               dtype: torch.dtype = torch.float32) -> torch.Tensor:
    "The (K, N) weight of precision `p`: `sum_{i<p} alpha[k//g, i, n] B_i[k, n] + beta[k//g, n]`."
    K, N, G = check_bcq(None, qweight, alpha, beta, p, group_size)
    B = unpack_bitplanes(qweight, p, torch.float32).view(p, G, group_size, N)
    W = (B * alpha[:, :p].float().permute(1, 0, 2)[:, :, None, :]).sum(0)     # (G, g, N)
    if beta is not None: W = W + beta.float()[:, None, :]
    return W.reshape(K, N).to(dtype)


def bcq_matmul_reference(x: torch.Tensor, qweight: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor | None,
                         p: int, group_size: int) -> torch.Tensor:
    "Pure-PyTorch bit-plane product: dequantise precision `p`, then `x @ W` in float32; output in `x`'s dtype."
    check_bcq(x, qweight, alpha, beta, p, group_size)
    return (x.float() @ dequantize(qweight, alpha, beta, p, group_size)).to(x.dtype)


def bcq_matmul_planes(x: torch.Tensor, qweight: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor | None,
                      p: int, group_size: int) -> torch.Tensor:
    "The bit-plane product in PyTorch as the kernel computes it: per plane `(x_g @ B_i,g) * alpha_i,g`, summed over g."
    K, N, G = check_bcq(x, qweight, alpha, beta, p, group_size)
    xg = x.float().view(-1, G, group_size)                                     # (M, G, g)
    B = unpack_bitplanes(qweight, p, torch.float32).view(p, G, group_size, N)
    y = torch.zeros(x.shape[0], N, dtype=torch.float32, device=x.device)
    for i in range(p):
        y += (torch.einsum("mgk,gkn->mgn", xg, B[i]) * alpha[:, i].float()).sum(1)
    if beta is not None: y += torch.einsum("mg,gn->mn", xg.sum(-1), beta.float())
    return y.to(x.dtype)


# ---------------------------------------------------------------------------------------------
# Triton kernel
# ---------------------------------------------------------------------------------------------
if HAS_TRITON:
    @triton.jit
    def _bcq_kernel(x_ptr, q_ptr, a_ptr, b_ptr, y_ptr, M, N, KW, P, GS,
                    sxm, sxk, sqw, sqp, sqn, sag, sap, san, sbg, sbn, sym, syn,
                    HAS_BETA: tl.constexpr, USE_DOT: tl.constexpr, IEEE: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        mm = rm < M
        mn = rn < N
        rk = tl.arange(0, 32)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kw in range(0, KW):                    # one int32 word = 32 consecutive inputs
            grp = (kw * 32) // GS
            x = tl.load(x_ptr + rm[:, None] * sxm + (kw * 32 + rk)[None, :] * sxk, mask=mm[:, None], other=0.0)
            for i in range(0, P):                  # runtime precision: only the first P planes are read
                w = tl.load(q_ptr + kw * sqw + i * sqp + rn * sqn, mask=mn, other=0)
                bits = (w[None, :] >> rk[:, None]) & 1                       # (32, BLOCK_N) in {0, 1}
                if USE_DOT:
                    pm = (bits * 2 - 1).to(x.dtype)                          # +-1 is exact in fp16/bf16/fp32
                    if IEEE:
                        part = tl.dot(x, pm, input_precision="ieee")
                    else:
                        part = tl.dot(x, pm)
                else:
                    pm = (bits * 2 - 1).to(tl.float32)
                    part = tl.sum(x.to(tl.float32)[:, :, None] * pm[None, :, :], axis=1)
                a = tl.load(a_ptr + grp * sag + i * sap + rn * san, mask=mn, other=0.0).to(tl.float32)
                acc += part * a[None, :]
            if HAS_BETA:
                xs = tl.sum(x.to(tl.float32), axis=1)
                bt = tl.load(b_ptr + grp * sbg + rn * sbn, mask=mn, other=0.0).to(tl.float32)
                acc += xs[:, None] * bt[None, :]
        tl.store(y_ptr + rm[:, None] * sym + rn[None, :] * syn, acc.to(y_ptr.dtype.element_ty),
                 mask=mm[:, None] & mn[None, :])


def _pow2(name, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1 or v & (v - 1):
        raise ValueError(f"{name} must be a power of two, got {v!r}")
    return v


def bcq_matmul(x: torch.Tensor, qweight: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor | None, p: int,
               group_size: int, block_m: int | None = None, block_n: int | None = None) -> torch.Tensor:
    """Triton bit-plane product `x (M, K) -> (M, N)` at runtime precision `p` (CUDA, or CPU under `TRITON_INTERPRET=1`).

    `block_m` defaults to 1 for M == 1 (GEMV: broadcast multiply-sum) and 16 otherwise (``tl.dot``); tiles
    with `block_m >= 16` use ``tl.dot``. fp32 activations use IEEE fp32 products (no TF32)."""
    K, N, G = check_bcq(x, qweight, alpha, beta, p, group_size)
    check_triton_path(x, qweight, alpha, beta, what="bcq_matmul (the Triton path)")
    M = x.shape[0]
    y = torch.empty(M, N, device=x.device, dtype=x.dtype)
    if M == 0 or N == 0: return y
    bm = _pow2("block_m", block_m if block_m is not None else (1 if M == 1 else 16))
    bn = _pow2("block_n", block_n if block_n is not None else min(64, max(16, triton.next_power_of_2(N))))
    use_dot = bm >= 16
    if use_dot and bn < 16: raise ValueError(f"block_n must be >= 16 when block_m >= 16 (tl.dot tiles), got {bn}")
    b = beta if beta is not None else alpha                      # a dummy pointer when there is no offset
    sb = beta.stride() if beta is not None else (0, 0)
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
    _bcq_kernel[grid](x, qweight, alpha, b, y, M, N, K // 32, p, group_size,
                      x.stride(0), x.stride(1), *qweight.stride(), *alpha.stride(), *sb, y.stride(0), y.stride(1),
                      HAS_BETA=beta is not None, USE_DOT=use_dot, IEEE=x.dtype == torch.float32,
                      BLOCK_M=bm, BLOCK_N=bn)
    return y
