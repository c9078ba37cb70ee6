"""Triton AnyBCQ bit-plane kernel (interpreter on CPU, compiled on CUDA) vs the PyTorch references: the issue's grid,
ragged tails, fp32/fp16."""
import os
os.environ.setdefault("TRITON_INTERPRET", "1")   # before triton / the kernel module is imported

import pytest
import torch

pytest.importorskip("triton")
K = pytest.importorskip("iclr26.kernels.anybcq")
from helpers import DEV, needs_triton_path, rel_err, to_dev


def _operands(M, Kd, N, g, p_max, dtype, seed, offset=True):
    gen = torch.Generator().manual_seed(seed)
    B = torch.randint(0, 2, (p_max, Kd, N), generator=gen) * 2 - 1
    alpha = (torch.rand(Kd // g, p_max, N, generator=gen) / torch.arange(1, p_max + 1).view(1, -1, 1)).to(dtype)
    beta = (torch.randn(Kd // g, N, generator=gen) * 0.1).to(dtype) if offset else None
    x = torch.randn(M, Kd, generator=gen).to(dtype)
    return x, K.pack_bitplanes(B), B, alpha, beta


# the grid: M in {1, 5, 16}, K in {64, 128, 256}, groups {32, 64, 128} (those dividing K); N ragged against
# the output tile (block_n = 16), p cycling through 1..4 on one p_max = 4 buffer
GRID = [(M, Kd, g) for M in (1, 5, 16) for Kd in (64, 128, 256) for g in (32, 64, 128) if Kd % g == 0]


@needs_triton_path
@pytest.mark.parametrize("M,Kd,g", GRID)
def test_grid_fp32(M, Kd, g):
    N = 16 + 7 + M                                  # ragged tail in N (and M=5 in the row tile of 16)
    p = 1 + (M + Kd // 32 + g // 32) % 4
    x, q, _, alpha, beta = _operands(M, Kd, N, g, 4, torch.float32, seed=M * 1000 + Kd + g, offset=(g != 64))
    y = K.bcq_matmul(to_dev(x), to_dev(q), to_dev(alpha), to_dev(beta), p, g, block_n=16).cpu()
    assert y.shape == (M, N) and y.dtype == torch.float32
    assert rel_err(y, K.bcq_matmul_reference(x, q, alpha, beta, p, g)) < 1e-5


@needs_triton_path
@pytest.mark.parametrize("M,Kd,N,g", [(1, 128, 37, 64), (16, 128, 70, 32), (5, 64, 33, 32)])
def test_fp16(M, Kd, N, g):
    x, q, _, alpha, beta = _operands(M, Kd, N, g, 4, torch.float16, seed=7 * M + N)
    for p in (2, 4):
        y = K.bcq_matmul(to_dev(x), to_dev(q), to_dev(alpha), to_dev(beta), p, g).cpu()
        assert y.dtype == torch.float16
        ref = K.bcq_matmul_reference(x.float(), q, alpha.float(), beta.float(), p, g)
        assert rel_err(y, ref) < 2e-3


@needs_triton_path
def test_runtime_precision_one_buffer_all_p():
    "One packed buffer, p = 1..4: each result uses exactly the first p planes (and no recompilation is needed)."
    x, q, B, alpha, beta = _operands(3, 64, 20, 32, 4, torch.float32, seed=3)
    for p in range(1, 5):
        W = (B[:p].float().view(p, 2, 32, 20) * alpha[:, :p].permute(1, 0, 2)[:, :, None, :]).sum(0) + beta[:, None, :]
        ref = x @ W.reshape(64, 20)
        y = K.bcq_matmul(to_dev(x), to_dev(q), to_dev(alpha), to_dev(beta), p, 32, block_n=16).cpu()
        assert rel_err(y, ref) < 1e-5


@needs_triton_path
def test_gemv_block_m_one_and_dot_tiles_agree():
    x, q, _, alpha, beta = _operands(1, 128, 40, 64, 4, torch.float32, seed=11)
    a = K.bcq_matmul(to_dev(x), to_dev(q), to_dev(alpha), to_dev(beta), 3, 64, block_m=1, block_n=16).cpu()
    b = K.bcq_matmul(to_dev(x), to_dev(q), to_dev(alpha), to_dev(beta), 3, 64, block_m=16, block_n=32).cpu()
    assert rel_err(a, b) < 1e-5


def test_pack_unpack_round_trip_and_bit_order():
    gen = torch.Generator().manual_seed(0)
    B = torch.randint(0, 2, (3, 96, 5), generator=gen) * 2 - 1
    q = K.pack_bitplanes(B)
    assert q.shape == (3, 3, 5) and q.dtype == torch.int32
    assert torch.equal(K.unpack_bitplanes(q).long(), B)
    assert torch.equal(K.unpack_bitplanes(q, 2).long(), B[:2])
    one = torch.full((1, 32, 1), -1)
    one[0, 31, 0] = 1           # only bit 31 set: the sign bit of the word
    assert K.pack_bitplanes(one).item() == -2 ** 31
    one[0, 31, 0] = -1
    one[0, 0, 0] = 1
    assert K.pack_bitplanes(one).item() == 1


def test_references_agree():
    x, q, _, alpha, beta = _operands(9, 256, 13, 128, 4, torch.float32, seed=5)
    for p in (1, 3):
        planes = K.bcq_matmul_planes(x, q, alpha, beta, p, 128)
        assert rel_err(planes, K.bcq_matmul_reference(x, q, alpha, beta, p, 128)) < 1e-5


def test_rejects_bad_input():
    x, q, _, alpha, beta = _operands(2, 64, 8, 32, 4, torch.float32, seed=1)
    with pytest.raises(ValueError, match="not divisible"):
        K.check_bcq(x, q, alpha, beta, 2, 96)                     # K = 64 not divisible by the group size
    with pytest.raises(ValueError, match="exceeds p_max"):
        K.bcq_matmul_reference(x, q, alpha, beta, 5, 32)
    with pytest.raises(ValueError, match=">= 1"):
        K.bcq_matmul_reference(x, q, alpha, beta, 0, 32)
    with pytest.raises(TypeError, match="p must be an int"):
        K.bcq_matmul_reference(x, q, alpha, beta, 2.0, 32)
    with pytest.raises(ValueError, match="multiple of 32"):
        K.check_bcq(x, q, alpha, beta, 2, 48)
    with pytest.raises(ValueError, match="features"):
        K.bcq_matmul_reference(torch.zeros(2, 96), q, alpha, beta, 2, 32)
    with pytest.raises(TypeError, match="int32"):
        K.bcq_matmul_reference(x, q.long(), alpha, beta, 2, 32)
    with pytest.raises(ValueError, match="alpha"):
        K.bcq_matmul_reference(x, q, alpha[:, :1], beta, 2, 32)
    with pytest.raises(ValueError, match="beta"):
        K.bcq_matmul_reference(x, q, alpha, beta[:1], 2, 32)
    with pytest.raises(ValueError, match="multiple of 32"):
        K.pack_bitplanes(torch.ones(1, 40, 3))
    if DEV == "cpu" and not K.interpreting():
        with pytest.raises(ValueError, match="CUDA"):
            K.bcq_matmul(x, q, alpha, beta, 2, 32)
