"""API, derivative and bad-input tests of iclr26.plasticity (Smooth-Leaky activations and plasticity diagnostics)."""

import numpy as np
import pytest
import torch

from iclr26.plasticity import (ACTIVATIONS, CReLU, DynamicsShift, PlasticMLP, RandomizedSmoothLeaky, SmoothLeaky,
                               activation_grad, class_incremental_tasks, dead_band_width, diagnose,
                               effective_negative_slope, effective_rank, make_activation, permuted_tasks,
                               plasticity_score, ppo_activation_fn, random_label_tasks, smooth_leaky, smooth_leaky_grad,
                               smooth_leaky_grad_floor, stress_run, train_continual)


@pytest.mark.parametrize("alpha,p,c", [(0.1, 3.0, 5.0), (0.0, 3.0, 5.0), (0.3, 1.0, 2.0), (1.0, 3.0, 5.0),
                                       (0.05, 0.5, 7.0)])
def test_closed_form_derivative_matches_autograd(alpha, p, c):
    x = torch.linspace(-20, 20, 8001, dtype=torch.float64, requires_grad=True)
    g, = torch.autograd.grad(SmoothLeaky(alpha, p, c)(x).sum(), x)
    torch.testing.assert_close(g, smooth_leaky_grad(x.detach(), alpha, p, c), rtol=0, atol=1e-12)
    assert torch.autograd.gradcheck(
        lambda t: smooth_leaky(t, alpha, p, c), (torch.randn(20, dtype=torch.float64, requires_grad=True),)
    )


@pytest.mark.parametrize("alpha", [0.0, 0.1, 0.25, 0.5, 0.9])
def test_derivative_floor(alpha):
    x = torch.linspace(-30, 30, 600001, dtype=torch.float64)
    floor = float(smooth_leaky_grad(x, alpha).min())
    assert floor == pytest.approx(alpha - 0.0998 * (1 - alpha), abs=5e-5)
    assert floor == pytest.approx(smooth_leaky_grad_floor(alpha), abs=1e-7)
    # the floor does not depend on p and c (they only rescale x)
    assert float(smooth_leaky_grad(x, alpha, 1.0, 7.0).min()) == pytest.approx(floor, abs=1e-6)


def test_limits_and_special_cases():
    x = torch.tensor([-200.0, -50.0, 0.0, 50.0, 200.0], dtype=torch.float64)
    torch.testing.assert_close(SmoothLeaky(0.1)(x), torch.tensor([-20.0, -5.0, 0.0, 50.0, 200.0], dtype=torch.float64))
    d = smooth_leaky_grad(torch.tensor([-200.0, 0.0, 200.0], dtype=torch.float64), 0.1)
    torch.testing.assert_close(d, torch.tensor([0.1, 0.1 + 0.9 * 0.5, 1.0], dtype=torch.float64))
    z = torch.randn(100, dtype=torch.float64)
    torch.testing.assert_close(SmoothLeaky(1.0)(z), z)                       # alpha = 1: identity
    # alpha = 0, c/p = 1: SiLU
    torch.testing.assert_close(SmoothLeaky(0.0, p=1.0, c=1.0)(z), torch.nn.functional.silu(z))


def test_randomized_train_and_eval():
    m = RandomizedSmoothLeaky(0.1, 0.3)
    x = torch.randn(5000)
    m.eval()
    torch.testing.assert_close(m(x), m(x))
    torch.testing.assert_close(m(x), SmoothLeaky(0.2)(x))
    m.train()
    r = m.slope(x)
    assert r.shape == x.shape and float(r.min()) >= 0.1 and float(r.max()) <= 0.3 and float(r.std()) > 0
    assert not torch.equal(m(x), m(x))
    m2 = RandomizedSmoothLeaky(0.1, 0.3, per_element=False).train()
    r2 = m2.slope(x)
    assert isinstance(r2, float) and 0.1 <= r2 <= 0.3
    y = m2(x)
    alpha = (y - x * torch.sigmoid(5 / 3 * x)) / (x - x * torch.sigmoid(5 / 3 * x))
    ok = (x - x * torch.sigmoid(5 / 3 * x)).abs() > 1e-2
    assert float(alpha[ok].std()) < 1e-4                                     # one slope for the whole tensor
    assert RandomizedSmoothLeaky(0.2, 0.2).train()(x).allclose(SmoothLeaky(0.2)(x))


