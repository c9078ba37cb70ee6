"Unit and bad-input tests of iclr26.offpolicy_grpo (paper 18: off-policy GRPO)."
import math

import pytest
import torch

from iclr26.offpolicy_grpo import (VARIANTS, addition_split, check_bound_on_bandits, improvement_bound,
                                   offpolicy_clip_objective, offpolicy_config, random_bandits, sync_schedule,
                                   tv_distance)
from iclr26.rl import StaleSampler, group_advantages, zero_variance_mask


def test_clip_objective_hand_values():
    eps = 0.2
    rho = torch.tensor([2.0, 2.0, 0.05, 0.5, 1.1, 0.7, 0.9])
    rho_k = torch.tensor([1.5, 1.5, 0.1, 0.1, 1.0, 1.0, 1.0])
    adv = torch.tensor([1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 2.0])
    # clip(2, 1.3, 1.7) = 1.7; min(-2, -1.7) = -2; lower edge max(0.1-0.2, 0) = 0 -> clip(0.05) = 0.05;
    # clip(0.5, 0, 0.3) = 0.3; on-policy centre 1: clip(1.1, .8, 1.2) = 1.1; min(-0.7, -0.8) = -0.8; min(1.8, 1.8) = 1.8
    want = torch.tensor([1.7, -2.0, -0.05, 0.3, 1.1, -0.8, 1.8])
    torch.testing.assert_close(offpolicy_clip_objective(rho, rho_k, adv, eps), want)


def test_clip_objective_negative_lower_edge_and_gradient():
    # rho' - eps < 0: the lower edge is 0, so a ratio near 0 with a negative advantage is never clipped
    r = torch.tensor([0.01, 0.3], requires_grad=True)
    out = offpolicy_clip_objective(r, torch.tensor([0.05, 0.05]), torch.tensor([-1.0, 1.0]), 0.2)
    torch.testing.assert_close(out.detach(), torch.tensor([-0.01, 0.25]))
    out.sum().backward()
    torch.testing.assert_close(r.grad, torch.tensor([-1.0, 0.0]))   # clipped above 0.25 -> no gradient


def test_clip_objective_scalar_centre_is_ppo():
    rho = torch.linspace(0, 3, 31)
    a = torch.ones(31)
    torch.testing.assert_close(offpolicy_clip_objective(rho, 1.0, a, 0.2), torch.minimum(rho, rho.clamp(0.8, 1.2)))


