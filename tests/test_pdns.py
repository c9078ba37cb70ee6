"Unit and bad-input tests for iclr26.pdns (fast: < 30 s)."
import itertools
import math

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from iclr26.pdns import (DiscreteTarget, DoubleWellTarget, DriftNet, MaskedNet, adaptive_gamma, adaptive_lambda,
                         all_states, cross_mixture, em_sample, energy_distance, enumerate_target, ess, ess_logw,
                         evaluate_discrete, implied_eta, ising_energy, ising_enumerate, ising_target, ising_transfer,
                         iterate_logw, maxcut_target, mode_summary, parallel_tempering, path_logprob, potts_logZ,
                         potts_target, qubo_target, random_graph, ring_mixture, sample_masked, tempered_weights,
                         train_continuous, train_discrete, wdce_loss)


@pytest.mark.parametrize("L,beta,h", [(3, 0.7, 0.2), (3, 0.3, 0.0), (4, 1.0, 0.01), (4, 0.44, -0.1)])
def test_transfer_matches_enumeration(L, beta, h):
    ex, tm = ising_enumerate(L, beta, h=h), ising_transfer(L, beta, h=h)
    assert abs(ex.logZ - tm.logZ) < 1e-8
    np.testing.assert_allclose(ex.p_mag, tm.p_mag, atol=1e-10)
    assert abs(ex.mean_energy - tm.mean_energy) < 1e-4


def test_enumeration_brute_force_L2():
    x = torch.ones(1, 2, 2)
    assert float(ising_energy(x, 1.0, 0.0)) == -8.0        # L=2 periodic: each bond counted twice by the two rolls
    ex = ising_enumerate(2, 0.5)
    X = torch.from_numpy(all_states(4)).double().view(-1, 2, 2)
    assert abs(ex.logZ - float(torch.logsumexp(-0.5 * ising_energy(X), 0))) < 1e-10
    assert abs(ex.p_up - 0.5) < 1e-12


def test_generic_target_matches_ising_and_potts_transfer():
    ex = ising_enumerate(3, 0.8, h=0.1)
    e = enumerate_target(ising_target(3, 0.8, h=0.1))
    assert abs(e["logZ"] - ex.logZ) < 1e-9 and abs(e["mode_mass"][1] - ex.p_up) < 1e-9
    for L, beta in [(2, 0.9), (3, 0.7), (3, 1.5)]:
        assert abs(potts_logZ(L, 3, beta) - enumerate_target(potts_target(L, beta))["logZ"]) < 1e-8
    e = enumerate_target(potts_target(3, 1.5))                  # colour symmetry: every mode holds 1/3
    np.testing.assert_allclose(e["mode_mass"], 1 / 3, atol=0.02)


def test_maxcut_and_qubo():
    W = random_graph(8, 0.5, seed=3)
    t = maxcut_target(W, 1.0)
    best = max(float(((torch.tensor(s)[:, None] != torch.tensor(s)[None, :]).double() * W).sum() / 2)
               for s in itertools.product([0, 1], repeat=8))
    assert abs(-enumerate_target(t)["ground_energy"] - best) < 1e-9
    Q = torch.tensor([[1.0, -2.0], [-2.0, 0.5]])
    x = torch.tensor([[0, 0], [1, 0], [0, 1], [1, 1]])
    np.testing.assert_allclose(qubo_target(Q).energy_fn(x).numpy(), [0, 1, 0.5, -2.5])


class _Factorised(nn.Module):
    def __init__(self, logits):
        super().__init__()
        self.l = logits
    def forward(self, x):
        return self.l.expand(x.shape[0], -1, -1)


def test_importance_weights_on_factorised_target():
    torch.manual_seed(0)
    lg = torch.randn(9, 3)
    m = _Factorised(lg)
    x, logq, order = sample_masked(m, 128, 9, 3)
    logpi = F.log_softmax(lg.double(), -1).gather(1, x.T).T.sum(1)      # normalised target: log Z = 0
    assert torch.allclose(logq, logpi, atol=1e-9)
    assert torch.allclose(path_logprob(m, x, order, 3).double(), logq, atol=1e-5)
    assert abs(ess_logw(logpi - logq) - 1.0) < 1e-9


def test_path_logprob_matches_sampler_for_mlp():
    torch.manual_seed(1)
    for q in (2, 3):
        m = MaskedNet(9, q, 32)
        x, logq, order = sample_masked(m, 16, 9, q)
        assert x.min() >= 0 and x.max() < q
        assert torch.allclose(path_logprob(m, x, order, q).double(), logq, atol=1e-4)