def test_constructible_without_arguments_for_sb3():
    for cls in (SmoothLeaky, RandomizedSmoothLeaky):
        m = cls()
        assert isinstance(m, torch.nn.Module) and m(torch.zeros(3)).shape == (3,)
    assert set(["ReLU", "Smooth-Leaky", "Rand-Smooth-Leaky", "SiLU", "tanh"]) <= set(ACTIVATIONS)


@pytest.mark.parametrize("kw,word", [(dict(alpha=1.5), "alpha"), (dict(alpha=-0.1), "alpha"), (dict(p=0.0), "p"),
                                     (dict(p=-1.0), "p"), (dict(c=0.0), "c"), (dict(alpha=float("nan")), "alpha")])
def test_bad_smooth_leaky(kw, word):
    with pytest.raises(ValueError, match=word):
        SmoothLeaky(**kw)


def test_bad_inputs():
    with pytest.raises(ValueError, match="lower"): RandomizedSmoothLeaky(0.5, 0.2)
    with pytest.raises(ValueError, match="upper"): RandomizedSmoothLeaky(0.1, 1.2)
    with pytest.raises(ValueError, match="p"): RandomizedSmoothLeaky(p=0)
    with pytest.raises(TypeError, match="per_element"): RandomizedSmoothLeaky(per_element=1)
    with pytest.raises(TypeError, match="alpha"): SmoothLeaky(alpha="0.1")
    with pytest.raises(TypeError, match="alpha"): SmoothLeaky(alpha=True)
    with pytest.raises(ValueError, match="name"): make_activation("Swishy")
    with pytest.raises(TypeError, match="name"): make_activation(3)
    with pytest.raises(TypeError, match="x"): smooth_leaky([1.0, 2.0])
    with pytest.raises(ValueError, match="H"): effective_rank(torch.zeros(3))
    with pytest.raises(ValueError, match="lo"): effective_negative_slope(torch.nn.ReLU(), lo=1.0)
    with pytest.raises(ValueError, match="hi"): dead_band_width(torch.nn.ReLU(), lo=1.0, hi=0.0)
    with pytest.raises(ValueError, match="width"): PlasticMLP(4, width=0)
    with pytest.raises(TypeError, match="depth"): PlasticMLP(4, depth=2.0)
    with pytest.raises(ValueError, match="tasks"): train_continual("ReLU", [])
    with pytest.raises(ValueError, match="lr"):
        train_continual("ReLU", random_label_tasks(torch.randn(8, 4), 1, 8), lr=0)
    with pytest.raises(ValueError, match="gamma"):
        stress_run("ReLU", -1.0, torch.randn(20, 4), torch.zeros(20, dtype=torch.long), 10)
    with pytest.raises(ValueError, match="classes_per_task"):
        class_incremental_tasks(torch.randn(20, 4), torch.zeros(20, dtype=torch.long), 10, 3)
    with pytest.raises(ValueError, match="returns"): plasticity_score({})
    with pytest.raises(ValueError, match="seeds x cycles x shifts"): plasticity_score({"a": np.zeros((2, 3))})


def test_diagnostics_values():
    assert dead_band_width(torch.nn.ReLU()) == pytest.approx(0.5, abs=1e-3)
    assert dead_band_width(SmoothLeaky()) == 0.0
    assert effective_negative_slope(torch.nn.LeakyReLU(0.3)) == pytest.approx(0.3)
    assert effective_negative_slope(torch.nn.ReLU()) == 0.0
    # mean of f' over [lo, 0) is (f(0) - f(lo)) / |lo|
    sl = SmoothLeaky(0.1)
    assert effective_negative_slope(sl, -5.0, 20000) == pytest.approx(float(-sl(torch.tensor(-5.0))) / 5, abs=1e-3)
    assert effective_rank(torch.eye(6)) == pytest.approx(6.0)
    assert effective_rank(torch.ones(10, 1) @ torch.randn(1, 5)) == pytest.approx(1.0, abs=1e-6)
    assert effective_rank(torch.zeros(4, 4)) == 0.0
    g = activation_grad(torch.nn.ReLU(), torch.tensor([-1.0, 2.0]))
    torch.testing.assert_close(g, torch.tensor([0.0, 1.0]))


