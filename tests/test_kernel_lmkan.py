"""Triton lmKAN kernel (interpreter on CPU) vs the PyTorch references, with ragged tails and edge values."""
import os
os.environ.setdefault("TRITON_INTERPRET", "1")   # before triton / the kernel module is imported

import pytest
import torch

pytest.importorskip("triton")
K = pytest.importorskip("iclr26.kernels.lmkan")
from iclr26.lmkan import LMKAN2D, laplace_knots, lmkan_lookup, lmkan_dense_reference

from helpers import DEV, edge_inputs, needs_triton_path, rel_err


# (B, N_in, N_out, G, block_b, block_q): tiles smaller than the tensors leave ragged tails in both dims
SHAPES = [(37, 10, 13, 5, 16, 8), (5, 2, 1, 3, 4, 1), (19, 6, 33, 8, 8, 16)]


@needs_triton_path
@pytest.mark.parametrize("B,N,Q,G,bb,bq", SHAPES)
def test_forward_matches_references_fp32(B, N, Q, G, bb, bq):
    gen = torch.Generator().manual_seed(B + Q)
    kn = laplace_knots(G)
    t = torch.randn(G + 1, G + 1, Q, N // 2, generator=gen)
    x = edge_inputs(B, N, kn, gen)
    y = K.lmkan_forward(x.to(DEV), t.to(DEV), kn.to(DEV), block_b=bb, block_q=bq).cpu()
    assert rel_err(y, lmkan_lookup(x, t, kn)) < 1e-5
    assert rel_err(y, K.lmkan_reference(x, t, kn)) < 1e-5
    assert rel_err(y, lmkan_dense_reference(x.double(), t.double(), kn)) < 1e-5


@needs_triton_path
@pytest.mark.parametrize("B,N,Q,G,bb,bq", SHAPES[:2])
def test_backward_matches_autograd_fp32(B, N, Q, G, bb, bq):
    gen = torch.Generator().manual_seed(7 * B + Q)
    kn = laplace_knots(G)
    t = torch.randn(G + 1, G + 1, Q, N // 2, generator=gen)
    x = edge_inputs(B, N, kn, gen, exact_knots=False)   # df/dx jumps exactly on a knot
    gy = torch.randn(B, Q, generator=gen)
    xa, ta = x.clone().requires_grad_(), t.clone().requires_grad_()
    (lmkan_lookup(xa, ta, kn) * gy).sum().backward()
    gx, gt = K.lmkan_backward(x.to(DEV), t.to(DEV), kn.to(DEV), gy.to(DEV), block_b=bb, block_q=bq)
    assert rel_err(gx.cpu(), xa.grad) < 1e-5
    assert rel_err(gt.cpu(), ta.grad) < 1e-5
    gx2, gt2 = K.lmkan_backward(x.to(DEV), t.to(DEV), kn.to(DEV), gy.to(DEV), need_x=False, block_b=bb, block_q=bq)
    assert gx2 is None and torch.equal(gt2.cpu(), gt.cpu())


@needs_triton_path
def test_fp16_inputs_and_table():
    gen = torch.Generator().manual_seed(3)
    kn = laplace_knots(6)
    t = (torch.randn(7, 7, 9, 4, generator=gen) * 0.5)
    x = edge_inputs(21, 8, kn, gen)
    y = K.lmkan_forward(x.half().to(DEV), t.half().to(DEV), kn.to(DEV), block_b=8, block_q=4)
    assert y.dtype == torch.float16
    ref = K.lmkan_reference(x.half().float(), t.half().float(), kn)
    assert rel_err(y.cpu(), ref) < 2e-3


@needs_triton_path
def test_autograd_function_and_module_dispatch():
    gen = torch.Generator().manual_seed(11)
    lay = LMKAN2D(6, 5, grid_size=4, backend="triton").to(DEV)
    ref = LMKAN2D(6, 5, grid_size=4, backend="torch").to(DEV)
    ref.load_state_dict(lay.state_dict())
    x = torch.randn(11, 6, generator=gen).to(DEV)
    xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
    ya, yb = lay(xa), ref(xb)
    assert rel_err(ya, yb) < 1e-5
    ya.square().sum().backward()
    yb.square().sum().backward()
    assert rel_err(xa.grad, xb.grad) < 1e-5
    assert rel_err(lay.table.grad, ref.table.grad) < 1e-5


def test_launcher_rejects_bad_input():
    kn = laplace_knots(4)
    t = torch.zeros(5, 5, 3, 2)
    with pytest.raises(ValueError, match="even"):
        K.lmkan_forward(torch.zeros(4, 3), t, kn)
    with pytest.raises(ValueError, match="last dim"):
        K.lmkan_forward(torch.zeros(4, 6), t, kn)
    with pytest.raises(ValueError, match="knots"):
        K.lmkan_forward(torch.zeros(4, 4), t, laplace_knots(5))
    with pytest.raises(TypeError, match="float16"):
        K.lmkan_forward(torch.zeros(4, 4, dtype=torch.float64), t, kn)
    if DEV == "cuda" or K.interpreting():
        with pytest.raises(ValueError, match="grad_y"):
            K.lmkan_backward(torch.zeros(4, 4, device=DEV), t.to(DEV), kn.to(DEV), torch.zeros(3, 3, device=DEV))
    else:
        with pytest.raises(ValueError, match="CUDA"):
            K.lmkan_forward(torch.zeros(4, 4), t, kn)


def test_reference_matches_module_lookup():
    gen = torch.Generator().manual_seed(5)
    kn = laplace_knots(7)
    t = torch.randn(8, 8, 6, 5, generator=gen)
    x = edge_inputs(30, 10, kn, gen)
    assert rel_err(K.lmkan_reference(x, t, kn), lmkan_lookup(x, t, kn)) < 1e-6
