"Unit and bad-input tests of iclr26.rhd (Reasoning Score, RHD, GRPO-R)."
import math
import numpy as np
import pytest
import torch

from iclr26.rhd import (LN2, RHD, _encode_pair, analyze_batch, analyze_trace, batch_embeddings, crossfit_auc, eigenscore,
                        grpo_r_advantages, jsd, late_layers, logit_lens, misled_steps, noop_variant, sample_embeddings,
                        shaped_step_rewards, shaping_potential, step_spans, token_reasoning_scores, well_formed)
from iclr26.rl import expand_advantages, group_advantages
from iclr26.tinylm import arithmetic, char_tokenizer, make_model


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
    with pytest.raises(ValueError, match="agg"): token_reasoning_scores(torch.zeros(2, 3, 4), torch.zeros(3, 4), agg="max")
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
    torch.testing.assert_close(custom["logprobs"][0], m(input_ids=x).logits.float().log_softmax(-1), atol=1e-5, rtol=1e-5)
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
    rows = [{"mean_R": rng.normal(y), "cv_early": rng.normal(), "attn_score": rng.random(), "pcc": rng.normal()} for y in [0, 1] * 50]
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
    with pytest.raises(ValueError, match="level"): grpo_r_advantages([[0.1]] * 4, [[1]] * 4, [0, 1, 0, 1], cm, 2, level="token")
    with pytest.raises(ValueError, match="step end"): grpo_r_advantages([[0.1]] * 4, [[9]] * 4, [0, 1, 0, 1], cm, 2)
    with pytest.raises(ValueError, match="step ends"): grpo_r_advantages([[0.1]] * 4, [[1, 2]] * 4, [0, 1, 0, 1], cm, 2)
    with pytest.raises(ValueError, match="differ"): grpo_r_advantages([[0.1]] * 3, [[1]] * 4, [0, 1, 0, 1], cm, 2)


def test_noop_and_trace_checks():
    recs = arithmetic(5, seed=0, n_terms=3, max_value=9, ops="+-", show_steps=True)
    nv = noop_variant(recs, seed=0)
    assert all(" note " in r["prompt"] and r["prompt"].endswith("=") and r["answer"] == o["answer"] for r, o in zip(nv, recs))
    rec = {"prompt": "3+5-2 note 7=", "steps": ["3+5=8", "8-2=6"], "noop": 7}
    assert misled_steps(rec, "3+5=8\n8-7=1\n1") == [False, True, None]
    assert misled_steps(rec, "3+5=8\n8-2=6\n6") == [False, False, None]
    with pytest.raises(KeyError): misled_steps({"prompt": "1+2=", "steps": []}, "1+2=3\n3")
    with pytest.raises(ValueError): noop_variant([{"prompt": "1+2"}])
    assert well_formed("3+5=8\n8-2=6\n6", 2) and not well_formed("3+5=8\n6", 2) and not well_formed("3+5=8\nx\n6", 2)


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
    batch = analyze_batch(m, tok, [ids[:P] for ids, P in enc], [ids[P:] for ids, P in enc], batch_size=2)   # ragged, 2 batches
    for (p, c), b in zip(pairs, batch):
        a = analyze_trace(m, tok, p, c)
        np.testing.assert_allclose(b["R"], a["R"], atol=1e-5)
        for k in ("mean_R", "cv_early", "attn_score", "pcc", "nll", "entropy", "answer_logprob"): assert abs(a[k] - b[k]) < 1e-4, k
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
    rows = [{"mean_R": rng.normal(2 * t), "cv_early": rng.normal(), "attn_score": rng.random(), "pcc": rng.normal()} for t in y]
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