def test_dead_units_are_detected():
    torch.manual_seed(0)
    m = PlasticMLP(4, 8, 3, 1, "ReLU")
    with torch.no_grad():
        m.layers[0].weight.zero_()
        m.layers[0].bias.fill_(-1.0)
        m.layers[0].bias[:2] = 1.0   # 6 of 8 units never active
    d = diagnose(m, torch.randn(50, 4))
    assert d["dead"] == pytest.approx(6 / 8) and d["saturated"] == pytest.approx(6 / 8)
    m2 = PlasticMLP(4, 8, 3, 1, "Smooth-Leaky")
    assert diagnose(m2, torch.randn(50, 4))["dead"] == 0.0


def test_tasks_and_training_smoke():
    torch.manual_seed(0)
    X = torch.randn(120, 6)
    y = torch.arange(120) % 10
    rl = random_label_tasks(X, 3, 40, seed=1)
    assert len(rl) == 3 and all(t["Xtr"].shape == (40, 6) for t in rl) and not torch.equal(rl[0]["ytr"], rl[1]["ytr"])
    pt = permuted_tasks(X, y, 3, 80)
    torch.testing.assert_close(pt[0]["Xtr"], X[:80])
    assert sorted(pt[1]["Xtr"][0].tolist()) == sorted(X[0].tolist())
    ci = class_incremental_tasks(X, y, 80, 5, 2)
    assert len(ci) == 4 and set(ci[1]["ytr"].tolist()) == {5, 6, 7, 8, 9}
    h = train_continual("Smooth-Leaky", rl, width=16, epochs=3, lr=1e-2, seed=0)
    assert len(h) == 3 and all(
        0 <= r["acc"] <= 1 and 0 <= r["dead"] <= r["saturated"] <= 1 and r["erank"] > 0 for r in h
    )
    h2 = train_continual("Smooth-Leaky", rl, width=16, epochs=3, lr=1e-2, seed=0)
    assert [r["acc"] for r in h] == [r["acc"] for r in h2]                    # seeded: reproducible
    s = stress_run("ReLU", 2.0, X, y, 80, events=1, warmup=10, stress_steps=5, recover_steps=10, eval_every=5, width=8)
    assert len(s["events"]) == 1 and 0 <= s["peak_sat"] <= 1 and 0 <= s["non_recovery"] <= 1


def test_plasticity_score():
    a = np.array([[[0.0, 10.0], [1.0, 20.0]]])     # 1 seed, 2 cycles, 2 shifts
    b = np.array([[[2.0, 0.0], [3.0, 10.0]]])
    s = plasticity_score({"a": a, "b": b})
    # shift 0: min 0, max 3 -> a final 1/3, b 1; shift 1: min 0, max 20 -> a 1, b 0.5
    assert s["a"] == pytest.approx((1 / 3 + 1) / 2) and s["b"] == pytest.approx(0.75)


def test_dynamics_shift_wrapper():
    gym = pytest.importorskip("gymnasium")
    pytest.importorskip("mujoco")
    env = DynamicsShift(gym.make("InvertedPendulum-v5"))
    m = env.unwrapped.model
    m0, g0, f0 = m.body_mass.copy(), m.opt.gravity.copy(), m.geom_friction.copy()
    env.set_shift(mass=2.0, friction=0.5, gravity=1.5)
    np.testing.assert_allclose(m.body_mass, 2 * m0)
    np.testing.assert_allclose(m.opt.gravity, 1.5 * g0)
    np.testing.assert_allclose(m.geom_friction[:, 0], 0.5 * f0[:, 0])
    np.testing.assert_allclose(m.geom_friction[:, 1:], f0[:, 1:])
    env.set_shift()
    np.testing.assert_allclose(m.body_mass, m0)
    with pytest.raises(ValueError, match="mass"): env.set_shift(mass=0.0)
    env.reset(seed=0)
    env.step(env.action_space.sample())
    env.close()


def test_fixed_mean_slope_is_deterministic_in_train_mode():
    m = RandomizedSmoothLeaky(0.1, 0.3, fixed_mean=True).train()
    x = torch.randn(2000)
    torch.testing.assert_close(m(x), m(x))
    torch.testing.assert_close(m(x), SmoothLeaky(0.2)(x))
    with pytest.raises(TypeError, match="fixed_mean"): RandomizedSmoothLeaky(fixed_mean=1)


