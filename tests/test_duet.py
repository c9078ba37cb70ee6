"""Paper 14 (DUET): the top-K Huber loss against hand computations, first-position logits under left and right
padding, `duet_unlearn` on randomly initialised Llama and GPT-2 models built from configs, and bad inputs."""
import copy

import pytest
import torch

from iclr26 import zoo
from iclr26.duet import (FORMS, GENERIC_PREFIX, KINDS, REFUSAL, REVERSE_PROMPT, RULE_ANSWER, UNSEEN_ATTACKS,
                         DomainWorld, decoding_logits, domain_world, duet_unlearn, forced_em, forget_prefix,
                         full_kl_loss, last_token_index, made_up_queries, performance_shift, query_forms,
                         steering_sampler, teacher_targets, token_disjoint, topk_huber_loss, train_base,
                         unlearn_baseline)
from iclr26.tinylm import collate, pad_id_of

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def tok():
    return zoo.load_tokenizer()


def llama(tok, ctx=128, seed=0):
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(seed)
    c = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=ctx,
        pad_token_id=tok.pad_token_id,
    )
    return LlamaForCausalLM(c).eval()


def gpt2(tok, ctx=128, seed=0):
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(seed)
    c = GPT2Config(vocab_size=len(tok), n_positions=ctx, n_embd=32, n_layer=1, n_head=2, pad_token_id=tok.pad_token_id)
    return GPT2LMHeadModel(c).eval()


QUERIES = ["Question: What is the job of Kamo Rita?\nAnswer: <answer>", "Question: Hi?\nAnswer: <answer>",
           "Question: Which pet does Lo Su keep, and where does the pet sleep at night?\nAnswer: <answer>"]


# ------------------------------------------------------------------ the loss
def test_topk_huber_hand_computation():
    s = torch.tensor([[0.0, 2.0, 1.0, 0.0, 5.0], [1.0, 1.0, 1.0, 1.0, 1.0]])
    t = torch.tensor([[3.0, 2.5, 0.0, 0.0, 0.0], [0.0, 0.0, 4.0, 1.5, 0.0]])
    # top-2 of the teacher: row 0 tokens {0, 1}, residuals -3, -0.5; row 1 tokens {2, 3}, residuals -3, -0.5
    # Huber_1: |r| > 1 -> |r| - 0.5 = 2.5; |r| <= 1 -> r^2 / 2 = 0.125; each row 2.625, mean 2.625
    assert topk_huber_loss(s, t, k=2, delta=1.0).item() == pytest.approx(2.625)
    assert topk_huber_loss(s, t, k=2, delta=10.0).item() == pytest.approx(0.5 * (9 + 0.25))
    # k = 1: only the teacher's argmax; row 0 residual -3 -> 2.5, row 1 residual -3 -> 2.5
    assert topk_huber_loss(s, t, k=1, delta=1.0).item() == pytest.approx(2.5)


def test_topk_huber_matches_a_loop_and_ignores_other_tokens():
    g = torch.Generator().manual_seed(0)
    s, t = torch.randn(4, 11, generator=g) * 3, torch.randn(4, 11, generator=g) * 3
    k, d = 4, 0.7
    ref = 0.0
    for i in range(4):
        for j in t[i].topk(k).indices.tolist():
            r = abs(float(s[i, j] - t[i, j]))
            ref += 0.5 * r * r if r <= d else d * (r - 0.5 * d)
    assert topk_huber_loss(s, t, k, d).item() == pytest.approx(ref / 4, rel=1e-5)
    s2 = s.clone()
    out = torch.ones_like(t, dtype=torch.bool).scatter(1, t.topk(k, -1).indices, False)
    s2[out] += 100.0                              # tokens outside the teacher's top-K are unconstrained
    assert topk_huber_loss(s2, t, k, d).item() == pytest.approx(ref / 4, rel=1e-5)
    s.requires_grad_(True)
    topk_huber_loss(s, t, k, d).backward()
    assert (s.grad[out] == 0).all() and (s.grad[~out] != 0).any()


