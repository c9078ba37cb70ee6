"""Unit and bad-input tests of iclr26.rl: group sampling, rewards, advantages, losses, the stale sampler, GRPO, the trl
adapter."""
import math, sys

import pytest
import torch
import torch.nn.functional as F

from iclr26 import rl as R
from iclr26.tinylm import char_tokenizer, make_model, segment_allowed, causal_allowed


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # see conftest.py


@pytest.fixture(scope="module")
def tok():
    return char_tokenizer(alphabet="0123456789+=: ")


@pytest.fixture(scope="module")
def policy(tok):
    return make_model("llama-1L-64", tok, seed=0)


def digit_reward(prompts, completions, target, **kwargs):
    return [float(c[:1] == t) for c, t in zip(completions, target)]


DIGITS = [{"prompt": f"{d}:", "target": str(d)} for d in range(10)]


# ---------------------------------------------------------------- sampling and rewards
def test_sample_group_layout_logprobs_and_seed(policy, tok):
    ro = R.sample_group(policy, tok, DIGITS[:3], group_size=4, max_new_tokens=3, seed=5)
    assert len(ro) == 12 and ro.n_groups == 3 and ro.group_index.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    assert ro.prompts == [p for p in ("0:", "1:", "2:") for _ in range(4)] and ro.batch["target"] == [
        t for t in "012" for _ in range(4)
    ]
    assert ro.completion_ids.shape == ro.completion_mask.shape == ro.logprobs.shape
    assert (ro.logprobs[ro.completion_mask == 0] == 0).all() and (ro.logprobs[ro.completion_mask == 1] < 0).all()
    torch.testing.assert_close(R.completion_logprobs(policy, ro), ro.logprobs, atol=1e-5, rtol=0)
    # the completion mask stops right after the first eos
    for ids, m in zip(ro.completion_ids.tolist(), ro.completion_mask.tolist()):
        n = int(sum(m))
        assert m == [1.0] * n + [0.0] * (len(m) - n)
        assert tok.eos_token_id not in ids[:n - 1]
    again = R.sample_group(policy, tok, DIGITS[:3], group_size=4, max_new_tokens=3, seed=5)
    assert again.completions == ro.completions and torch.equal(again.completion_ids, ro.completion_ids)
    # temperature: log-probs are those of the tempered distribution
    hot = R.sample_group(policy, tok, ["3:"], group_size=2, max_new_tokens=2, temperature=2.0, seed=1)
    torch.testing.assert_close(R.completion_logprobs(policy, hot, temperature=2.0), hot.logprobs, atol=1e-5, rtol=0)


def test_sample_group_bad_input(policy, tok):
    with pytest.raises(ValueError, match="group_size"): R.sample_group(policy, tok, ["1:"], group_size=1)
    with pytest.raises(TypeError, match="group_size"): R.sample_group(policy, tok, ["1:"], group_size=2.0)
    with pytest.raises(TypeError, match="tokenizer"): R.sample_group(policy, None, ["1:"], group_size=2)
    with pytest.raises(ValueError, match="empty"): R.sample_group(policy, tok, [], group_size=2)
    with pytest.raises(TypeError, match="one string"): R.sample_group(policy, tok, "1:", group_size=2)
    with pytest.raises(TypeError, match="all be strings"):
        R.sample_group(policy, tok, ["1:", {"prompt": "2:"}], group_size=2)
    with pytest.raises(KeyError, match="prompt"): R.sample_group(policy, tok, [{"question": "2:"}], group_size=2)


def test_compute_rewards_weights_none_and_errors(policy, tok):
    ro = R.sample_group(policy, tok, DIGITS[:2], group_size=2, max_new_tokens=2, seed=0)
    seen = {}
    def spy(prompts, completions, completion_ids, target, **kw):
        seen.update(n=len(prompts), ids=completion_ids, target=target)
        return [1.0, None, 0.5, 2.0]
    total, per = R.compute_rewards([spy, lambda prompts, completions, **k: [1.0] * 4], ro, weights=[2.0, -1.0])
    assert seen["n"] == 4 and seen["target"] == ["0", "0", "1", "1"] and len(seen["ids"]) == 4
    assert torch.isnan(per[1, 0]) and total.tolist() == [1.0, -1.0, 0.0, 3.0]
    with pytest.raises(ValueError, match="returned 1 values"):
        R.compute_rewards(lambda prompts, completions, **k: [0.0], ro)
    with pytest.raises(ValueError, match="weights"): R.compute_rewards([spy], ro, weights=[1.0, 2.0])
    with pytest.raises(TypeError, match="callable"): R.compute_rewards(["not a function"], ro)


