"""iclr26.discrete_sb: construction invariants, exactness of the analytic bridge, solver/metric sanity, bad input."""
import math

import pytest
import torch

from iclr26.discrete_sb import (ReferenceChain, SBBenchmark, DLightSB, AlphaCSBM, FeatureEOT, gaussian_log_q,
                                uniform_log_q, lse_matmul, source_log_probs, exact_plan, enumerate_states,
                                sinkhorn_check, dynamic_check, shape_score, trend_score, c2st, minibatch_eot_pairs,
                                cond_matrix, plan_kl_d2, categorical, empirical_log_marginals, fit)

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("kind,alpha", [("gaussian", 0.02), ("gaussian", 0.3), ("uniform", 0.005), ("uniform", 0.05)])
def test_reference_rows_sum_to_one_and_doubly_stochastic(kind, alpha):
    ch = ReferenceChain(20, kind, alpha, num_timesteps=5, num_skip_steps=3)
    for t in (1, 3, ch.N + 1):
        P = ch.log_cum[t].exp()
        torch.testing.assert_close(P.sum(1), torch.ones(20, dtype=torch.float64))
        torch.testing.assert_close(P.sum(0), torch.ones(20, dtype=torch.float64))   # doubly stochastic
    torch.testing.assert_close(ch.log_qbar.exp(), torch.linalg.matrix_power(ch.log_q.exp(), ch.N + 1))
    assert torch.equal(ch.log_cum[0].exp(), torch.eye(20, dtype=torch.float64))


def test_uniform_closed_form_and_gaussian_symmetry():
    torch.testing.assert_close(
        uniform_log_q(7, 0.1, 5).exp(), torch.linalg.matrix_power(uniform_log_q(7, 0.1).exp(), 5)
    )
    q = gaussian_log_q(9, 0.2).exp()
    torch.testing.assert_close(q, q.T)
    assert (q.diagonal() > 0).all()


def test_source_histogram_matches_samples():
    b = SBBenchmark(2, 12, 3, seed=1)
    torch.testing.assert_close(b.log_p0_1d.exp().sum(), torch.tensor(1.0, dtype=torch.float64))
    x = b.sample_source(40000, torch.Generator().manual_seed(0))
    emp = torch.bincount(x[:, 0], minlength=12).double() / len(x)
    assert (emp - b.log_p0_1d.exp()).abs().max() < 0.01
    torch.testing.assert_close(source_log_probs(12, "uniform").exp().sum(), torch.tensor(1.0, dtype=torch.float64))


@pytest.mark.parametrize("prior,alpha,pot", [("gaussian", 0.2, "gaussian"), ("uniform", 0.02, "uniform")])
def test_plan_marginals_sinkhorn_and_dynamics(prior, alpha, pot):
    b = SBBenchmark(2, 6, 3, prior, alpha, pot, num_timesteps=4, num_skip_steps=2, seed=0)
    P = exact_plan(b)
    X = enumerate_states(6, 2)
    torch.testing.assert_close(P.sum(1), b.source_log_prob(X).exp())          # first marginal is p0
    torch.testing.assert_close(P.sum(), torch.tensor(1.0, dtype=torch.float64))
    # second marginal is p1: matches samples of the exact conditional sampler
    x0, x1 = b.sample_pairs(30000, torch.Generator().manual_seed(2))
    emp = torch.bincount(x1[:, 0] * 6 + x1[:, 1], minlength=36).double() / len(x1)
    assert (emp - P.sum(0)).abs().max() < 0.015
    assert sinkhorn_check(b) < 1e-4
    assert dynamic_check(b) < 1e-5


def test_transition_marginals_are_normalised_and_consistent():
    b = SBBenchmark(3, 10, 4, "gaussian", 0.3, "uniform", num_timesteps=3, num_skip_steps=2, seed=3)
    x = b.sample_source(16, torch.Generator().manual_seed(0))
    for t in range(b.chain.N + 1):
        lg = b.transition_marginal_logits(x, t)
        torch.testing.assert_close(lg.logsumexp(-1), torch.zeros(16, 3, dtype=torch.float64))
    # cond marginals are the marginals of the exact conditional
    lm = b.cond_marginal_logits(x)
    torch.testing.assert_close(lm.logsumexp(-1), torch.zeros(16, 3, dtype=torch.float64))


