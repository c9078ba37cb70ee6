"""Triton log-space matmul (interpreter on CPU) vs the PyTorch reference: ragged tails, -inf entries, fp16, batches,
grads."""
import os
os.environ.setdefault("TRITON_INTERPRET", "1")   # before triton / the kernel module is imported

import pytest
import torch

pytest.importorskip("triton")
K = pytest.importorskip("iclr26.kernels.lse_matmul")

DEV = "cuda" if torch.cuda.is_available() else "cpu"
needs_triton_path = pytest.mark.skipif(DEV == "cpu" and not K.interpreting(), reason="needs CUDA or TRITON_INTERPRET=1")
NINF = float("-inf")
pytestmark = pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")   # log(0) = -inf inside the interpreter


def _err(c, r):
    "Max abs difference over finite reference entries; -inf patterns must agree exactly and no NaN may appear."
    c, r = c.float().cpu(), r.float().cpu()
    assert not torch.isnan(c).any()
    assert torch.equal(torch.isneginf(c), torch.isneginf(r))
    fin = torch.isfinite(r)
    return (c[fin] - r[fin]).abs().max().item() if fin.any() else 0.0


# (batch_a, batch_b, M, K, N, block_m, block_n, block_k): tiles smaller than the tensors leave ragged tails
SHAPES = [
    ((), (), 19, 23, 9, 8, 4, 8),
    ((2,), (), 5, 3, 7, 4, 4, 2),
    ((), (3,), 1, 17, 1, 1, 1, 16),
    ((2, 1), (1, 2), 6, 5, 4, 4, 2, 4),
]


@needs_triton_path
@pytest.mark.parametrize("ba,bb,M,Kd,N,bm,bn,bk", SHAPES)
def test_forward_matches_reference_fp32_with_neg_inf(ba, bb, M, Kd, N, bm, bn, bk):
    g = torch.Generator().manual_seed(M * 7 + N)
    a = torch.randn(*ba, M, Kd, generator=g) * 3
    b = torch.randn(*bb, Kd, N, generator=g) * 3
    a.view(-1, M, Kd)[0, 0, :] = NINF            # a whole row of zeros -> -inf output row
    b.view(-1, Kd, N)[0, :, N - 1] = NINF        # a whole column of zeros
    a.view(-1, M, Kd)[..., -1, 0] = NINF         # scattered -inf
    c = K.lse_matmul_forward(a.to(DEV), b.to(DEV), block_m=bm, block_n=bn, block_k=bk)
    r = K.lse_matmul_reference(a, b)
    assert c.shape == r.shape == torch.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (M, N)
    assert _err(c, r) < 1e-5
    assert torch.isneginf(c.reshape(-1, M, N)[0, 0]).all()


@needs_triton_path
def test_fp16_inputs_and_large_magnitudes():
    g = torch.Generator().manual_seed(3)
    a = (torch.randn(13, 11, generator=g) * 20 - 50)     # log-probabilities far below 0: no underflow in log space
    b = (torch.randn(11, 6, generator=g) * 20 - 50)
    b[2, :] = NINF
    c = K.lse_matmul_forward(a.half().to(DEV), b.half().to(DEV), block_m=8, block_n=4, block_k=4)
    assert c.dtype == torch.float16
    r = K.lse_matmul_reference(a.half().float(), b.half().float())
    assert _err(c, r) < 0.1                             # fp16 output rounding at |c| ~ 100
    c32 = K.lse_matmul_forward(a.to(DEV), b.to(DEV))
    assert _err(c32, K.lse_matmul_reference(a, b)) < 1e-4


