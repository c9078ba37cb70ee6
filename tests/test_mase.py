"""Unit, exactness and bad-input tests of iclr26.mase (MASE, structured algorithm, EWF)."""
import itertools

import networkx as nx
import numpy as np
import pytest

from iclr26.mase import (AGGREGATORS, GraphicalGame, NormalFormGame, battle_of_the_sexes, bounded_degree_tree, chicken,
                         classic_games, coalition_gains, coalitions, coordination_game, evaluate_marginals, ewf,
                         exploitability, joint_from_marginals, matching_pennies, mase, max_coalition_gain, max_sum,
                         max_welfare_ce, max_welfare_cce, nash_equilibria, network_game, point_mass, prisoners_dilemma,
                         product_distribution, public_goods, pure_nash_equilibria, pure_strong_profiles, random_game,
                         tree_decomposition)

TOL = 1e-9


def check_result(game, r):
    "LP checks: a distribution (sums to 1, non-negative) whose re-evaluated value is the LP optimum."
    assert r.mu.shape == game.n_actions
    assert abs(r.mu.sum() - 1) < 1e-9 and r.mu.min() >= 0
    assert abs(r.value - r.lp_value) < 1e-8
    assert abs(max_coalition_gain(game, r.mu, r.aggregator, r.deviation).gain - r.value) < 1e-12


# ---------------------------------------------------------------- known answers
def test_prisoners_dilemma_paper_numbers():
    g = prisoners_dilemma()
    r = mase(g)
    check_result(g, r)
    assert abs(r.value - 0.1) < TOL
    dd = point_mass(g, (1, 1))
    assert abs(max_coalition_gain(g, dd).gain - 0.4) < TOL
    assert max_coalition_gain(g, dd).coalition == (0, 1)
    assert abs(exploitability(g, dd)) < TOL
    # the dual certificate: any mu has 3/4 (unilateral) + 1/4 (grand coalition -> C,C) >= 0.1
    for mu in np.random.default_rng(0).dirichlet(np.ones(4), 50):
        assert max_coalition_gain(g, mu.reshape(2, 2)).gain >= 0.1 - 1e-12


@pytest.mark.parametrize("deviation", ["coarse", "correlated"])
@pytest.mark.parametrize("aggregator", ["average", "max"])
def test_full_lp_equals_constraint_generation(deviation, aggregator):
    for s in range(3):
        g = random_game((2, 2, 2), seed=s)
        a = mase(g, aggregator, deviation, method="cg")
        b = mase(g, aggregator, deviation, method="full")
        check_result(g, a)
        check_result(g, b)
        assert abs(a.value - b.value) < 1e-9


def test_weighted_with_equal_weights_is_average():
    g = random_game((2, 3, 2), seed=4)
    assert abs(mase(g, "weighted", weights=[2.0, 2.0, 2.0]).value - mase(g).value) < 1e-9


def test_strong_equilibrium_games_have_value_zero():
    for g in (coordination_game(), battle_of_the_sexes(), matching_pennies()):
        r = mase(g)
        assert abs(r.value) < TOL
    assert pure_strong_profiles(coordination_game()) == [(0, 0)]
    assert pure_strong_profiles(matching_pennies()) == []           # strong only in mixed form
    assert mase(prisoners_dilemma()).value > 0.05


def test_mase_not_above_unilateral_concepts():
    for g in list(classic_games().values()) + [random_game((3, 3), seed=1)]:
        v = mase(g).value
        for mu in [max_welfare_ce(g), max_welfare_cce(g)] + nash_equilibria(g):
            assert v <= max_coalition_gain(g, mu).gain + TOL


def test_value_grows_with_coalition_size():
    g = public_goods(4)
    vals = [mase(g, coalition_set=k).value for k in (1, 2, 3, 4)]
    assert all(b >= a - TOL for a, b in zip(vals, vals[1:]))
    assert vals[-1] > vals[0]


def test_ce_cce_and_nash():
    g = chicken()
    assert exploitability(g, max_welfare_cce(g)) <= TOL
    assert exploitability(g, max_welfare_ce(g), "correlated") <= TOL
    assert g.welfare(max_welfare_ce(g)) >= max(g.welfare(m) for m in nash_equilibria(g)) - TOL
    assert pure_nash_equilibria(prisoners_dilemma()) == [(1, 1)]
    for m in nash_equilibria(g):
        assert exploitability(g, m) <= 1e-9


def test_ewf_known_points_and_shape():
    g = prisoners_dilemma()
    assert abs(ewf(g, 0.0).welfare - 0.4) < TOL
    assert abs(ewf(g, 0.4).welfare - 1.2) < TOL
    assert not ewf(g, -0.5).feasible
    eps = np.linspace(0, 0.5, 26)
    W = np.array([ewf(g, e).welfare for e in eps])
    assert np.diff(W).min() >= -TOL and np.diff(W, 2).max() <= TOL