# ---------------------------------------------------------------- advantages
def test_group_advantages_and_zero_variance_mask():
    r = torch.tensor([1., 0., 0., 0.,  3., 3., 3., 3.,  2., 4., 6., 8.])
    a = R.group_advantages(r, 4, eps=0.0 + 1e-12)
    g = r.view(3, 4)
    expect = ((g - g.mean(1, keepdim=True)) / torch.sqrt(g.var(1, unbiased=False, keepdim=True) + 1e-12)).reshape(-1)
    expect[4:8] = 0.0
    torch.testing.assert_close(a, expect)
    assert R.group_advantages(r, 4, scale=False)[:4].tolist() == [0.75, -0.25, -0.25, -0.25]
    torch.testing.assert_close(R.group_advantages(r, 4, unbiased=True, eps=0)[8:], (g[2] - 5) / g[2].std())
    assert R.zero_variance_mask(r, 4).tolist() == [True] * 4 + [False] * 4 + [True] * 4
    assert R.zero_variance_mask([1.0, 1.0, 0.0, 0.0], 2).tolist() == [False] * 4
    for bad in (torch.ones(6), torch.ones(0)):
        with pytest.raises(ValueError, match="multiple"): R.group_advantages(bad, 4)
    with pytest.raises(ValueError, match="1-D"): R.group_advantages(torch.ones(2, 4), 4)
    with pytest.raises(ValueError, match="group_size"): R.zero_variance_mask(torch.ones(4), 1)


def test_token_advantages_process_supervision():
    # one reward at the end of each sequence == sequence-level whitening broadcast over the tokens
    r = torch.tensor([1., 0., 0.5, 0.25])
    cm = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]]).float()
    last = cm.cumsum(1).argmax(1)
    rm = F.one_hot(last, 4).bool()
    sr = torch.zeros(4, 4)
    sr[torch.arange(4), last] = r
    torch.testing.assert_close(R.token_advantages(sr, rm, cm, 4), R.expand_advantages(R.group_advantages(r, 4), cm))
    # two steps: token t gets the sum of the whitened step rewards ending at or after t
    sr = torch.tensor([[0., 1., 0., 2.], [0., 3., 0., 4.]])
    rm = torch.tensor([[0, 1, 0, 1], [0, 1, 0, 1]]).bool()
    cm = torch.ones(2, 4)
    vals = torch.tensor([1., 2., 3., 4.])
    z = (vals - 2.5) / torch.sqrt(vals.var(unbiased=False) + 1e-4)
    expect = torch.tensor([[z[0] + z[1], z[0] + z[1], z[1], z[1]], [z[2] + z[3], z[2] + z[3], z[3], z[3]]])
    torch.testing.assert_close(R.token_advantages(sr, rm, cm, 2), expect)
    with pytest.raises(ValueError, match="shape"): R.token_advantages(sr, rm[:, :3], cm, 2)
    with pytest.raises(ValueError, match="empty row"):
        R.token_advantages(sr, torch.zeros(2, 4, dtype=torch.bool), cm, 2)


# ---------------------------------------------------------------- losses
def _bandit(theta, arms, r_arm, **kw):
    theta = theta.clone().requires_grad_(True)
    logp = torch.log_softmax(theta, 0)[arms][:, None]
    A = R.group_advantages(r_arm[arms], len(arms))
    loss, st = R.policy_loss(logp, logp.detach(), A, torch.ones_like(logp), **kw)
    loss.backward()
    return theta.grad, A, st


@pytest.mark.parametrize("theta", [torch.zeros(3), torch.tensor([0.3, -0.2, 0.1])])
def test_bandit_gradient_is_analytic_and_has_the_policy_gradient_sign(theta):
    r_arm = torch.tensor([1.0, 0.0, 0.5])
    arms = torch.tensor([0, 1, 2, 0, 1, 2])
    g, A, st = _bandit(theta, arms, r_arm)
    pi = torch.softmax(theta, 0)
    torch.testing.assert_close(g, -(A[:, None] * (F.one_hot(arms, 3) - pi)).mean(0))
    assert g[0] < 0 and g[1] > 0                            # descent raises the best arm, lowers the worst
    if theta.abs().sum() == 0:
        assert (torch.sign(-g) == torch.sign(pi * (r_arm - pi @ r_arm))).all()
    assert st["ratio_mean"] == pytest.approx(1.0) and st["clip_frac"] == 0.0
    # all aggregations agree for one-token completions; sequence ratios equal token ratios there
    for kw in (
        dict(aggregation="token_mean"),
        dict(aggregation="fixed_length"),
        dict(ratio_level="sequence"),
        dict(ratio_level="sequence_geomean"),
    ):
        torch.testing.assert_close(_bandit(theta, arms, r_arm, **kw)[0], g)


