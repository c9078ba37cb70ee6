"""API, exactness and bad-input tests of iclr26.lmkan (PyTorch path; the kernel has its own file)."""
import math

import numpy as np
import pytest
import torch

from iclr26.lmkan import (LMKAN2D, LMKANConv2d, count_flops, equal_flops_ratios, error_at_flops, fastkan_net,
                          flops_at_error, flops_ratios, front_slope, grow_grid, hat_basis, hessian_lambda,
                          hessian_penalty, laplace_cdf, laplace_knots, lmkan_dense_reference, lmkan_lookup, lmkan_net,
                          lmkan_onehot, lmkan_schedule, locate, mlp_net, pareto_front, train_regression)


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
        lay.table.copy_(
            W[:, 0::2][None, None] * b[:, None, None, None] + W[:, 1::2][None, None] * b[None, :, None, None]
        )
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
    assert (
        hessian_lambda(0) == 1.0
        and math.isclose(hessian_lambda(30), 0.1)
        and math.isclose(hessian_lambda(60, 2.0), 0.02)
    )
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


@pytest.mark.parametrize("B,N,Q,G", [(40, 10, 7, 6), (7, 2, 1, 3), (33, 16, 5, 26)])
def test_onehot_path_equals_lookup_forward_and_gradients(B, N, Q, G):
    k = laplace_knots(G, torch.float64)
    x = _edge_inputs(B, N, k).requires_grad_()
    t = torch.randn(G + 1, G + 1, Q, N // 2, dtype=torch.float64, requires_grad=True)
    g = torch.randn(B, Q, dtype=torch.float64)
    y1, y2 = lmkan_lookup(x, t, k), lmkan_onehot(x, t, k)
    torch.testing.assert_close(y2, y1, rtol=1e-10, atol=1e-10)
    for a, b in zip(torch.autograd.grad((y2 * g).sum(), (x, t)), torch.autograd.grad((y1 * g).sum(), (x, t))):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)
    xs = (torch.randn(6, 4, dtype=torch.float64) * 1.5).requires_grad_()
    ts = torch.randn(5, 5, 3, 2, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b: lmkan_onehot(a, b, laplace_knots(4, torch.float64)), (xs, ts))


def test_cpu_impls_give_the_same_layer():
    torch.manual_seed(0)
    a = LMKAN2D(8, 5, cpu_impl="onehot")
    b = LMKAN2D(8, 5, cpu_impl="lookup")
    b.load_state_dict(a.state_dict())
    x = torch.randn(20, 8) * 2
    torch.testing.assert_close(a(x), b(x))
    with pytest.raises(ValueError, match="cpu_impl"):
        LMKAN2D(8, 5, cpu_impl="dense")


def test_linear_init_is_an_exact_linear_map_with_output_std_init_scale():
    torch.manual_seed(0)
    lay = LMKAN2D(64, 32, grid_size=8, init="linear", init_scale=0.5).double()
    lay.reset_parameters()                                   # re-drawn in float64: exactly linear
    x = torch.randn(4000, 64, dtype=torch.float64) * 2
    torch.testing.assert_close(lay(x + 0.5 * x), 1.5 * lay(x), rtol=1e-9, atol=1e-9)     # linear, no bias
    assert lay.hessian_penalty().abs().item() < 1e-18
    assert 0.4 < lay(x / 2).std().item() < 0.6                                            # unit-variance inputs
    with pytest.raises(ValueError, match="init"):
        LMKAN2D(8, 3, init="zeros")


def test_check_inputs_modes():
    x = torch.tensor([[0.0, float("nan")]])
    with pytest.raises(ValueError, match="non-finite"):
        LMKAN2D(2, 1)(x)                                   # default: checked on CPU tensors
    with pytest.raises(ValueError, match="non-finite"):
        LMKAN2D(2, 1, check_inputs=True)(x)
    LMKAN2D(2, 1, check_inputs=False)(torch.zeros(1, 2))   # off: no check (finite input runs)
    with pytest.raises(ValueError, match="check_inputs"):
        LMKAN2D(2, 1, check_inputs="yes")


def test_grow_grid_keeps_values_at_new_knots_and_linear_functions_exactly():
    torch.manual_seed(0)
    coarse = LMKAN2D(4, 3, grid_size=6).double()
    with torch.no_grad(): coarse.table.normal_()
    fine = grow_grid(coarse, 10)
    assert fine.grid_size == 10 and fine.table.shape == (11, 11, 3, 2)
    kn = fine.knots.double()
    x = kn[torch.randint(0, 11, (30, 4))]
    torch.testing.assert_close(fine(x), coarse(x), rtol=1e-10, atol=1e-10)
    lin = LMKAN2D(4, 3, grid_size=6, init="linear").double()
    lin.reset_parameters()
    xr = torch.randn(40, 4, dtype=torch.float64) * 4
    torch.testing.assert_close(grow_grid(lin, 13)(xr), lin(xr), rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="grid_size"):
        grow_grid(coarse, 2)
    with pytest.raises(TypeError, match="layer"):
        grow_grid(torch.nn.Linear(4, 3), 8)