def test_crelu_and_its_mlp():
    x = torch.tensor([[-2.0, 0.5], [1.0, -3.0]])
    torch.testing.assert_close(CReLU()(x), torch.tensor([[0.0, 0.5, 2.0, 0.0], [1.0, 0.0, 0.0, 3.0]]))
    m = PlasticMLP(6, 8, 3, 2, "CReLU")
    assert m.layers[1].in_features == 16 and m.head.in_features == 16 and m(torch.randn(5, 6)).shape == (5, 3)
    assert dead_band_width(CReLU()) < 1e-3                                  # |phi'| = 1 except at 0
    assert {"CELU", "SELU", "CReLU"} <= set(ACTIVATIONS)


def test_leaky_slope_is_a_parameter():
    for s in (0.01, 0.1, 0.3):
        assert effective_negative_slope(make_activation("Leaky-ReLU", negative_slope=s)) == pytest.approx(s, abs=1e-6)
    m = PlasticMLP(4, 8, 3, 2, "Leaky-ReLU", dict(negative_slope=0.3))
    assert all(a.negative_slope == 0.3 for a in m.acts)


def test_diagnose_works_on_any_module():
    torch.manual_seed(0)
    X = torch.randn(64, 16)
    seq = torch.nn.Sequential(
        torch.nn.Linear(16, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8), SmoothLeaky(), torch.nn.Linear(8, 2)
    )
    with torch.no_grad():
        seq[0].weight.zero_()
        seq[0].bias.fill_(-1.0)
        seq[0].bias[:2] = 1.0   # 6 of 8 ReLU units dead, SL units never
    d = diagnose(seq, X)
    assert (
        d["layers"] == 2
        and d["dead"] == pytest.approx((6 / 8 + 0) / 2)
        and d["saturated"] == pytest.approx((6 / 8) / 2)
    )
    feat = SmoothLeaky()(seq[2](seq[1](seq[0](X))))
    assert d["erank"] == pytest.approx(effective_rank(feat), rel=1e-6)
    conv = torch.nn.Sequential(
        torch.nn.Unflatten(1, (1, 4, 4)), torch.nn.Conv2d(1, 3, 2), torch.nn.GELU(), torch.nn.Flatten()
    )
    dc = diagnose(conv, X)
    assert dc["layers"] == 1 and 0 <= dc["saturated"] <= 1 and dc["erank"] > 0
    assert conv.training                                                     # mode restored
    only_sl = diagnose(seq, X, select=lambda n, m: isinstance(m, SmoothLeaky))
    assert only_sl["layers"] == 1 and only_sl["dead"] == 0.0
    with pytest.raises(ValueError, match="no activation modules"): diagnose(torch.nn.Linear(16, 2), X)
    with pytest.raises(TypeError, match="model"): diagnose("not a model", X)
    # the hooks are removed afterwards
    assert not any(m._forward_hooks for m in seq.modules())


def test_ppo_activation_fn():
    fn = ppo_activation_fn("Rand-Smooth-Leaky")
    m = fn().train()
    assert m.fixed_mean and m.slope(torch.zeros(3)) == pytest.approx((1 / 8 + 1 / 3) / 2)
    assert not ppo_activation_fn("Rand-Smooth-Leaky", rsl_mean_slope=False)().fixed_mean
    assert ppo_activation_fn("Leaky-ReLU", dict(negative_slope=0.1))().negative_slope == 0.1
    assert ppo_activation_fn("ReLU") is torch.nn.ReLU
    with pytest.raises(ValueError, match="act"): ppo_activation_fn("Swishy")
    with pytest.raises(ValueError, match="CReLU"): ppo_activation_fn("CReLU")


def test_ppo_logprob_gap_mean_slope_removes_the_mismatch():
    pytest.importorskip("stable_baselines3")
    gym = pytest.importorskip("gymnasium")
    from stable_baselines3 import PPO
    from iclr26.plasticity import ppo_logprob_gap
    models = {mean: PPO("MlpPolicy", gym.make("Pendulum-v1"), seed=0, device="cpu",
                        policy_kwargs=dict(activation_fn=ppo_activation_fn("Rand-Smooth-Leaky", rsl_mean_slope=mean)))
              for mean in (True, False)}
    assert ppo_logprob_gap(models[True]) < 1e-6                              # mean slope in rollout and update
    assert ppo_logprob_gap(models[False]) > 1e-6                             # random slopes in the update only
    assert ppo_logprob_gap(models[True], random_slopes=True) > 1e-6          # forced random for the measurement ...
    # ... then restored
    assert all(m.fixed_mean for m in models[True].policy.modules() if isinstance(m, RandomizedSmoothLeaky))