def test_catsbench_agreement_when_available():
    pytest.importorskip("catsbench")
    from catsbench import BenchmarkHD, BenchmarkHDConfig
    b = SBBenchmark(2, 20, 3, "gaussian", 0.05, "gaussian", num_timesteps=3, num_skip_steps=2, seed=4)
    conf = BenchmarkHDConfig(
        dim=2,
        input_shape=(2,),
        num_potentials=3,
        num_categories=20,
        radius=5.0,
        alpha=0.05,
        num_timesteps=3,
        num_skip_steps=2,
        prior_type="gaussian",
        benchmark_type="gaussian",
        input_distribution="gaussian",
        num_val_samples=4,
        init_batch_size=4,
        reverse=False,
        tau=1.0,
        params_dtype="float64",
        eps=0.0,
    )
    torch.manual_seed(4)
    cb = BenchmarkHD(conf, device="cpu")
    assert torch.equal(cb.log_cp_cores.double(), b.log_r)
    x0 = b.sample_source(8, torch.Generator().manual_seed(0))
    theirs = cb.get_cum_transition_logits(x0).double().log_softmax(-1)
    torch.testing.assert_close(theirs.exp(), b.cond_marginal_logits(x0).log_softmax(-1).exp(), atol=1e-9, rtol=0)


def test_dlightsb_learns_and_matching_loss_runs():
    torch.manual_seed(0)
    b = SBBenchmark(2, 16, 2, "gaussian", 0.3, "gaussian", num_timesteps=3, num_skip_steps=2, seed=0)
    g = torch.Generator().manual_seed(0)
    x0 = b.sample_source(2000, g)
    x1 = b.sample(b.sample_source(2000, g), g)
    ch = b.chain.to(torch.float32)
    m = DLightSB(ch, 2, 8, init_samples=x1, generator=g)
    draw = lambda p: p[torch.randint(len(p), (128,), generator=g)]
    kl0 = plan_kl_d2(b, lambda a, c: cond_matrix(m, a, c))
    curve = fit(lambda: m.loss(draw(x0), draw(x1)), m.parameters(), 150, 0.05)
    assert sum(curve[-10:]) < sum(curve[:10])
    assert plan_kl_d2(b, lambda a, c: cond_matrix(m, a, c)) < kl0
    loss = m.matching_loss(x0[:64], x1[:64], g)
    loss.backward()
    assert torch.isfinite(loss) and m.log_r.grad is not None
    a, c = minibatch_eot_pairs(x0[:32], x1[:32], b.chain, g)
    assert a.shape == c.shape == (32, 2)


def test_alpha_csbm_shapes_and_normalisation():
    b = SBBenchmark(2, 8, 2, "uniform", 0.05, "uniform", num_timesteps=3, num_skip_steps=1, seed=0)
    cs = AlphaCSBM(b.chain.to(torch.float32), 2, hidden=16)
    x = b.sample_source(10, torch.Generator().manual_seed(0))
    lg = cs.next_logits(cs.fwd, x, torch.zeros(10, dtype=torch.long))
    torch.testing.assert_close(lg.logsumexp(-1), torch.zeros(10, 2))
    curve = cs.fit(x, b.sample(x), steps=6, batch=8, refresh=2)
    assert len(curve) == 6 and all(map(math.isfinite, curve))
    assert cs.sample(x, "forward").shape == (10, 2)


def test_metrics():
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, 5, (500, 3), generator=g)
    assert shape_score(x, x, 5) == 1.0 and trend_score(x, x, 5) == 1.0
    y = x.clamp(max=1)
    assert shape_score(x, y, 5) < 0.7
    acc = c2st(x[:, :1], x[:, 1:], x[:, 1:].flip(0))
    assert 0.3 < acc < 0.7   # same distribution of pairs (x0 independent of x1 here): chance level
    lm = empirical_log_marginals(x, 5)
    torch.testing.assert_close(lm.exp().sum(1), torch.ones(3, dtype=torch.float64))
    assert categorical(torch.tensor([[0.0, float("-inf")]]).expand(100, 2)).eq(0).all()