def _bn_max(model, x):
    out = []
    model.train()
    with torch.no_grad():
        for m in model:
            x = m(x)
            if isinstance(m, torch.nn.BatchNorm1d): out.append(x.abs().max().item())
    return out


def test_deep_lmkan_stack_trains_on_a_simple_target():
    # [d, h, h, h, 1]: with linear-init tables activations stay Gaussian-like and the loss halves within seconds
    torch.manual_seed(0)
    d, h = 8, 8
    W = torch.randn(32, d) / math.sqrt(d)
    c = torch.rand(32) * 6 - 3
    a = torch.randn(32) / math.sqrt(32)
    def sample(n):
        x = torch.randn(n, d)
        return x, torch.sin(x @ W.T + c) @ a[:, None] / 0.45
    model = lmkan_net([d, h, h, h, 1], grid_size=8)
    assert max(_bn_max(model, torch.randn(2048, d))) < 6.0
    n_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        losses = train_regression(model, sample, steps=250, batch=256, lr=1e-3)
    finally:
        torch.set_num_threads(n_threads)
    assert np.mean(losses[-20:]) <= 0.5 * np.mean(losses[:10])


def test_fastkan_net_shapes_and_flops():
    net = fastkan_net([6, 4, 1], num_grids=5)
    assert net(torch.randn(7, 6)).shape == (7, 1)
    assert count_flops(net) == 2 * (6 * 4 + 4 * 1) * 6
    with pytest.raises(ValueError, match="num_grids"):
        fastkan_net([4, 2], num_grids=1)


def test_front_helpers():
    assert math.isclose(error_at_flops([1, 10, 100], [1.0, 0.1, 0.01], 10), 0.1)
    assert math.isnan(error_at_flops([1, 10], [1.0, 0.5], 0.5))
    assert math.isclose(equal_flops_ratios([1, 100], [1.0, 0.01], [10], [0.05])[0], 0.5)
    assert math.isclose(front_slope([1, 10, 100], [1.0, 0.5, 0.25]), math.log10(0.5))
    assert math.isnan(front_slope([5, 5], [1.0, 0.5]))


def test_no_extrapolation_clamps_to_the_outer_knots():
    torch.manual_seed(0)
    lay = LMKAN2D(4, 3, grid_size=6, extrapolate=False).double()
    with torch.no_grad(): lay.table.normal_()
    k = lay.knots
    x = torch.tensor([[50.0, -50.0, 3.0, 0.1]], dtype=torch.float64)
    xc = torch.tensor([[k[-1].item(), k[0].item(), min(3.0, k[-1].item()), 0.1]], dtype=torch.float64)
    torch.testing.assert_close(lay(x), lay(xc))
    ref = LMKAN2D(4, 3, grid_size=6).double()
    ref.load_state_dict(lay.state_dict())
    torch.testing.assert_close(lay(xc), ref(xc))                    # inside the grid: the same function
    assert not torch.allclose(ref(x), lay(x))                       # outside: the paper's layer extrapolates
    with pytest.raises(TypeError, match="extrapolate"):
        LMKAN2D(4, 3, extrapolate=1)


# ---- property tests for bad input (issue #60): a ValueError/TypeError naming the argument, never a silent result ----
from hypothesis import given, settings, strategies as st  # noqa: E402
import iclr26.lmkan as _lm  # noqa: E402


@settings(max_examples=20, deadline=None)
@given(half=st.integers(1, 4), out=st.integers(1, 4), extra=st.integers(1, 3),
       bad=st.sampled_from([float("nan"), float("inf"), float("-inf")]))
def test_prop_lmkan_layer_rejects_bad_inputs(half, out, extra, bad):
    lay = _lm.LMKAN2D(2 * half, out, 4)
    with pytest.raises(ValueError, match="in_features"):
        _lm.LMKAN2D(2 * half + 1, out, 4)
    with pytest.raises(ValueError, match="x must have"):
        lay(torch.randn(3, 2 * half + extra))
    with pytest.raises(TypeError, match="x must be floating point"):
        lay(torch.ones(3, 2 * half, dtype=torch.long))
    x = torch.randn(3, 2 * half)
    x[1, 0] = bad
    with pytest.raises(ValueError, match="non-finite"):
        lay(x)
    with pytest.raises(ValueError, match="table"):
        _lm.lmkan_lookup(torch.randn(3, 2 * half), torch.randn(5, 5, out, half + extra), _lm.laplace_knots(4))


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 5), m=st.integers(1, 5), bad=st.sampled_from([float("nan"), 0.0, -1.0]),
       bad_e=st.sampled_from([float("nan"), -1.0]))
