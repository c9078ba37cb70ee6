"""Unit and bad-input tests for iclr26.dpiv (DP-2S-GD for IV regression): clipping, noise calibration,
accounting round trips, the fast path against the reference gradients, and argument checks."""
import math

import numpy as np
import pytest
from scipy import stats

from iclr26.dpiv import (CARD_CONTROLS, DPIVResult, canary_audit, check_iv_data, clip_weights, clipped_grad_stage1,
                         clipped_grad_stage2, dp_2s_gd, dp_2s_gd_many, gdp_delta, gdp_epsilon, load_card, load_mroz,
                         make_iv_data, noise_scale, ols, opendp_epsilon, privacy_report, tsls, zcdp_to_dp_bs,
                         zcdp_to_dp_cks, sensitivity, private_moments, standardise, dp_confidence_interval, SYNTH_BETA,
                         CARD_RANGES, MROZ_RANGES)


@pytest.fixture(scope="module")
def small():
    d = make_iv_data(400, seed=3)
    return d.Z, d.X, d.y


# ---- clipping -------------------------------------------------------------------------------------
def test_clip_weights_bound_and_identity():
    norms = np.array([0.0, 0.5, 1.0, 2.0, 10.0])
    w = clip_weights(norms, 1.0)
    assert np.all(w <= 1.0) and np.all(norms * w <= 1.0 + 1e-12)
    np.testing.assert_allclose(w, [1.0, 1.0, 1.0, 0.5, 0.1])
    np.testing.assert_array_equal(clip_weights(norms, math.inf), np.ones(5))


@pytest.mark.parametrize("C", [0.0, -1.0, float("nan"), True, "1"])
def test_clip_weights_bad_C(C):
    with pytest.raises(ValueError, match="C"):
        clip_weights(np.ones(3), C)


def test_clipped_gradients_match_explicit_per_sample_clipping(small):
    Z, X, y = small
    rng = np.random.default_rng(0)
    Th, b = rng.normal(size=(4, 2)), rng.normal(size=2)
    G1 = np.einsum("nd,nk->ndk", Z, Z @ Th - X)
    n1 = np.linalg.norm(G1.reshape(len(y), -1), axis=1)
    np.testing.assert_allclose(
        clipped_grad_stage1(Z, X, Th, 2.0), (G1 * np.minimum(1, 2.0 / n1)[:, None, None]).mean(0), atol=1e-12
    )
    G2 = (Z @ Th) * (Z @ Th @ b - y)[:, None]
    n2 = np.linalg.norm(G2, axis=1)
    np.testing.assert_allclose(
        clipped_grad_stage2(Z, y, Th, b, 0.3), (G2 * np.minimum(1, 0.3 / n2)[:, None]).mean(0), atol=1e-12
    )


def test_sensitivity_of_clipped_mean_is_2C_over_n(small):
    Z, X, y = small
    n, C = len(y), 1.5
    Th = np.zeros((4, 2))
    Z2, X2 = Z.copy(), X.copy()
    Z2[0], X2[0] = 1e3, -1e3            # replace one person by an outlier
    diff = np.linalg.norm(clipped_grad_stage1(Z, X, Th, C) - clipped_grad_stage1(Z2, X2, Th, C))
    assert diff <= 2 * C / n + 1e-12


# ---- noise calibration and accounting --------------------------------------------------------------
def test_noise_scale_formula():
    assert noise_scale(1.0, 100, 8, 4.0) == pytest.approx(0.02)
    assert noise_scale(3.0, 1000, 50, 0.5) == pytest.approx(2 * 3.0 / 1000 * math.sqrt(50 / 1.0))
    # per-step zCDP Delta^2/(2 sigma^2) summed over T steps gives back rho
    C, n, T, rho = 2.0, 500, 37, 0.3
    s = noise_scale(C, n, T, rho)
    assert T * (2 * C / n) ** 2 / (2 * s ** 2) == pytest.approx(rho)