@needs_triton_path
def test_autograd_matches_reference_grads():
    g = torch.Generator().manual_seed(11)
    a = torch.randn(2, 5, 7, generator=g)
    b = torch.randn(7, 3, generator=g)
    a[0, 1, 2] = NINF
    gc = torch.randn(2, 5, 3, generator=g)
    aa, bb = a.clone().to(DEV).requires_grad_(), b.clone().to(DEV).requires_grad_()
    (K.lse_matmul(aa, bb) * gc.to(DEV)).sum().backward()
    ar, br = a.clone().requires_grad_(), b.clone().requires_grad_()
    (K.lse_matmul_reference(ar, br) * gc).sum().backward()
    assert (aa.grad.cpu() - ar.grad.nan_to_num(0.0)).abs().max() < 1e-5
    assert (bb.grad.cpu() - br.grad).abs().max() < 1e-5
    assert not torch.isnan(aa.grad).any()


def test_reference_is_log_of_matmul():
    g = torch.Generator().manual_seed(0)
    A, B = torch.rand(4, 6, generator=g, dtype=torch.float64), torch.rand(6, 3, generator=g, dtype=torch.float64)
    torch.testing.assert_close(K.lse_matmul_reference(A.log(), B.log()).exp(), A @ B)
    empty = K.lse_matmul_reference(torch.zeros(3, 0), torch.zeros(0, 2))
    assert empty.shape == (3, 2) and torch.isneginf(empty).all()


def test_launcher_rejects_bad_input():
    with pytest.raises(ValueError, match="inner dims"):
        K.lse_matmul_forward(torch.zeros(3, 4), torch.zeros(5, 2))
    with pytest.raises(ValueError, match="at least 2 dims"):
        K.lse_matmul_forward(torch.zeros(3), torch.zeros(3, 2))
    with pytest.raises(TypeError, match="must be one of"):
        K.lse_matmul_forward(torch.zeros(3, 4, dtype=torch.int64), torch.zeros(4, 2))
    with pytest.raises(ValueError, match="broadcast"):
        K.lse_matmul_forward(torch.zeros(2, 3, 4), torch.zeros(3, 4, 2))
    with pytest.raises(TypeError, match="torch.Tensor"):
        K.lse_matmul_forward([[0.0]], torch.zeros(1, 1))
    if DEV == "cuda" or K.interpreting():
        with pytest.raises(ValueError, match="power of two"):
            K.lse_matmul_forward(torch.zeros(3, 4), torch.zeros(4, 2), block_m=3)
    else:
        with pytest.raises(ValueError, match="CUDA"):
            K.lse_matmul_forward(torch.zeros(3, 4), torch.zeros(4, 2))


@needs_triton_path
@pytest.mark.parametrize("ba,bb,M,Kd,N,bm,bn,bk", SHAPES)
def test_triton_backward_matches_pytorch_closed_form(ba, bb, M, Kd, N, bm, bn, bk):
    "The backward kernels (streamed over N / M) vs the PyTorch closed form, fp32, -inf rows/columns, ragged tails."
    g = torch.Generator().manual_seed(M * 3 + Kd)
    a = torch.randn(*ba, M, Kd, generator=g) * 3
    b = torch.randn(*bb, Kd, N, generator=g) * 3
    a.view(-1, M, Kd)[0, 0, :] = NINF            # an empty output row: zero gradient, never NaN
    b.view(-1, Kd, N)[0, :, N - 1] = NINF
    a.view(-1, M, Kd)[..., -1, 0] = NINF
    c = K.lse_matmul_reference(a, b)
    gc = torch.randn(c.shape, generator=g)
    ga_r, gb_r = K.lse_matmul_backward(a, b, c, gc)
    ga, gb = K.lse_matmul_backward_triton(a.to(DEV), b.to(DEV), c.to(DEV), gc.to(DEV),
                                          block_m=bm, block_n=bn, block_k=bk)
    assert ga.shape == a.shape and gb.shape == b.shape
    assert not torch.isnan(ga).any() and not torch.isnan(gb).any()
    torch.testing.assert_close(ga.cpu(), ga_r, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(gb.cpu(), gb_r, atol=1e-4, rtol=1e-4)
    assert (ga.cpu().reshape(-1, M, Kd)[0, 0] == 0).all()