def _grad(lp_val, old_val, adv, **kw):
    lp = torch.tensor([[math.log(lp_val)]], requires_grad=True)
    loss, st = R.policy_loss(lp, torch.tensor([[math.log(old_val)]]), torch.tensor([adv]), torch.ones(1, 1), **kw)
    loss.backward()
    return lp.grad.item(), st


def test_clip_and_clip_centre():
    assert _grad(0.6, 0.4, 1.0)[0] == 0.0                    # rho = 1.5 > 1.2 with A > 0: clipped
    assert _grad(0.6, 0.4, -1.0)[0] != 0.0                   # ... but A < 0 keeps the (pessimistic) unclipped term
    assert _grad(0.3, 0.4, -1.0)[0] == 0.0                   # rho = 0.75 < 0.8 with A < 0: clipped
    assert _grad(0.6, 0.4, 1.0, eps_high=0.6)[0] != 0.0      # a higher upper clip (DAPO's clip-higher)
    centre = torch.tensor([[math.log(0.6)]])                 # rho' = pi_k / alpha = 1.5: trust region [1.3, 1.7]
    g, st = _grad(0.6, 0.4, 1.0, centre_logp=centre)
    assert g != 0.0 and st["clip_frac"] == 0.0
    assert _grad(0.75, 0.4, 1.0, centre_logp=centre)[0] == 0.0   # rho = 1.875 > 1.7
    rho = torch.linspace(0, 3, 31)
    f = R.clip_objective(rho, torch.tensor(1.0), 0.2, None, 1.5)
    torch.testing.assert_close(f, torch.minimum(rho, rho.clamp(1.3, 1.7)))
    torch.testing.assert_close(
        R.clip_objective(rho, torch.tensor(1.0), 0.2, None, 0.1), torch.minimum(rho, rho.clamp(0.0, 0.3))
    )


def test_aggregations_kl_and_zero_variance_keep():
    logp = torch.tensor([[-1.0, -2.0, 0.0], [-0.5, 0.0, 0.0]], requires_grad=True)
    mask = torch.tensor([[1., 1., 0.], [1., 0., 0.]])
    A = torch.tensor([1.0, -2.0])
    # on-policy (ratio 1): the objective is A on every unmasked token
    for agg, J in (
        ("sequence_mean", (1.0 + -2.0) / 2),
        ("token_mean", (2.0 - 2.0) / 3),
        ("fixed_length", (2.0 - 2.0) / (2 * 3)),
    ):
        loss, _ = R.policy_loss(logp, logp.detach(), A, mask, aggregation=agg)
        assert loss.item() == pytest.approx(-J)
    ref = logp.detach() + 0.3
    assert (R.k3_kl(logp, ref) >= 0).all() and R.k3_kl(logp, logp).abs().max() == 0
    _, st = R.policy_loss(logp, logp.detach(), A, mask, ref_logp=ref, beta=0.1)
    assert st["kl"] == pytest.approx(math.exp(0.3) - 1.3, rel=1e-5)
    # keep=False removes a row from the surrogate, the KL and the normaliser
    loss_keep, st = R.policy_loss(
        logp, logp.detach(), A, mask, ref_logp=ref, beta=0.1, keep=torch.tensor([True, False])
    )
    loss_one, _ = R.policy_loss(logp[:1], logp[:1].detach(), A[:1], mask[:1], ref_logp=ref[:1], beta=0.1)
    assert loss_keep.item() == pytest.approx(loss_one.item()) and st["kept_frac"] == 0.5
    loss_keep.backward()
    assert logp.grad[1].abs().sum() == 0 and logp.grad[0].abs().sum() > 0
    # everything masked: a zero loss that still backpropagates
    l0, st0 = R.policy_loss(logp, logp.detach(), A, mask, keep=torch.tensor([False, False]))
    assert l0.item() == 0.0 and st0["tokens"] == 0