def test_gamma_lambda_and_ess():
    lw = torch.randn(200, dtype=torch.float64) * 10
    g = adaptive_gamma(lw, 0.4)
    assert 0 < g < 1 and ess(tempered_weights(lw, g)) >= 0.4 - 1e-9
    assert adaptive_gamma(torch.zeros(10), 0.5) == 1.0
    lpi, lq = torch.randn(300, dtype=torch.float64) * 30, torch.randn(300, dtype=torch.float64)
    lam = adaptive_lambda(lpi, 0.0, lq, 0.0, 0.3)
    assert 0 < lam < 1 and ess_logw(iterate_logw(lpi, 0.0, lq, lam)) >= 0.3 - 1e-9
    assert adaptive_lambda(lpi, 0.0, lq, 0.9, 0.3) == 0.9               # monotone: never below the previous value
    assert adaptive_lambda(lq, 0.0, lq, 0.0, 0.3) == 1.0                # sampler = target: straight to lambda = 1
    # iterate weights with lambda = 1 are the plain WDCE weights; lambda = 0 target P_0
    torch.testing.assert_close(iterate_logw(lpi, 0.0, lq, 1.0), lpi - lq)
    np.testing.assert_allclose(implied_eta([0.0, 0.5, 0.75]), [1.0, 1.0])


def test_wdce_loss_positive_and_differentiable():
    m = MaskedNet(16, 3, 32)
    x, _, _ = sample_masked(m, 32, 16, 3)
    loss = wdce_loss(m, x, torch.full((32,), 1 / 32), 3, R=2)
    loss.backward()
    assert float(loss.detach()) > 0 and all(p.grad is not None for p in m.parameters())


def test_train_discrete_user_network_and_options():
    t = potts_target(2, 1.0)
    net = MaskedNet(4, 3, 16, 1)
    r = train_discrete(t, "PDNS", model=net, iters=4, batch=16, R=1, buffer=2, inner=2)
    assert r.model is net and len(r.lams) == 4 and all(b >= a for a, b in zip(r.lams, r.lams[1:]))
    ev = evaluate_discrete(r.model, t, 50)
    assert ev["mode_mass"].shape == (3,) and abs(ev["mode_mass"].sum() - 1) < 1e-9 and math.isfinite(ev["logZ_hat"])
    for m in ("WDCE", "PDNS-model", "anneal", "logvar"):
        assert len(train_discrete(t, m, iters=2, batch=8, R=1).losses) == 2


def test_parallel_tempering_reference_ising():
    t = ising_target(3, 0.3)                                    # high temperature: fast mixing, P(up) = 1/2
    p = parallel_tempering(t, n_chains=4, n_temps=3, sweeps=150, burn=30)
    assert p["per_chain"].shape == (4, 2) and abs(p["mean"][1] - 0.5) < 0.15 and 0 < p["swap_acc"] <= 1


def test_continuous_pieces():
    t = ring_mixture(4, 3.0, 0.3)
    x, lr, gi = em_sample(DriftNet(2), t, 64, 5)
    assert x.shape == (64, 2) and torch.isfinite(lr - gi).all()
    p_hat = np.bincount(t.mode_fn(t.means.repeat(10, 1)).numpy(), minlength=4) / 40
    assert mode_summary(p_hat, t.mode_weights)["coverage"] == 1.0
    c = cross_mixture(5, 4, 6.0, 0.5)
    x, lr, gi = em_sample(DriftNet(5), c, 32, 4)
    assert x.shape == (32, 5)
    r = train_continuous(c, "PDNS", iters=3, batch=32, steps=4)
    assert len(r.lams) == 3 and r.drift.dim == 5
    dw = DoubleWellTarget(4, 2, 0.0)
    np.testing.assert_allclose(dw.mode_weights, 0.25, atol=1e-6)
    s = dw.sample(500, torch.Generator().manual_seed(0))
    assert s.shape == (500, 4) and energy_distance(s[:250], s[250:]) < 0.1