def test_nashpy_roundtrip():
    g = battle_of_the_sexes()
    h = NormalFormGame.from_nashpy(g.to_nashpy())
    np.testing.assert_array_equal(h.payoffs, g.payoffs)
    z = NormalFormGame.from_bimatrix([[1, -1], [-1, 1]])
    np.testing.assert_array_equal(z.payoffs[1], -z.payoffs[0])


def test_coalitions_and_gains():
    assert len(coalitions(4)) == 15 and len(coalitions(4, max_size=2)) == 10
    g = prisoners_dilemma()
    gains = coalition_gains(g, product_distribution([[0.5, 0.5], [0.5, 0.5]]))
    assert len(gains) == 3


# ---------------------------------------------------------------- structured algorithm
def test_max_sum_matches_enumeration():
    gg = network_game(bounded_degree_tree(7, 3, seed=2), seed=2)
    td = tree_decomposition(gg)
    rng = np.random.default_rng(0)
    facs = [(s, rng.standard_normal((3,) * len(s)), td.home[k]) for k, s in enumerate(gg.scopes)]
    val, x = max_sum(td, [3] * gg.n_players, facs)
    best = max(
        sum(f[tuple(xx[v] for v in s)] for s, f, _ in facs) for xx in itertools.product(range(3), repeat=gg.n_players)
    )
    assert abs(val - best) < 1e-12
    assert abs(sum(f[tuple(x[v] for v in s)] for s, f, _ in facs) - val) < 1e-12


@pytest.mark.parametrize("aggregator", AGGREGATORS)
def test_structured_equals_brute(aggregator):
    w = np.array([1.0, 2.0, 3.0, 1.0, 2.0, 3.0])
    for G in (nx.path_graph(6), bounded_degree_tree(6, 3, seed=5)):
        for game in (network_game(G, seed=3), GraphicalGame.from_graph(G, 2, seed=3)):
            a = mase(game, aggregator, weights=w)
            b = mase(game, aggregator, weights=w, method="brute")
            assert abs(a.value - b.value) < 1e-9
            assert abs(a.value - a.lp_value) < 1e-8


def test_bag_marginals_are_a_joint_distribution():
    gg = network_game(bounded_degree_tree(7, 3, seed=1), seed=1)
    r = mase(gg)
    joint = joint_from_marginals(gg, r.td, r.marginals)
    assert abs(joint.sum() - 1) < 1e-9 and joint.min() >= 0
    nf = gg.to_normal_form()
    assert abs(max_coalition_gain(nf, joint).gain - r.value) < 1e-9
    ev = evaluate_marginals(gg, r.marginals, r.td)
    assert abs(ev["welfare"] - nf.welfare(joint)) < 1e-9
    assert abs(ev["exploitability"] - exploitability(nf, joint)) < 1e-9


def test_structured_ewf_equals_dense():
    gg = network_game(nx.path_graph(5), seed=0)
    for e in (0.0, 0.05, 0.2):
        assert abs(ewf(gg, e).welfare - ewf(gg.to_normal_form(), e).welfare) < 1e-8


# ---------------------------------------------------------------- bad input
def test_bad_payoff_tensors():
    with pytest.raises(ValueError, match="rank"): NormalFormGame(np.zeros((3, 2, 2)))
    with pytest.raises(ValueError, match="finite"): NormalFormGame(np.array([[[np.nan, 0], [0, 0]], [[0, 0], [0, 0]]]))
    with pytest.raises(ValueError, match="empty action set"): NormalFormGame(np.zeros((2, 2, 0)))
    with pytest.raises(ValueError, match="rank"): NormalFormGame(np.zeros(3))
    with pytest.raises(ValueError, match="payoffs"): NormalFormGame([[1, 2], [3]])
    with pytest.raises(TypeError): NormalFormGame(np.array([["a", "b"]] * 2, dtype=object).reshape(2, 2))
    with pytest.raises(ValueError, match="n_actions"): random_game((2, 0))


def test_bad_arguments():
    g = prisoners_dilemma()
    with pytest.raises(ValueError, match="aggregator"): mase(g, aggregator="min")
    with pytest.raises(ValueError, match="weights"): mase(g, aggregator="weighted")
    with pytest.raises(ValueError, match="weights"): mase(g, aggregator="weighted", weights=[1, 0])
    with pytest.raises(ValueError, match="deviation"): mase(g, deviation="mixed")
    with pytest.raises(ValueError, match="method"): mase(g, method="fast")
    with pytest.raises(ValueError, match="GraphicalGame"): mase(g, method="structured")
    with pytest.raises(TypeError): mase(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="sum to 1"): max_coalition_gain(g, np.ones((2, 2)))
    with pytest.raises(ValueError, match="entries"): max_coalition_gain(g, np.ones(3) / 3)
    with pytest.raises(ValueError, match="non-negative"): max_coalition_gain(g, np.array([[1.5, -0.5], [0, 0]]))
    with pytest.raises(ValueError, match="coalitions"): mase(g, coalition_set=[(0, 5)])
    with pytest.raises(ValueError, match="2-player"): random_game((2, 2, 2)).to_nashpy()
    with pytest.raises(TypeError): ewf(g, "0.1")
    with pytest.raises(ValueError, match="finite"): ewf(g, float("nan"))


