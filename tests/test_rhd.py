"Unit and bad-input tests of iclr26.rhd (Reasoning Score, RHD, GRPO-R)."
import math
import numpy as np
import pytest
import torch

from iclr26.rhd import (LN2, RHD, GRPORAdvantage, _encode_pair, analyze_batch, analyze_trace, auc_se, batch_embeddings,
                        chain_records, crossfit_auc, decoder_parts, eigenscore, error_confidence, fast_auc,
                        first_wrong_step, grpo_r_advantages, jsd, late_layers, lens_token_stats, logit_lens,
                        misled_steps, paired_auc_diff, paired_ci, sample_embeddings, shaped_step_rewards,
                        shaping_potential, shaping_to_go, step_spans, token_reasoning_scores, well_formed,
                        within_pool_auc)
from iclr26.rl import expand_advantages, group_advantages
from iclr26.tinylm import char_tokenizer, make_model


@pytest.fixture(scope="module")
def tiny():
    tok = char_tokenizer(alphabet="0123456789+-=\n note")
    return make_model("llama-4L-32", tok, seed=0, attn="eager"), tok


def test_jsd_bounds_and_symmetry():
    p = torch.randn(5, 7).log_softmax(-1)
    q = torch.randn(5, 7).log_softmax(-1)
    d = jsd(p, q)
    assert d.shape == (5,) and (d >= 0).all() and (d <= LN2 + 1e-6).all()
    torch.testing.assert_close(d, jsd(q, p))
    torch.testing.assert_close(jsd(p, p), torch.zeros(5), atol=1e-7, rtol=0)
    disjoint_p = torch.tensor([1.0, 0.0]).log()
    disjoint_q = torch.tensor([0.0, 1.0]).log()
    assert abs(float(jsd(disjoint_p, disjoint_q)) - math.log(2)) < 1e-6
    with pytest.raises(ValueError, match="share a shape"): jsd(p, q[:, :3])


def test_lens_zero_when_late_layer_equals_final(tiny):
    m, tok = tiny
    m = type(m)(m.config).eval()
    m.load_state_dict(tiny[0].state_dict())
    last = m.model.layers[-1]
    with torch.no_grad():                    # the last layer adds nothing: its output equals layer N-1's
        last.self_attn.o_proj.weight.zero_()
        last.mlp.down_proj.weight.zero_()
    x = torch.tensor([tok("3+4-2=", add_special_tokens=True)["input_ids"]])
    lens = logit_lens(m, x, layers=[3, 4])
    r = token_reasoning_scores(lens["logprobs"][:1], lens["logprobs"][1])
    assert float(r.abs().max()) < 1e-6
    torch.testing.assert_close(lens["logprobs"][1], m(x).logits.float().log_softmax(-1), atol=1e-5, rtol=1e-5)
    assert float(token_reasoning_scores(logit_lens(m, x, layers=[1, 4])["logprobs"][:1], lens["logprobs"][1]).max()) > 0


def test_lens_bad_input(tiny):
    m, tok = tiny
    x = torch.tensor([[1, 5, 6]])
    with pytest.raises(ValueError, match="out of range"): logit_lens(m, x, layers=[0])
    with pytest.raises(ValueError, match="out of range"): logit_lens(m, x, layers=[5])
    with pytest.raises(ValueError, match="input_ids"): logit_lens(m, x[0])
    with pytest.raises(TypeError): logit_lens(torch.nn.Linear(2, 2), x)
    with pytest.raises(ValueError, match="agg"):
        token_reasoning_scores(torch.zeros(2, 3, 4), torch.zeros(3, 4), agg="max")
    with pytest.raises(ValueError): late_layers(1)


class _NoFinalNorm(torch.nn.Module):
    "A causal LM whose decoder exposes layers but no final norm."
    def __init__(self, lm):
        super().__init__()
        self.lm = lm
    def get_decoder(self):
        from types import SimpleNamespace
        return SimpleNamespace(layers=self.lm.model.layers)
    def get_output_embeddings(self): return self.lm.get_output_embeddings()
    def forward(self, **kw): return self.lm(**kw)


def test_model_without_final_norm(tiny):
    m, tok = tiny
    m2 = _NoFinalNorm(m)
    x = torch.tensor([[1, 5, 6]])
    with pytest.raises(ValueError, match="no final norm"): logit_lens(m2, x)
    out = logit_lens(m2, x, layers=[1], final_norm=None)        # explicit: project the raw residual stream
    assert out["logprobs"].shape[:3] == (1, 1, 3)
    custom = logit_lens(m2, x, layers=[4], final_norm=m.model.norm)   # or pass the norm as a callable
    own = m(input_ids=x).logits.float().log_softmax(-1)
    torch.testing.assert_close(custom["logprobs"][0], own, atol=1e-5, rtol=1e-5)
    with pytest.raises(TypeError): logit_lens(m, x, final_norm="rms")