def test_bad_inputs():
    with pytest.raises(ValueError, match="beta"): ising_enumerate(3, -1.0)
    with pytest.raises(ValueError, match="beta"): ising_transfer(3, -0.5)
    with pytest.raises(ValueError, match="L"): ising_enumerate(1, 1.0)
    with pytest.raises(ValueError, match="L"): ising_target(1, 1.0)
    with pytest.raises(TypeError, match="L"): ising_enumerate(3.0, 1.0)
    with pytest.raises(TypeError, match="target"): train_discrete(3, 1.0)
    lw = torch.randn(8)
    for g in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="gamma"): tempered_weights(lw, g)
    with pytest.raises(ValueError, match="ess_target"): adaptive_gamma(lw, 0.0)
    with pytest.raises(ValueError, match="lam"): iterate_logw(lw, 0.0, lw, 1.5)
    with pytest.raises(ValueError, match="lam_prev"): adaptive_lambda(lw, 0.0, lw, -0.1)
    t = potts_target(2, 1.0)
    with pytest.raises(ValueError, match="method"): train_discrete(t, "nope")
    with pytest.raises(ValueError, match="inner"): train_discrete(t, inner=0)
    with pytest.raises(ValueError, match="buffer"): train_discrete(t, buffer=-1)
    with pytest.raises(ValueError, match="x"): ising_energy(torch.ones(2, 3, 4))
    with pytest.raises(ValueError, match="q"): DiscreteTarget(lambda x: x.sum(1), 4, q=1)
    with pytest.raises(TypeError, match="energy_fn"): DiscreteTarget(3, 4)
    with pytest.raises(ValueError, match="energy_fn"):
        DiscreteTarget(lambda x: x, 4).log_unnorm(torch.zeros(2, 4).long())
    with pytest.raises(ValueError, match="W"): maxcut_target(torch.tensor([[0.0, 1.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="k"): cross_mixture(3, 3)
    with pytest.raises(ValueError, match="dim"): DoubleWellTarget(0)
    with pytest.raises(ValueError, match="method"): train_continuous(ring_mixture(), "nope")
    with pytest.raises(ValueError, match="sweeps"): parallel_tempering(t, sweeps=10, burn=10)


# ---- property tests for bad input (issue #60): a ValueError/TypeError naming the argument, never a silent result ----
from hypothesis import given, settings, strategies as st  # noqa: E402
import iclr26.pdns as _pdns  # noqa: E402

_BAD = st.sampled_from([float("nan"), float("inf"), float("-inf")])


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 8), i=st.integers(0, 7), bad=st.sampled_from([float("nan"), float("inf")]))
def test_prop_ess_rejects_empty_and_non_finite(n, i, bad):
    w = torch.rand(n) + 0.1
    w[i % n] = bad
    with pytest.raises(ValueError, match="weights"):
        _pdns.ess(w)
    with pytest.raises(ValueError, match="logw"):
        _pdns.ess_logw(w)
    with pytest.raises(ValueError, match="weights"):
        _pdns.ess(torch.tensor([]))
    with pytest.raises(ValueError, match="weights"):
        _pdns.ess(-torch.rand(n) - 0.1)
    with pytest.raises(ValueError, match="logw"):
        _pdns.adaptive_gamma(w)
    assert _pdns.ess_logw(torch.tensor([0.0, float("-inf")])) == pytest.approx(0.5)   # -inf: a zero weight


@settings(max_examples=20, deadline=None)
@given(g=st.one_of(st.floats(-3, 0), st.floats(1.0001, 3), st.just(float("nan"))),
       t=st.one_of(st.floats(-3, 0), st.floats(1.0001, 3)), lam=st.one_of(st.floats(-3, -1e-6), st.floats(1.0001, 3)))
def test_prop_tempering_parameters_out_of_range(g, t, lam):
    lw = torch.randn(6)
    with pytest.raises(ValueError, match="gamma"):
        _pdns.tempered_weights(lw, g)
    with pytest.raises(ValueError, match="ess_target"):
        _pdns.adaptive_gamma(lw, t)
    with pytest.raises(ValueError, match="lam"):
        _pdns.iterate_logw(lw, 0.0, lw, lam)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 6), m=st.integers(1, 6))
def test_prop_iterate_logw_and_mode_summary_reject_mismatched_lengths(n, m):
    if n != m:
        with pytest.raises(ValueError, match="log_pi and logq"):
            _pdns.iterate_logw(torch.randn(n), 0.0, torch.randn(m), 0.5)
        with pytest.raises(ValueError, match="p_hat and p_ref"):
            _pdns.mode_summary([0.5] * n, [0.5] * m)
    with pytest.raises(ValueError, match="p_hat and p_ref"):
        _pdns.mode_summary([float("nan")] * n, [0.5] * n)


@settings(max_examples=20, deadline=None)
@given(beta=st.one_of(_BAD, st.floats(-5, -1e-6)), L=st.integers(-2, 1))
def test_prop_ising_rejects_bad_beta_and_lattice(beta, L):
    with pytest.raises(ValueError, match="beta"):
        _pdns.ising_enumerate(2, beta)
    with pytest.raises(ValueError, match="beta"):
        _pdns.ising_transfer(2, beta)
    with pytest.raises(ValueError, match="L"):
        _pdns.ising_enumerate(L, 1.0)
    with pytest.raises(TypeError, match="L must be an int"):
        _pdns.ising_enumerate(2.0, 1.0)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 6), d=st.integers(1, 3), dd=st.integers(1, 2), bad=_BAD)
