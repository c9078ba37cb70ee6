"""iclr26.discrete_sb: construction invariants, exactness of the analytic bridge, solver/metric sanity, bad input."""
import math

import pytest
import torch

from iclr26.discrete_sb import (ReferenceChain, SBBenchmark, DLightSB, AlphaCSBM, FeatureEOT, gaussian_log_q, uniform_log_q,
                                lse_matmul, source_log_probs, exact_plan, enumerate_states, sinkhorn_check, dynamic_check,
                                shape_score, trend_score, c2st, minibatch_eot_pairs, cond_matrix, plan_kl_d2, categorical,
                                empirical_log_marginals, fit)

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
    torch.testing.assert_close(uniform_log_q(7, 0.1, 5).exp(), torch.linalg.matrix_power(uniform_log_q(7, 0.1).exp(), 5))
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
    conf = BenchmarkHDConfig(dim=2, input_shape=(2,), num_potentials=3, num_categories=20, radius=5.0, alpha=0.05,
                             num_timesteps=3, num_skip_steps=2, prior_type="gaussian", benchmark_type="gaussian",
                             input_distribution="gaussian", num_val_samples=4, init_batch_size=4, reverse=False, tau=1.0,
                             params_dtype="float64", eps=0.0)
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
    x0 = b.sample_source(2000, g); x1 = b.sample(b.sample_source(2000, g), g)
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
    with pytest.raises(ValueError, match="init_samples"): DLightSB(b.chain, 2, 3, init_samples=torch.zeros(5, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="same D"): shape_score(torch.zeros(3, 2, dtype=torch.long), torch.zeros(3, 1, dtype=torch.long), 4)
    with pytest.raises(ValueError, match="steps"): fit(lambda: torch.zeros(()), [], -1, 0.1)