def test_feature_eot_rows_are_conditionals():
    ch = ReferenceChain(10, "uniform", 0.05, 3, 1)
    p = torch.softmax(torch.randn(2, 10, generator=torch.Generator().manual_seed(0)), -1).double().log()
    fe = FeatureEOT(ch, p, p.flip(1))
    torch.testing.assert_close(fe.log_cond.exp().sum(-1), torch.ones(2, 10, dtype=torch.float64), atol=1e-6, rtol=0)


def test_lse_matmul_dispatch_cpu():
    a, b = torch.randn(3, 4), torch.randn(4, 5)
    torch.testing.assert_close(lse_matmul(a, b), torch.log(a.exp() @ b.exp()))
    with pytest.raises(ValueError): lse_matmul(a, torch.randn(3, 5))
    with pytest.raises(TypeError): lse_matmul([1.0], b)


def test_bad_input():
    with pytest.raises(ValueError, match="S"): ReferenceChain(1)
    with pytest.raises(TypeError, match="S"): ReferenceChain(2.5)
    with pytest.raises(ValueError, match="alpha"): gaussian_log_q(10, -0.1)
    with pytest.raises(ValueError, match="alpha"): uniform_log_q(10, -0.1)
    with pytest.raises(ValueError, match="alpha"): SBBenchmark(2, 10, alpha=-1.0)
    with pytest.raises(ValueError, match="kind"): ReferenceChain(10, "laplace")
    with pytest.raises(ValueError, match="dim"): SBBenchmark(0)
    with pytest.raises(ValueError, match="num_categories|S"): SBBenchmark(2, 1)
    with pytest.raises(ValueError, match="benchmark_type"): SBBenchmark(2, 10, benchmark_type="cauchy")
    b = SBBenchmark(2, 10, 2, num_timesteps=2, num_skip_steps=1)
    with pytest.raises(ValueError, match="D=2"): b.log_v(torch.zeros(4, 3, dtype=torch.long))      # D mismatch
    with pytest.raises(TypeError, match="integer"): b.log_c(torch.zeros(4, 2))
    with pytest.raises(ValueError, match="categories"):
        DLightSB.__mro__[1](b.chain, torch.zeros(2), torch.zeros(2, 11, 2))                       # S mismatch
    with pytest.raises(ValueError, match="num_potentials"): DLightSB(b.chain, 2, 0)
    with pytest.raises(ValueError, match="init_samples"):
        DLightSB(b.chain, 2, 3, init_samples=torch.zeros(5, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="same D"):
        shape_score(torch.zeros(3, 2, dtype=torch.long), torch.zeros(3, 1, dtype=torch.long), 4)
    with pytest.raises(ValueError, match="steps"): fit(lambda: torch.zeros(()), [], -1, 0.1)


# ---------------------------------------------------------------------------------------------------------------------
# second pass (issue #40): the CPU log-space product over wide ranges, DLightSB-M's losses, per-row times,
# fresh α-CSBM pairs, catsbench interop
# ---------------------------------------------------------------------------------------------------------------------
NINF = float("-inf")


def _lse_ref(a, b):
    "float64 broadcast + logsumexp reference."
    return torch.logsumexp(a.double().unsqueeze(-1) + b.double().unsqueeze(-3), -2)


@pytest.mark.parametrize("scale", [1.0, 300.0, 3000.0])
def test_lse_matmul_cpu_wide_ranges_and_neg_inf(scale):
    g = torch.Generator().manual_seed(int(scale))
    a = torch.randn(3, 7, 9, generator=g, dtype=torch.float64) * scale
    b = torch.randn(9, 5, generator=g, dtype=torch.float64) * scale
    a[0, 1, :] = NINF                  # a zero row -> -inf output row
    b[:, 2] = NINF                     # a zero column -> -inf output column
    a[1, 2, 3] = NINF
    b[4, 0] = NINF  # scattered zeros
    c, r = lse_matmul(a, b), _lse_ref(a, b)
    assert torch.equal(torch.isneginf(c), torch.isneginf(r)) and not torch.isnan(c).any()
    fin = torch.isfinite(r)
    assert (c[fin] - r[fin]).abs().max() < 1e-9 * max(1.0, scale)
    assert torch.isneginf(c[0, 1]).all() and torch.isneginf(c[..., 2]).all()


def test_lse_matmul_cpu_best_term_far_below_both_maxima():
    # row max of a and column max of b sit on different k: the only terms are 2000 nats below max_a + max_b
    a = torch.tensor([[0.0, -2000.0], [0.0, -1000.0]])
    b = torch.tensor([[-2000.0, -5.0], [0.0, -3000.0]])
    c, r = lse_matmul(a, b), _lse_ref(a, b)
    assert torch.isfinite(c).all()
    torch.testing.assert_close(c.double(), r, atol=1e-3, rtol=0)     # float32 output rounding at |c| ~ 2000
    # float32 inputs with thousands of nats, batch broadcast, against float64
    g = torch.Generator().manual_seed(5)
    a32 = (torch.randn(2, 1, 6, 11, generator=g) * 2000).float()
    b32 = (torch.randn(3, 11, 4, generator=g) * 2000).float()
    c32 = lse_matmul(a32, b32)
    assert c32.dtype == torch.float32 and c32.shape == (2, 3, 6, 4)
    r32 = _lse_ref(a32, b32)
    assert ((c32.double() - r32).abs() / r32.abs().clamp_min(1)).max() < 1e-6


def test_lse_matmul_cpu_gradients_exact_and_zero_on_empty_rows():
    g = torch.Generator().manual_seed(2)
    a = torch.randn(5, 6, generator=g, dtype=torch.float64) * 800
    b = torch.randn(6, 3, generator=g, dtype=torch.float64) * 800
    a[0] = NINF
    gc = torch.randn(5, 3, generator=g, dtype=torch.float64)
    aa, bb = a.clone().requires_grad_(), b.clone().requires_grad_()
    (lse_matmul(aa, bb) * gc).sum().backward()
    ar, br = a[1:].clone().requires_grad_(), b.clone().requires_grad_()
    (_lse_ref(ar, br) * gc[1:]).sum().backward()
    assert not torch.isnan(aa.grad).any() and not torch.isnan(bb.grad).any()
    torch.testing.assert_close(aa.grad[1:], ar.grad)
    torch.testing.assert_close(bb.grad, br.grad)
    assert (aa.grad[0] == 0).all()


def test_transition_marginals_with_one_time_per_row_match_enumeration():
    b = SBBenchmark(3, 8, 3, "gaussian", 0.3, "uniform", num_timesteps=3, num_skip_steps=2, seed=3)
    x = b.sample_source(6, torch.Generator().manual_seed(0))
    t = torch.tensor([0, 1, 2, 3, 3, 0])
    lg = b.transition_marginal_logits(x, t)
    X = enumerate_states(8, 3)
    for i in range(len(x)):
        lp = b.transition_log_prob(x[i:i + 1].expand(len(X), 3), X, int(t[i]))       # the joint transition
        for d in range(3):
            m = torch.stack([torch.logsumexp(lp[X[:, d] == s], 0) for s in range(8)])
            torch.testing.assert_close(lg[i, d], m, atol=1e-10, rtol=0)
    with pytest.raises(ValueError, match="t"): b.transition_marginal_logits(x, torch.tensor([0, 9, 0, 0, 0, 0]))


def test_matching_term_sums_to_dlightsb_loss():
    "E_bridge[-(log φ_{t+1}(x_{t+1}) - log φ_t(x_t))] summed over t = 0..N is log c(x0) - log v(x1): the DLightSB loss."
    b = SBBenchmark(2, 6, 2, "gaussian", 0.3, "gaussian", num_timesteps=3, num_skip_steps=2, seed=1)
    g = torch.Generator().manual_seed(0)
    m = DLightSB(b.chain, 2, 3, generator=g, dtype=torch.float64)
    with torch.no_grad(): m.log_r.add_(torch.randn(m.log_r.shape, generator=g, dtype=torch.float64))
    x0, x1 = b.sample_pairs(3, g)
    X = enumerate_states(6, 2)
    ch, N = m.chain, m.chain.N
    with torch.no_grad():
        for i in range(len(x0)):
            total = 0.0
            for t in range(N + 1):
                tt = torch.full((len(X),), t)
                # exact bridge marginal of x_t given (x0, x1), per coordinate, then the joint over X
                lxt = (ch.log_cum[t][x0[i]].T + ch.log_cum[N + 1 - t][:, x1[i]]).log_softmax(0)      # (S, D)
                p_xt = lxt[X[:, 0], 0].add(lxt[X[:, 1], 1]).exp()                                  # (S^2,)
                nxt = ch.bridge_next_logits(X, x1[i:i + 1].expand(len(X), 2), tt)                  # (S^2, D, S)
                p_y = (nxt[:, 0, X[:, 0]] + nxt[:, 1, X[:, 1]]).exp()                               # (S^2 x_t, S^2 y)
                term = -(m.log_phi_rows(X, tt + 1)[None, :] - m.log_phi_rows(X, tt)[:, None])
                total += (p_xt[:, None] * p_y * term).sum().item()
            want = (m.log_c(x0[i:i + 1]) - m.log_v(x1[i:i + 1])).item()
            assert abs(total - want) < 1e-9
        # the implemented one-sample estimator has that expectation / (N + 1) (Monte Carlo, 5 standard errors)
        xa, xb = x0.repeat(400, 1), x1.repeat(400, 1)
        draws = torch.stack([m.matching_loss(xa, xb, g, estimator="sample") for _ in range(50)])
        target = m.loss(x0, x1).item() / (N + 1)
        assert abs(draws.mean().item() - target) < 5 * draws.std().item() / math.sqrt(len(draws)) + 1e-9


def test_dlightsb_m_analytic_learns_on_a_tiny_benchmark():
    torch.manual_seed(0)
    b = SBBenchmark(2, 16, 3, "gaussian", 0.1, "gaussian", num_timesteps=3, num_skip_steps=2, std=1.0, seed=0)
    g = torch.Generator().manual_seed(0)
    x0 = b.sample_source(2000, g)
    x1 = b.sample(b.sample_source(2000, g), g)     # unpaired samples
    m = DLightSB(b.chain.to(torch.float32), 2, 8, init_samples=x1, generator=g)
    draw = lambda p: p[torch.randint(len(p), (128,), generator=g)]
    p1 = exact_plan(b).sum(0).clamp_min(1e-300).log()
    kl_indep = plan_kl_d2(b, lambda a, c: p1[None].expand(len(a), -1))
    kl0 = plan_kl_d2(b, lambda a, c: cond_matrix(m, a, c))
    curve = fit(lambda: m.matching_loss(draw(x0), draw(x1), g), m.parameters(), 300, 0.05, schedule="cosine")
    kl1 = plan_kl_d2(b, lambda a, c: cond_matrix(m, a, c))
    assert sum(curve[-20:]) < sum(curve[:20])
    assert kl1 < 0.2 * kl0 and kl1 < 0.3 * kl_indep, (kl0, kl1, kl_indep)


def test_minibatch_ot_scaling_and_log_domain_agree(monkeypatch):
    import iclr26.discrete_sb as dsb
    b = SBBenchmark(2, 20, 3, "gaussian", 0.1, "gaussian", num_timesteps=3, num_skip_steps=2, seed=0)
    g = torch.Generator().manual_seed(0)
    x0, x1 = b.sample_source(64, g), b.sample(b.sample_source(64, g), g)
    _, y_fast = minibatch_eot_pairs(x0, x1, b.chain, torch.Generator().manual_seed(3))
    monkeypatch.setattr(dsb, "_SCALING_RANGE", -1.0)                           # force the log-domain iterations
    _, y_log = minibatch_eot_pairs(x0, x1, b.chain, torch.Generator().manual_seed(3))
    assert torch.equal(y_fast, y_log)
    assert not torch.equal(y_fast, x1)                                         # it did re-pair


def test_alpha_csbm_fresh_pairs_and_new_bad_input():
    b = SBBenchmark(2, 8, 2, "uniform", 0.05, "uniform", num_timesteps=3, num_skip_steps=1, seed=0)
    cs = AlphaCSBM(b.chain.to(torch.float32), 2, hidden=16)
    x = b.sample_source(12, torch.Generator().manual_seed(0))
    curve = cs.fit(x, b.sample(x), steps=5, batch=8, warmup=0.2)             # refresh=1: fresh pairs each step
    assert len(curve) == 5 and all(map(math.isfinite, curve))
    with pytest.raises(ValueError, match="refresh"): cs.fit(x, x, 2, 4, refresh=0)
    m = DLightSB(b.chain, 2, 3)
    with pytest.raises(ValueError, match="estimator"): m.matching_loss(x, x, estimator="mc")
    with pytest.raises(ValueError, match="schedule"): fit(lambda: torch.zeros(()), [], 1, 0.1, schedule="step")


def test_benchmark_from_catsbench_objects():
    pytest.importorskip("catsbench")
    from catsbench import BenchmarkHD, BenchmarkHDConfig
    from iclr26.discrete_sb import benchmark_from_catsbench, chain_from_catsbench
    conf = BenchmarkHDConfig(dim=3, input_shape=(3,), num_potentials=4, num_categories=12, radius=5.0, alpha=0.01,
                             num_timesteps=4, num_skip_steps=3, prior_type="uniform", benchmark_type="uniform",
                             input_distribution="uniform", num_val_samples=4, init_batch_size=4, reverse=False, tau=1.0,
                             params_dtype="float64", eps=0.0)
    torch.manual_seed(7)
    cb = BenchmarkHD(conf, device="cpu")
    b = benchmark_from_catsbench(cb, seed=7)
    ours = SBBenchmark(3, 12, 4, "uniform", 0.01, "uniform", "uniform", num_timesteps=4, num_skip_steps=3, seed=7)
    assert torch.equal(b.log_r, ours.log_r) and b.input_distribution == "uniform"
    torch.testing.assert_close(b.chain.log_cum.exp(), ours.chain.log_cum.exp(), atol=1e-12, rtol=0)
    x = b.sample_source(32, torch.Generator().manual_seed(0))
    torch.testing.assert_close(b.cond_marginal_logits(x).exp(), ours.cond_marginal_logits(x).exp(), atol=1e-12, rtol=0)
    assert b.sample(x).shape == (32, 3)
    ch = chain_from_catsbench(cb.prior)
    assert ch.N == 4 and ch.S == 12 and ch.kind == "uniform"
    with pytest.raises(TypeError, match="Prior"): chain_from_catsbench(object())
    with pytest.raises(TypeError, match="BenchmarkHD"): benchmark_from_catsbench(object())


# ---- property tests for bad input (issue #60): each bad argument fails with an error that names it ----
from hypothesis import given, settings, strategies as st

_bad_alpha = st.one_of(st.floats(max_value=0.0), st.just(float("nan")), st.just(float("inf")), st.just(-float("inf")))


@settings(max_examples=20, deadline=None)
@given(alpha=_bad_alpha, kind=st.sampled_from(["gaussian", "uniform"]))
def test_property_bad_alpha_names_alpha(alpha, kind):
    with pytest.raises(ValueError, match="alpha"):
        ReferenceChain(6, kind, alpha, num_timesteps=2, num_skip_steps=1)


@settings(max_examples=20, deadline=None)
@given(S=st.one_of(st.integers(max_value=1), st.floats(allow_nan=True), st.booleans()))
def test_property_bad_num_categories_names_S(S):
    with pytest.raises((ValueError, TypeError), match="S"):
        ReferenceChain(S)


@settings(max_examples=20, deadline=None)
@given(dim=st.one_of(st.integers(max_value=0), st.floats(allow_nan=True), st.booleans()),
       which=st.sampled_from(["dim", "num_potentials"]))
def test_property_bad_benchmark_sizes_name_the_argument(dim, which):
    kw = {"dim": 2, "num_categories": 6, "num_potentials": 2, which: dim}
    with pytest.raises(ValueError, match=which):
        SBBenchmark(**kw, num_timesteps=2, num_skip_steps=1)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(0, 4), d1=st.integers(0, 3), d2=st.integers(0, 3), lo=st.integers(-2, 0), hi=st.integers(4, 7),
       floaty=st.booleans(), fn=st.sampled_from([shape_score, trend_score]))
