"Unit and bad-input tests for iclr26.arena (paper 23: information-efficient arena evaluation)."
import math, warnings

import numpy as np
import pandas as pd
import pytest

from iclr26.arena import (C_ELO, METHODS, RIDGE, ArenaScheduler, BTArena, FisherState, ReplayArena, _prior_precision,
                          a_info, bootstrap_ratings, traffic_log_counts, traffic_pair_probs, battle_arrays,
                          battle_table, brute_force_gains, bt_weights, d_info, drop_anchor, fisher_information, fit_mle,
                          kendall_tau, load_battles, load_lmarena, load_lmarena_ratings, online_elo, pair_counts,
                          pairwise_consistency, rating_rmse, run_selection, synthetic_ratings, time_selection,
                          win_matrix, win_prob)


def random_state(N, seed, ridge=0.5):
    rng = np.random.default_rng(seed)
    r = 1000 + 90 * rng.standard_normal(N)
    cnt = np.triu(rng.integers(0, 5, size=(N, N)).astype(float), 1)
    return rng, r, cnt + cnt.T


@pytest.mark.parametrize("N,seed", [(3, 0), (7, 1), (12, 2)])
def test_determinant_lemma_and_sherman_morrison_equal_brute_force(N, seed):
    rng, r, cnt = random_state(N, seed)
    anchor = int(rng.integers(N))
    fs = FisherState(N, anchor=anchor, ridge=0.5, track_square=True).rebuild(r, cnt)
    I = fisher_information(r, cnt) + _prior_precision(N, C_ELO, 0.5)
    dg, ag = brute_force_gains(I, bt_weights(r), anchor)
    i, j = np.triu_indices(N, 1)
    np.testing.assert_allclose(np.log1p(fs.d_gain(i, j)), dg, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(fs.a_gain(i, j), ag, rtol=1e-8, atol=1e-10 * ag.max())
    # brute force of the raw determinant ratio too
    for m in rng.choice(len(i), size=min(5, len(i)), replace=False):
        u = np.zeros(N)
        u[i[m]], u[j[m]] = 1, -1
        J = drop_anchor(I + bt_weights(r)[i[m], j[m]] * np.outer(u, u), anchor)
        ratio = np.linalg.det(J) / np.linalg.det(drop_anchor(I, anchor))
        assert math.isclose(ratio, 1 + fs.d_gain(i[m], j[m]), rel_tol=1e-9)


def test_rank_one_updates_match_rebuild():
    rng, r, cnt = random_state(9, 5)
    fs = FisherState(9, anchor=4, ridge=0.2, track_square=True).rebuild(r, cnt)
    for _ in range(25):
        a, b = rng.choice(9, 2, replace=False)
        fs.add(a, b)
        cnt[a, b] += 1
        cnt[b, a] += 1
    ref = FisherState(9, anchor=4, ridge=0.2, track_square=True).rebuild(r, cnt)
    np.testing.assert_allclose(fs.Sigma, ref.Sigma, rtol=1e-8, atol=1e-8 * np.abs(ref.Sigma).max())
    np.testing.assert_allclose(fs.Sigma2, ref.Sigma2, rtol=1e-7, atol=1e-8 * np.abs(ref.Sigma2).max())
    assert np.all(fs.Sigma[4] == 0) and np.all(fs.Sigma[:, 4] == 0)


def test_d_info_is_anchor_invariant_and_a_info_is_not():
    _, r, cnt = random_state(8, 3)
    cnt += 1 - np.eye(8)  # connected
    I = fisher_information(r, cnt)
    d = [d_info(I, a) for a in range(8)]
    a = [a_info(I, a) for a in range(8)]
    assert max(d) - min(d) <= 1e-10 * max(d)
    assert max(a) - min(a) > 1e-3 * max(a)


def test_d_info_and_a_info_on_disconnected_graph():
    cnt = pair_counts([0, 2], [1, 3], 4)
    I = fisher_information(np.full(4, 1000.0), cnt)
    assert d_info(I) == 0.0 and a_info(I) == math.inf


def test_d_info_linear_in_battles():
    rng = np.random.default_rng(0)
    N = 10
    r = 1000 + 60 * rng.standard_normal(N)
    pi, pj = np.triu_indices(N, 1)
    picks = rng.integers(len(pi), size=4000)
    d1 = d_info(fisher_information(r, pair_counts(pi[picks[:2000]], pj[picks[:2000]], N)))
    d2 = d_info(fisher_information(r, pair_counts(pi[picks], pj[picks], N)))
    assert 1.9 < d2 / d1 < 2.1


def test_fit_matches_choix():
    choix = pytest.importorskip("choix")
    rng = np.random.default_rng(11)
    N = 8
    true = 1000 + 120 * rng.standard_normal(N)
    arena = BTArena(true, seed=3)
    i = rng.integers(N, size=3000)
    j = (i + 1 + rng.integers(N - 1, size=i.size)) % N
    y = arena.outcomes(i, j)
    W = win_matrix(i, j, y, N)
    ours = fit_mle(W, anchor=2, ridge=0.0)
    data = [(a, b) if o == 1 else (b, a) for a, b, o in zip(i, j, y)]
    theirs = choix.opt_pairwise(N, data, alpha=1e-9, tol=1e-12) / C_ELO
    np.testing.assert_allclose(ours - ours.mean(), theirs - theirs.mean(), atol=0.05)
    assert ours[2] == 1000.0
    assert rating_rmse(ours, true) < 25


def test_fit_with_ridge_and_ties_is_finite_and_warm_start_agrees():
    arena = BTArena(load_lmarena_ratings().iloc[:6], tie_rate=0.2, seed=0)
    i = np.array([0, 1, 2, 3, 4, 0, 5])
    j = np.array([1, 2, 3, 4, 5, 5, 1])
    y = arena.outcomes(i, j)
    W = win_matrix(i, j, y, 6)
    r1 = fit_mle(W)
    r2 = fit_mle(W, init=r1 + 37.0)
    assert np.all(np.isfinite(r1)) and np.max(np.abs(r1 - r2)) < 1e-5


def test_bad_inputs():
    models = ["a", "b", "c"]
    with pytest.raises(ValueError, match="unknown model"):
        battle_arrays(pd.DataFrame({"model_a": ["a"], "model_b": ["zzz"], "winner": ["model_a"]}), models)
    with pytest.raises(ValueError, match="itself"):
        battle_arrays(pd.DataFrame({"model_a": ["a"], "model_b": ["a"], "winner": ["model_a"]}), models)
    with pytest.raises(ValueError, match="winner"):
        load_battles([{"model_a": "a", "model_b": "b", "winner": "draw"}])
    with pytest.raises(ValueError, match="column"):
        load_battles([{"model_a": "a", "model_b": "b"}])
    with pytest.raises(TypeError, match="source"):
        load_battles(42)
    for bad in (["only"], 1):
        with pytest.raises(ValueError, match="N < 2|>= 2"):
            ArenaScheduler(bad)
    with pytest.raises(ValueError, match="N < 2"):
        BTArena([1000.0])
    with pytest.raises(ValueError, match="N < 2"):
        fit_mle(np.zeros((1, 1)))
    with pytest.raises(ValueError, match="method"):
        ArenaScheduler(models, method="oracle")
    with pytest.raises(ValueError, match="anchor"):
        ArenaScheduler(models, anchor="zzz")
    with pytest.raises(ValueError, match="k must be"):
        ArenaScheduler(models).select(4)
    with pytest.raises(TypeError, match="k must be an int"):
        ArenaScheduler(models).select(1.5)
    with pytest.raises(ValueError, match="pair_probs"):
        ArenaScheduler(models, method="d-opt", pair_probs=np.ones(3))
    with pytest.raises(ValueError, match="ridge"):
        ArenaScheduler(models, ridge=-1.0)
    with pytest.raises(ValueError, match="tie_rate"):
        BTArena([1.0, 2.0], tie_rate=1.0)
    with pytest.raises(ValueError, match="same length"):
        pairwise_consistency([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="square"):
        fit_mle(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="criterion"):
        brute_force_gains(np.eye(3), np.ones((3, 3)), criterion="e")


def test_disconnected_comparison_graph_warns_and_ridge_zero_raises():
    W = win_matrix([0, 2], [1, 3], [1.0, 0.0], 4)
    with pytest.warns(UserWarning, match="not connected"):
        r = fit_mle(W)
    assert np.all(np.isfinite(r))
    with pytest.raises(ValueError, match="ridge"):
        fit_mle(W, ridge=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit_mle(W, check_connected=False)


def test_scheduler_api_round_trip():
    lm = load_lmarena_ratings().iloc[:10]
    sim = BTArena(lm, seed=0)
    for method in METHODS:
        s = ArenaScheduler(sim.models, method=method, seed=1, refit_every=3)
        for _ in range(6):
            pairs = s.next_pairs(5)
            assert len(pairs) == 5 and all(a != b and a in sim.index and b in sim.index for a, b in pairs)
            s.update(sim.play(pairs))
        assert s.n_battles == 30 and len(s.battle_log()) == 30
        rt = s.ratings()
        assert list(rt.index) != [] and rt.is_monotonic_decreasing and np.all(np.isfinite(rt.values))
    s = ArenaScheduler(sim.models, method="d-opt", seed=0)
    s.update([(sim.models[0], sim.models[1], "tie"), (sim.models[2], sim.models[1], "model_b")])
    assert s.counts[0, 1] == 1 and s.wins[1, 2] == 1.0
    i, j = s.select(10)
    assert len(set(zip(i.tolist(), j.tolist()))) == 10  # top-K batch: distinct pairs


def test_d_opt_spreads_battles_and_a_opt_favours_anchor():
    r = synthetic_ratings(12, seed=0)
    d = run_selection(r, "d-opt", [120], seed=0, anchor=0, per_pair=20)
    a = run_selection(r, "a-opt", [120], seed=0, anchor=0, per_pair=20)
    assert a["anchor_freq"][-1] > 1.5 * 2 / 12
    assert d["d_info"][-1] > 0


def test_online_elo_and_snapshots():
    i, j, y = np.array([0, 1, 0]), np.array([1, 2, 2]), np.array([1.0, 0.5, 0.0])
    final = online_elo(i, j, y, 3, K=16)
    snaps = online_elo(i, j, y, 3, K=16, snapshots=[0, 1, 3])
    np.testing.assert_allclose(snaps[0], 1000.0)
    np.testing.assert_allclose(snaps[1], [1008.0, 992.0, 1000.0])
    np.testing.assert_allclose(snaps[-1], final)
    assert math.isclose(final.sum(), 3000.0)


def test_metrics():
    x = np.random.default_rng(0).standard_normal(25)
    y = x + np.random.default_rng(1).standard_normal(25)
    assert math.isclose(pairwise_consistency(x, y), (1 + kendall_tau(x, y)) / 2, rel_tol=1e-12)
    assert pairwise_consistency([2, 2, 1], [3, 2, 1]) == pytest.approx(5 / 6)
    assert rating_rmse([1, 2, 3], [101, 102, 103]) == 0.0


def test_load_battles_files(tmp_path):
    df = battle_table(["a", "b", "c"], [0, 1, 2], [1, 2, 0], [1.0, 0.5, 0.0])
    df.to_json(tmp_path / "log.json", orient="records")
    df.to_json(tmp_path / "log.jsonl", orient="records", lines=True)
    df.to_csv(tmp_path / "log.csv", index=False)
    for f in ("log.json", "log.jsonl", "log.csv"):
        pd.testing.assert_frame_equal(load_battles(tmp_path / f), df)
    with pytest.raises(ValueError, match="no such file"):
        load_battles(tmp_path / "missing.csv")
    i, j, y = battle_arrays(df, ["a", "b", "c"])
    assert list(y) == [1.0, 0.5, 0.0]


def test_replay_arena_replays_in_order_and_flips():
    ra = ReplayArena([1000.0, 1100.0, 900.0], per_pair=3, seed=0)
    m = ra.pair_id[0, 1]
    got = [ra.outcomes([1], [0])[0] for _ in range(3)]
    np.testing.assert_allclose(got, 1.0 - ra.pool[ra.offsets[m]:ra.offsets[m + 1]])
    ra.outcomes([0], [1])
    assert ra.fresh == 1
    W = ra.full_wins()
    np.testing.assert_allclose(W + W.T, 3 * (1 - np.eye(3)))


def test_lmarena_data_and_win_prob():
    df = load_lmarena()
    assert len(df) == 55 and df.battles.sum() > 100_000 // 1 and df.elo.is_monotonic_decreasing
    assert math.isclose(win_prob(1400.0, 1000.0), 10 / 11, rel_tol=1e-12)
    assert RIDGE == pytest.approx(3.0178, rel=1e-3)


def test_time_selection_runs():
    fast = time_selection(8, "d-opt", steps=3)
    naive = time_selection(8, "d-opt", steps=1, naive=True)
    assert fast["step_s"] > 0 and naive["step_s"] > 0
    with pytest.raises(ValueError, match="method"):
        time_selection(8, "random")


def test_traffic_log_replay_respects_availability():
    lm = load_lmarena()
    r, b = lm.elo.values[:12], lm.battles.values[:12]
    counts = traffic_log_counts(b, 300, seed=0)
    assert counts.sum() == 300 and (counts == 0).any()          # uneven: some pairs never met
    q = traffic_pair_probs(b)
    i, j = np.triu_indices(12, 1)
    np.testing.assert_allclose(q, b[i] * b[j] / (b[i] * b[j]).sum())
    arena = ReplayArena(r, pair_counts=counts, seed=1)
    np.testing.assert_array_equal(
        arena.full_wins() + arena.full_wins().T, pair_counts(np.repeat(i, counts), np.repeat(j, counts), 12)
    )
    for meth, kw in [
        ("random", {}),
        ("random", {"pair_probs": np.ones(i.size)}),
        ("nearest", {}),
        ("ada-pair", {}),
        ("a-opt", {}),
        ("d-opt", {}),
    ]:
        arena = ReplayArena(r, pair_counts=counts, seed=1)
        sc = ArenaScheduler(12, method=meth, seed=2, refit_every=3, **kw)
        for _ in range(60):
            av = arena.remaining()
            a, c = sc.select(2, available=av)
            pid = arena.pair_id[a, c]
            assert np.all(av[pid] > 0), meth                      # only pairs with battles left
            sc.observe(a, c, arena.outcomes(a, c))
    # in run_selection the traffic protocol draws (almost) nothing beyond the log
    o = run_selection(r, "d-opt", [50, 100], seed=0, per_pair=20, traffic=b)
    assert o["fresh"] == 0 and o["battles"][-1] == 100
    with pytest.raises(ValueError, match="traffic"):
        run_selection(r, "d-opt", [10], traffic=b[:5])
    with pytest.raises(ValueError, match="available"):
        ArenaScheduler(12).select(1, available=np.zeros(i.size))
    with pytest.raises(ValueError, match="pair_counts"):
        ReplayArena(r, pair_counts=-counts - 1)
    with pytest.raises(ValueError, match="battles_per_model"):
        traffic_pair_probs([1.0])


def test_balanced_replay_unchanged_by_pair_counts_option():
    r = load_lmarena_ratings().values[:8]
    a = ReplayArena(r, per_pair=5, seed=3)
    b = ReplayArena(r, pair_counts=np.full(28, 5), seed=3)
    np.testing.assert_array_equal(a.full_wins(), b.full_wins())


def _fixture_55k():
    "A few rows in the exact column layout of `lmsys/arena-human-preference-55k`."
    return pd.DataFrame(
        {
            "id": [30192, 53567, 65089, 96401],
            "model_a": ["gpt-4-1106-preview", "koala-13b", "gpt-3.5-turbo-0613", "llama-2-13b-chat"],
            "model_b": ["gpt-4-0613", "gpt-4-0613", "mistral-medium", "mistral-7b-instruct"],
            "prompt": [
                '["Is it morally right?"]',
                '["What is the difference?"]',
                '["explain function calling"]',
                '["How can I create a test set?"]',
            ],
            "response_a": [
                '["The question..."]',
                '["A marriage..."]',
                '["Function calling..."]',
                '["Creating a test set..."]',
            ],
            "response_b": [
                '["As an AI..."]',
                '["A marriage license..."]',
                '["Function calling is..."]',
                '["When creating..."]',
            ],
            "winner_model_a": [1, 0, 0, 1],
            "winner_model_b": [0, 1, 0, 0],
            "winner_tie": [0, 0, 1, 0],
        }
    )


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".jsonl"])
def test_load_battles_55k_format(tmp_path, suffix):
    df = _fixture_55k()
    f = tmp_path / f"train{suffix}"
    if suffix == ".csv": df.to_csv(f, index=False)
    elif suffix == ".parquet": df.to_parquet(f)
    else: df.to_json(f, orient="records", lines=True)
    out = load_battles(f)
    assert list(out.columns) == ["model_a", "model_b", "winner"]
    assert list(out["winner"]) == ["model_a", "model_b", "tie", "model_a"]
    models = sorted(set(out.model_a) | set(out.model_b))
    i, j, y = battle_arrays(f, models)
    np.testing.assert_array_equal(y, [1.0, 0.0, 0.5, 1.0])
    sc = ArenaScheduler(models, method="d-opt")
    sc.update(f)
    assert sc.n_battles == 4
    with pytest.raises(ValueError, match="exactly one"):
        load_battles(df.assign(winner_model_b=1))


def test_update_refits_after_bulk_and_matches_brute_force():
    N = 10
    for t in range(6):
        ar = BTArena(load_lmarena_ratings().iloc[:N], seed=t)
        rng = np.random.default_rng(50 + t)
        a = rng.integers(N, size=200)
        b = (a + 1 + rng.integers(N - 1, size=200)) % N
        sc = ArenaScheduler(ar.models, method="d-opt", seed=t)
        sc.update(battle_table(ar.models, a, b, ar.outcomes(a, b)))
        r_mle = fit_mle(sc.wins, anchor=0, anchor_rating=1000.0, check_connected=False)
        np.testing.assert_allclose(sc.r, r_mle, atol=1e-4)
        g = brute_force_gains(
            fisher_information(r_mle, sc.counts) + _prior_precision(N, C_ELO, RIDGE), bt_weights(r_mle), 0, "d"
        )
        i, j = sc.select(1)
        m = int(np.argmax(g))
        assert (sc.pi[m], sc.pj[m]) == (i[0], j[0])
    lazy = ArenaScheduler(ar.models, method="d-opt", auto_refit=False)
    lazy.update(battle_table(ar.models, a, b, ar.outcomes(a, b)))
    assert lazy._stale == 200
    with pytest.raises(TypeError, match="auto_refit"):
        ArenaScheduler(4, auto_refit=1)


@pytest.mark.parametrize("method", METHODS)
def test_add_model(method):
    ar = BTArena(load_lmarena_ratings().iloc[:6], seed=0)
    sc = ArenaScheduler(ar.models, method=method, seed=0)
    for _ in range(5): sc.update(ar.play(sc.next_pairs(4)))
    before = sc.ratings().copy()
    sc.add_model("new-model", rating=1000.0)
    assert sc.N == 7 and sc.models[-1] == "new-model" and sc.counts.shape == (7, 7) and sc.pi.size == 21
    pairs = sc.next_pairs(3)
    assert all(len(p) == 2 for p in pairs)
    if method == "d-opt": assert "new-model" in sc.next_pairs(1)[0]
    sc.update([("new-model", ar.models[0], "model_a"), (ar.models[1], "new-model", "tie")])
    r = sc.ratings()
    assert r.size == 7 and np.isfinite(r).all() and set(before.index) < set(r.index)
    with pytest.raises(ValueError, match="already"):
        sc.add_model("new-model")
    with pytest.raises(ValueError, match="pair_probs"):
        ArenaScheduler(3, method="random", pair_probs=np.ones(3)).add_model("x")


def test_bootstrap_ratings():
    ar = BTArena(load_lmarena_ratings().iloc[:8], seed=0)
    rng = np.random.default_rng(0)
    a = rng.integers(8, size=2000)
    b = (a + 1 + rng.integers(7, size=2000)) % 8
    y = ar.outcomes(a, b)
    ci = bootstrap_ratings(a, b, y, 8, n_boot=60, anchor=0, anchor_rating=float(ar.ratings[0]), seed=1)
    assert list(ci.columns) == ["rating", "lower", "upper", "se"]
    assert (ci.lower <= ci.rating + 1e-9).all() and (ci.rating <= ci.upper + 1e-9).all()
    assert ci.loc[0, "upper"] - ci.loc[0, "lower"] < 1e-9          # the anchor is fixed
    assert (ci.upper - ci.lower)[1:].min() > 5                      # the others are not
    np.testing.assert_allclose(
        ci.rating, fit_mle(win_matrix(a, b, y, 8), anchor_rating=float(ar.ratings[0])), atol=1e-4
    )
    same = bootstrap_ratings(a, b, y, 8, n_boot=60, anchor=0, anchor_rating=float(ar.ratings[0]), seed=1)
    pd.testing.assert_frame_equal(ci, same)
    sc = ArenaScheduler(ar.models)
    with pytest.raises(ValueError, match="no battles"):
        sc.rating_intervals()
    sc.update(battle_table(ar.models, a[:300], b[:300], y[:300]))
    assert sc.rating_intervals(n_boot=20, seed=0).shape == (8, 4)
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_ratings(a, b, y, 8, n_boot=1)


def test_fit_matches_arena_rank():
    ("Cross-check against LMArena's own `arena-rank` (pins numpy 2.3.3 and jax: it runs where it is installed, e.g. "
     "its own venv).")
    pytest.importorskip("arena_rank")
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset
    ar = BTArena(load_lmarena_ratings().iloc[:15], seed=5, tie_rate=0.1)
    rng = np.random.default_rng(6)
    a = rng.integers(15, size=4000)
    b = (a + 1 + rng.integers(14, size=4000)) % 15
    log = battle_table(ar.models, a, b, ar.outcomes(a, b))
    ds = PairDataset.from_pandas(log)
    out = BradleyTerry(n_competitors=len(ds.competitors)).compute_ratings_and_cis(ds, ci_method="sandwich")
    theirs = pd.Series(np.asarray(out["ratings"]), index=out["competitors"])
    i, j, y = battle_arrays(log, ar.models)
    ours = pd.Series(fit_mle(win_matrix(i, j, y, 15), ridge=0.0, tol=1e-10), index=ar.models).reindex(theirs.index)
    np.testing.assert_allclose(ours - ours.mean(), theirs - theirs.mean(), atol=1e-2)


@pytest.mark.parametrize("criterion", ["d", "a"])
def test_select_refits_after_bulk_observe(criterion):
    "Defect (issue #50): observe() then select() ranked pairs at stale ratings (one Newton step): 12/20 for D-optimal."
    N, hits, trials = 12, 0, 20
    for t in range(trials):
        ar = BTArena(load_lmarena_ratings().iloc[:N], seed=100 + t)
        rng = np.random.default_rng(200 + t)
        a = rng.integers(N, size=300)
        b = (a + 1 + rng.integers(N - 1, size=300)) % N
        sc = ArenaScheduler(ar.models, method=f"{criterion}-opt", seed=t)
        sc.observe(a, b, ar.outcomes(a, b))
        i, j = sc.select(1)
        assert sc._stale == 0
        r_mle = fit_mle(sc.wins, anchor=sc.anchor, anchor_rating=1000.0, check_connected=False)
        np.testing.assert_allclose(sc.r, r_mle, atol=1e-3)
        g = brute_force_gains(fisher_information(r_mle, sc.counts) + _prior_precision(N, C_ELO, RIDGE),
                              bt_weights(r_mle), sc.anchor, criterion)
        m = int(np.argmax(g))
        hits += int((sc.pi[m], sc.pj[m]) == (int(i[0]), int(j[0])))
    assert hits == trials


def test_import_without_optional_choix():
    "choix is a test-only comparison: iclr26.arena imports without it (issue #60)."
    import subprocess, sys
    code = "import sys\nsys.modules['choix'] = None\nimport iclr26.arena\nprint('ok')\n"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


# ------------------------------------------------------------ property tests: bad input names the argument (issue #60)
from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

BAD = st.sampled_from([math.nan, math.inf, -math.inf])


@settings(max_examples=20, deadline=None)
@given(arg=st.sampled_from(["C", "ridge", "refit_every", "anchor", "init_rating", "method", "models"]),
       bad=st.one_of(BAD, st.floats(max_value=0.0).filter(lambda v: v != 0.0), st.just("x"), st.just(-1)))
def test_property_scheduler_hyperparameters(arg, bad):
    if arg == "init_rating" and isinstance(bad, (int, float)) and math.isfinite(bad): return   # any finite rating
    kw = {"models": 4, arg: bad}
    with pytest.raises((ValueError, TypeError), match=arg): ArenaScheduler(**kw)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 4), m=st.integers(1, 4), frac=st.floats(0.1, 0.9))