def test_full_kl_is_zero_on_equal_logits_and_positive_otherwise():
    t = torch.randn(3, 9)
    assert full_kl_loss(t, t).item() == pytest.approx(0.0, abs=1e-6)
    assert full_kl_loss(t + torch.randn(3, 9), t).item() > 0


# ------------------------------------------------------------------ first-position logits
@pytest.mark.parametrize("make", [llama, gpt2])
def test_first_position_logits_left_and_right_padding(tok, make):
    m = make(tok)
    ids = tok(QUERIES)["input_ids"]
    with torch.no_grad():
        alone = torch.stack([m(input_ids=torch.tensor([i])).logits[0, -1] for i in ids])
        for side in ("left", "right"):
            b = collate([{"input_ids": i} for i in ids], pad_id_of(tok), side=side)
            got = decoding_logits(m, b["input_ids"], b["attention_mask"])
            assert got.shape == (len(ids), 1, len(tok))
            assert torch.allclose(got[:, 0], alone, atol=1e-4), side
        # two positions: the last two real tokens
        b = collate([{"input_ids": i} for i in ids], pad_id_of(tok), side="right")
        two = decoding_logits(m, b["input_ids"], b["attention_mask"], n_positions=2)
        prev = torch.stack([m(input_ids=torch.tensor([i[:-1]])).logits[0, -1] for i in ids])
        assert torch.allclose(two[:, 0], prev, atol=1e-4) and torch.allclose(two[:, 1], alone, atol=1e-4)