def test_step_spans():
    assert step_spans(list("1+2=3\n3-1=2\n2")) == [(0, 6), (6, 12), (12, 13)]
    assert step_spans(list("ab\n\ncd\n")) == [(0, 3), (4, 7)]          # an empty line is no step
    assert step_spans(["a", "b;", "c"], delim=";") == [(0, 2), (2, 3)]
    assert step_spans([]) == []
    with pytest.raises(TypeError): step_spans("1+2=3\n3")
    with pytest.raises(ValueError): step_spans(["a"], delim="")


def test_analyze_trace(tiny):
    m, tok = tiny
    a = analyze_trace(m, tok, "3+4-2=", "3+4=7\n7-2=5\n5")
    assert len(a["R"]) == 3 and len(a["ppl"]) == 3 and a["layers"] == late_layers(4)
    assert all(0 <= r <= LN2 for r in a["R"]) and -1 <= a["pcc"] <= 1 and 0 <= a["attn_score"] <= 1
    s = analyze_trace(m, tok, "3+4-2=", "3+4=7\n7-2=5\n5", agg="sum")
    np.testing.assert_allclose(s["R"], a["R"] * len(a["layers"]), rtol=1e-4)
    with pytest.raises(ValueError): analyze_trace(m, tok, "3+4=", "   ")
    with pytest.raises(TypeError): analyze_trace(m, tok, "3+4=", None)


def test_rhd_fit_and_bad_input():
    rng = np.random.default_rng(0)
    rows = [{"mean_R": rng.normal(y), "cv_early": rng.normal(), "attn_score": rng.random(), "pcc": rng.normal()}
            for y in [0, 1] * 50]
    y = [0, 1] * 50
    s = RHD().fit(rows, y).score(rows)
    assert s.shape == (100,) and ((s >= 0) & (s <= 1)).all()
    assert RHD().fit(rows, y).coef_["mean_R"] > 0
    with pytest.raises(ValueError, match="one class"): RHD().fit(rows, [0] * 100)
    with pytest.raises(ValueError): RHD().fit(rows, y[:10])
    with pytest.raises(KeyError): RHD(["nope"]).fit(rows, y)
    with pytest.raises(RuntimeError): RHD().score(rows)
    with pytest.raises(ValueError): RHD(C=0)


def test_eigenscore():
    assert abs(eigenscore(torch.ones(3, 5)) - math.log(1e-3)) < 1e-9
    spread = eigenscore(torch.randn(6, 32, generator=torch.Generator().manual_seed(0)))
    assert spread > math.log(1e-3)
    with pytest.raises(ValueError): eigenscore(torch.ones(1, 4))
    with pytest.raises(ValueError): eigenscore(torch.ones(3, 4), alpha=0)


def test_shaping_telescopes_and_sequence_level_is_grpo():
    np.testing.assert_allclose(shaping_potential([0.05, 0.5], alpha=2.0, tau=0.1), [-0.1, 0.0])
    r = shaped_step_rewards([0.05, 0.08, 0.5, 0.02], outcome=1.0, alpha=1.0, tau=0.1, gamma=1.0)
    assert abs(r.sum() - 1.0) < 1e-12 and len(r) == 4
    np.testing.assert_allclose(r, [-0.05, 0.05 - 0.08, 0.08, 1.0])
    assert abs(shaped_step_rewards([0.05, 0.05], 1.0, gamma=0.9).sum() - 1.0) > 1e-6
    rng = np.random.default_rng(1)
    N, T, G = 12, 10, 4
    R = [rng.uniform(0, 0.3, size=int(rng.integers(1, 5))) for _ in range(N)]
    ends = [sorted(rng.choice(T, size=len(x), replace=False).tolist()) for x in R]
    out = torch.tensor(rng.integers(0, 2, size=N), dtype=torch.float32)
    cm = torch.ones(N, T)
    seq = grpo_r_advantages(R, ends, out, cm, G, alpha=1.0, tau=0.2, gamma=1.0, level="sequence")
    torch.testing.assert_close(seq, expand_advantages(group_advantages(out, G), cm), atol=0, rtol=0)
    step = grpo_r_advantages(R, ends, out, cm, G, alpha=1.0, tau=0.2, level="step")
    assert step.shape == (N, T) and not torch.allclose(step, seq)