def test_property_scores_reject_bad_samples(n, d1, d2, lo, hi, floaty, fn):
    S = 5
    a = torch.zeros(n, d1, dtype=torch.long)
    b = torch.full((max(n, 1), d2), 0, dtype=torch.long)
    if n and d1: a[-1, -1], a[0, 0] = min(hi, S - 1), lo     # lo last: on a 1 x 1 sample it is the one kept
    if floaty: b = b.float()
    ok = n > 0 and d1 > 0 and d1 == d2 and lo >= 0 and not floaty
    if ok:
        assert 0.0 <= fn(a, b, S) <= 1.0
    else:
        with pytest.raises((ValueError, TypeError), match="x_true|x_pred"):
            fn(a, b, S)


@settings(max_examples=20, deadline=None)
@given(m=st.integers(1, 3), k1=st.integers(0, 3), k2=st.integers(0, 3), n=st.integers(1, 3))
def test_property_lse_matmul_shapes(m, k1, k2, n):
    a, b = torch.randn(m, k1, dtype=torch.float64), torch.randn(k2, n, dtype=torch.float64)
    if k1 == k2:
        torch.testing.assert_close(lse_matmul(a, b), torch.logsumexp(a[:, :, None] + b[None], 1))
    else:
        with pytest.raises(ValueError, match="shapes"):
            lse_matmul(a, b)