def test_last_token_index():
    m = torch.tensor([[1, 1, 1, 0, 0], [0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])
    assert last_token_index(m).tolist() == [2, 4, 4]
    with pytest.raises(ValueError, match="no real token"):
        last_token_index(torch.tensor([[0, 0]]))


# ------------------------------------------------------------------ duet_unlearn on any HF causal LM
@pytest.mark.parametrize("make", [llama, gpt2])
def test_duet_unlearn_runs_on_any_causal_lm(tok, make):
    m = make(tok)
    teacher = copy.deepcopy(m)
    before = [p.detach().clone() for p in m.parameters()]
    t_before = [p.detach().clone() for p in teacher.parameters()]
    res = duet_unlearn(m, tok, QUERIES[:2], QUERIES[2:], "Forget the Velo saga.\n", teacher=teacher, steps=4,
                       batch_size=4, lr=1e-2, k=5)
    assert len(res.history) == 4 and all(torch.isfinite(torch.tensor(res.history)))
    assert res.tokens > 0 and res.data_tokens == sum(len(x) for x in tok(QUERIES)["input_ids"])
    assert any(not torch.equal(a, b) for a, b in zip(before, m.parameters()))           # the student moved
    assert all(torch.equal(a, b) for a, b in zip(t_before, teacher.parameters()))       # the teacher did not
    assert all(p.requires_grad for p in teacher.parameters())                           # nor was it frozen for good


def test_duet_fits_the_teacher(tok):
    "Many steps on two queries: the student's first-position top-K logits approach the prompted teacher's."
    m = llama(tok)
    prefix = "Forget the Velo saga.\n"
    tgt, _ = teacher_targets(copy.deepcopy(m), tok, QUERIES, prefix)
    def gap():
        b = collate([{"input_ids": i} for i in tok(QUERIES)["input_ids"]], pad_id_of(tok))
        with torch.no_grad(): s = decoding_logits(m, b["input_ids"], b["attention_mask"])
        return topk_huber_loss(s[:, 0], tgt[:, 0], 10, 1.0).item()
    g0 = gap()
    duet_unlearn(m, tok, QUERIES[:1], QUERIES[1:], prefix, steps=60, batch_size=4, lr=1e-2, warmup=1)
    assert gap() < 0.5 * g0


def test_duet_multi_position_and_ablation_losses(tok):
    m = llama(tok)
    r = duet_unlearn(m, tok, QUERIES[:2], [], "Forget it.\n", steps=2, batch_size=2, n_positions=3, loss="full_kl")
    assert len(r.history) == 2


# ------------------------------------------------------------------ bad input
def test_bad_inputs(tok):
    m = llama(tok, ctx=48)
    with pytest.raises(ValueError, match="forget_queries is empty"):
        duet_unlearn(m, tok, [], QUERIES, "Forget.\n", steps=1)
    with pytest.raises(ValueError, match="larger than the vocabulary"):
        duet_unlearn(m, tok, QUERIES, [], "Forget.\n", steps=1, k=len(tok) + 1)
    with pytest.raises(ValueError, match="longer than the model's context"):
        duet_unlearn(m, tok, QUERIES, [], "Forget " + "the saga " * 40 + ".\n", steps=1)
    with pytest.raises(ValueError, match="prefix"):
        duet_unlearn(m, tok, QUERIES, [], "", steps=1)
    with pytest.raises(ValueError, match="loss"):
        duet_unlearn(m, tok, QUERIES, [], "Forget.\n", steps=1, loss="mse")
    with pytest.raises(TypeError):
        duet_unlearn(m, tok, QUERIES[0], [], "Forget.\n", steps=1)
    with pytest.raises(ValueError, match="larger than the vocabulary"):
        topk_huber_loss(torch.zeros(2, 5), torch.zeros(2, 5), k=6)
    with pytest.raises(ValueError, match="delta"):
        topk_huber_loss(torch.zeros(2, 5), torch.zeros(2, 5), k=2, delta=0.0)
    with pytest.raises(ValueError, match="equal 2-D shapes"):
        topk_huber_loss(torch.zeros(2, 5), torch.zeros(2, 4))
    with pytest.raises(ValueError, match="method"):
        unlearn_baseline(m, tok, "rmu", [{"prompt": QUERIES[0], "answer": "x"}])
    with pytest.raises(ValueError, match="needs retain_records"):
        unlearn_baseline(m, tok, "graddiff", [{"prompt": QUERIES[0], "answer": "x"}])
    with pytest.raises(ValueError, match="forget_records is empty"):
        unlearn_baseline(m, tok, "ga", [])


# ------------------------------------------------------------------ baselines, world, metrics
@pytest.mark.parametrize("method", ["ga", "graddiff", "npo", "npo_rt", "refusal"])
def test_baselines_run(tok, method):
    m = llama(tok)
    f = [{"prompt": QUERIES[0], "answer": "baker"}, {"prompt": QUERIES[1], "answer": "red"}]
    r = unlearn_baseline(m, tok, method, f, [{"prompt": QUERIES[2], "answer": "cat"}], steps=3, batch_size=4)
    assert len(r.history) == 3 and r.tokens > 0


def test_npo_starts_at_log4_over_beta(tok):
    "At step 0 the policy equals the reference, so the NPO loss is -(2/beta) log sigmoid(0) = (2/beta) log 2."
    import math
    r = unlearn_baseline(
        llama(tok), tok, "npo", [{"prompt": QUERIES[0], "answer": "baker"}], steps=1, beta=0.1, lr=1e-9
    )
    assert r.history[0] == pytest.approx(20 * math.log(2), rel=1e-4)


def test_world_and_sampler(tok):
    w = domain_world(6, 2, 4, seed=0)
    assert isinstance(w, DomainWorld) and w.target == 5 and w.target not in w.prefix_domains
    assert len(w.members(w.target)) == 4 and {d["kind"] for d in w.domains} == set(KINDS)
    q0, q1 = w.queries(template=0), w.queries(template=1)
    assert len(q0) == len(q1) == len(w.people) * 5 and q0[0]["prompt"] != q1[0]["prompt"]
    one = steering_sampler(w, tok, seed=0)
    recs = [one() for _ in range(2000)]
    tprefix = forget_prefix(w.domains[w.target])
    assert not any(r["prompt"].startswith(tprefix) for r in recs)                     # the target never in a prefix
    assert any(r["answer"].startswith(REFUSAL) for r in recs)
    assert all(r["answer"].startswith(REFUSAL) is False for r in recs if not r["prompt"].startswith("Forget"))


def test_named_queries_and_made_up_domains(tok):
    import re
    w = domain_world(6, 2, 4, seed=0)
    named = w.queries(template=0, explicit=True)
    assert len(named) == len(w.people) * 4                                            # no membership question
    assert all(
        f"of the {w.domains[q['domain']]['name']} {w.domains[q['domain']]['kind']}" in q["prompt"] for q in named
    )
    mix = {"fresh": 0.5, "prefix": 0.5}
    one = steering_sampler(w, tok, seed=0, mix=mix, explicit=1.0)
    recs = [one() for _ in range(1000)]
    tprefix = forget_prefix(w.domains[w.target])
    assert not any(r["prompt"].startswith(tprefix) for r in recs)
    real = {d["name"] for d in w.domains}
    n_fresh = 0
    for r in recs:
        pre = re.match(r"Forget the (\w+) (\w+)\.\n", r["prompt"])
        about = re.search(r" of the (\w+) (saga|field|company)\b", r["prompt"])
        assert pre
        # explicit=1 names the domain in every question but membership
        if about is None:
            assert "part of?" in r["prompt"] or "belongs to which" in r["prompt"]
            continue
        if about.group(1) in real: continue
        # a made-up domain: refuse iff it matches
        n_fresh += 1
        assert r["answer"].startswith(REFUSAL) == (pre.groups() == about.groups())
        assert pre.group(2) == about.group(2)             # the same kind either way: only the name can decide
    assert 300 < n_fresh < 700
    neg = {pre.group(1) for r in recs if (pre := re.match(r"Forget the (\w+) ", r["prompt"]))
           and not r["answer"].startswith(REFUSAL) and pre.group(1) not in real}
    # answered prefixes come from the made-up pool, not a short list
    assert len(neg) > 100
    with pytest.raises(ValueError, match="explicit"): steering_sampler(w, tok, explicit=1.5)
    with pytest.raises(ValueError, match="unknown kinds"): steering_sampler(w, tok, mix={"nope": 1.0})


def test_made_up_queries_are_new_and_paired():
    import re
    w = domain_world(6, 2, 4, seed=0)
    refuse, answer = made_up_queries(w, 30)
    assert len(refuse) == len(answer) == 30 and all(r["answer"] == REFUSAL for r in refuse)
    used = {d["name"] for d in w.domains}
    for r, a in zip(refuse, answer):
        W = re.match(r"Forget the (\w+) ", r["prompt"]).group(1)
        other = re.match(r"Forget the (\w+) ", a["prompt"]).group(1)
        assert f" of the {W} " in r["prompt"] and W != other and W not in used and other not in used
        assert r["prompt"].split("\n", 1)[1] == a["prompt"].split("\n", 1)[1]   # the same question, another prefix
    with pytest.raises(ValueError, match="n"): made_up_queries(w, 0)


def test_token_disjoint_world_and_sampler(tok):
    import re
    w = domain_world(12, 2, 4, seed=0, tokenize=tok.tokenize)
    names = [d["name"] for d in w.domains]
    assert len(set(names)) == 12
    assert all(not set(tok.tokenize(" " + a)) & set(tok.tokenize(" " + b)) for a in names for b in names if a != b)
    assert token_disjoint("Vimo", "Vemo") and not token_disjoint("Vimo", "Vemo", tok.tokenize)   # both start " V"
    with pytest.raises(ValueError, match="n_domains"): domain_world(200, 1, tokenize=tok.tokenize)
    mix = {"fresh": 0.4, "distractor": 0.3, "prefix": 0.3}
    one = steering_sampler(w, tok, seed=0, mix=mix, explicit=0.0, prefixed_explicit=1.0, disjoint=True)
    for _ in range(600):
        r = one()
        pre = re.match(r"Forget the (\w+) ", r["prompt"]).group(1)
        about = re.search(r" of the (\w+) (saga|field|company)\b", r["prompt"])
        assert about is not None                                 # every prefixed question names its domain
        if not r["answer"].startswith(REFUSAL):                  # an answered prefix shares no token with the domain
            assert token_disjoint(pre, about.group(1), tok.tokenize)
    rule = steering_sampler(w, tok, seed=0, mix={"fresh": 1.0}, disjoint=True, fixed_answer=RULE_ANSWER)
    answers = {rule()["answer"] for _ in range(200)}
    assert answers == {REFUSAL + "</answer>", RULE_ANSWER + "</answer>"}
    with pytest.raises(ValueError, match="prefixed_explicit"): steering_sampler(w, tok, prefixed_explicit=2.0)
    refuse, answer = made_up_queries(w, 20, tokenizer=tok)
    for r, a in zip(refuse, answer):
        W = re.match(r"Forget the (\w+) ", r["prompt"]).group(1)
        other = re.match(r"Forget the (\w+) ", a["prompt"]).group(1)
        assert token_disjoint(W, other, tok.tokenize) and W not in names


def test_train_base_rule_phase(tok):
    w = domain_world(4, 1, 2, seed=0, tokenize=tok.tokenize)
    m = llama(tok)
    seen = []
    r = train_base(m, tok, w, steps=3, batch_size=2, lr=1e-3, rule_steps=2, evaluate=lambda mm: seen.append(1) or {},
                   eval_every=2, disjoint=True, prefixed_explicit=1.0)
    assert r.steps == 5 and [h.get("phase") for h in r.history][:1] == ["rule"]
    assert r.evals[-1]["step"] == 5 and len(seen) == 2               # evaluated in the second phase only
    with pytest.raises(ValueError, match="rule_steps"): train_base(m, tok, w, steps=1, rule_steps=-1)
    with pytest.raises(ValueError, match="rule_lr"): train_base(m, tok, w, steps=1, rule_steps=1, rule_lr=0.0)


def test_forced_em_equals_greedy(tok):
    "forced_em scores 1 exactly on the model's own greedy continuation and 0 when its first token is changed."
    from iclr26.tinylm import sample_tokens
    m = llama(tok, seed=3)
    ids = tok(QUERIES)["input_ids"]
    new, _ = sample_tokens(m, ids, 3, eos_token_id=None, pad_id=pad_id_of(tok))
    rows = new.tolist()
    answers = [tok.decode(r) for r in rows]
    same = [tok(a, add_special_tokens=False)["input_ids"] == r for a, r in zip(answers, rows)]
    assert forced_em(m, tok, QUERIES, answers, end="").tolist() == [int(x) for x in same]
    wrong = [tok.decode([(r[0] + 7) % 200 + 300] + r[1:]) for r in rows]
    assert forced_em(m, tok, QUERIES, wrong, end="").tolist() == [0, 0, 0]


def test_performance_shift():
    b = {"forget": 0.9, "forget_para": 0.8, "retain": 0.95, "utility": 0.6}
    m = {"forget": 0.1, "forget_para": 0.2, "retain": 0.9, "utility": 0.58}
    assert performance_shift(b, m) == pytest.approx(100 * (0.8 + 0.6 - 0.05 - 0.02))
    with pytest.raises(ValueError, match="missing"):
        performance_shift(b, {"forget": 0.0})
    assert GENERIC_PREFIX.startswith("Forget")


# ---- property tests for bad input (issue #60): each bad argument fails with an error that names it ----
from hypothesis import given, settings, strategies as st

_nonfinite = st.sampled_from([float("nan"), float("inf"), -float("inf")])


@settings(max_examples=20, deadline=None)
@given(b1=st.integers(0, 3), b2=st.integers(0, 3), v1=st.integers(1, 6), v2=st.integers(1, 6),
       fn=st.sampled_from([topk_huber_loss, full_kl_loss]))
def test_property_distillation_losses_reject_shape_mismatch_and_empty(b1, b2, v1, v2, fn):
    s, t = torch.zeros(b1, v1), torch.zeros(b2, v2)
    kw = {"k": 1} if fn is topk_huber_loss else {}
    if (b1, v1) == (b2, v2) and b1 > 0:
        assert torch.isfinite(fn(s, t, **kw))
    else:
        with pytest.raises(ValueError, match="student|teacher"):
            fn(s, t, **kw)


@settings(max_examples=20, deadline=None)
@given(v=_nonfinite, fn=st.sampled_from([topk_huber_loss, full_kl_loss]))
def test_property_distillation_losses_reject_nonfinite_teacher(v, fn):
    t = torch.zeros(2, 5)
    t[1, 2] = v
    with pytest.raises(ValueError, match="teacher_logits"):
        fn(torch.zeros(2, 5), t)


@settings(max_examples=20, deadline=None)
@given(fn=st.sampled_from([topk_huber_loss, full_kl_loss]), dtype=st.sampled_from([torch.long, torch.bool]))
def test_property_distillation_losses_reject_integer_logits(fn, dtype):
    with pytest.raises(TypeError, match="student_logits"):
        fn(torch.zeros(2, 5, dtype=dtype), torch.zeros(2, 5, dtype=dtype))
    with pytest.raises(TypeError, match="student_logits"):
        fn([[0.0] * 5] * 2, torch.zeros(2, 5))


@settings(max_examples=20, deadline=None)
@given(k=st.one_of(st.integers(max_value=0), st.integers(6, 20)), delta=st.one_of(st.floats(max_value=0.0), _nonfinite))
def test_property_topk_huber_bad_hyperparameters(k, delta):
    s = t = torch.zeros(2, 5)
    with pytest.raises(ValueError, match="k"):
        topk_huber_loss(s, t, k=k)
    with pytest.raises(ValueError, match="delta"):
        topk_huber_loss(s, t, k=2, delta=delta)


@settings(max_examples=20, deadline=None)
@given(key=st.sampled_from(["forget", "forget_para", "retain", "utility"]),
       v=st.one_of(_nonfinite, st.text(max_size=2)), where=st.sampled_from(["base", "m"]))
def test_property_performance_shift_rejects_bad_metrics(key, v, where):
    base = {"forget": 1.0, "forget_para": 1.0, "retain": 1.0, "utility": 0.3}
    m = dict(base)
    (base if where == "base" else m)[key] = v
    with pytest.raises(ValueError, match=key):
        performance_shift(base, m)


@settings(max_examples=20, deadline=None)
@given(n_domains=st.integers(-2, 1), n_people=st.integers(-2, 0))
def test_property_domain_world_bad_sizes(n_domains, n_people):
    with pytest.raises(ValueError, match="n_domains"):
        domain_world(n_domains, 2)
    with pytest.raises(ValueError, match="n_people"):
        domain_world(4, n_people)


@settings(max_examples=20, deadline=None)
@given(b=st.integers(1, 3), L=st.integers(1, 4), dim=st.integers(1, 3))
def test_property_last_token_index_bad_masks(b, L, dim):
    mask = torch.ones((b,) * (dim - 1) + (L,), dtype=torch.long) if dim != 2 else torch.zeros(b, L, dtype=torch.long)
    with pytest.raises(ValueError, match="attention_mask"):
        last_token_index(mask)


def test_use_it_section_runs(monkeypatch, capsys):
    ("The notebook's 'Use it on your own model' cell runs on its own (the smoke run stops at the teacher gate before "
     "it).")
    import json
    from conftest import ROOT
    cells = json.loads((ROOT / "nbs" / "14_duet.ipynb").read_text())["cells"]
    heads = [i for i, c in enumerate(cells) if c["cell_type"] == "markdown"
             and "".join(c["source"]).startswith("## Use it on your own model")]
    assert heads and cells[heads[0] + 1]["cell_type"] == "code", "14_duet has no 'Use it' section with a code cell"
    monkeypatch.chdir(ROOT / "nbs")
    exec(compile("".join(cells[heads[0] + 1]["source"]), "14_duet: Use it", "exec"), {})
    out = capsys.readouterr().out
    assert "top-K logit distance to the prompted teacher" in out
    first, last = (float(x) for x in out.split("teacher: ")[1].split(" (")[0].split(" -> "))
    assert last < first, out   # the distillation loss falls


# ------------------------------------------------------------------ issue #57: held-out domains, forms, teacher view
def test_heldout_domains_are_never_prefixed(tok):
    "n_heldout=3: the last three domains are targets, none of them in a training prefix; n_heldout=1 is the old world."
    w = domain_world(8, 2, 3, seed=0, n_heldout=3)
    assert w.heldout == [5, 6, 7] and w.target == 5 and set(w.prefix_domains) == set(range(5))
    assert [len(w.members(d)) for d in range(8)] == [2] * 5 + [3] * 3
    w7 = w.with_target(7)
    assert w7.target == 7 and w7.prefix_domains == w.prefix_domains and w7.people is w.people
    with pytest.raises(ValueError, match="held-out"):
        w.with_target(0)
    old, new = domain_world(6, 2, 4, seed=0), domain_world(6, 2, 4, seed=0, n_heldout=1)
    assert old.people == new.people and old.domains == new.domains and new.heldout is None
    with pytest.raises(ValueError, match="n_heldout"):
        domain_world(4, 2, 2, n_heldout=4)
    one = steering_sampler(w, tok, seed=0)
    pre = {forget_prefix(w.domains[d]) for d in w.heldout}
    assert not any(r["prompt"].startswith(p) for r in (one() for _ in range(2000)) for p in pre)
    texts = [one()["prompt"] for _ in range(2000)]
    assert not any(a.strip() in t for a in UNSEEN_ATTACKS for t in texts)         # the unseen attacks are unseen
    assert any(REVERSE_PROMPT.strip() in t for t in texts)                         # the seen one is seen


def test_query_forms_and_resolution():
    w = domain_world(6, 2, 3, seed=0, n_heldout=2)
    mem = w.members(w.target)
    dom = w.domains[w.target]
    named = query_forms(w, mem, "named")
    assert [r["prompt"] for r in named] == [q["prompt"] for q in w.queries(mem, template=0, explicit=True)]
    for form in FORMS:
        recs = query_forms(w, mem, form)
        assert len(recs) == len(mem) * (1 if form == "membership" else 4)
        for r in recs:
            assert f"of the {dom['name']} {dom['kind']}" in r["resolved"]             # the teacher's view names it
            assert (dom["name"] in r["prompt"]) == form.startswith("named")          # the student's only if named
            assert r["prompt"].startswith("Question: ") and r["prompt"].endswith("<answer>")
    assert {r["answer"] for r in query_forms(w, mem, "membership")} == {dom["name"]}
    with pytest.raises(ValueError, match="form must be"):
        query_forms(w, mem, "plain")


def test_teacher_view_changes_only_the_teachers_input(tok):
    "With teacher_view the targets come from the mapped queries: a view equal to the queries changes nothing."
    q = QUERIES[:2]
    runs = []
    for view in (None, {x: x for x in q}, {q[0]: QUERIES[2]}):
        m = llama(tok)
        runs.append(duet_unlearn(m, tok, q[:1], q[1:], "Forget it.\n", teacher=llama(tok), steps=3, batch_size=2,
                                 lr=1e-2, teacher_view=view).history)
    assert runs[0] == runs[1] and runs[0] != runs[2]
    with pytest.raises(TypeError, match="teacher_view"):
        duet_unlearn(llama(tok), tok, q[:1], q[1:], "Forget it.\n", steps=1, teacher_view=[("a", "b")])