def test_prop_energy_distance_rejects_bad_samples(n, d, dd, bad):
    x = torch.randn(n, d)
    with pytest.raises(ValueError, match="dimension"):
        _pdns.energy_distance(x, torch.randn(n, d + dd))
    with pytest.raises(ValueError, match="x must be a non-empty"):
        _pdns.energy_distance(torch.randn(0, d), x)
    xb = x.clone()
    xb[0, 0] = bad
    with pytest.raises(ValueError, match="x must be finite"):
        _pdns.energy_distance(xb, x)
    with pytest.raises(ValueError, match="Q"):
        _pdns.qubo_target(torch.full((d, d), bad))


# ---- importance-reweighted mode masses and the exact (oracle) sampler (issue #51) ----
from iclr26.pdns import evaluate_samples, exact_samples, is_mode_mass  # noqa: E402


def test_exact_samples_are_the_oracle():
    t = ising_target(3, 0.7, h=0.2)
    e = enumerate_target(t)
    x, logp = exact_samples(t, 20000, torch.Generator().manual_seed(0))
    assert x.shape == (20000, 9) and x.min() >= 0 and x.max() <= 1
    lw = t.log_unnorm(x)
    torch.testing.assert_close(lw - logp, torch.full_like(lw, e["logZ"]))      # normalised log-probabilities
    ev = evaluate_samples(t, x, logp)
    assert abs(ev["logZ_hat"] - e["logZ"]) < 1e-9 and abs(ev["ess"] - 1) < 1e-9
    np.testing.assert_allclose(ev["mode_mass_is"], ev["mode_mass"], atol=1e-12)
    np.testing.assert_allclose(ev["mode_mass"], e["mode_mass"], atol=0.015)


def test_reweighted_masses_correct_a_biased_sampler():
    t = ising_target(3, 0.1, h=0.1)
    e = enumerate_target(t)
    m = _Factorised(torch.tensor([[-0.3, 0.3]]).expand(9, 2))                   # draws spin up with probability 0.65
    x, logq, _ = sample_masked(m, 20000, 9, 2, torch.Generator().manual_seed(0))
    ev = evaluate_samples(t, x, logq)
    assert ev["mode_mass"][1] - e["mode_mass"][1] > 0.2                         # raw draws: biased towards up
    np.testing.assert_allclose(ev["mode_mass_is"], e["mode_mass"], atol=0.02)   # reweighted: consistent
    assert abs(ev["logZ_hat"] - e["logZ"]) < 0.02
    ev2 = evaluate_discrete(m, t, 300)                                          # the sampler route gives the same keys
    assert set(ev2) >= {"mode_mass", "mode_mass_is", "logZ_hat", "ess", "x"}
    assert abs(ev2["mode_mass_is"].sum() - 1) < 1e-9


def test_is_mode_mass_values_and_bad_inputs():
    lw = torch.tensor([0.0, math.log(3.0), float("-inf")], dtype=torch.float64)
    np.testing.assert_allclose(is_mode_mass(lw, torch.tensor([0, 1, 1]), 2), [0.25, 0.75])
    np.testing.assert_allclose(is_mode_mass(torch.zeros(4), torch.tensor([0, 0, 2, 2]), 3), [0.5, 0.0, 0.5])
    with pytest.raises(ValueError, match="logw"):
        is_mode_mass(torch.tensor([float("nan"), 0.0]), torch.tensor([0, 1]), 2)
    with pytest.raises(ValueError, match="logw"): is_mode_mass(torch.full((2,), float("-inf")), torch.tensor([0, 1]), 2)
    with pytest.raises(ValueError, match="modes"): is_mode_mass(torch.zeros(3), torch.tensor([0, 1]), 2)
    with pytest.raises(ValueError, match="modes"): is_mode_mass(torch.zeros(2), torch.tensor([0.0, 1.0]), 2)
    with pytest.raises(ValueError, match="modes"): is_mode_mass(torch.zeros(2), torch.tensor([0, 2]), 2)
    with pytest.raises(ValueError, match="n_modes"): is_mode_mass(torch.zeros(2), torch.tensor([0, 0]), 0)
    t = ising_target(2, 0.5)
    with pytest.raises(ValueError, match="n must"): exact_samples(t, 0)
    with pytest.raises(TypeError, match="target"): exact_samples(3, 10)
    with pytest.raises(ValueError, match="max_states"): exact_samples(ising_target(5, 0.5), 10, max_states=2 ** 20)
    with pytest.raises(ValueError, match="logq"): evaluate_samples(t, torch.zeros(3, 4).long(), torch.zeros(2))