def test_policy_loss_bad_input():
    lp = torch.zeros(2, 3)
    m = torch.ones(2, 3)
    A = torch.zeros(2)
    cases = [
        (dict(old_logp=torch.zeros(2, 2)), "old_logp"),
        (dict(advantages=torch.zeros(3)), "advantages"),
        (dict(mask=torch.ones(3, 3)), "mask"),
        (dict(beta=0.1), "ref_logp"),
        (dict(ratio_level="word"), "ratio_level"),
        (dict(aggregation="median"), "aggregation"),
        (dict(keep=torch.ones(3, dtype=torch.bool)), "keep"),
        (dict(advantages=torch.zeros(2, 3), ratio_level="sequence"), "sequence-level"),
        (dict(beta=-1.0), "beta"),
    ]
    for kw, msg in cases:
        args = dict(logp=lp, old_logp=lp, advantages=A, mask=m)
        args.update(kw)
        with pytest.raises(ValueError, match=msg):
            R.policy_loss(args.pop("logp"), args.pop("old_logp"), args.pop("advantages"), args.pop("mask"), **args)


# ---------------------------------------------------------------- stale sampler, masked forward
def test_stale_sampler_schedule(tok):
    pol = make_model("llama-1L-64", tok, seed=2)
    s = R.StaleSampler(pol, sync_every=2)
    assert s.model is not pol and not any(p.requires_grad for p in s.model.parameters())
    out = []
    for _ in range(5):
        out.append((s.maybe_sync(), s.staleness))
        with torch.no_grad(): pol.model.norm.weight.add_(1.0)
    assert out == [(True, 0), (False, 1), (True, 0), (False, 1), (True, 0)]
    torch.testing.assert_close(s.model.model.norm.weight + 1.0, pol.model.norm.weight)
    assert R.StaleSampler(pol, 1).model is pol
    with pytest.raises(ValueError, match="sync_every"): R.StaleSampler(pol, 0)
    with pytest.raises(TypeError, match="policy"): R.StaleSampler("model")


def test_masked_sequence_logprobs_equal_plain(policy, tok):
    a = torch.tensor([tok("12+3=15")["input_ids"]])
    b = torch.tensor([tok("4:4")["input_ids"]])
    seg = torch.tensor([[0] * a.shape[1] + [1] * b.shape[1]])
    pos = torch.cat([torch.arange(a.shape[1]), torch.arange(b.shape[1])])[None]
    with torch.no_grad():
        packed = R.sequence_logprobs(policy, torch.cat([a, b], 1), allowed=segment_allowed(seg), position_ids=pos)
        torch.testing.assert_close(packed[:, :a.shape[1] - 1], R.sequence_logprobs(policy, a), atol=1e-5, rtol=0)
        torch.testing.assert_close(packed[:, a.shape[1]:], R.sequence_logprobs(policy, b), atol=1e-5, rtol=0)
        torch.testing.assert_close(
            R.sequence_logprobs(policy, a, allowed=causal_allowed(torch.ones_like(a))),
            R.sequence_logprobs(policy, a),
            atol=1e-5,
            rtol=0,
        )
    with pytest.raises(ValueError, match="temperature"): R.sequence_logprobs(policy, a, temperature=0)


# ---------------------------------------------------------------- the loop
def test_grpo_learns_the_digit_task(tok):
    pol = make_model("llama-1L-64", tok, seed=0)
    task = DIGITS[:5]
    res = R.grpo_train(
        pol,
        tok,
        task,
        digit_reward,
        iterations=50,
        group_size=16,
        prompts_per_step=5,
        max_new_tokens=2,
        lr=5e-3,
        seed=0,
    )
    ev = R.evaluate_policy(pol, tok, task, digit_reward, n_samples=16, max_new_tokens=2, seed=1)
    assert res.curve()[:3].mean() < 0.3 and ev["sampled"] >= 0.9 and ev["greedy"] >= 0.9, (res.curve(), ev)