def test_shaping_bad_input():
    with pytest.raises(ValueError): shaped_step_rewards([], 1.0)
    with pytest.raises(ValueError): shaped_step_rewards([0.1], 1.0, gamma=0)
    with pytest.raises(ValueError): shaping_potential([0.1], alpha=-1)
    cm = torch.ones(4, 5)
    with pytest.raises(ValueError, match="level"):
        grpo_r_advantages([[0.1]] * 4, [[1]] * 4, [0, 1, 0, 1], cm, 2, level="token")
    with pytest.raises(ValueError, match="step end"): grpo_r_advantages([[0.1]] * 4, [[9]] * 4, [0, 1, 0, 1], cm, 2)
    with pytest.raises(ValueError, match="step ends"): grpo_r_advantages([[0.1]] * 4, [[1, 2]] * 4, [0, 1, 0, 1], cm, 2)
    with pytest.raises(ValueError, match="differ"): grpo_r_advantages([[0.1]] * 3, [[1]] * 4, [0, 1, 0, 1], cm, 2)


def test_chains_noop_and_trace_checks():
    recs = chain_records(50, seed=0, steps=(6, 10))
    assert all(len(r["steps"]) in (6, 10) and well_formed(r["answer"], len(r["steps"])) for r in recs)
    assert all(r["prompt"].startswith("Compute ") and r["prompt"].endswith(".\n") and r["noop"] is None for r in recs)
    ood = chain_records(20, seed=0, operands=(10, 15))
    assert all(10 <= x <= 15 for r in ood for x in r["operands"])
    spur = chain_records(20, seed=1, noop="spurious")
    assert all(r["noop"] == r["operands"][-1] and f" note {r['noop']}." in r["prompt"] for r in spur)
    rand = chain_records(200, seed=1, noop="random")
    assert all(r["noop"] != r["operands"][-1] for r in rand)
    cue = chain_records(20, seed=2, noop="spurious", cue_step=3)
    assert all(r["noop"] == r["operands"][3] for r in cue)           # the operand of step 3
    assert all(r["noop"] != r["operands"][3] for r in chain_records(200, seed=2, noop="random", cue_step=3))
    with pytest.raises(ValueError, match="cue_step"): chain_records(3, steps=(6, 8), cue_step=7)
    with pytest.raises(ValueError, match="cue_step"): chain_records(3, cue_step=0)
    rec = {"prompt": "Compute 3+5-2 note 7.\n", "steps": ["3+5=8", "8-2=6"], "operands": [3, 5, 2], "noop": 7}
    assert misled_steps(rec, "3+5=8\n8-7=1\n1") == [False, True, None]
    assert misled_steps(rec, "3+5=8\n8-2=6\n6") == [False, False, None]
    with pytest.raises(KeyError): misled_steps({**rec, "noop": None}, "3+5=8\n8")
    assert well_formed("3+5=8\n8-2=6\n6", 2) and well_formed("3+5=9\n9-2=7\n7", 2)     # a slip, but coherent
    assert not well_formed("3+5=8\n6", 2) and not well_formed("3+5=8\nx\n6", 2)
    assert not well_formed("3+5=8\n7-2=5\n5", 2) and not well_formed("3+5=8\n8-2=6\n5", 2)   # broken chain / answer
    with pytest.raises(ValueError): well_formed("1", 0)
    with pytest.raises(ValueError): chain_records(0)
    with pytest.raises(ValueError): chain_records(3, noop="sometimes")
    with pytest.raises(ValueError): chain_records(3, ops="*")


def test_step_level_outcome_norm():
    R = [np.array([0.05, 0.3, 0.1])] * 4
    ends = [[2, 5, 7]] * 4
    out = torch.tensor([1.0, 0, 1, 0])
    cm = torch.ones(4, 9)
    plain = expand_advantages(group_advantages(out, 4), cm)
    torch.testing.assert_close(grpo_r_advantages(R, ends, out, cm, 4, alpha=0.0), plain)
    a = grpo_r_advantages(R, ends, out, cm, 4, alpha=1.0, tau=0.2)
    # tokens of step 2 follow a shallow step (R_1 = 0.05 <= τ): reward-to-go −Φ(s_1) = 0.05, over the group std 0.5
    torch.testing.assert_close(a[:, 3:6] - plain[:, 3:6], torch.full((4, 3), 0.1), atol=1e-3, rtol=0)
    torch.testing.assert_close(a[:, :3], plain[:, :3])
    torch.testing.assert_close(a[:, 6:], plain[:, 6:])
    same = grpo_r_advantages(R, ends, torch.ones(4), cm, 4, alpha=1.0, tau=0.2)    # equal outcomes: shaping unscaled
    assert float(same.abs().max()) <= 0.05 + 1e-6
    with pytest.raises(ValueError, match="step_norm"): grpo_r_advantages(R, ends, out, cm, 4, step_norm="x")


