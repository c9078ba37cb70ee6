"""API, exactness and bad-input tests of iclr26.lmkan (PyTorch path; the kernel has its own file)."""
import math

import numpy as np
import pytest
import torch

from iclr26.lmkan import (LMKAN2D, LMKANConv2d, count_flops, flops_at_error, flops_ratios, hat_basis, hessian_lambda,
                          hessian_penalty, laplace_cdf, laplace_knots, lmkan_dense_reference, lmkan_lookup, lmkan_net,
                          lmkan_schedule, locate, mlp_net, pareto_front, train_regression)


def _edge_inputs(B, N, knots, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(B, N, generator=g, dtype=torch.float64) * 2
    x[0], x[1], x[2] = 6.0, -6.0, 0.0
    kn = knots.double()
    near = torch.cat([kn - 1e-5, kn, kn + 1e-5])
    m = min(len(near), x[3:].numel())
    x[3:].view(-1)[:m] = near[:m]
    return x


def test_knots_are_laplace_quantiles_with_extrapolated_ends():
    for G in (3, 4, 8, 26):
        k = laplace_knots(G, torch.float64)
        assert k.shape == (G + 1,)
        assert torch.all(k[1:] > k[:-1])
        torch.testing.assert_close(laplace_cdf(k[1:-1]), torch.arange(1, G, dtype=torch.float64) / G)
        torch.testing.assert_close(k[0], 2 * k[1] - k[2])
        torch.testing.assert_close(k[-1], 2 * k[-2] - k[-3])


def test_locate_cells_and_extrapolation():
    k = laplace_knots(8, torch.float64)
    x = torch.tensor([-100.0, -6.0, k[2].item() + 1e-9, 0.0, 6.0, 100.0], dtype=torch.float64)
    i, u = locate(x, k)
    assert i.tolist()[0] == 0 and i.tolist()[-1] == 7 and i.tolist()[2] == 2
    assert u[0] < 0 and u[-1] > 1 and 0 <= u[3] <= 1
    torch.testing.assert_close(k[i] + u * (k[i + 1] - k[i]), x)     # x is recovered from (i, u)


@pytest.mark.parametrize("B,N,Q,G", [(40, 10, 7, 6), (7, 2, 1, 3), (33, 16, 5, 26)])
def test_lookup_equals_dense_basis_at_edge_values(B, N, Q, G):
    lay = LMKAN2D(N, Q, grid_size=G).double()
    with torch.no_grad(): lay.table.normal_()
    x = _edge_inputs(B, N, lay.knots)
    torch.testing.assert_close(lay(x), lmkan_dense_reference(x, lay.table, lay.knots), rtol=1e-10, atol=1e-10)


def test_hat_basis_partition_of_unity():
    k = laplace_knots(5, torch.float64)
    x = torch.linspace(-8, 8, 101, dtype=torch.float64)
    torch.testing.assert_close(hat_basis(x, k).sum(-1), torch.ones_like(x))


def test_exact_linear_property_including_extrapolation():
    lay = LMKAN2D(8, 3, grid_size=5).double()
    W = torch.randn(3, 8, dtype=torch.float64)
    b = lay.knots
    with torch.no_grad():
        lay.table.copy_(W[:, 0::2][None, None] * b[:, None, None, None] + W[:, 1::2][None, None] * b[None, :, None, None])
    x = _edge_inputs(25, 8, b)
    x[4] = 40.0
    torch.testing.assert_close(lay(x), x @ W.T, rtol=1e-10, atol=1e-10)
    assert lay.hessian_penalty().abs().item() < 1e-18            # a linear function has no curvature


def test_gradcheck_float64():
    lay = LMKAN2D(6, 4, grid_size=4).double()
    x = (torch.randn(7, 6, dtype=torch.float64) * 1.5).requires_grad_()
    assert torch.autograd.gradcheck(lambda a, t: lmkan_lookup(a, t, lay.knots), (x, lay.table))
    assert torch.autograd.gradcheck(lambda t: hessian_penalty(t, lay.knots), (lay.table,))


def test_init_shapes_flops_memory():
    lay = LMKAN2D(128, 64, grid_size=8)
    assert lay.table.shape == (9, 9, 64, 64)
    bound = 0.1 / math.sqrt(128)
    assert lay.table.abs().max().item() <= bound
    assert lay.flops() == 4 * 128 * 64 == 2 * count_flops(torch.nn.Linear(128, 64))
    assert lay.table_bytes() == 81 * 64 * 64 * 4
    assert count_flops(lmkan_net([16, 8, 1])) == count_flops(mlp_net([16, 16, 1]))
    y = lay(torch.randn(3, 5, 128))
    assert y.shape == (3, 5, 64)


def test_hessian_penalty_of_quadratic():
    # f(x, y) = x^2 on the knots: f_xx = 2 at every inner node (exact for quadratics), f_xy = f_yy = 0
    k = laplace_knots(6, torch.float64)
    t = (k[:, None] ** 2).expand(7, 7).clone()[..., None, None]
    torch.testing.assert_close(hessian_penalty(t, k), torch.tensor(4.0, dtype=torch.float64))


def test_schedule():
    assert hessian_lambda(0) == 1.0 and math.isclose(hessian_lambda(30), 0.1) and math.isclose(hessian_lambda(60, 2.0), 0.02)
    lr, lam = lmkan_schedule(0, 100, 1e-3)
    assert lr == 1e-3 and lam == 1.0
    lr, lam = lmkan_schedule(25, 100, 1e-3)
    assert lr == 1e-3 and math.isclose(lam, 10 ** (-125 / 30))
    lr, lam = lmkan_schedule(99, 100, 1e-3)
    assert lam == 0.0 and lr < 1e-5
    with pytest.raises(ValueError, match="decay"):
        hessian_lambda(1, decay=0)


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="in_features"):
        LMKAN2D(7, 3)
    with pytest.raises(ValueError, match="grid_size"):
        LMKAN2D(8, 3, grid_size=2)
    with pytest.raises(ValueError, match="grid_size"):
        laplace_knots(1)
    with pytest.raises(TypeError, match="grid_size"):
        LMKAN2D(8, 3, grid_size=8.0)
    with pytest.raises(ValueError, match="backend"):
        LMKAN2D(8, 3, backend="cuda")
    lay = LMKAN2D(4, 2)
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError, match="non-finite"):
            lay(torch.tensor([[0.0, 1.0, bad, 2.0]]))
    with pytest.raises(ValueError, match="4 features"):
        lay(torch.zeros(3, 6))
    with pytest.raises(TypeError, match="torch.Tensor"):
        lay([[0.0, 0.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="even"):
        LMKANConv2d(1, 4, 3)


def test_lmkan_conv_is_a_patchwise_lmkan():
    conv = LMKANConv2d(4, 3, 3, padding=1).eval()
    x = torch.randn(2, 4, 6, 5)
    y = conv(x)
    assert y.shape == (2, 3, 6, 5)
    cols = torch.nn.functional.unfold(conv.norm(x), 3, padding=1)     # (2, 36, 30)
    torch.testing.assert_close(y[1, :, 2, 3], conv.kan(cols[1, :, 2 * 5 + 3][None])[0])


def test_pareto_and_flops_ratio():
    fx, ex = pareto_front([10, 1, 100, 50], [0.1, 1.0, 0.01, 0.5])
    assert fx.tolist() == [1, 10, 100] and ex.tolist() == [1.0, 0.1, 0.01]
    assert math.isclose(flops_at_error([1, 10, 100], [1.0, 0.1, 0.01], 0.1), 10.0)
    r = flops_ratios([1, 10, 100], [1.0, 0.1, 0.01], [2, 5], [0.1, 1e-4])
    assert math.isclose(r[0], 5.0) and math.isnan(r[1])


def test_training_reduces_loss_on_a_pairwise_target():
    torch.manual_seed(0)
    model = lmkan_net([4, 4, 1], grid_size=6)
    def sample(n):
        x = torch.randn(n, 4)
        return x, (torch.sin(x[:, :1]) * x[:, 1:2] + x[:, 2:3] ** 2 / 2)
    n_threads = torch.get_num_threads()
    torch.set_num_threads(1)                                         # tiny ops: threads only add overhead
    try:
        losses = train_regression(model, sample, steps=150, batch=256, lr=1e-2)
    finally:
        torch.set_num_threads(n_threads)
    assert np.mean(losses[-10:]) < 0.3 * np.mean(losses[:10])
    with pytest.raises(ValueError, match="steps"):
        train_regression(model, sample, steps=0)