def test_released_noise_has_calibrated_std(small):
    Z, X, y = small
    r = dp_2s_gd(Z, X, y, rho=0.4, T=300, seed=1, trace=True)
    clean1 = clipped_grad_stage1(Z, X, r.trace["theta"], 4.0)
    clean2 = clipped_grad_stage2(Z, y, r.trace["theta"], r.trace["beta"], 4.0)
    assert np.std(r.trace["g1"] - clean1) / r.sigma1 == pytest.approx(1.0, abs=0.05)
    assert np.std(r.trace["g2"] - clean2) / r.sigma2 == pytest.approx(1.0, abs=0.1)
    assert r.sigma1 == pytest.approx(noise_scale(4.0, 400, 300, 0.2))


def test_accounting_round_trip_and_order():
    for rho in [1e-3, 0.05, 0.5, 5.0]:
        for delta in [1e-3, 1e-6]:
            e_od, e_cks, e_bs = opendp_epsilon(rho, delta), zcdp_to_dp_cks(rho, delta), zcdp_to_dp_bs(rho, delta)
            assert e_od == pytest.approx(e_cks, rel=1e-8)
            mu = math.sqrt(2 * rho)
            e_ex = gdp_epsilon(mu, delta)
            assert e_ex <= e_od * (1 + 1e-9) <= e_bs * (1 + 1e-9)
            assert gdp_delta(mu, e_ex) == pytest.approx(delta, rel=1e-6)
    assert zcdp_to_dp_bs(1.0, 1e-5) == pytest.approx(1 + 2 * math.sqrt(math.log(1e5)))
    rep = privacy_report(0.25, 0.75, 1e-5)
    assert rep["rho"] == 1.0 and rep["eps_exact"] <= rep["eps_opendp"] <= rep["eps_bs"]


# ---- the algorithm ----------------------------------------------------------------------------------
@pytest.mark.parametrize("schedule", ["joint", "sequential"])
def test_non_private_two_stage_gd_is_2sls(small, schedule):
    Z, X, y = small
    r = dp_2s_gd(Z, X, y, T=1500, private=False, C1=math.inf, C2=math.inf, schedule=schedule)
    np.testing.assert_allclose(r.beta, tsls(Z, X, y), atol=1e-8)


def test_fast_path_matches_reference_steps(small):
    Z, X, y = small
    r = dp_2s_gd(Z, X, y, T=4, private=False, C1=0.8, C2=0.6, eta=0.3, alpha=0.4)
    Th, b = np.zeros((4, 2)), np.zeros(2)
    for _ in range(4):
        Th, b = Th - 0.3 * clipped_grad_stage1(Z, X, Th, 0.8), b - 0.4 * clipped_grad_stage2(Z, y, Th, b, 0.6)
    np.testing.assert_allclose(r.theta, Th, atol=1e-12)
    np.testing.assert_allclose(r.beta, b, atol=1e-12)


def test_many_equals_single_runs_and_common_random_numbers(small):
    Z, X, y = small
    many = dp_2s_gd_many(Z, X, y, [0.1, 1.0], 20, [5, 6])
    assert many.beta.shape == (2, 2, 2) and many.theta.shape == (2, 2, 4, 2)
    for i, s in enumerate([5, 6]):
        for j, rho in enumerate([0.1, 1.0]):
            np.testing.assert_allclose(dp_2s_gd(Z, X, y, rho=rho, T=20, seed=s).beta, many.beta[i, j], atol=1e-12)
    # stacked data sets (one per seed) give the same as separate calls
    d2 = make_iv_data(400, seed=4)
    st = dp_2s_gd_many(np.stack([Z, d2.Z]), np.stack([X, d2.X]), np.stack([y, d2.y]), [1.0], 20, [5, 6])
    np.testing.assert_allclose(st.beta[1, 0], dp_2s_gd(d2.Z, d2.X, d2.y, rho=1.0, T=20, seed=6).beta, atol=1e-12)