def test_analyze_batch_equals_one_by_one(tiny):
    m, tok = tiny
    pairs = [("3+4-2=", "3+4=7\n7-2=5\n5"), ("1+2+3+0=", "1+2=3\n3+3=6\n6+0=6\n6"), ("2-1 note 3=", "2-3=-1\n-1")]
    enc = [_encode_pair(tok, p, c) for p, c in pairs]
    # ragged, 2 batches
    batch = analyze_batch(m, tok, [ids[:P] for ids, P in enc], [ids[P:] for ids, P in enc], batch_size=2)
    for (p, c), b in zip(pairs, batch):
        a = analyze_trace(m, tok, p, c)
        np.testing.assert_allclose(b["R"], a["R"], atol=1e-5)
        for k in ("mean_R", "cv_early", "attn_score", "pcc", "nll", "entropy", "answer_logprob"):
            assert abs(a[k] - b[k]) < 1e-4, k
    with pytest.raises(ValueError, match="differ"): analyze_batch(m, tok, [[1, 2]], [[3], [4]])
    with pytest.raises(ValueError, match="non-empty"): analyze_batch(m, tok, [[1, 2]], [[]])
    with pytest.raises(ValueError, match="batch_size"): analyze_batch(m, tok, [[1, 2]], [[3]], batch_size=0)


def test_batch_embeddings(tiny):
    m, tok = tiny
    comps = ["3+4=7\n7", "1\n2", ""]
    e = batch_embeddings(m, tok, ["3+4-2="] * 3, comps, batch_size=2)
    assert e.shape == (3, m.config.hidden_size)
    torch.testing.assert_close(e, sample_embeddings(m, tok, "3+4-2=", comps))
    single = batch_embeddings(m, tok, ["3+4-2="], ["1\n2"])
    torch.testing.assert_close(single[0], e[1], atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError): batch_embeddings(m, tok, ["a"], ["b", "c"])
    with pytest.raises(TypeError): batch_embeddings(m, tok, "a", ["b"])


def test_crossfit_auc():
    rng = np.random.default_rng(0)
    y = np.array([0, 1] * 60)
    rows = [{"mean_R": rng.normal(2 * t), "cv_early": rng.normal(), "attn_score": rng.random(), "pcc": rng.normal()}
            for t in y]
    noise = rng.normal(size=len(y))
    cf = crossfit_auc(rows, y, {"noise": noise, "oracle": y + 0.1 * noise}, n_repeats=3, seed=0)
    assert cf["halves"] == 6 and set(cf["auc"]) == {"RHD", "noise", "oracle"}
    assert cf["auc"]["RHD"] > 0.8 and cf["auc"]["oracle"] == 1.0 and abs(cf["auc"]["noise"] - 0.5) < 0.15
    idx, sc = cf["first"]
    assert len(idx) == len(y) // 2 and abs(y[idx].mean() - 0.5) < 1e-9          # stratified halves
    assert crossfit_auc(rows, y, n_repeats=3, seed=0)["auc"]["RHD"] == cf["auc"]["RHD"]   # seeded
    with pytest.raises(ValueError, match="one value per trace"): crossfit_auc(rows, y, {"b": noise[:5]})
    with pytest.raises(ValueError, match="n_repeats"): crossfit_auc(rows, y, n_repeats=0)
    with pytest.raises(ValueError): crossfit_auc(rows, [0] * len(rows))
    with pytest.raises(ValueError): crossfit_auc(rows, y[:10])


def _tiny_lms():
    from transformers import (GPT2Config, GPT2LMHeadModel, GPTNeoXConfig, GPTNeoXForCausalLM, LlamaConfig,
                              LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM)
    torch.manual_seed(0)
    kw = dict(num_hidden_layers=3, num_attention_heads=2, intermediate_size=64, vocab_size=40, hidden_size=32)
    return {"gpt2": GPT2LMHeadModel(GPT2Config(n_layer=3, n_embd=32, n_head=2, vocab_size=40, n_positions=64,
                                               bos_token_id=0, eos_token_id=1)),
            "neox": GPTNeoXForCausalLM(GPTNeoXConfig(**kw, bos_token_id=0, eos_token_id=1)),
            "llama": LlamaForCausalLM(LlamaConfig(**kw, num_key_value_heads=1)),
            "qwen2": Qwen2ForCausalLM(Qwen2Config(**kw, num_key_value_heads=1))}