def test_property_observe_mismatched_lengths_and_non_integer_indices(n, m, frac):
    sc = ArenaScheduler(5, method="d-opt", seed=0)
    if n != m:
        with pytest.raises(ValueError, match="same shape"): sc.observe(np.zeros(n, int), np.ones(m, int), np.ones(n))
    with pytest.raises(TypeError, match="i must"): sc.observe([frac], [1], [1.0])
    with pytest.raises(TypeError, match="j must"): sc.observe([0], ["b"], [1.0])
    assert sc.n_battles == 0                                       # nothing was recorded by a refused call


@settings(max_examples=20, deadline=None)
@given(y=st.one_of(BAD, st.floats(0.01, 0.49), st.floats(1.01, 3)))
def test_property_observe_outcomes(y):
    with pytest.raises(ValueError, match="y must"): ArenaScheduler(4).observe([0], [1], [y])


@settings(max_examples=20, deadline=None)
@given(W=hnp.arrays(float, st.sampled_from([(3, 3), (2, 3), (1, 1)]), elements=st.one_of(st.floats(0, 5), BAD)))
def test_property_fit_mle_input(W):
    ok = W.shape[0] == W.shape[1] and W.shape[0] >= 2 and np.isfinite(W).all()
    if ok: assert np.isfinite(fit_mle(W, check_connected=False)).all()
    else:
        with pytest.raises(ValueError, match="wins"): fit_mle(W)