def test_bad_graphical_games():
    with pytest.raises(ValueError, match="start with player"):
        GraphicalGame((2, 2), [(1, 0), (1,)], [np.zeros((2, 2)), np.zeros(2)])
    with pytest.raises(ValueError, match="shape"): GraphicalGame((2, 2), [(0,), (1,)], [np.zeros(3), np.zeros(2)])
    with pytest.raises(ValueError, match="finite"): GraphicalGame((2,), [(0,)], [np.array([np.nan, 0])])
    with pytest.raises(ValueError, match="n_actions"): GraphicalGame((0, 2), [(0,), (1,)], [np.zeros(0), np.zeros(2)])
    with pytest.raises(TypeError): network_game([0, 1])
    gg = network_game(nx.path_graph(3), seed=0)
    with pytest.raises(NotImplementedError): mase(gg, deviation="correlated")
    assert (
        abs(
            mase(gg, deviation="correlated", method="brute").value
            - mase(gg.to_normal_form(), deviation="correlated").value
        )
        < 1e-12
    )


def test_pygambit_is_optional():
    try:
        import pygambit  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pygambit"): prisoners_dilemma().to_pygambit()
    else:
        g = prisoners_dilemma()
        np.testing.assert_allclose(NormalFormGame.from_pygambit(g.to_pygambit()).payoffs, g.payoffs)


def test_structured_batch_cuts_same_value_fewer_lp_solves():
    import networkx as nx
    from iclr26.mase import mase, network_game
    g = network_game(nx.path_graph(24), seed=3)
    r1, r8 = mase(g, batch=1), mase(g, batch=8)
    assert abs(r1.value - r8.value) < 1e-7 and abs(r8.value - r8.lp_value) < 1e-7
    assert r8.iterations <= r1.iterations and r8.oracle_calls == r8.iterations and r8.dp_solves >= r8.iterations
    assert mase(g).iterations == r8.iterations                   # batch=8 is the structured default


def test_treewidth_of_sweep_families():
    import networkx as nx
    from iclr26.mase import network_game, tree_decomposition
    widths = [tree_decomposition(network_game(G, seed=0)).width
              for G in (nx.path_graph(12), nx.ladder_graph(6), nx.grid_2d_graph(3, 4), nx.grid_2d_graph(4, 6))]
    assert widths == sorted(widths) and widths[0] == 2 and widths[-1] > widths[1]


# ------------------------------------------------------------ defect: a too-wide game is refused up front (issue #50)
def test_wide_game_refused_up_front():
    import time
    from iclr26.mase import check_table_size
    g = network_game(nx.karate_club_graph(), seed=0)            # dependency-graph width 17: 3^18 = 3.9e8 entries
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"width 17.*3\.87e\+08 entries.*max_table"): mase(g)
    assert time.perf_counter() - t0 < 1.0
    with pytest.raises(ValueError, match="max_table"): mase(g, method="brute")   # 34 * 2^34 normal-form entries
    td = tree_decomposition(g)
    assert check_table_size(td, g.n_actions, max_table=10**9) == 3**18    # a raised limit lets it through
    small = network_game(nx.path_graph(5), seed=0)
    with pytest.raises(ValueError, match=r"width 2: .*27 entries"): mase(small, max_table=26)
    assert abs(mase(small, max_table=27).value - mase(small).value) < 1e-12
    with pytest.raises(ValueError, match="max_table"): mase(small, max_table=0)


def test_wide_game_limit_is_documented_and_shared():
    "The default limit is MAX_TABLE = 1e7 entries, stated in mase's docstring; the structured EWF refuses too."
    import inspect
    from iclr26.mase import MAX_TABLE
    assert MAX_TABLE == 10**7 and inspect.signature(mase).parameters["max_table"].default == MAX_TABLE
    assert "10^7" in mase.__doc__ and "max_table" in mase.__doc__
    g = network_game(nx.karate_club_graph(), seed=0)
    with pytest.raises(ValueError, match=r"width 17"): ewf(g, 0.1)