@pytest.mark.parametrize("name", ["gpt2", "neox", "llama", "qwen2"])
def test_lens_layouts_and_streaming(name):
    m = _tiny_lms()[name].eval()
    base, layers, norm, head = decoder_parts(m)
    assert len(layers) == 3 and norm is not None and head is m.get_output_embeddings()
    g = torch.Generator().manual_seed(1)
    x = torch.randint(2, 40, (3, 13), generator=g)
    am = torch.ones_like(x)
    am[1, 9:] = 0                                        # a right-padded row
    full = logit_lens(m, x, am)
    torch.testing.assert_close(full["logprobs"][-1], m(input_ids=x, attention_mask=am).logits.float().log_softmax(-1),
                               atol=1e-5, rtol=1e-5)     # the last layer's lens is the model's output
    J = late_layers(3)
    ref = token_reasoning_scores(full["logprobs"][[j - 1 for j in J]], full["logprobs"][-1])
    ref_nll = -full["logprobs"][-1][:, :-1].gather(-1, x[:, 1:, None])[..., 0]
    ref_ent = -(full["logprobs"][-1].exp() * full["logprobs"][-1]).sum(-1)
    for chunk in (1, 4, 13, 100):                        # the streamed lens equals the batched one
        st = lens_token_stats(m, x, am, chunk_size=chunk)
        assert st["layers"] == J and st["R"].shape == (3, 13)
        torch.testing.assert_close(st["R"], ref, atol=1e-6, rtol=0)
        torch.testing.assert_close(st["nll"][:, :-1], ref_nll, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(st["entropy"], ref_ent, atol=1e-5, rtol=1e-5)
        assert torch.isnan(st["nll"][:, -1]).all()
    s_sum = lens_token_stats(m, x, am, layers=[1, 2], agg="sum")
    torch.testing.assert_close(s_sum["R"], 2 * lens_token_stats(m, x, am, layers=[1, 2])["R"], atol=1e-6, rtol=1e-5)
    with pytest.raises(ValueError, match="chunk_size"): lens_token_stats(m, x, chunk_size=0)
    with pytest.raises(ValueError, match="out of range"): lens_token_stats(m, x, layers=[4])
    with pytest.raises(ValueError, match="agg"): lens_token_stats(m, x, agg="max")


def test_gamma_one_is_a_baseline():
    rng = np.random.default_rng(3)
    R = np.array([0.05, 0.12, 0.3, 0.08, 0.02, 0.11])
    prefix = np.concatenate([[0.0], -shaping_potential(R[:-1], 1.0, 0.2)])   # R̃_{k−1}, with R̃_0 = 0
    np.testing.assert_allclose(shaping_to_go(R, 1.0, 0.2, 1.0), prefix, atol=1e-12)
    for k in range(len(R)):                    # changing step k or any later step leaves step k's bonus unchanged
        Rp = R.copy()
        Rp[k:] = rng.uniform(0, 0.3, size=len(R) - k)
        assert abs(shaping_to_go(Rp, 1.0, 0.2, 1.0)[k] - prefix[k]) < 1e-12
    tilde = -shaping_potential(R, 1.0, 0.2)
    tilde[-1] = 0.0                            # the answer step has no potential
    resid = shaping_to_go(R, 1.0, 0.2, 0.8) - shaping_to_go(R, 1.0, 0.2, 1.0)
    np.testing.assert_allclose(resid, 0.2 * tilde[::-1].cumsum()[::-1], atol=1e-12)   # (1 − γ) Σ_{k' ≥ k} R̃_k'
    Rp = R.copy()
    Rp[1] = 0.15                               # at γ < 1 step 2's own score moves its own bonus
    assert abs(shaping_to_go(Rp, 1.0, 0.2, 0.8)[1] - shaping_to_go(R, 1.0, 0.2, 0.8)[1]) > 1e-4
    # the same identity through the token advantages: step k's tokens get GRPO + R̃_{k−1} / std
    ends = [[1, 3, 5, 7, 8, 10]] * 4
    out = torch.tensor([1.0, 0, 1, 1])
    cm = torch.ones(4, 11)
    plain = expand_advantages(group_advantages(out, 4), cm)
    adv = grpo_r_advantages([R] * 4, ends, out, cm, 4, alpha=1.0, tau=0.2, gamma=1.0)
    std = math.sqrt(out.var(unbiased=False).item() + 1e-4)
    expect = np.repeat(prefix, np.diff([-1] + ends[0])) / std
    torch.testing.assert_close(adv - plain, torch.tensor(expect, dtype=torch.float32).expand(4, -1), atol=1e-5, rtol=0)


def test_own_step_credit():
    R = [np.array([0.05, 0.3, 0.1])] * 4
    ends = [[2, 5, 7]] * 4
    out = torch.tensor([1.0, 0, 1, 0])
    cm = torch.ones(4, 9)
    plain = expand_advantages(group_advantages(out, 4), cm)
    a = grpo_r_advantages(R, ends, out, cm, 4, alpha=1.0, tau=0.2, credit="own_step")
    std = math.sqrt(0.25 + 1e-4)
    # step 1 (tokens 0-2): R̃_1 = 0.05; step 2 (3-5): R = 0.3 > τ, no reward; the answer step (6-7): none
    torch.testing.assert_close(a[:, :3] - plain[:, :3], torch.full((4, 3), 0.05 / std), atol=1e-5, rtol=0)
    torch.testing.assert_close(a[:, 3:], plain[:, 3:])
    with pytest.raises(ValueError, match="credit"): grpo_r_advantages(R, ends, out, cm, 4, credit="later")


def test_paired_ci_and_auc_se():
    c = paired_ci([0.6, 0.62, 0.58, 0.61], [0.58, 0.61, 0.59, 0.60])
    d = np.array([0.02, 0.01, -0.01, 0.01])
    assert abs(c["mean"] - d.mean()) < 1e-12 and c["n"] == 4
    from scipy import stats
    h = stats.t.ppf(0.975, 3) * d.std(ddof=1) / 2
    assert abs(c["lo"] - (d.mean() - h)) < 1e-12 and abs(c["hi"] - (d.mean() + h)) < 1e-12
    assert math.isnan(paired_ci([0.5], [0.4])["lo"])
    with pytest.raises(ValueError): paired_ci([0.5, 0.6], [0.4])
    assert abs(auc_se(0.5, 100, 100) - math.sqrt(16.75) / 100) < 1e-9
    assert auc_se(0.9, 100, 100) < auc_se(0.7, 100, 100) and auc_se(0.7, 400, 400) < auc_se(0.7, 100, 100)
    with pytest.raises(ValueError): auc_se(1.2, 10, 10)
    with pytest.raises(ValueError): auc_se(0.7, 0, 10)


def test_within_pool_auc_removes_the_base_rate():
    rng = np.random.default_rng(0)
    pools = np.array(["a"] * 200 + ["b"] * 200)
    y = np.concatenate([rng.random(200) < 0.2, rng.random(200) < 0.8]).astype(int)
    pool_score = (pools == "b").astype(float) + 0.01 * rng.normal(size=400)     # knows the pool, not the trace
    signal = y + rng.normal(size=400)                                          # real within-pool signal
    rows = [{"mean_R": s, "cv_early": rng.normal(), "attn_score": rng.random(), "pcc": rng.normal(),
             "pool_a": float(p == "a"), "pool_b": float(p == "b")} for s, p in zip(signal, pools)]
    wp = within_pool_auc(rows, y, pools, {"pool": pool_score}, {"RHD": ["mean_R"]}, n_repeats=2, seed=0)
    pooled = crossfit_auc(rows, y, {"pool": pool_score}, {"base rate": ["pool_a", "pool_b"]}, n_repeats=2, seed=0)
    assert pooled["auc"]["base rate"] > 0.75 and pooled["auc"]["pool"] > 0.75
    for p in ("a", "b"):
        assert abs(wp[p]["auc"]["pool"] - 0.5) < 0.12 and wp[p]["auc"]["RHD"] > 0.65
        assert wp[p]["n"] == 200 and 0 < wp[p]["se"]["RHD"] < 0.1
    few = within_pool_auc(rows[:203], y[:203], pools[:203], {"pool": pool_score[:203]}, {"RHD": ["mean_R"]},
                          min_class=5)
    assert math.isnan(few["b"]["auc"]["RHD"]) and not math.isnan(few["a"]["auc"]["RHD"])
    with pytest.raises(ValueError): within_pool_auc(rows, y[:10], pools, {}, {"RHD": ["mean_R"]})


# ---- property tests for bad input (issue #60): a ValueError/TypeError naming the argument, never a silent result ----
from hypothesis import given, settings, strategies as st  # noqa: E402
import iclr26.rhd as _rhd  # noqa: E402

_BAD = st.sampled_from([float("nan"), float("inf"), float("-inf")])


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 5), v=st.integers(2, 6), dv=st.integers(1, 3))
def test_prop_jsd_rejects_mismatched_shapes_and_nan(n, v, dv):
    lp = torch.randn(n, v).log_softmax(-1)
    with pytest.raises(ValueError, match="logp and logq"):
        _rhd.jsd(lp, torch.randn(n, v + dv).log_softmax(-1))
    bad = lp.clone()
    bad[0, 0] = float("nan")
    with pytest.raises(ValueError, match="logp and logq"):
        _rhd.jsd(bad, lp)
    with pytest.raises(TypeError, match="floating point"):
        _rhd.jsd(torch.zeros(n, v, dtype=torch.long), torch.zeros(n, v, dtype=torch.long))