def test_prop_fronts_reject_mismatched_and_bad_values(n, m, bad, bad_e):
    f, e = [float(2 ** i) for i in range(n)], [1.0 / (i + 1) for i in range(n)]
    if n != m:
        with pytest.raises(ValueError, match="flops and err"):
            _lm.pareto_front(f, e[:1] * m)
        with pytest.raises(ValueError, match="new_flops and new_err"):
            _lm.flops_ratios(f, e, [1.0] * n, [0.5] * m)
        with pytest.raises(ValueError, match="flops and err"):
            _lm.front_slope(f, [0.5] * m)
    with pytest.raises(ValueError, match="flops"):
        _lm.pareto_front([bad] + f[1:], e)
    with pytest.raises(ValueError, match="err"):
        _lm.error_at_flops(f, [bad_e] + e[1:], 1.0)
    assert np.isnan(_lm.flops_ratios(f, e, [1.0], [float("nan")])[0])     # a diverged point gets no ratio
    with pytest.raises(ValueError, match="target"):
        _lm.flops_at_error(f, e, float("nan"))


@settings(max_examples=20, deadline=None)
@given(decay=st.floats(-3, 0), steps=st.integers(1, 20), over=st.integers(1, 5), w=st.integers(-3, 0))
def test_prop_schedules_and_builders_reject_out_of_range(decay, steps, over, w):
    with pytest.raises(ValueError, match="decay"):
        _lm.hessian_lambda(1.0, decay=decay)
    with pytest.raises(ValueError, match="epoch"):
        _lm.hessian_lambda(float("nan"))
    with pytest.raises(ValueError, match="step must be"):
        _lm.lmkan_schedule(steps + over, steps, 1e-3)
    with pytest.raises(ValueError, match="lr"):
        _lm.lmkan_schedule(0, steps, float("nan"))
    with pytest.raises(ValueError, match="sizes"):
        _lm.mlp_net([4, w, 1])
    with pytest.raises(ValueError, match="sizes"):
        _lm.lmkan_net([3, 4, 1])
    with pytest.raises(TypeError, match="model"):
        _lm.count_flops(steps)


def test_stacking_the_papers_layer_warns():
    import warnings
    with pytest.warns(UserWarning, match="extrapolate"):
        lmkan_net([8, 8, 8, 1], grid_size=5, init="uniform")               # the trap: init='uniform' + extrapolation
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                     # the safe combinations do not warn
        lmkan_net([8, 8, 8, 1], grid_size=5)                                # init='linear' (the default)
        lmkan_net([8, 8, 8, 1], grid_size=5, init="uniform", extrapolate=False)
        lmkan_net([8, 1], grid_size=5, init="uniform")                      # one layer: nothing is stacked
    assert "Trap" in LMKAN2D.__doc__ and "extrapolate=False" in LMKAN2D.__doc__


def test_bounded_flops_ratios():
    b = _lm.bounded_flops_ratios(
        [10, 100], [1.0, 0.1], [10, 50, 5, 20, 10], [0.1, 2.0, 0.0, float("inf"), float("nan")]
    )
    assert [r for _, r in b] == ["=", "<=", ">=", "<=", "="]
    assert math.isclose(b[0][0], 10.0) and math.isclose(b[1][0], 0.2) and math.isclose(b[2][0], 20.0)
    assert math.isclose(b[3][0], 0.5) and math.isnan(b[4][0])
    with pytest.raises(ValueError, match="new_flops"):
        _lm.bounded_flops_ratios([10, 100], [1.0, 0.1], [1, 2], [0.5])


def test_lr_sweep_widens_until_the_optimum_is_interior():
    calls = []
    def bowl(lr):
        calls.append(lr)
        return (math.log10(lr) + 4.3) ** 2                                 # minimum at 5e-5
    best, tried, interior = _lm.lr_sweep(bowl, [1e-3, 3e-3], max_extra=6)
    assert (best, interior) == (3e-5, True) and list(tried) == sorted(tried) and len(calls) == len(set(calls))
    assert list(tried) == [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3]
    best, _, interior = _lm.lr_sweep(bowl, [1e-3, 3e-3], max_extra=1)
    assert best == 3e-4 and not interior                                   # out of extra points: stays at an edge
    up = _lm.lr_sweep(lambda lr: -lr if lr < 0.05 else float("nan"), [1e-3], max_extra=5)
    assert up[0] == 3e-2 and up[2]                                          # widens upwards; NaN counts as +inf
    assert _lm.lr_sweep(lambda lr: {"v": lr}, [1e-3, 1e-2], score=lambda r: r["v"], max_extra=0)[0] == 1e-3
    for bad in ([], [0.0], [float("nan")]):
        with pytest.raises(ValueError, match="lrs"):
            _lm.lr_sweep(bowl, bad)
    with pytest.raises(ValueError, match="max_extra"):
        _lm.lr_sweep(bowl, [1e-3], max_extra=-1)
