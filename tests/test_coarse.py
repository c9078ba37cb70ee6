"Unit and bad-input tests for iclr26.coarse (Gaussian mean estimation from coarse data)."
import numpy as np
import pytest
from scipy import stats
from scipy.optimize import minimize_scalar

from iclr26.coarse import (BoxSets, GridPartition, HyperplanePartition, PolytopePartition, PolytopeSets,
                           TruncatedSampler, chebyshev_center, compare_estimators, em_mean, fisher_information,
                           friction_intervals, identifiability, interval_mle, interval_nll, log_interval_prob,
                           midpoint_mean, nonidentifiable_directions, ols_midpoints, oracle_mean, random_rotation,
                           sgd_mean, slabs, trunc_moments, trunc_normal)


# ----------------------------------------------------------------- one-dimensional primitives
def test_trunc_moments_match_scipy_including_tails():
    a = np.array([-np.inf, -1, 0.5, -40, 30, -0.1, 2.0, -0.5, -np.inf])
    b = np.array([np.inf, 1, np.inf, -30, 40, 0.1, 2.001, 8.0, -3.0])
    m, v = trunc_moments(a, b)
    np.testing.assert_allclose(m, stats.truncnorm.mean(a, b), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(v, stats.truncnorm.var(a, b), rtol=1e-6, atol=1e-10)


def test_log_interval_prob_is_stable_far_in_the_tails():
    lp = log_interval_prob(np.array([-40.0, 38.0]), np.array([-39.0, np.inf]))
    assert np.all(np.isfinite(lp))
    np.testing.assert_allclose(lp, [stats.norm.logcdf(-39.0), stats.norm.logsf(38.0)], rtol=1e-3)


@pytest.mark.parametrize("lo,hi", [(-1.0, 1.0), (3.0, 4.0), (-40.0, -39.0), (-np.inf, 0.5), (2.0, 2.001)])
def test_trunc_normal_draws_follow_truncnorm(lo, hi):
    rng = np.random.default_rng(0)
    z = trunc_normal(np.full(20000, lo), np.full(20000, hi), rng)
    assert np.all((z >= lo) & (z <= hi))
    assert stats.kstest(z, stats.truncnorm(lo, hi).cdf).pvalue > 1e-3


def test_trunc_normal_rejects_empty_intervals():
    with pytest.raises(ValueError, match="hi > lo"):
        trunc_normal(1.0, 1.0)
    with pytest.raises(ValueError, match="b > a"):
        trunc_moments(2.0, 1.0)


# ----------------------------------------------------------------- samplers: moments vs closed form
@pytest.mark.parametrize("method", ["hmc", "hit-and-run"])
def test_polytope_sampler_matches_closed_form_in_1d(method):
    rng, n, mu = np.random.default_rng(1), 8000, 0.4
    S = PolytopeSets(np.array([[1.0], [-1.0]]), np.tile([1.7, 0.3], (n, 1)), signs=np.ones((n, 2)))   # -0.3 <= x <= 1.7
    z = TruncatedSampler(S, rng, mu0=[mu], n_steps=2, burn_in=5, method=method).draw([mu])[:, 0]
    m, v = trunc_moments(-0.3 - mu, 1.7 - mu)
    assert abs(z.mean() - (mu + m)) < 0.03 and abs(z.var() - v) < 0.03
    assert np.all((z >= -0.3 - 1e-9) & (z <= 1.7 + 1e-9))


def test_box_sampler_is_exact_in_a_rotated_frame():
    rng = np.random.default_rng(2)
    R = random_rotation(2, rng)
    n = 20000
    S = BoxSets(np.tile([-0.5, 0.0], (n, 1)), np.tile([1.0, 2.0], (n, 1)), R)
    mu = np.array([0.3, -0.2])
    X = S.sampler(rng).draw(mu)
    assert S.contains(X).all()
    np.testing.assert_allclose(X.mean(0), S.cond_moments(mu)[0][0], atol=0.02)


def test_hmc_matches_rejection_sampling_in_a_2d_triangle():
    rng = np.random.default_rng(3)
    A, b = np.array([[0.0, -1], [-1, 0], [1, 1]]), np.array([0.0, 0, 1])      # x, y >= 0, x + y <= 1
    n = 4000
    S = PolytopeSets(np.tile(A, (n, 1, 1)), np.tile(b, (n, 1)))
    mu = np.array([0.8, -0.5])
    Z = TruncatedSampler(S, rng, mu0=mu, burn_in=5).draw(mu)
    Y = mu + rng.standard_normal((400000, 2))
    Y = Y[np.all(Y @ A.T <= b, axis=1)]
    assert S.contains(Z).all()
    np.testing.assert_allclose(Z.mean(0), Y.mean(0), atol=0.02)
    np.testing.assert_allclose(Z.var(0), Y.var(0), atol=0.02)


def test_sampler_bad_input():
    S = BoxSets(np.zeros((2, 1)), np.ones((2, 1)))
    with pytest.raises(ValueError, match="method"):
        TruncatedSampler(S, method="gibbs")
    with pytest.raises(TypeError, match="sets"):
        TruncatedSampler(np.zeros(3))
    with pytest.raises(TypeError, match="rng"):
        TruncatedSampler(S, rng="seed")
    with pytest.raises(ValueError, match="d=1"):
        S.sampler(0).draw([0.0, 0.0])


# ----------------------------------------------------------------- partitions: lookup consistency
@pytest.mark.parametrize("make", [
    lambda r: GridPartition.random(3, 1.0, rotate=False, rng=r), lambda r: GridPartition.random(3, 1.0, rng=r),
    lambda r: slabs(3, [1.0, 1.0, 0.0], 0.5), lambda r: HyperplanePartition.random(3, 6, rng=r),
    lambda r: HyperplanePartition.random(3, 6, rng=r, balanced=False)])
def test_cell_lookup_is_consistent(make):
    rng = np.random.default_rng(4)
    P = make(rng)
    X, S = P.sample(rng.uniform(-1, 1, 3), 400, rng)
    assert S.contains(X).all()
    ids = P.cell_ids(X)
    same = (ids[:, None, :] == ids[None, :, :]).all(-1)
    i, j = np.nonzero(same)
    if S.kind == "box":
        assert np.allclose(S.lo[i], S.lo[j]) and np.allclose(S.hi[i], S.hi[j])
    else:
        assert np.allclose(S.b[i], S.b[j])
    # a point re-observed lands in the same cell
    np.testing.assert_array_equal(P.cell_ids(X[:10]), ids[:10])


def test_user_polytope_partition_lookup_and_sets():
    cells = [np.array([[0, 0], [1, 0], [1, 1], [0, 1.0]]),                  # vertex form
             (np.array([[1.0, 0], [-1, 0], [0, 1], [0, -1]]), np.array([2.0, -1, 1, 0]))]   # H form: [1,2]x[0,1]
    P = PolytopePartition(cells)
    X = np.array([[0.2, 0.3], [1.5, 0.5], [0.9, 0.9]])
    np.testing.assert_array_equal(P.cell_ids(X)[:, 0], [0, 1, 0])
    S = P.observe(X)
    assert S.contains(X).all()
    with pytest.raises(ValueError, match="no cell"):
        P.cell_ids(np.array([[3.0, 3.0]]))


def test_partitions_reject_bad_input():
    with pytest.raises(ValueError, match="not convex"):                      # reflex vertex (0.5, 0.5)
        PolytopePartition([np.array([[0, 0], [2, 0], [0.5, 0.5], [0, 2.0]])])
    with pytest.raises(ValueError, match="overlap"):
        PolytopePartition(
            [np.array([[0, 0], [1, 0], [1, 1], [0, 1.0]]), np.array([[0.5, 0], [1.5, 0], [1.5, 1], [0.5, 1.0]])]
        )
    with pytest.raises(ValueError, match="empty"):                           # x <= 0 and x >= 1
        PolytopePartition([(np.array([[1.0, 0], [-1, 0]]), np.array([0.0, -1]))])
    with pytest.raises(ValueError, match="dimension"):
        PolytopePartition([np.array([[0, 0], [1, 0], [0, 1.0]]), (np.eye(3), np.ones(3))])
    with pytest.raises(ValueError, match="d=2"):
        GridPartition(2).cell_ids(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="width"):
        GridPartition(2, width=0.0)
    with pytest.raises(ValueError, match="orthonormal"):
        GridPartition(2, rotation=np.ones((2, 2)))
    with pytest.raises(ValueError, match="normal"):
        slabs(2, [0.0, 0.0])
    with pytest.raises(ValueError, match="offsets"):
        HyperplanePartition(np.eye(2), [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="empty cell"):
        BoxSets(np.zeros((1, 2)), np.array([[1.0, 0.0]]))
    with pytest.raises(ValueError, match="empty"):
        chebyshev_center(np.array([[1.0], [-1.0]]), np.array([0.0, -1.0]))
    with pytest.raises(ValueError, match="mu"):
        GridPartition(2).sample([0.0, 0.0, 0.0], 5)
    with pytest.raises(TypeError, match="n"):
        GridPartition(2).sample([0.0, 0.0], 5.5)


# ----------------------------------------------------------------- estimators
def test_em_is_the_mle_on_a_1d_grid_and_midpoint_is_biased():
    rng = np.random.default_rng(5)
    P = GridPartition(1, width=3.0, offset=0.4)
    mu = np.array([0.9])
    X, S = P.sample(mu, 20000, rng)
    mle = minimize_scalar(
        lambda m: -S.log_likelihood([m]), bounds=(-2, 3), method="bounded", options=dict(xatol=1e-8)
    ).x
    assert abs(em_mean(S)[0] - mle) < 1e-5
    assert abs(em_mean(S)[0] - mu[0]) < 0.05
    assert abs(midpoint_mean(S)[0] - mu[0]) > 0.05                             # the rounding bias at width 3
    assert abs(oracle_mean(X)[0] - mu[0]) < 0.03


def test_sgd_reaches_the_em_solution_on_a_rotated_grid():
    rng = np.random.default_rng(6)
    P = GridPartition.random(3, 3.0, rng=rng)
    mu = rng.uniform(-1, 1, 3)
    _, S = P.sample(mu, 20000, rng)
    e_sgd, e_em = np.linalg.norm(sgd_mean(S, rng=rng) - mu), np.linalg.norm(em_mean(S) - mu)
    assert e_sgd < 0.06 and e_em < 0.05
    assert e_sgd < 0.5 * np.linalg.norm(midpoint_mean(S) - mu)


def test_polytope_estimators_and_halfspace_moments():
    rng = np.random.default_rng(7)
    P = HyperplanePartition.random(3, 6, rng=rng)
    mu = rng.uniform(-1, 1, 3)
    _, S = P.sample(mu, 3000, rng)
    assert S.is_arrangement()
    assert np.linalg.norm(S.halfspace_moments() - mu) < 0.15
    assert np.linalg.norm(em_mean(S, rng=rng) - mu) < 0.12
    assert np.linalg.norm(sgd_mean(S, rng=rng) - mu) < 0.2


def test_estimator_bad_input():
    S = BoxSets(np.zeros((3, 2)), np.ones((3, 2)))
    with pytest.raises(TypeError, match="sets"):
        em_mean(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="mu0"):
        sgd_mean(S, mu0=[0.0])
    with pytest.raises(ValueError, match="lr"):
        sgd_mean(S, lr=0.0)
    with pytest.raises(ValueError, match="avg_from"):
        sgd_mean(S, avg_from=1.0)
    with pytest.raises(ValueError, match="estimator"):
        compare_estimators(GridPartition(2), [0.0, 0.0], [10], estimators=("median",))


def test_compare_estimators_rows():
    rows = compare_estimators(GridPartition.random(2, 2.0, rng=0), [0.1, 0.2], [50, 200], rng=0)
    assert [(r["n"], r["estimator"]) for r in rows][:4] == [(50, "oracle"), (50, "midpoint"), (50, "em"), (50, "sgd")]
    assert all(r["error"] >= 0 and r["time"] >= 0 for r in rows)


# ----------------------------------------------------------------- identifiability
def test_slabs_are_non_identifiable_exactly_across_the_normal():
    v = np.array([1.0, 2.0, 0.0, -1.0])
    v /= np.linalg.norm(v)
    info = identifiability(slabs(4, v, 1.0, 0.2), np.zeros(4), n_mc=1000, rng=0)
    assert info["null_directions"].shape == (3, 4)
    np.testing.assert_allclose(info["null_directions"] @ v, 0.0, atol=1e-10)
    assert v @ info["fisher"] @ v > 0.5
    assert not info["identifiable"]
    assert nonidentifiable_directions(GridPartition.random(4, 3.0, rng=1), np.zeros(4), rng=1).shape == (0, 4)


def test_fisher_information_of_a_polytope_partition_matches_its_box_form():
    # the axis grid of width 2 in 2-D, written as hyperplanes x_j = offset + 2k, has the same Fisher information
    G = GridPartition(2, 2.0, 0.3)
    ks = np.arange(-4, 5) * 2.0 + 0.3
    H = HyperplanePartition(np.vstack([np.tile([1.0, 0], (9, 1)), np.tile([0, 1.0], (9, 1))]), np.concatenate([ks, ks]))
    mu = np.array([0.2, -0.4])
    Fg = fisher_information(G, mu, n_mc=4000, rng=0)
    Fh = fisher_information(H, mu, n_mc=4000, rng=0)
    np.testing.assert_allclose(Fh, Fg, atol=0.05)


# ----------------------------------------------------------------- regression with friction
def test_friction_intervals_contain_y_and_band():
    y = np.array([-3.2, -0.5, 0.0, 0.99, 1.0, 2.7])
    a, b = friction_intervals(y, (-1.0, 1.0), 0.5)
    assert np.all((a <= y) & (y < b))
    np.testing.assert_array_equal(a[1:4], -1.0)
    np.testing.assert_array_equal(b[1:4], 1.0)
    with pytest.raises(ValueError, match="tick"):
        friction_intervals(y, (-1, 1), 0.0)
    with pytest.raises(TypeError, match="band"):
        friction_intervals(y, 1.0)


def test_interval_mle_gradient_and_recovery():
    rng = np.random.default_rng(8)
    X = rng.standard_normal((4000, 4))
    w = np.array([1.5, -1.0, 0.5, 2.0])
    y = X @ w + rng.standard_normal(4000)
    a, b = friction_intervals(y, (-2.0, 2.0), 1.0)
    _, g = interval_nll(w, X, a, b)
    g_num = [
        (interval_nll(w + 1e-6 * e, X, a, b)[0] - interval_nll(w - 1e-6 * e, X, a, b)[0]) / 2e-6 for e in np.eye(4)
    ]
    np.testing.assert_allclose(g, g_num, atol=1e-5)
    assert np.linalg.norm(interval_mle(X, a, b) - w) < 0.12
    assert np.linalg.norm(ols_midpoints(X, a, b) - w) > np.linalg.norm(interval_mle(X, a, b) - w)
    with pytest.raises(ValueError, match="shape"):
        interval_mle(X, a[:10], b[:10])


# --- general convex cells, the pilot, identifiability warnings, intreg (issue #43) ---
import warnings as _warnings
from iclr26.coarse import voronoi_partition, observed_fisher, intreg, intreg_nll, interval_nll as _interval_nll


def test_voronoi_partition_cells_and_consistency():
    rng = np.random.default_rng(0)
    C = rng.uniform(-2, 2, (12, 2))
    P = voronoi_partition(C)
    X, S = P.sample(np.array([0.4, -0.3]), 4000, rng)
    assert S.contains(X).all() and not S.is_arrangement()
    ids = P.cell_ids(X)[:, 0]
    np.testing.assert_array_equal(ids, np.argmin(((X[:, None, :] - C[None]) ** 2).sum(-1), 1))   # nearest centre
    mu = np.array([0.4, -0.3])
    start = np.linalg.norm(S.initial_mean() - mu)
    est = sgd_mean(S, rng=1)
    assert np.linalg.norm(est - mu) < 0.1 < start              # the pilot removes the biased start
    assert np.linalg.norm(em_mean(S, rng=1) - mu) < 0.1
    with pytest.raises(ValueError, match="distinct"):
        voronoi_partition(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="at least 2"):
        voronoi_partition(np.zeros((1, 2)))


def test_sgd_chain_defaults_and_bad_arguments():
    rng = np.random.default_rng(1)
    S = voronoi_partition(rng.uniform(-2, 2, (8, 2))).sample(np.zeros(2), 300, rng)[1]
    for bad in (dict(burn_in=-1), dict(pilot_iter=-2), dict(pilot_iter=1.5), dict(mc_steps=0)):
        with pytest.raises((ValueError, TypeError)):
            sgd_mean(S, rng=0, **bad)
    # arrangement defaults are unchanged (no pilot): same result as the explicit old settings
    H = HyperplanePartition.random(3, 6, rng=2)
    Sh = H.sample(np.zeros(3), 600, rng)[1]
    np.testing.assert_allclose(sgd_mean(Sh, rng=5, check_identifiable=None),
                               sgd_mean(Sh, rng=5, check_identifiable=None, mc_steps=2, burn_in=3, pilot_iter=0))


def _warns(fn, S):
    with _warnings.catch_warnings(record=True) as w:
        _warnings.simplefilter("always")
        fn(S, rng=0)
    return any("non-identifiable" in str(x.message) for x in w)


def test_identifiability_warning():
    rng = np.random.default_rng(3)
    v = np.array([1.0, 2.0, -1.0]) / np.sqrt(6)
    box_slabs = slabs(3, v, 1.0).sample(np.full(3, 0.2), 2000, rng)[1]
    plane_slabs = HyperplanePartition(np.tile(v, (4, 1)), [-1.0, -0.3, 0.4, 1.2]).sample(np.full(3, 0.2), 3000, rng)[1]
    grid = GridPartition.random(3, 3.0, rng=rng).sample(np.full(3, 0.2), 2000, rng)[1]
    for S in (box_slabs, plane_slabs):
        assert _warns(sgd_mean, S) and _warns(em_mean, S)
    assert not _warns(sgd_mean, grid) and not _warns(em_mean, grid)
    # the check can be switched off
    assert not _warns(lambda S, rng: sgd_mean(S, rng=rng, check_identifiable=None), box_slabs)


def test_observed_fisher_boxes_exact_and_polytopes_close():
    rng = np.random.default_rng(4)
    P = GridPartition.random(3, 2.0, rng=rng)
    mu = np.array([0.1, -0.2, 0.3])
    S = P.sample(mu, 5000, rng)[1]
    F = observed_fisher(S, mu)
    np.testing.assert_allclose(F, F.T)
    np.testing.assert_allclose(
        np.linalg.eigvalsh(F), np.linalg.eigvalsh(fisher_information(P, mu, n_mc=5000, rng=4)), atol=0.03
    )
    Sv = voronoi_partition(rng.uniform(-2, 2, (12, 2))).sample(np.zeros(2), 4000, rng)[1]
    ev = np.linalg.eigvalsh(observed_fisher(Sv, np.zeros(2), rng=0))
    assert np.all((ev > 0.2) & (ev < 1.0))


def test_intreg_recovers_sigma_and_gradient():
    rng = np.random.default_rng(5)
    n, d = 6000, 4
    X = rng.standard_normal((n, d))
    w = np.array([1.0, -0.5, 0.25, 2.0])
    for sig in (1.0, 2.0):
        y = X @ w + sig * rng.standard_normal(n)
        a, b = friction_intervals(y, (-1.5, 1.5), 1.0)
        w_hat, s_hat = intreg(X, a, b)
        assert np.linalg.norm(w_hat - w) < 0.15 and abs(s_hat - sig) / sig < 0.08
    th = np.r_[w, np.log(1.7)]
    f, g = intreg_nll(th, X, a, b)
    num = [
        (intreg_nll(th + 1e-6 * e, X, a, b)[0] - intreg_nll(th - 1e-6 * e, X, a, b)[0]) / 2e-6 for e in np.eye(d + 1)
    ]
    np.testing.assert_allclose(g, num, rtol=1e-4, atol=1e-7)
    f1, g1 = intreg_nll(np.r_[w, 0.0], X, a, b)                # sigma = 1 is the known-sigma likelihood
    f0, g0 = _interval_nll(w, X, a, b)
    assert abs(f1 - f0) < 1e-12 and np.allclose(g1[:-1], g0)
    with pytest.raises(ValueError, match="sigma0"):
        intreg(X, a, b, sigma0=-1.0)


# ---------------------------------------------------------------- optional dependencies name the extra (issue #60)
def test_missing_statsmodels_names_the_extra():
    "iclr26.coarse imports without statsmodels; the OLS baseline then names the extra."
    import subprocess, sys
    code = ("import sys\nsys.modules['statsmodels'] = None\nimport numpy as np\nimport iclr26.coarse as c\n"
            "c.ols_midpoints(np.ones((3, 1)), np.zeros(3), np.ones(3))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    last = p.stderr.strip().splitlines()[-1]
    assert p.returncode != 0 and last.startswith("ImportError") and "pip install 'iclr26[coarse]'" in last, last


# ------------------------------------------------------------ property tests: bad input names the argument (issue #60)
import math  # noqa: E402

from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


BAD = st.sampled_from([math.nan, math.inf, -math.inf])


def _sets(n=20, d=2, seed=0):
    rng = np.random.default_rng(seed)
    return GridPartition.random(d, 1.0, rng=rng).sample(np.zeros(d), n, rng)[1]


@settings(max_examples=20, deadline=None)
@given(n=st.integers(0, 3), d=st.integers(0, 3))
def test_property_box_sets_shapes(n, d):
    if n == 0 or d == 0:
        with pytest.raises(ValueError, match="lo and hi"): BoxSets(np.zeros((n, d)), np.ones((n, d)))
    else: assert len(BoxSets(np.zeros((n, d)), np.ones((n, d)))) == n
    with pytest.raises(ValueError, match="lo and hi"): BoxSets(np.zeros((n + 1, 2)), np.ones((n + 2, 2)))
    with pytest.raises(TypeError, match="lo and hi"): BoxSets([["a"]], [["b"]])


@settings(max_examples=20, deadline=None)
@given(arg=st.sampled_from(["lr", "n_steps", "batch", "avg_from", "mc_steps", "burn_in"]),
       bad=st.one_of(st.floats(max_value=0.0), BAD, st.just(-1)))
def test_property_sgd_hyperparameters_out_of_range(arg, bad):
    if arg == "avg_from" and isinstance(bad, float) and bad == 0.0: return      # avg_from = 0 is valid
    if arg == "burn_in" and bad == 0: return                                    # no burn-in is valid
    with pytest.raises((ValueError, TypeError), match=arg): sgd_mean(_sets(), **{arg: bad})


@settings(max_examples=20, deadline=None)
@given(tol=st.one_of(st.floats(max_value=-1e-12), BAD), n_iter=st.integers(-2, 0))
def test_property_em_hyperparameters(tol, n_iter):
    with pytest.raises(ValueError, match="tol"): em_mean(_sets(), tol=tol)
    with pytest.raises(ValueError, match="n_iter"): em_mean(_sets(), n_iter=n_iter)


@settings(max_examples=20, deadline=None)
@given(d0=st.integers(1, 3), d1=st.integers(1, 3), bad=BAD)
def test_property_mean_vectors_are_checked(d0, d1, bad):
    S = _sets(d=d0)
    if d1 != d0:
        with pytest.raises(ValueError, match="mu0"): sgd_mean(S, mu0=np.zeros(d1))
    mu0 = np.zeros(d0)
    mu0[0] = bad
    with pytest.raises(ValueError, match="mu0"): em_mean(S, mu0=mu0)


@settings(max_examples=20, deadline=None)
@given(X=hnp.arrays(float, st.sampled_from([(0, 2), (3, 2), (2, 2, 2)]), elements=st.one_of(st.floats(-1, 1), BAD)))
def test_property_oracle_mean_input(X):
    if X.ndim == 2 and len(X) and np.isfinite(X).all(): assert oracle_mean(X).shape == (2,)
    else:
        with pytest.raises(ValueError, match="X"): oracle_mean(X)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 4), m=st.integers(2, 4))
def test_property_mismatched_interval_lengths(n, m):
    if n == m: return
    with pytest.raises(ValueError, match="a and b"): trunc_moments(np.zeros(n), np.ones(m))
    with pytest.raises(ValueError, match="lo, hi"): trunc_normal(np.zeros(n), np.ones(m))
    with pytest.raises(ValueError, match="a and b"): interval_mle(np.zeros((n, 2)), np.zeros(m), np.ones(m))


@settings(max_examples=20, deadline=None)
@given(tick=st.one_of(st.floats(max_value=0.0), BAD), y_bad=BAD)
def test_property_friction_arguments(tick, y_bad):
    with pytest.raises(ValueError, match="tick"): friction_intervals(np.zeros(3), tick=tick)
    with pytest.raises(ValueError, match="y"): friction_intervals(np.array([0.0, y_bad]))
    with pytest.raises(ValueError, match="n_list"):
        compare_estimators(GridPartition.random(2, 1.0, rng=0), np.zeros(2), [])


# ----------------------------------------------------------------- SGD vectorised over independent problems
from iclr26.coarse import sgd_mean_many, stack_polytopes


def _voronoi_problems(k, n, d=2, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(k):
        P = voronoi_partition(rng.uniform(-2, 2, (6 * d, d)))
        mu = rng.uniform(-1, 1, d)
        out.append((mu, P.sample(mu, n, rng)[1]))
    return out


def test_sgd_mean_many_with_one_problem_is_sgd_mean_draw_for_draw():
    (mu, S), = _voronoi_problems(1, 800)
    np.testing.assert_array_equal(sgd_mean_many([S], rng=3)[0], sgd_mean(S, rng=3, check_identifiable=None))
    old = dict(mc_steps=2, burn_in=3, pilot_iter=0)
    np.testing.assert_array_equal(sgd_mean_many([S], rng=5, **old)[0],
                                  sgd_mean(S, rng=5, check_identifiable=None, **old))


def test_sgd_mean_many_estimates_each_problem_and_matches_sgd_in_distribution():
    probs = _voronoi_problems(6, 3000, seed=1)
    est = sgd_mean_many([S for _, S in probs], rng=0)
    assert est.shape == (6, 2)
    err_many = np.array([np.linalg.norm(e - m) for e, (m, _) in zip(est, probs)])
    err_one = np.array([np.linalg.norm(sgd_mean(S, rng=0, check_identifiable=None) - m) for m, S in probs])
    assert err_many.max() < 0.2 and err_one.max() < 0.2
    # same algorithm: the RMS errors agree within the spread of six problems
    assert 0.4 < np.sqrt(np.mean(err_many**2)) / np.sqrt(np.mean(err_one**2)) < 2.5


def test_stack_polytopes_keeps_every_set_and_pads_walls():
    (_, Sv), = _voronoi_problems(1, 50, seed=2)
    Sh = HyperplanePartition.random(2, 3, rng=0).sample(np.zeros(2), 40, 0)[1]
    St = stack_polytopes([Sv, Sh])
    assert St.n == 90 and St.m == max(Sv.m, Sh.m) and St.A.ndim == 3
    X = np.vstack([Sv.centers(), Sh.centers()])
    assert St.contains(X).all()
    np.testing.assert_allclose(St.slack(X)[50:, :Sh.m], Sh.slack(Sh.centers()), atol=1e-12)
    with pytest.raises(TypeError, match="PolytopeSets"):
        stack_polytopes([Sv, BoxSets(np.zeros((2, 2)), np.ones((2, 2)))])
    with pytest.raises(ValueError, match="d=3"):
        stack_polytopes([Sv, HyperplanePartition.random(3, 4, rng=0).sample(np.zeros(3), 5, 0)[1]])
    with pytest.raises(TypeError, match="non-empty"):
        stack_polytopes([])


def test_sgd_mean_many_bad_input():
    probs = _voronoi_problems(2, 200, seed=3)
    S0, S1 = probs[0][1], probs[1][1]
    with pytest.raises(ValueError, match="same number of sets"):
        sgd_mean_many([S0, S1[np.arange(100)]])
    Sh = HyperplanePartition.random(2, 4, rng=0).sample(np.zeros(2), 200, 0)[1]
    with pytest.raises(ValueError, match="chain defaults"):
        sgd_mean_many([S0, Sh])
    with pytest.raises(ValueError, match="lr"):
        sgd_mean_many([S0], lr=0.0)
    with pytest.raises(ValueError, match="avg_from"):
        sgd_mean_many([S0], avg_from=1.0)


def test_sampler_takes_one_mean_per_chain():
    (_, S), = _voronoi_problems(1, 300, seed=4)
    smp = S.sampler(0, mu0=np.zeros((300, 2)), burn_in=2)
    assert S.contains(smp.draw(np.zeros((300, 2)))).all()
    assert smp.draw(np.ones((5, 2)), rows=np.arange(5)).shape == (5, 2)
    with pytest.raises(ValueError, match="rows"):
        smp.draw(np.zeros((4, 2)), rows=np.arange(5))