@settings(max_examples=20, deadline=None)
@given(k=st.integers(1, 6), i=st.integers(0, 5), bad=_BAD)
def test_prop_shaping_rejects_non_finite_scores(k, i, bad):
    r = [0.05] * k
    r[i % k] = bad
    with pytest.raises(ValueError, match="R must be finite"):
        _rhd.shaping_potential(r)
    with pytest.raises(ValueError, match="R must be finite"):
        _rhd.shaped_step_rewards(r, 1.0)
    with pytest.raises(ValueError, match="outcome"):
        _rhd.shaped_step_rewards([0.05] * k, bad)
    with pytest.raises(ValueError, match="tau"):
        _rhd.shaping_potential([0.05] * k, tau=float("nan"))


@settings(max_examples=20, deadline=None)
@given(gamma=st.one_of(st.floats(-5, 0), st.floats(1.0001, 5), _BAD), alpha=st.floats(-5, -1e-6))
def test_prop_shaping_rejects_out_of_range_parameters(gamma, alpha):
    with pytest.raises(ValueError, match="gamma"):
        _rhd.shaped_step_rewards([0.1, 0.2], 1.0, gamma=gamma)
    with pytest.raises(ValueError, match="alpha"):
        _rhd.shaping_potential([0.1, 0.2], alpha=alpha)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 6), m=st.integers(1, 6), bad=_BAD, level=st.one_of(st.floats(-1, 0), st.floats(1, 3)))