# ---- property tests for bad input (issue #60) ----
from hypothesis import given, settings, strategies as st  # noqa: E402

_bad_float = st.sampled_from([float("nan"), float("inf"), -float("inf")])


@settings(max_examples=20, deadline=None)
@given(alpha=st.one_of(st.floats(max_value=-1e-6, allow_nan=False), st.floats(min_value=1.000001, allow_infinity=False),
                       _bad_float))
def test_property_smooth_leaky_alpha_out_of_range(alpha):
    with pytest.raises((ValueError, TypeError), match="alpha"): SmoothLeaky(alpha)


@settings(max_examples=20, deadline=None)
@given(lo=st.floats(0.0, 1.0), gap=st.floats(1e-3, 1.0))
def test_property_randomized_range_reversed(lo, gap):
    hi = lo + gap
    if hi > 1.0: return
    with pytest.raises(ValueError, match="lower"): RandomizedSmoothLeaky(hi, lo)


@settings(max_examples=20, deadline=None)
@given(bad=_bad_float, n=st.integers(2, 6), d=st.integers(1, 4))
def test_property_effective_rank_non_finite(bad, n, d):
    H = torch.randn(n, d)
    H[0, 0] = bad
    with pytest.raises(ValueError, match="H must be finite"): effective_rank(H)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 6), extra=st.integers(1, 3), what=st.sampled_from(["len", "nan", "label", "dtype", "ndim"]))
def test_property_train_continual_bad_tasks(n, extra, what):
    X, y = torch.randn(n, 4), torch.randint(10, (n,))
    task = dict(Xtr=X, ytr=y)
    if what == "len": task["ytr"] = torch.randint(10, (n + extra,))
    if what == "nan": X[0, 1] = float("nan")
    if what == "label": task["ytr"] = y + 10 * extra
    if what == "dtype": task["ytr"] = y.float()
    if what == "ndim": task["Xtr"] = X.reshape(-1)
    with pytest.raises((ValueError, TypeError), match=r"tasks\[1\]"):
        train_continual("ReLU", [dict(Xtr=torch.randn(3, 4), ytr=torch.randint(10, (3,))), task], width=4, epochs=1)


@settings(max_examples=20, deadline=None)
@given(lr=st.one_of(st.floats(max_value=0.0, allow_nan=False), st.just(float("nan"))))
def test_property_train_continual_bad_lr(lr):
    with pytest.raises(ValueError, match="lr"):
        train_continual("ReLU", [dict(Xtr=torch.randn(3, 4), ytr=torch.randint(10, (3,)))], width=4, epochs=1, lr=lr)


@settings(max_examples=20, deadline=None)
@given(shape=st.sampled_from([(2,), (2, 3), (0, 2, 3), (1, 2, 3, 4)]), bad=_bad_float, shifts=st.integers(1, 3))
def test_property_plasticity_score_bad_returns(shape, bad, shifts):
    with pytest.raises(ValueError, match="returns"): plasticity_score({"a": np.zeros(shape)})
    a = np.zeros((1, 2, shifts))
    a[0, 0, 0] = bad
    with pytest.raises(ValueError, match="returns"): plasticity_score({"a": a})
    with pytest.raises(ValueError, match="returns"):
        plasticity_score({"a": np.zeros((1, 2, shifts)), "b": np.zeros((1, 2, shifts + 1))})


@settings(max_examples=20, deadline=None)
@given(n_tasks=st.integers(-2, 0), n_classes=st.integers(-1, 1))
def test_property_random_label_tasks_bad_sizes(n_tasks, n_classes):
    X = torch.randn(5, 3)
    with pytest.raises(ValueError, match="n_tasks"): random_label_tasks(X, n_tasks, 3)
    with pytest.raises(ValueError, match="n_samples"): random_label_tasks(X, 1, 6)
    with pytest.raises(ValueError, match="n_classes"): random_label_tasks(X, 1, 3, n_classes=n_classes)
    with pytest.raises(TypeError, match="X"): random_label_tasks(X.numpy(), 1, 3)