def test_zero_variance_advantages():
    r = torch.tensor([1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    adv = group_advantages(r, 4)
    torch.testing.assert_close(adv[:4], torch.zeros(4))                       # constant group: zero advantage, no NaN
    assert torch.isfinite(adv).all()
    torch.testing.assert_close(adv[4:], torch.tensor([-1.0, 1.0, -1.0, 1.0]) * 0.5 / math.sqrt(0.25 + 1e-4))
    assert zero_variance_mask(r, 4).tolist() == [False] * 4 + [True] * 4


def test_sync_schedule_every_v():
    for v in (1, 2, 3, 4, 16):
        s = sync_schedule(40, v)
        assert [k for k, x in enumerate(s) if x] == list(range(0, 40, v))


def test_sampler_weights_change_exactly_every_v():
    pol = torch.nn.Linear(2, 1, bias=False)
    v, seen = 3, []
    smp = StaleSampler(pol, v)
    for k in range(10):
        smp.maybe_sync()
        seen.append(smp.model.weight.detach().clone())
        with torch.no_grad(): pol.weight.add_(1.0)                            # an optimisation step
    changed = [k for k in range(1, 10) if not torch.equal(seen[k], seen[k - 1])]
    assert changed == [3, 6, 9]


def test_bound_holds_on_bandits():
    out = check_bound_on_bandits(3000, n_actions=5, seed=3)
    assert out["violations"] == 0 and out["min_slack"] >= -1e-12


def test_bound_hand_case_and_on_policy():
    pi, pk, al, r = (
        torch.tensor([0.6, 0.4]),
        torch.tensor([0.5, 0.5]),
        torch.tensor([0.5, 0.5]),
        torch.tensor([1.0, 0.0]),
    )
    b = improvement_bound(pi, pk, al, r)
    s = math.sqrt(0.25 + 1e-4)
    assert b["gain"].item() == pytest.approx(0.1)
    assert b["surrogate"].item() == pytest.approx(0.1 / s)
    assert b["tv_pik_alpha"].item() == pytest.approx(0.0)
    assert b["bound"].item() == pytest.approx(0.1 / s - 2 * (1 - s) / s * 0.1)
    d = random_bandits(10, 4, seed=1)
    assert tv_distance(d["pi"], d["pi"]).abs().max().item() == 0


@pytest.mark.parametrize("bad", [0, -1, 0.5, True, "4"])
def test_bad_sync_period(bad):
    with pytest.raises(ValueError, match="v"):
        sync_schedule(5, bad)
    with pytest.raises(ValueError, match="v"):
        offpolicy_config(v=bad)


@pytest.mark.parametrize("bad", [0, 0.0, -0.1])
def test_bad_eps(bad):
    with pytest.raises(ValueError, match="eps"):
        offpolicy_clip_objective(torch.ones(3), 1.0, torch.ones(3), bad)
    with pytest.raises(ValueError, match="eps"):
        offpolicy_config(v=2, eps=bad)
    with pytest.raises(ValueError, match="eps"):
        improvement_bound(
            torch.tensor([0.5, 0.5]),
            torch.tensor([0.5, 0.5]),
            torch.tensor([0.5, 0.5]),
            torch.tensor([1.0, 0.0]),
            eps=bad,
        )


def test_bad_inputs():
    with pytest.raises(ValueError, match="i "):
        offpolicy_config(v=1, i=0)
    with pytest.raises(TypeError, match="ratio"):
        offpolicy_clip_objective([1.0], 1.0, torch.ones(1))
    with pytest.raises(ValueError, match="probability"):
        tv_distance(torch.tensor([0.7, 0.7]), torch.tensor([0.5, 0.5]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        improvement_bound(
            torch.tensor([0.5, 0.5]), torch.tensor([0.5, 0.5]), torch.tensor([0.5, 0.5]), torch.tensor([1.5, 0.0])
        )
    with pytest.raises(ValueError, match="n_test"):
        addition_split(4, 20, 10)


def test_variants_and_split():
    assert len(VARIANTS) == 8
    cfgs = {n: offpolicy_config(**kw) for n, kw in VARIANTS.items()}
    c4 = cfgs["off-policy v=4"]
    assert (c4.sync_every, c4.inner_steps, c4.clip_centre) == (4, 2, "pi_k")
    # the paired comparison differs only in the sync period (on-policy's centre 1 is π_k/α when α = π_k)
    assert (cfgs["on-policy"].sync_every, cfgs["on-policy"].inner_steps) == (1, 2)
    assert cfgs["off-policy v=4, i=1"].inner_steps == 1
    assert cfgs["off-policy v=4, centre 1 (trl)"].clip_centre == "one"
    assert cfgs["on-policy + mask"].mask_zero_variance
    sp = addition_split(9, 20, 10, seed=0)
    assert len(sp["train"]) == 70
    prompts = [r["prompt"] for s in sp.values() for r in s]
    assert len(set(prompts)) == 100


def test_paired_ci_hand_values_and_bad_input():
    from iclr26.offpolicy_grpo import paired_ci
    c = paired_ci([3.0, 5.0, 4.0], [1.0, 2.0, 3.0])
    assert c["diffs"] == [2.0, 3.0, 1.0] and c["mean"] == pytest.approx(2.0)
    assert c["hi"] - c["mean"] == pytest.approx(4.302652729911275 / math.sqrt(3))   # t_{0.975,2} * sd(=1) / sqrt(3)
    assert c["lo"] == pytest.approx(2 * c["mean"] - c["hi"])
    assert math.isnan(paired_ci([1.0], [0.0])["lo"])
    with pytest.raises(ValueError, match="one length"): paired_ci([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="level"): paired_ci([1.0, 2.0], [1.0, 2.0], level=1.5)


def test_fixed_step_sft_is_deterministic_under_a_seed():
    from iclr26.offpolicy_grpo import sft_warm_start
    torch.set_num_threads(1)
    split = addition_split(6, 10, 5, seed=0)
    (m1, _, i1), (m2, _, i2) = (sft_warm_start(split, steps=6, base="draft", seed=3, cache=False) for _ in range(2))
    assert i1["sft_steps"] == i2["sft_steps"] == 6
    s1, s2 = m1.state_dict(), m2.state_dict()
    assert all(torch.equal(s1[k], s2[k]) for k in s1)
    m3, _, _ = sft_warm_start(split, steps=6, base="draft", seed=4, cache=False)
    assert not all(torch.equal(s1[k], m3.state_dict()[k]) for k in s1)       # the seed matters


def test_sft_warm_start_bad_input():
    from iclr26.offpolicy_grpo import sft_warm_start
    split = addition_split(6, 10, 5, seed=0)
    with pytest.raises(ValueError, match="steps"): sft_warm_start(split, steps=0, cache=False)
    with pytest.raises(ValueError): sft_warm_start(split, steps=2, base="no-such-model", cache=False)
    with pytest.raises(ValueError, match="n_sft"): sft_warm_start(split, steps=2, n_sft=0, cache=False)
    with pytest.raises(ValueError, match="n_sft"): sft_warm_start(split, steps=2, n_sft=10_000, cache=False)
    with pytest.raises(ValueError, match="schedule"): sft_warm_start(split, steps=2, schedule="linear", cache=False)
    with pytest.raises(ValueError, match="eval_every"): sft_warm_start(split, steps=2, eval_every=-1, cache=False)


def test_sft_warm_start_curve_and_subset():
    from iclr26.offpolicy_grpo import sft_warm_start
    torch.set_num_threads(1)
    split = addition_split(6, 10, 5, seed=0)
    _, _, info = sft_warm_start(split, steps=6, base="draft", seed=0, cache=False, n_sft=12, eval_every=2)
    assert info["n_sft"] == 12 and [e["step"] for e in info["curve"]] == [2, 4, 6]
    assert all(0 <= e["val_exact_match"] <= 1 and e["val_answer_loss"] > 0 for e in info["curve"])
    assert info["final_lr"] == pytest.approx(3e-4)                       # cosine 3e-3 -> 3e-4


def _parity_reward(prompts, completions, **kw):
    "A reward that varies within a group (the completion's length parity), so the advantages are not all zero."
    return [float(len(c) % 2) for c in completions]


def _tiny_run(v, i, lr, iterations=4):
    from iclr26 import zoo
    from iclr26.offpolicy_grpo import train_variant
    torch.set_num_threads(1)
    torch.manual_seed(0)
    m, tok = zoo.load("draft")
    sp = addition_split(6, 10, 5, seed=0)
    rl = offpolicy_config(v=v, i=i, iterations=iterations, group_size=4, prompts_per_step=4, max_new_tokens=3, lr=lr)
    return train_variant(m, tok, sp["train"], sp["test"], rl, eval_every=0, max_new_tokens_eval=3,
                         reward=_parity_reward)


def test_clip_never_binds_with_one_step_per_batch():
    # i = 1: the policy being differentiated is π_k, so ρ = ρ′ and the π_k/α clip cannot bind, whatever the drift
    r = _tiny_run(v=4, i=1, lr=3e-2)
    assert r.curve("clip_frac").max() == 0.0
    assert r.curve("kl_drift")[1:].max() > 0                            # α is stale after the first iteration
    assert (r.curve("kl_post") >= -1e-9).all() and r.curve("kl_post").max() > 0
    assert r.syncs == 1


def test_clip_binds_with_two_steps_per_batch():
    r = _tiny_run(v=4, i=2, lr=3e-2)
    assert r.curve("clip_frac").max() > 0          # step 2 moves ρ away from ρ′ by more than ε
    on = _tiny_run(v=1, i=2, lr=3e-2, iterations=2)
    assert on.curve("kl_drift").max() == 0.0 and on.curve("kl_post").max() > 0


# ---- property tests for bad input (issue #60) ----
from hypothesis import given, settings, strategies as st  # noqa: E402

from iclr26.offpolicy_grpo import paired_ci  # noqa: E402

_bad = st.sampled_from([float("nan"), float("inf"), -float("inf")])


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 5), bad=_bad, where=st.sampled_from(["ratio", "ratio_k", "advantages"]))
def test_property_clip_objective_non_finite(n, bad, where):
    kw = dict(ratio=torch.ones(n), ratio_k=torch.ones(n), advantages=torch.ones(n))
    kw[where] = kw[where].clone()
    kw[where][0] = bad
    with pytest.raises(ValueError, match=where):
        offpolicy_clip_objective(kw["ratio"], kw["ratio_k"], kw["advantages"])


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 4), extra=st.integers(1, 3), where=st.sampled_from(["ratio_k", "advantages"]))
def test_property_clip_objective_mismatched_shapes(n, extra, where):
    kw = dict(ratio_k=torch.ones(n), advantages=torch.ones(n))
    kw[where] = torch.ones(n + extra)
    with pytest.raises(ValueError, match=where):
        offpolicy_clip_objective(torch.ones(n), kw["ratio_k"], kw["advantages"])
    with pytest.raises(TypeError, match="ratio"): offpolicy_clip_objective(torch.ones(n, dtype=torch.long), 1.0,
                                                                          torch.ones(n))


@settings(max_examples=20, deadline=None)
@given(eps=st.one_of(st.floats(max_value=0.0, allow_nan=False), st.just(float("nan")), st.just(True)))
def test_property_clip_objective_bad_eps(eps):
    with pytest.raises(ValueError, match="eps"): offpolicy_clip_objective(torch.ones(2), 1.0, torch.ones(2), eps=eps)


@settings(max_examples=20, deadline=None)
@given(k=st.integers(2, 5), n=st.integers(1, 3), bad=_bad)
def test_property_tv_distance_bad_input(k, n, bad):
    p = torch.full((n, k), 1.0 / k)
    with pytest.raises(ValueError, match="p and q"): tv_distance(p, torch.full((n, k + 1), 1.0 / (k + 1)))
    q = p.clone()
    q[0, 0] = bad
    with pytest.raises(ValueError, match="q must"): tv_distance(p, q)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 5), extra=st.integers(1, 3), bad=_bad, level=st.sampled_from([0.0, 1.0, -0.5, 2.0]))
def test_property_paired_ci_bad_input(n, extra, bad, level):
    with pytest.raises(ValueError, match="a and b"): paired_ci([0.0] * n, [0.0] * (n + extra))
    with pytest.raises(ValueError, match="a and b"): paired_ci([bad] + [0.0] * n, [0.0] * (n + 1))
    with pytest.raises(ValueError, match="level"): paired_ci([0.0] * n, [1.0] * n, level=level)


@settings(max_examples=20, deadline=None)
@given(v=st.one_of(st.integers(-3, 0), st.just(True), st.just(2.0)), i=st.integers(-3, 0))
def test_property_offpolicy_config_bad_knobs(v, i):
    with pytest.raises(ValueError, match="v"): offpolicy_config(v=v)
    with pytest.raises(ValueError, match="i"): offpolicy_config(i=i)