def test_prop_paired_ci_rejects_mismatch_non_finite_and_level(n, m, bad, level):
    if n != m:
        with pytest.raises(ValueError, match="a and b"):
            _rhd.paired_ci([0.0] * n, [0.0] * m)
    with pytest.raises(ValueError, match="a and b"):
        _rhd.paired_ci([0.0] * n + [bad], [0.0] * (n + 1))
    with pytest.raises(ValueError, match="level"):
        _rhd.paired_ci([0.0, 1.0], [1.0, 0.0], level=level)


@settings(max_examples=20, deadline=None)
@given(auc=st.one_of(st.floats(-3, -1e-6), st.floats(1.000001, 3), st.just(float("nan"))),
       frac=st.one_of(st.floats(-2, 0), st.floats(1.0001, 3)), nl=st.integers(-3, 1))
def test_prop_auc_se_and_late_layers_reject_out_of_range(auc, frac, nl):
    with pytest.raises(ValueError, match="auc"):
        _rhd.auc_se(auc, 5, 5)
    with pytest.raises(ValueError, match="late_frac"):
        _rhd.late_layers(4, frac)
    with pytest.raises(ValueError, match="n_layers"):
        _rhd.late_layers(nl)


@settings(max_examples=20, deadline=None)
@given(k=st.integers(2, 4), d=st.integers(1, 5), bad=_BAD)
def test_prop_eigenscore_rejects_bad_embeddings(k, d, bad):
    z = torch.randn(k, d)
    z[0, 0] = bad
    with pytest.raises(ValueError, match="embeddings"):
        _rhd.eigenscore(z)
    with pytest.raises(ValueError, match="embeddings"):
        _rhd.eigenscore(torch.randn(d))
    with pytest.raises(TypeError, match="token_texts"):
        _rhd.step_spans(list(range(k)))


def test_fast_auc_and_paired_auc_diff():
    from sklearn.metrics import roc_auc_score
    rng = np.random.default_rng(1)
    y = np.array([0] * 50 + [1] * 50)
    good, weak = y + rng.normal(0, 0.6, 100), y + rng.normal(0, 3.0, 100)
    tied = np.round(good)                                        # ties: mid-ranks
    for s in (good, weak, tied):
        assert abs(fast_auc(y, s) - roc_auc_score(y, s)) < 1e-12
    assert math.isnan(fast_auc(np.zeros(5), np.arange(5.0)))   # one class: no AUC
    d = paired_auc_diff(y, good, weak, n_boot=400, seed=0)
    assert d["lo"] > 0 and d["p_le_0"] < 0.01 and d["n"] == 100 and d["n_pos"] == 50
    assert abs(d["diff"] - (roc_auc_score(y, good) - roc_auc_score(y, weak))) < 1e-12
    same = paired_auc_diff(y, good, good, n_boot=50)
    assert same["diff"] == 0 and same["lo"] == 0 and same["hi"] == 0      # paired: a detector against itself
    # [R, n] out-of-fold scores: the mean over repeats
    two = paired_auc_diff(y, np.stack([good, weak]), np.stack([weak, weak]), n_boot=50)
    assert abs(two["auc_a"] - (roc_auc_score(y, good) + roc_auc_score(y, weak)) / 2) < 1e-12
    # a null detector (noise) against a real one fails, the oracle (labels) passes
    assert paired_auc_diff(y, rng.normal(size=100), good, n_boot=200)["hi"] < 0
    with pytest.raises(ValueError, match="one score per trace"): paired_auc_diff(y, good[:10], weak)
    with pytest.raises(ValueError, match="finite"): paired_auc_diff(y, np.r_[good[:-1], np.nan], weak)
    with pytest.raises(ValueError, match="n_boot"): paired_auc_diff(y, good, weak, n_boot=3)
    with pytest.raises(ValueError, match="class"): paired_auc_diff(np.r_[np.zeros(99), 1], good, weak)