def test_grpo_off_policy_path_runs(tok):
    pol = make_model("llama-1L-64", tok, seed=0)
    seen = []
    res = R.grpo_train(
        pol,
        tok,
        DIGITS,
        digit_reward,
        iterations=5,
        group_size=4,
        prompts_per_step=3,
        max_new_tokens=2,
        lr=1e-3,
        sync_every=3,
        inner_steps=2,
        clip_centre="pi_k",
        beta=0.05,
        mask_zero_variance=True,
        aggregation="token_mean",
        callback=lambda k, row: seen.append(k),
    )
    assert seen == [0, 1, 2, 3, 4] and [h["staleness"] for h in res.history] == [0, 1, 2, 0, 1]
    assert [h["synced"] for h in res.history] == [True, False, False, True, False] and res.history[-1]["samples"] == 60
    # a custom advantage function (token level) and callable prompts
    res = R.grpo_train(
        pol,
        tok,
        lambda k, g: DIGITS[k % 10 : k % 10 + 2],
        digit_reward,
        iterations=2,
        group_size=2,
        max_new_tokens=2,
        lr=1e-3,
        advantage_fn=lambda ro, r: R.expand_advantages(R.group_advantages(r, 2), ro.completion_mask),
    )
    assert len(res.history) == 2


def test_rl_config_checks(policy, tok):
    for kw, msg in (
        (dict(group_size=1), "group_size"),
        (dict(inner_steps=0), "inner_steps"),
        (dict(clip_centre="alpha"), "clip_centre"),
        (dict(lr=0), "lr"),
        (dict(ratio_level="x"), "ratio_level"),
        (dict(temperature=0), "temperature"),
    ):
        with pytest.raises(ValueError, match=msg): R.RLConfig(**kw)
    with pytest.raises(TypeError, match=r"unknown RLConfig setting\(s\) \[.iterationz.\]"):
        R.grpo_train(policy, tok, DIGITS, digit_reward, iterationz=3)
    with pytest.raises(ValueError, match="empty"): R.grpo_train(policy, tok, [], digit_reward)
    with pytest.raises(TypeError, match="tokenizer"): R.grpo_train(policy, None, DIGITS, digit_reward)


# ---------------------------------------------------------------- trl adapter
def test_to_trl_without_trl_raises_clearly(monkeypatch):
    monkeypatch.setitem(sys.modules, "trl", None)            # makes `import trl` fail
    with pytest.raises(ImportError, match="pip install trl"): R.to_trl(R.RLConfig(), "/tmp/out", digit_reward)
    with pytest.raises(TypeError, match="RLConfig"): R.to_trl({"group_size": 8}, "/tmp/out", digit_reward)


def test_to_trl_builds_a_grpo_config(tmp_path):
    trl = pytest.importorskip("trl")
    c = R.RLConfig(
        group_size=4,
        prompts_per_step=2,
        max_new_tokens=32,
        inner_steps=3,
        iterations=10,
        lr=2e-6,
        beta=0.04,
        eps_low=0.2,
        eps_high=0.28,
        aggregation="token_mean",
        ratio_level="sequence_geomean",
        scale_rewards=False,
    )
    tc, funcs = R.to_trl(c, str(tmp_path), [digit_reward], reward_weights=[1.0], use_cpu=True)
    assert isinstance(tc, trl.GRPOConfig) and funcs == [digit_reward]
    assert (tc.num_generations, tc.per_device_train_batch_size, tc.max_completion_length, tc.num_iterations) == (
        4,
        8,
        32,
        3,
    )
    assert (tc.learning_rate, tc.beta, tc.epsilon, tc.epsilon_high, tc.max_steps) == (2e-6, 0.04, 0.2, 0.28, 30)
    assert (tc.loss_type, tc.importance_sampling_level, tc.scale_rewards) == ("bnpo", "sequence", "none")
    off, _ = R.to_trl(R.RLConfig(sync_every=4, clip_centre="pi_k"), str(tmp_path), digit_reward, use_cpu=True)
    assert (off.steps_per_generation, off.epsilon, off.epsilon_high, off.adam_beta2) == (4, 1.0, 1e6, 0.99)
    with pytest.raises(ValueError, match="do not compose"):
        R.to_trl(R.RLConfig(sync_every=4, inner_steps=2), str(tmp_path), digit_reward)
    with pytest.raises(ValueError, match="zero-variance"):
        R.to_trl(R.RLConfig(mask_zero_variance=True), str(tmp_path), digit_reward)
    with pytest.warns(UserWarning, match="pi_k"):
        tc, _ = R.to_trl(
            R.RLConfig(inner_steps=2, clip_centre="pi_k"), str(tmp_path), digit_reward, strict=False, use_cpu=True
        )
    assert tc.num_generations == 8


def _trl_python():
    "The Python of `.venv-trl` (`make trl`), or $ICLR26_TRL_PYTHON; None when absent."
    import os
    from pathlib import Path
    p = Path(
        os.environ.get("ICLR26_TRL_PYTHON") or Path(__file__).resolve().parents[1] / ".venv-trl" / "bin" / "python"
    )
    return p if p.exists() else None