@pytest.mark.parametrize("make", [lambda: SmoothLeaky(), lambda: SmoothLeaky(0.3, 2.0, 7.0),
                                  lambda: RandomizedSmoothLeaky(), lambda: RandomizedSmoothLeaky(per_element=False),
                                  lambda: RandomizedSmoothLeaky(fixed_mean=True)])
def test_torchscript_matches_eager(make):
    m = make()
    s = torch.jit.script(m)
    x = torch.randn(4, 50)
    for training in (True, False):
        m.train(training)
        s.train(training)
        torch.manual_seed(3)
        want = m(x)
        torch.manual_seed(3)
        torch.testing.assert_close(s(x), want, rtol=0, atol=0)   # the same random slopes, the same function
    s.eval()
    alpha = m.alpha if isinstance(m, SmoothLeaky) else (m.lower + m.upper) / 2
    torch.testing.assert_close(s(x), smooth_leaky(x, alpha, m.p, m.c))
    net = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(50, 8), make(), torch.nn.Linear(8, 2)))
    assert net(x).shape == (4, 2)


def test_randomized_forward_uses_slope():
    m = RandomizedSmoothLeaky(0.1, 0.3).train()
    x = torch.randn(1000)
    torch.manual_seed(0)
    r = m.slope(x)
    torch.manual_seed(0)
    torch.testing.assert_close(m(x), smooth_leaky(x, r))
    m1 = RandomizedSmoothLeaky(0.1, 0.3, per_element=False).train()
    torch.manual_seed(1)
    r1 = m1.slope(x)
    torch.manual_seed(1)
    torch.testing.assert_close(m1(x), smooth_leaky(x, r1))


def _rl(n_tasks=4, n=48, seed=0):
    X = torch.randn(200, 12, generator=torch.Generator().manual_seed(seed))
    return random_label_tasks(X, n_tasks, n, seed=seed)


def test_remedies_reset_and_shrink_perturb():
    tasks = _rl()
    plain = train_continual("ReLU", tasks, width=16, epochs=2, lr=1e-2, seed=0)
    reset = train_continual("ReLU", tasks, width=16, epochs=2, lr=1e-2, seed=0, reset=True)
    assert plain[0]["acc"] == reset[0]["acc"]                      # task 1 is the same run
    assert len(reset) == len(tasks) and all(0 <= h["acc"] <= 1 for h in reset)
    sp = train_continual("ReLU", tasks, width=16, epochs=2, lr=1e-2, seed=0, shrink_perturb=(1.0, 0.0))
    assert [h["acc"] for h in sp] == [h["acc"] for h in plain]      # lam = 1, sigma = 0 changes nothing
    l2 = train_continual("ReLU", tasks, width=16, epochs=2, lr=1e-2, seed=0, l2_init=0.0)
    assert [h["acc"] for h in l2] == [h["acc"] for h in plain]


def test_l2_init_holds_weights_near_init():
    # a huge pull towards the initial weights keeps the network near chance on random labels
    tasks = _rl(n_tasks=2, n=64)
    free = train_continual("ReLU", tasks, width=32, epochs=20, lr=1e-2, seed=0)
    held = train_continual("ReLU", tasks, width=32, epochs=20, lr=1e-2, seed=0, l2_init=100.0)
    assert free[-1]["acc"] > held[-1]["acc"] + 0.2


def test_reset_oracle_fits_every_task():
    tasks = _rl(n_tasks=6, n=64)
    h = train_continual("ReLU", tasks, width=64, epochs=25, lr=1e-2, seed=0, reset=True)
    assert min(r["acc"] for r in h) >= 0.95


@pytest.mark.parametrize("kw,err,word", [(dict(l2_init=-1.0), ValueError, "l2_init"),
                                         (dict(l2_init="x"), TypeError, "l2_init"),
                                         (dict(shrink_perturb=0.5), TypeError, "shrink_perturb"),
                                         (dict(shrink_perturb=(1.5, 0.1)), ValueError, "shrink_perturb"),
                                         (dict(shrink_perturb=(0.5, -0.1)), ValueError, "shrink_perturb"),
                                         (dict(reset=1), TypeError, "reset")])
def test_bad_remedies(kw, err, word):
    with pytest.raises(err, match=word):
        train_continual("ReLU", _rl(n_tasks=1, n=8), width=4, epochs=1, **kw)