@settings(max_examples=20, deadline=None)
@given(p=st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(float("nan"))))
def test_property_dlightsb_bad_sample_prob(p):
    with pytest.raises(ValueError, match="sample_prob"):
        DLightSB(ReferenceChain(6, num_timesteps=2, num_skip_steps=1), 2, 2, sample_prob=p)


@settings(max_examples=20, deadline=None)
@given(steps=st.integers(max_value=-1))
def test_property_fit_negative_steps(steps):
    with pytest.raises(ValueError, match="steps"):
        fit(lambda: torch.zeros(()), [], steps, 0.1)


def test_run_benchmark_learning_rates_and_no_matching_solver():
    "bm_lr is checked by name; couplings=() trains no DLightSB-M (the D=16 seeds that run DLightSB alone, issue #51)."
    from iclr26.discrete_sb import run_benchmark
    with pytest.raises(ValueError, match="bm_lr"): run_benchmark(2, "gaussian", "gaussian", 0, bm_lr=0.0)
    with pytest.raises(ValueError, match="lr"): run_benchmark(2, "gaussian", "gaussian", 0, lr=-1.0)
    kw = dict(S=8, n_train=512, steps=5, bm_steps=5, run_csbm=False, batch=32, n_eval=64, n_cond=2, m_cond=32,
              n_plan_x0=2, model_K=4)
    r = run_benchmark(2, "gaussian", "gaussian", 0, couplings=(), **kw)
    assert not any(k.startswith("DLightSB-M") for k in r["metrics"]) and "DLightSB (K=4)" in r["metrics"]
    r2 = run_benchmark(2, "gaussian", "gaussian", 0, couplings=("independent",), bm_lr=0.2, **kw)
    assert 0.0 <= r2["metrics"]["DLightSB-M (independent)"]["cond_shape"] <= 1.0