@pytest.mark.slow
@pytest.mark.skipif(_trl_python() is None and not __import__("os").environ.get("ICLR26_REQUIRE_TRL"),
                    reason="no .venv-trl (make trl builds it; make test does, and requires it)")
def test_trl_grpo_trainer_runs_a_to_trl_config_on_a_zoo_model(tmp_path):
    """In .venv-trl: to_trl's mapping on trl itself, and trl.GRPOTrainer trains the zoo draft for 3 steps with
    the v = 2 stale sampler (generation every 2nd step) and a reward in this module's signature (tests/trl_check.py)."""
    import json, os, subprocess
    from pathlib import Path
    py = _trl_python()
    assert py is not None, "make test requires .venv-trl (make trl)"
    root = Path(__file__).resolve().parents[1]
    env = os.environ | {"PYTHONPATH": str(root), "OMP_NUM_THREADS": "1"}
    r = subprocess.run([str(py), str(root / "tests" / "trl_check.py"), str(tmp_path)], capture_output=True, text=True,
                       env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["trl"] == "1.16.0" and out["steps"] == 3
    assert out["logged"] == 2, "a fresh generation every steps_per_generation = 2 steps: at steps 1 and 3"
    assert all(0.0 <= x <= 1.0 for x in out["rewards"]) and "rewards/first_digit_reward/mean" in out["keys"]


# ---- property tests for bad input (issue #60): a ValueError/TypeError naming the argument, never a silent result ----
from hypothesis import given, settings, strategies as st  # noqa: E402
import iclr26.rl as _rl  # noqa: E402

_BAD = st.sampled_from([float("nan"), float("inf"), float("-inf")])


@settings(max_examples=20, deadline=None)
@given(g=st.integers(2, 5), k=st.integers(1, 4), r=st.integers(1, 4), bad=_BAD, eps=st.floats(-3, -1e-9))
def test_prop_group_advantages_reject_bad_rewards(g, k, r, bad, eps):
    rew = torch.rand(g * k)
    if r % g:
        with pytest.raises(ValueError, match="group_size"):
            _rl.group_advantages(torch.rand(g * k + r), g)
    rb = rew.clone()
    rb[0] = bad
    with pytest.raises(ValueError, match="rewards must be finite"):
        _rl.group_advantages(rb, g)
    with pytest.raises(ValueError, match="rewards must be finite"):
        _rl.zero_variance_mask(rb, g)
    with pytest.raises(ValueError, match="eps"):
        _rl.group_advantages(rew, g, eps=eps)
    with pytest.raises(ValueError, match="group_size"):
        _rl.group_advantages(rew, 1 - g)
    with pytest.raises(ValueError, match="rewards has 0 entries"):
        _rl.group_advantages([], g)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 4), t=st.integers(1, 5), d=st.integers(1, 3), e=st.floats(-2, -1e-6))
def test_prop_losses_reject_mismatched_shapes_and_bad_clips(n, t, d, e):
    with pytest.raises(ValueError, match="ref_logp"):
        _rl.k3_kl(torch.zeros(n, t), torch.zeros(n, t + d))
    with pytest.raises(ValueError, match="advantages"):
        _rl.clip_objective(torch.ones(n, t + 1), torch.ones(n, t + 1 + d))
    with pytest.raises(ValueError, match="eps_low"):
        _rl.clip_objective(torch.ones(n, t), torch.ones(n, t), eps_low=e)
    with pytest.raises(ValueError, match="eps_high"):
        _rl.clip_objective(torch.ones(n, t), torch.ones(n, t), eps_high=e)
    with pytest.raises(ValueError, match="advantages"):
        _rl.expand_advantages(torch.ones(n + d), torch.ones(n, t))


@settings(max_examples=20, deadline=None)
@given(lr=st.one_of(st.floats(-1, 0), st.just(float("nan"))), temp=st.floats(-1, 0), gs=st.integers(-3, 0),
       beta=st.one_of(st.floats(-3, -1e-9), st.just(float("nan"))))
def test_prop_rlconfig_rejects_out_of_range(lr, temp, gs, beta):
    for kw, name in ((dict(lr=lr), "lr"), (dict(temperature=temp), "temperature"), (dict(group_size=gs), "group_size"),
                     (dict(beta=beta), "beta")):
        with pytest.raises(ValueError, match=name):
            _rl.RLConfig(**kw)