def test_private_estimate_is_accurate_and_beats_ols():
    d = make_iv_data(4000, seed=11)
    b = dp_2s_gd_many(d.Z, d.X, d.y, [1.0], 30, list(range(5))).beta[:, 0]
    err = np.linalg.norm(b - d.beta_true, axis=-1).mean()
    assert err < 0.06
    assert err < 0.5 * np.linalg.norm(ols(d.X, d.y) - d.beta_true)


def test_result_epsilon(small):
    Z, X, y = small
    r = dp_2s_gd(Z, X, y, rho=1.0, T=5)
    assert isinstance(r, DPIVResult)
    assert r.rho == pytest.approx(1.0)
    assert r.epsilon(1e-5) == pytest.approx(opendp_epsilon(1.0, 1e-5))


# ---- bad input --------------------------------------------------------------------------------------
@pytest.mark.parametrize("rho", [0.0, -0.5, float("inf"), float("nan")])
def test_rho_must_be_positive(small, rho):
    Z, X, y = small
    with pytest.raises(ValueError, match="rho"):
        dp_2s_gd(Z, X, y, rho=rho)
    with pytest.raises(ValueError, match="rho"):
        noise_scale(1.0, 10, 5, rho)


def test_mismatched_n(small):
    Z, X, y = small
    with pytest.raises(ValueError, match="same number of rows"):
        dp_2s_gd(Z, X[:-1], y)
    with pytest.raises(ValueError, match="same number of rows"):
        dp_2s_gd(Z, X, y[:-5])
    with pytest.raises(ValueError, match="same number of rows"):
        check_iv_data(Z[:10], X, y)


def test_fewer_instruments_than_regressors(small):
    Z, X, y = small
    with pytest.raises(ValueError, match="at least as many instruments"):
        dp_2s_gd(Z[:, :1], X, y)
    with pytest.raises(ValueError, match="at least as many instruments"):
        tsls(Z[:, :1], X, y)


def test_other_bad_arguments(small):
    Z, X, y = small
    with pytest.raises(ValueError, match="T"):
        dp_2s_gd(Z, X, y, T=0)
    with pytest.raises(TypeError, match="T"):
        dp_2s_gd(Z, X, y, T=2.5)
    with pytest.raises(ValueError, match="eta"):
        dp_2s_gd(Z, X, y, eta=0.0)
    with pytest.raises(ValueError, match="finite clipping"):
        dp_2s_gd(Z, X, y, C2=math.inf)
    with pytest.raises(ValueError, match="schedule"):
        dp_2s_gd(Z, X, y, schedule="both")
    with pytest.raises(ValueError, match="NaN"):
        dp_2s_gd(np.where(Z > 2, np.nan, Z), X, y)
    with pytest.raises(ValueError, match="delta"):
        zcdp_to_dp_cks(1.0, 1.5)


# ---- data and audit ---------------------------------------------------------------------------------
def test_real_data_loaders():
    card, mroz = load_card(), load_mroz()
    assert card.n == 3010 and card.X.shape[1] == len(CARD_CONTROLS) + 1 and card.x_names[-1] == "educ"
    assert mroz.n == 428 and mroz.Z.shape == (428, 4)
    b = card.to_original(tsls(card.Z, card.X, card.y))[-1]
    assert b == pytest.approx(0.1323, abs=5e-4)          # Card's 2SLS return to schooling
    assert mroz.to_original(tsls(mroz.Z, mroz.X, mroz.y))[-1] == pytest.approx(0.0614, abs=5e-4)


def test_canary_audit_small():
    a = canary_audit(n=50, T=5, rho1=0.125, trials=600, seed=2)
    assert a.eps_lower <= a.eps_claimed
    assert a.accuracy_ci[0] <= stats.norm.cdf(math.sqrt(0.25) / 2) <= a.accuracy_ci[1]
    assert a.eps_exact <= a.eps_claimed