@settings(max_examples=20, deadline=None)
@given(N=st.integers(2, 5), bad=BAD, anchor=st.integers(5, 9))
def test_property_fisher_and_info(N, bad, anchor):
    r = 1000 + 50 * np.arange(N)
    cnt = np.ones((N, N)) - np.eye(N)
    I = fisher_information(r, cnt)
    J = I.copy()
    J[0, 0] = bad
    with pytest.raises(ValueError, match="I must"): d_info(J)
    with pytest.raises(ValueError, match="anchor"): a_info(I, anchor=anchor)
    with pytest.raises(ValueError, match="counts"): fisher_information(r, -cnt)
    with pytest.raises(ValueError, match="counts"): fisher_information(r, np.ones((N + 1, N + 1)))


@settings(max_examples=20, deadline=None)
@given(a=st.integers(0, 4), b=st.integers(0, 4))
def test_property_metric_lengths(a, b):
    est, ref = np.arange(a, dtype=float), np.arange(b, dtype=float)
    if a == b and a >= 2: assert pairwise_consistency(est, ref) == 1.0
    else:
        with pytest.raises(ValueError, match="est|ref"): pairwise_consistency(est, ref)


def test_design_ratings_oracle_ranks_pairs_at_the_given_ratings():
    "The oracle's locally optimal design (issue #50): Fisher weights at fixed `design_ratings`, not at the fit."
    N = 10
    ar = BTArena(load_lmarena_ratings().iloc[:N], seed=3)
    rng = np.random.default_rng(4)
    a = rng.integers(N, size=150)
    b = (a + 1 + rng.integers(N - 1, size=150)) % N
    y = ar.outcomes(a, b)
    for crit in ("d", "a"):
        sc = ArenaScheduler(ar.models, method=f"{crit}-opt", seed=0, design_ratings=ar.ratings)
        sc.observe(a, b, y)
        i, j = sc.select(1)
        g = brute_force_gains(fisher_information(ar.ratings, sc.counts) + _prior_precision(N, C_ELO, RIDGE),
                              bt_weights(ar.ratings), sc.anchor, crit)
        m = int(np.argmax(g))
        assert (sc.pi[m], sc.pj[m]) == (int(i[0]), int(j[0]))
        # the ratings themselves are still the m-ELO fit of the battles
        np.testing.assert_allclose(sc.ratings().reindex(ar.models).values,
                                   fit_mle(sc.wins, anchor=0, anchor_rating=1000.0, check_connected=False), atol=1e-3)
    with pytest.raises(ValueError, match="design_ratings"):
        ArenaScheduler(ar.models, method="random", design_ratings=ar.ratings)
    with pytest.raises(ValueError, match="design_ratings"):
        ArenaScheduler(ar.models, method="d-opt", design_ratings=ar.ratings[:5])
    with pytest.raises(ValueError, match="design_ratings"):
        ArenaScheduler(ar.models, method="d-opt", design_ratings=ar.ratings).add_model("new")
    o = run_selection(ar.ratings, "d-opt", [30, 60], seed=0, per_pair=20, oracle_design=True)
    assert o["oracle"] is True and o["battles"].tolist() == [30, 60]