# ----------------------------------------------------- headline 1: exact against the full LP; the null must fail
@pytest.mark.parametrize("aggregator", AGGREGATORS)
def test_structured_exact_against_full_lp_and_unilateral_null_fails(aggregator):
    g = network_game(nx.path_graph(5), seed=3)
    nf, w = g.to_normal_form(), [1.0, 2.0, 3.0, 1.0, 2.0]
    ref = mase(nf, aggregator, weights=w, method="full").lp_value              # every coalition constraint at once
    s = mase(g, aggregator, weights=w)
    joint = joint_from_marginals(g, s.td, s.marginals)
    assert abs(s.value - ref) < 1e-7
    assert abs(max_coalition_gain(nf, joint, aggregator, weights=w).gain - ref) < 1e-7
    u = mase(nf, aggregator, weights=w, coalition_set=1)                       # ignores coalitions
    assert max_coalition_gain(nf, u.mu, aggregator, weights=w).gain > ref + 1e-3


# ---------------------------------------------------------------- optional dependencies name the extra (issue #60)
def _import_without(blocked: str, module: str = "iclr26.mase") -> str:
    import subprocess, sys
    code = f"import sys\nsys.modules[{blocked!r}] = None\nimport {module}\n"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    return p.stderr.strip().splitlines()[-1]


def test_missing_networkx_names_the_extra():
    last = _import_without("networkx")
    assert last.startswith("ImportError") and "pip install 'iclr26[mase]'" in last


def test_missing_nashpy_names_the_extra(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "nashpy", None)
    with pytest.raises(ImportError, match=r"pip install 'iclr26\[mase\]'"): prisoners_dilemma().to_nashpy()


# ------------------------------------------------------------ property tests: bad input names the argument (issue #60)
from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import math  # noqa: E402

BAD_FLOATS = st.sampled_from([math.nan, math.inf, -math.inf])


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=2, max_size=3), bad=BAD_FLOATS, data=st.data())
def test_property_payoffs_with_nan_or_inf_are_refused(shape, bad, data):
    P = np.zeros((len(shape), *shape))
    idx = tuple(data.draw(st.integers(0, s - 1)) for s in P.shape)
    P[idx] = bad
    with pytest.raises(ValueError, match="payoffs"): NormalFormGame(P)


@settings(max_examples=20, deadline=None)
@given(players=st.integers(1, 3), extra=st.integers(-1, 2).filter(lambda k: k != 0))
def test_property_payoffs_of_the_wrong_rank_are_refused(players, extra):
    shape = (players,) + (2,) * max(players + extra, 0)
    with pytest.raises(ValueError, match="payoffs"): NormalFormGame(np.zeros(shape))


@settings(max_examples=20, deadline=None)
@given(arg=st.sampled_from(["tol", "max_iter", "batch", "time_limit", "max_table", "aggregator", "deviation",
                            "method", "coalition_set"]),
       bad=st.one_of(st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not (x >= 0 and x < 1e300)),
                     st.integers(-5, 0), st.just("x"), st.just(1.5)))
def test_property_mase_hyperparameters_out_of_range(arg, bad):
    "Every bad value of a hyper-parameter is refused with a ValueError/TypeError naming it (or a valid run)."
    g = prisoners_dilemma()
    try: r = mase(g, **{arg: bad})
    except (ValueError, TypeError) as e:
        assert arg in str(e) or (arg == "coalition_set" and "coalition" in str(e)), str(e)
    else:                                       # only in-range values may run, and they give a valid MASE value
        assert np.isfinite(r.value) and r.value >= 0.1 - 1e-9


@settings(max_examples=20, deadline=None)
@given(mu=hnp.arrays(float, st.sampled_from([(4,), (2, 3), (3, 2), (2, 2)]),
                     elements=st.one_of(st.floats(-1, 2), st.sampled_from([math.nan, math.inf]))))
def test_property_distributions_are_validated(mu):
    g = prisoners_dilemma()
    ok = mu.size == 4 and np.isfinite(mu).all() and (mu >= 0).all() and abs(mu.sum() - 1) < 1e-6
    if ok: assert np.isfinite(coalition_gains(g, mu)[0].gain)
    else:
        with pytest.raises(ValueError, match="mu"): coalition_gains(g, mu)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 4), data=st.data())
def test_property_graphical_game_lengths_must_match(n, data):
    scopes = [(i,) for i in range(n)]
    tables = [np.zeros(2) for _ in range(n)]
    wrong = data.draw(st.integers(0, n - 1))
    with pytest.raises(ValueError, match="scopes and tables"): GraphicalGame((2,) * n, scopes[:wrong], tables[:wrong])


@settings(max_examples=20, deadline=None)
@given(eps=st.one_of(st.just(math.nan), st.just(math.inf), st.just("a"), st.just(None)))
def test_property_ewf_eps(eps):
    with pytest.raises((ValueError, TypeError), match="eps"): ewf(prisoners_dilemma(), eps)
