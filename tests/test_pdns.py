"Unit and bad-input tests for iclr26.pdns (fast: < 30 s)."
import math
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from iclr26.pdns import (MaskedSpinNet, adaptive_gamma, all_states, ess, evaluate_discrete, ising_energy, ising_enumerate,
                         ising_transfer, path_logprob, ring_mixture, sample_masked, tempered_weights, train_discrete,
                         wdce_loss, em_sample, DriftNet, mode_metrics)


@pytest.mark.parametrize("L,beta,h", [(3, 0.7, 0.2), (3, 0.3, 0.0), (4, 1.0, 0.01), (4, 0.44, -0.1)])
def test_transfer_matches_enumeration(L, beta, h):
    ex, tm = ising_enumerate(L, beta, h=h), ising_transfer(L, beta, h=h)
    assert abs(ex.logZ - tm.logZ) < 1e-8
    np.testing.assert_allclose(ex.p_mag, tm.p_mag, atol=1e-10)
    assert abs(ex.mean_energy - tm.mean_energy) < 1e-4


def test_enumeration_brute_force_L2():
    # L=2 periodic: each bond is counted twice by the two rolls; check one hand-computed case
    x = torch.ones(1, 2, 2)
    assert float(ising_energy(x, 1.0, 0.0)) == -8.0
    ex = ising_enumerate(2, 0.5)
    X = torch.from_numpy(all_states(4)).double().view(-1, 2, 2)
    assert abs(ex.logZ - float(torch.logsumexp(-0.5 * ising_energy(X), 0))) < 1e-10
    assert abs(ex.p_up - 0.5) < 1e-12


class _Factorised(MaskedSpinNet):
    def __init__(self, logits):
        super().__init__(len(logits), 4, 1); self.l = logits
    def forward(self, x):
        return self.l.expand(x.shape[0], -1)


def test_importance_weights_on_factorised_target():
    torch.manual_seed(0)
    logits = torch.randn(9)
    m = _Factorised(logits)
    x, logq, order = sample_masked(m, 128)
    logpi = F.logsigmoid(logits * x).sum(1)           # normalised target: log Z = 0
    assert torch.allclose(logq, logpi, atol=1e-5)       # log w = 0 exactly
    assert torch.allclose(path_logprob(m, x, order), logq, atol=1e-5)
    lw = logpi - logq
    assert abs(float(torch.logsumexp(lw, 0) - math.log(128))) < 1e-4
    assert abs(ess(tempered_weights(lw)) - 1.0) < 1e-6


def test_path_logprob_matches_sampler_for_mlp():
    torch.manual_seed(1)
    m = MaskedSpinNet(9, 32)
    x, logq, order = sample_masked(m, 16)
    assert torch.allclose(path_logprob(m, x, order), logq, atol=1e-4)


def test_gamma_and_ess():
    lw = torch.randn(200) * 10
    g = adaptive_gamma(lw, 0.4)
    assert 0 < g < 1 and ess(tempered_weights(lw, g)) >= 0.4 - 1e-9
    assert adaptive_gamma(torch.zeros(10), 0.5) == 1.0
    w = tempered_weights(lw, 0.5)
    assert abs(float(w.sum()) - 1) < 1e-5


def test_wdce_loss_positive_and_differentiable():
    m = MaskedSpinNet(16, 32)
    x, _, _ = sample_masked(m, 32)
    l = wdce_loss(m, x, torch.full((32,), 1 / 32), R=2)
    l.backward()
    assert float(l) > 0 and all(p.grad is not None for p in m.parameters())


def test_continuous_pieces():
    t = ring_mixture(4, 3.0, 0.3)
    x, lw = em_sample(DriftNet(), t, 64, 5)
    assert x.shape == (64, 2) and torch.isfinite(lw).all()
    mm = mode_metrics(t.means.repeat(10, 1), t)
    assert mm["coverage"] == 1.0


def test_bad_inputs():
    with pytest.raises(ValueError, match="beta"): ising_enumerate(3, -1.0)
    with pytest.raises(ValueError, match="beta"): ising_transfer(3, -0.5)
    with pytest.raises(ValueError, match="L"): ising_enumerate(1, 1.0)
    with pytest.raises(ValueError, match="L"): ising_transfer(1, 1.0)
    with pytest.raises(ValueError, match="L"): train_discrete(1, 1.0)
    with pytest.raises(TypeError, match="L"): ising_enumerate(3.0, 1.0)
    lw = torch.randn(8)
    for g in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="gamma"): tempered_weights(lw, g)
    with pytest.raises(ValueError, match="ess_target"): adaptive_gamma(lw, 0.0)
    with pytest.raises(ValueError, match="method"): train_discrete(3, 1.0, "nope")
    with pytest.raises(ValueError, match="x"): ising_energy(torch.ones(2, 3, 4))