# ---- add/remove adjacency -----------------------------------------------------------------------------
def test_add_remove_halves_sensitivity_and_noise(small):
    Z, X, y = small
    assert (
        sensitivity(3.0, 100, "add_remove")
        == pytest.approx(0.5 * sensitivity(3.0, 100, "replace"))
        == pytest.approx(0.03)
    )
    r0 = dp_2s_gd(Z, X, y, rho=0.5, T=20, seed=1)
    r1 = dp_2s_gd(Z, X, y, rho=0.5, T=20, seed=1, adjacency="add_remove")
    assert r1.sigma1 == pytest.approx(r0.sigma1 / 2) and r1.sigma2 == pytest.approx(r0.sigma2 / 2)
    assert r1.adjacency == "add_remove" and r0.adjacency == "replace"
    # per-step zCDP (C/n)^2 / (2 sigma^2) summed over T steps gives back rho1 = rho / 2
    assert 20 * sensitivity(4.0, len(y), "add_remove") ** 2 / (2 * r1.sigma1 ** 2) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="adjacency"):
        dp_2s_gd(Z, X, y, adjacency="swap")


def test_add_remove_sensitivity_is_C_over_n(small):
    Z, X, y = small
    n, C = len(y), 1.5
    Th = np.zeros((4, 2))
    g = clipped_grad_stage1(Z, X, Th, C) * n                   # clipped sum over n records
    Z2, X2 = np.vstack([Z, np.full(4, 1e3)]), np.vstack([X, np.full(2, -1e3)])   # add one outlier
    g2 = clipped_grad_stage1(Z2, X2, Th, C) * (n + 1)
    assert np.linalg.norm(g2 - g) / n <= C / n + 1e-12


def test_add_remove_audit():
    a = canary_audit(n=50, T=5, rho1=0.125, trials=600, seed=4, adjacency="add_remove")
    assert a.eps_lower <= a.eps_claimed
    assert a.accuracy_ci[0] <= stats.norm.cdf(math.sqrt(0.25) / 2) <= a.accuracy_ci[1]


# ---- private standardisation --------------------------------------------------------------------------
def test_private_moments_accuracy_and_sensitivity():
    rng = np.random.default_rng(0)
    A = np.c_[rng.uniform(0, 10, 50000), rng.normal(2, 1, 50000), rng.integers(0, 2, 50000)]
    pm = private_moments(A, [0, -5, 0], [10, 10, 1], rho=1.0)
    np.testing.assert_allclose(pm["mean"], A.mean(0), atol=0.01)
    np.testing.assert_allclose(pm["sd"], A.std(0), rtol=0.02)
    assert pm["sensitivity"] == pytest.approx(math.sqrt(15))
    assert private_moments(A, 0, 10, 1.0, adjacency="add_remove")["sensitivity"] == pytest.approx(math.sqrt(6))


def test_private_moments_sensitivity_bound_holds():
    """Replacing one record moves (sum u, sum u^2) by at most sqrt(5d); adding one by sqrt(2d)."""
    rng = np.random.default_rng(1)
    lo, hi = np.array([0.0, -1.0, 5.0]), np.array([1.0, 1.0, 9.0])
    c, r = (lo + hi) / 2, (hi - lo) / 2
    stat = lambda A: np.r_[((np.clip(A, lo, hi) - c) / r).sum(0), (((np.clip(A, lo, hi) - c) / r) ** 2).sum(0)]
    A = rng.uniform(lo, hi, (30, 3))
    worst_rep, worst_add = 0.0, 0.0
    for _ in range(2000):
        B = A.copy()
        B[0] = rng.choice([lo - 5, hi + 5, c], axis=0) if rng.random() < 0.5 else rng.uniform(lo - 1, hi + 1)
        worst_rep = max(worst_rep, np.linalg.norm(stat(B) - stat(A)))
        worst_add = max(worst_add, np.linalg.norm(stat(np.vstack([A, B[:1]])) - stat(A)))
    assert worst_rep <= math.sqrt(15) + 1e-12 and worst_add <= math.sqrt(6) + 1e-12