def test_crossfit_auc_out_of_fold_scores():
    rng = np.random.default_rng(0)
    y = np.array([0, 1] * 30)
    rows = [{"mean_R": rng.normal(2 * t), "cv_early": rng.normal(), "attn_score": rng.random(), "pcc": rng.normal()}
            for t in y]
    b = rng.normal(size=len(y))
    cf = crossfit_auc(rows, y, {"b": b}, n_repeats=2, seed=0)
    assert cf["oof"]["RHD"].shape == (2, len(y)) and np.allclose(cf["oof"]["b"], b[None].repeat(2, 0))
    assert np.all((cf["oof"]["RHD"] > 0) & (cf["oof"]["RHD"] < 1))      # every trace scored out of fold


def test_first_wrong_step_and_error_confidence():
    rec = {"prompt": "Compute 3+5-2+4 note 7.\n", "steps": ["3+5=8", "8-2=6", "6+4=10"], "operands": [3, 5, 2, 4],
           "noop": 7}
    assert first_wrong_step(rec, "3+5=8\n8-2=6\n6+4=10\n10") == (None, None)
    assert first_wrong_step(rec, "3+5=8\n8-7=1\n1+4=5\n5") == (1, "note")
    assert first_wrong_step(rec, "3+5=9\n9-2=7\n7+4=11\n11") == (0, "slip")
    assert first_wrong_step(rec, "3+5=8\n8+2=10\n10+4=14\n14") == (1, "operand")
    assert first_wrong_step(rec, "3+5=8\nfoo\n") == (1, "malformed")
    neg = chain_records(5, seed=3, steps=(6,), noop="random", cue_step=3)
    assert all(first_wrong_step(r, r["answer"]) == (None, None) for r in neg)    # negative numbers parse
    row = {"record": rec, "completion": "3+5=8\n8-7=1\n1+4=5\n5", "spans": [(0, 2), (2, 4), (4, 6), (6, 7)],
           "token_nll": [0.01, 0.01, 0.05, 0.02, 2.0, 0.1, 0.1]}
    e = error_confidence(row)
    assert e["k"] == 1 and e["kind"] == "note" and e["confident"] and abs(e["min_p"] - math.exp(-0.05)) < 1e-12
    row["token_nll"] = [0.01, 0.01, 0.5, 0.02, 2.0, 0.1, 0.1]
    assert not error_confidence(row)["confident"]
    with pytest.raises(ValueError, match="p must"): error_confidence(row, p=1.5)
    with pytest.raises(TypeError): first_wrong_step(rec, None)


def test_paired_ci_one_sided():
    from scipy import stats
    a, b = [0.6, 0.62, 0.58, 0.61, 0.63], [0.58, 0.61, 0.59, 0.60, 0.6]
    c = paired_ci(a, b)
    t = stats.ttest_rel(a, b, alternative="greater")
    assert abs(c["p_greater"] - t.pvalue) < 1e-12
    assert c["lo"] < c["lo_one_sided"] < c["mean"]
    assert abs(paired_ci(a, b, level=0.90)["lo"] - c["lo_one_sided"]) < 1e-12   # 90 % two-sided = 95 % one-sided


def test_grpo_r_advantage_logs_shaping_magnitude(tiny):
    from types import SimpleNamespace
    m, tok = tiny
    enc = lambda s: tok(s, add_special_tokens=False)["input_ids"]
    comps = ["1+2=3\n3+4=7\n7", "1+2=4\n4+4=8\n8", "1+2=3\n3+4=7\n7", "1+2=3\n3+1=4\n4"]
    ids = [enc(c) for c in comps]
    L = max(map(len, ids))
    cid = torch.tensor([x + [0] * (L - len(x)) for x in ids])
    cmask = torch.tensor([[1] * len(x) + [0] * (L - len(x)) for x in ids])
    p = enc("1+2+4\n")
    ro = SimpleNamespace(prompt_ids=torch.tensor([p] * 4), prompt_mask=torch.ones(4, len(p)), completion_ids=cid,
                         completion_mask=cmask, group_size=4)
    ro.__len__ = None
    class R(SimpleNamespace):
        def __len__(self): return 4
    ro = R(**vars(ro))
    rew = torch.tensor([1.0, 0.0, 1.0, 0.0])
    for credit, gamma in (("potential", 0.9), ("potential", 1.0), ("own_step", 1.0)):
        f = GRPORAdvantage(m, tok, alpha=1.0, tau=10.0, gamma=gamma, credit=credit)
        adv = f(ro, rew)
        st = f.stats[-1]
        assert adv.shape == cmask.shape and set(st) == {"outcome", "shaping", "action", "outcome_nz"}
        assert abs(st["outcome"] - 1.0) < 1e-3 and st["outcome_nz"] == st["outcome"]    # whitened ±1 outcomes
        assert st["shaping"] > 0
        if credit == "potential" and gamma == 1.0: assert st["action"] < 1e-9      # γ = 1: a baseline only
        else: assert st["action"] > 0