def test_private_moments_noise_is_calibrated():
    A = np.zeros((100, 2))
    draws = np.array([private_moments(A, -1, 1, rho=0.5, seed=s)["mean"] for s in range(400)])
    sigma = math.sqrt(5 * 2) / math.sqrt(2 * 0.5)
    assert draws.std() * 100 == pytest.approx(sigma, rel=0.1)    # mean = sum / n with noise sigma / n


def test_standardise_public_default_and_private_option():
    import pandas as pd
    d = make_iv_data(3000, seed=5)
    df = pd.DataFrame(np.c_[d.Z, d.X, d.y], columns=["z0", "z1", "z2", "z3", "x0", "x1", "y"])
    pub = standardise(df, ["z0", "z1", "z2", "z3"], ["x0", "x1"], "y")
    assert pub.rho_std == 0.0
    np.testing.assert_allclose(pub.X.mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(pub.X.std(0), 1, atol=1e-12)
    rng = {c: (-10, 10) for c in df.columns}
    prv = standardise(df, ["z0", "z1", "z2", "z3"], ["x0", "x1"], "y", rho_std=1.0, ranges=rng, seed=3)
    assert prv.rho_std == 1.0
    np.testing.assert_allclose(prv.X.mean(0), 0, atol=0.05)
    # the slopes in original units agree (2SLS on either standardisation)
    b_pub = pub.to_original(tsls(pub.Z, pub.X, pub.y))
    b_prv = prv.to_original(tsls(prv.Z, prv.X, prv.y))
    np.testing.assert_allclose(b_prv, b_pub, atol=0.05)
    with pytest.raises(ValueError, match="ranges"):
        standardise(df, ["z0", "z1", "z2", "z3"], ["x0", "x1"], "y", rho_std=1.0, ranges={"z0": (0, 1)})


def test_loaders_private_option_accounting():
    for loader, ranges in ((load_card, CARD_RANGES), (load_mroz, MROZ_RANGES)):
        d = loader(rho_std=0.3, seed=2)
        assert d.rho_std == 0.3
        r = dp_2s_gd(d.Z, d.X, d.y, rho=0.7, T=3, seed=0)
        assert d.rho_std + r.rho1 + r.rho2 == pytest.approx(1.0, abs=1e-12)    # the budget adds up
        assert set(d.x_names + d.z_names + [d.y_name]) <= set(ranges)


# ---- DP confidence intervals ----------------------------------------------------------------------------
def test_confidence_interval_covers_on_simulated_data():
    hits = []
    for r in range(60):
        d = make_iv_data(2000, seed=500 + r)
        ci = dp_confidence_interval(d.Z, d.X, d.y, rho=1.0, T=30, groups=10, seed=r)
        hits.append(ci.covers(SYNTH_BETA))
    cov = np.mean(hits, 0)
    assert np.all(cov >= 0.85) and np.all(cov <= 1.0), cov   # nominal 0.95; 60 data sets: s.e. about 0.03


def test_confidence_interval_structure_and_bad_input():
    d = make_iv_data(1000, seed=1)
    ci = dp_confidence_interval(d.Z, d.X, d.y, rho=2.0, groups=5, level=0.9, seed=7)
    assert ci.group_estimates.shape == (5, 2) and ci.groups == 5 and ci.level == 0.9
    np.testing.assert_allclose(ci.estimate, ci.group_estimates.mean(0))
    h = stats.t.ppf(0.95, 4) * ci.group_estimates.std(0, ddof=1) / math.sqrt(5)
    np.testing.assert_allclose(ci.upper - ci.estimate, h)
    again = dp_confidence_interval(d.Z, d.X, d.y, rho=2.0, groups=5, level=0.9, seed=7)
    np.testing.assert_array_equal(again.estimate, ci.estimate)           # seeded: reproducible
    with pytest.raises(ValueError, match="groups"):
        dp_confidence_interval(d.Z[:5], d.X[:5], d.y[:5], groups=3)
    with pytest.raises(ValueError, match="level"):
        dp_confidence_interval(d.Z, d.X, d.y, level=0.0)
    with pytest.raises(ValueError, match="rho"):
        dp_confidence_interval(d.Z, d.X, d.y, rho=0.0)


# ---------------------------------------------------------------- defect: non-convergence is flagged (issue #50)
def test_card_default_T_warns_and_converged_settings_stay_silent():
    import warnings
    from iclr26.dpiv import DPIVConvergenceWarning, convergence_gap, dp_2s_gd, load_card, load_mroz, make_iv_data
    card, mroz = load_card(), load_mroz()
    with pytest.warns(DPIVConvergenceWarning, match=r"T=30 steps.*Raise T"):
        r = dp_2s_gd(card.Z, card.X, card.y, rho=1.0)           # the default T = 30: schooling ≈ 0.03 vs 2SLS 0.80
    assert r.T == 30
    with pytest.warns(DPIVConvergenceWarning, match="T=30"): dp_2s_gd(mroz.Z, mroz.X, mroz.y, rho=1000.0)
    syn = make_iv_data(2000, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dp_2s_gd(mroz.Z, mroz.X, mroz.y, rho=1.0, T=1000)           # converged: silent
        dp_2s_gd(syn.Z, syn.X, syn.y, rho=1.0)                      # the synthetic design converges at T = 30
        dp_2s_gd(card.Z, card.X, card.y, rho=1.0, check_convergence=False)
    np_ = dp_2s_gd(syn.Z, syn.X, syn.y, T=200, private=False)
    assert max(convergence_gap(syn.Z, syn.X, syn.y, np_.theta, np_.beta)) < 1e-6
    with pytest.raises(ValueError, match="conv_tol"): dp_2s_gd(syn.Z, syn.X, syn.y, conv_tol=0)
    with pytest.raises(TypeError, match="check_convergence"): dp_2s_gd(syn.Z, syn.X, syn.y, check_convergence=1)


# ---------------------------------------------------------------- optional dependencies name the extra (issue #60)
@pytest.mark.parametrize("blocked, call", [("linearmodels", "load_card()"), ("linearmodels", "load_mroz()"),
                                           ("opendp", "opendp_epsilon(1.0, 1e-5)")])
def test_missing_optional_dependency_names_the_extra(blocked, call):
    import subprocess, sys
    code = f"import sys\nsys.modules[{blocked!r}] = None\nfrom iclr26.dpiv import *\n{call}\n"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    last = p.stderr.strip().splitlines()[-1]
    assert p.returncode != 0 and last.startswith("ImportError") and "pip install 'iclr26[dpiv]'" in last, last


# ------------------------------------------------------------ property tests: bad input names the argument (issue #60)
from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

BAD = st.sampled_from([math.nan, math.inf, -math.inf])
_D = make_iv_data(60, seed=1)


@settings(max_examples=20, deadline=None)
@given(which=st.sampled_from(["Z", "X", "y"]), bad=BAD, data=st.data())
def test_property_data_with_nan_or_inf_is_refused(which, bad, data):
    arrs = {"Z": _D.Z.copy(), "X": _D.X.copy(), "y": _D.y.copy()}
    a = arrs[which]
    a[tuple(data.draw(st.integers(0, s - 1)) for s in a.shape)] = bad
    with pytest.raises(ValueError, match=which):
        dp_2s_gd(arrs["Z"], arrs["X"], arrs["y"], T=5, check_convergence=False)
    with pytest.raises(ValueError, match=which): tsls(arrs["Z"], arrs["X"], arrs["y"])


@settings(max_examples=20, deadline=None)
@given(nz=st.integers(1, 60), nx=st.integers(1, 60), ny=st.integers(1, 60))
def test_property_mismatched_lengths(nz, nx, ny):
    if nz == nx == ny: return
    with pytest.raises(ValueError, match="same number of rows"): dp_2s_gd(_D.Z[:nz], _D.X[:nx], _D.y[:ny], T=5)
    if nx != ny:
        with pytest.raises(ValueError, match="y must have shape"): ols(_D.X[:nx], _D.y[:ny])


@settings(max_examples=20, deadline=None)
@given(arg=st.sampled_from(["rho", "T", "eta", "alpha", "split", "C1", "C2", "noise_factor", "seed", "conv_tol"]),
       bad=st.one_of(BAD, st.floats(max_value=0.0).filter(lambda v: v != 0.0), st.just("a"), st.just(0)))
def test_property_hyperparameters_out_of_range(arg, bad):
    if arg in ("noise_factor", "seed") and bad == 0: return              # zero noise (audits) and seed 0 are valid
    name = "C" if arg in ("C1", "C2") else arg
    with pytest.raises((ValueError, TypeError), match=name):
        dp_2s_gd(_D.Z, _D.X, _D.y, **{"T": 5, "check_convergence": False, arg: bad})


@settings(max_examples=20, deadline=None)
@given(shape=st.sampled_from([(0, 4), (60,), (60, 4, 1)]))
def test_property_wrong_shapes_and_empty(shape):
    Z = np.zeros(shape)
    with pytest.raises(ValueError, match="Z"): dp_2s_gd(Z, _D.X, _D.y, T=5)


@settings(max_examples=20, deadline=None)
@given(rhos=st.just([]), seeds=st.lists(st.integers(0, 3), max_size=0))
def test_property_empty_budgets_and_seeds(rhos, seeds):
    with pytest.raises(ValueError, match="rhos"): dp_2s_gd_many(_D.Z, _D.X, _D.y, rhos, 5)
    with pytest.raises(ValueError, match="seeds"): dp_2s_gd_many(_D.Z, _D.X, _D.y, [1.0], 5, seeds=seeds)


@settings(max_examples=20, deadline=None)
@given(A=hnp.arrays(float, (5, 2), elements=st.one_of(st.floats(0, 1), BAD)),
       rho=st.one_of(BAD, st.floats(max_value=0)))
def test_property_private_moments(A, rho):
    if not np.isfinite(A).all():
        with pytest.raises(ValueError, match="A"): private_moments(A, [0, 0], [1, 1], 1.0)
    with pytest.raises((ValueError, TypeError), match="rho"): private_moments(np.zeros((5, 2)), [0, 0], [1, 1], rho)
    with pytest.raises(ValueError, match="lo"): private_moments(np.zeros((5, 2)), [0, 0, 0], [1, 1], 1.0)


# ---------------------------------------------------------------- the rates the error bound predicts (issue #50)
def test_privacy_error_scales_as_rho_and_n_predict():
    "The privacy term (distance to the noise-free iterate of the same T steps) falls as rho^-1/2 and as 1/n."
    from iclr26.dpiv import dp_2s_gd_many, make_iv_data

    def privacy_error(n, rhos, S=12):
        ds = [make_iv_data(n, seed=100 + s) for s in range(S)]
        Z, X, y = (np.stack([getattr(d, k) for d in ds]) for k in ("Z", "X", "y"))
        r = dp_2s_gd_many(Z, X, y, rhos, 30, list(range(S)), check_convergence=False)
        r0 = dp_2s_gd_many(Z, X, y, [1.0], 30, list(range(S)), private=False, check_convergence=False)
        return np.linalg.norm(r.beta - r0.beta, axis=-1).mean(0)

    e = privacy_error(1000, [0.1, 10.0])
    assert np.log(e[1] / e[0]) / np.log(100) == pytest.approx(-0.5, abs=0.05)      # rho^-1/2
    e2 = privacy_error(4000, [10.0])
    assert np.log(e2[0] / e[1]) / np.log(4) == pytest.approx(-1.0, abs=0.15)       # 1/n
