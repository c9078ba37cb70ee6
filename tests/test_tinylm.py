"""Unit and bad-input tests of iclr26.tinylm: corpora, generators, tokenizers, models, masks, training, generation,
cache."""
import json, math
from pathlib import Path

import pytest
import torch

from iclr26 import tinylm as T


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # see conftest.py


@pytest.fixture(scope="module")
def bpe():
    return T.bpe_tokenizer(T.stdlib_corpus(60_000)["train"], 300)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


# ---------------------------------------------------------------- corpora and generators
def test_stdlib_corpus_splits_are_disjoint_and_deterministic():
    c = T.stdlib_corpus(200_000)
    assert set(c) == {"train", "validation", "test"} and all(c.values())
    paths = [{r["path"] for r in c[s]} for s in T.SPLITS]
    assert not (paths[0] & paths[1]) and not (paths[0] & paths[2]) and not (paths[1] & paths[2])
    assert all(T.split_of(r["path"]) == s for s in T.SPLITS for r in c[s])
    assert [r["path"] for r in T.stdlib_corpus(200_000)["train"]] == [r["path"] for r in c["train"]]
    assert not any(T._is_test_path(Path(r["path"])) for s in T.SPLITS for r in c[s])


@pytest.mark.parametrize("kw,msg", [(dict(max_chars=0), "max_chars"), (dict(max_chars=-5), "max_chars"),
                                    (dict(fracs=(0.5, 0.6, 0.1)), "sum to 1"), (dict(fracs=(1.0, 0.0)), "three")])
def test_stdlib_corpus_bad_input(kw, msg):
    with pytest.raises(ValueError, match=msg): T.stdlib_corpus(**{"max_chars": 1000, **kw})


def test_arithmetic_chains_are_verifiable():
    recs = T.arithmetic(50, seed=3, n_terms=4, ops="+-*", max_value=9)
    assert len({r["prompt"] for r in recs}) == 50
    for r in recs:
        acc = None
        for line in r["steps"]:
            lhs, rhs = line.split("=")
            acc = eval(lhs)                        # each step is one binary operation, left to right
            assert acc == int(rhs)
        assert (
            acc == r["result"] and T.final_number(r["answer"]) == r["result"] and r["text"] == r["prompt"] + r["answer"]
        )
    assert T.arithmetic(5, seed=1) == T.arithmetic(5, seed=1)
    assert T.arithmetic_reward(["1+1="] * 3, ["2", "x", "1+1=2\n3"], [2, 2, 2]) == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("kw,exc", [(dict(n=0), ValueError), (dict(n=3, ops=""), ValueError),
                                    (dict(n=3, n_terms=1), ValueError), (dict(n=3, seed=-1), ValueError),
                                    (dict(n=2.5), TypeError), (dict(n=500, max_value=3), ValueError)])
def test_arithmetic_bad_input(kw, exc):
    with pytest.raises(exc): T.arithmetic(**kw)


def test_fact_world_and_knowledge_base():
    w = T.fact_world(12, seed=4)
    assert len(w.qa()) == 12 * len(T.FACT_QUESTIONS) and len(set(w.names)) == 12
    f, r = w.split(0.25)
    assert len(f) == 3 and not set(f) & set(r) and set(f) | set(r) == set(w.names)
    assert w.qa(people=f[:1], attributes=["job"])[0]["answer"].strip() == next(
        p["job"] for p in w.people if p["name"] == f[0]
    )
    with pytest.raises(ValueError, match="unknown people"): w.qa(people=["Nobody Here"])
    with pytest.raises(ValueError, match="forget_frac"): w.split(1.5)
    kb = T.knowledge_base(seed=2)
    qs = kb.multihop(20, hops=3, seed=0)
    assert len({q["question"] for q in qs}) == 20
    for q in qs:
        cur = q["chain"][0][0]
        for s, rel, o in q["chain"]:
            assert s == cur and kb.lookup(s, rel) == o
            cur = o
        assert cur == q["answer"] and q["question"] == kb.question(q["chain"][0][0], [c[1] for c in q["chain"]])
    with pytest.raises(KeyError): kb.lookup("Nobody", "employer")
    with pytest.raises(ValueError): T.knowledge_base(n_people=1)


# ---------------------------------------------------------------- tokenizers
TEXT = "def f(x):\n\treturn x ** 2  # 平方 ✓\n"


@pytest.mark.parametrize("kind", ["byte", "char", "bpe", "word"])
def test_tokenizer_round_trip_and_save_load(kind, bpe, tmp_path):
    text = "Ada Vel was born in Kora. Ada Vel keeps a cat.\nQ: Where?" if kind == "word" else TEXT
    tok = {"byte": lambda: T.byte_tokenizer(), "char": lambda: T.char_tokenizer([TEXT]), "bpe": lambda: bpe,
           "word": lambda: T.word_tokenizer([text])}[kind]()
    assert [tok.pad_token_id, tok.bos_token_id, tok.eos_token_id, tok.mask_token_id, tok.unk_token_id] == [
        0,
        1,
        2,
        3,
        4,
    ]
    ids = tok(text)["input_ids"]
    assert ids[0] == tok.bos_token_id and tok.eos_token_id not in ids
    assert tok.decode(ids, skip_special_tokens=True) == text
    tok.save_pretrained(tmp_path)
    tok2 = T.load_tokenizer(tmp_path)
    assert tok2(text)["input_ids"] == ids and tok2.decode(ids, skip_special_tokens=True) == text
    assert T.byte_tokenizer(add_bos=False)("ab")["input_ids"][0] != 1


def test_tokenizer_bad_input():
    with pytest.raises(ValueError, match="empty"): T.bpe_tokenizer([])
    with pytest.raises(ValueError, match="empty"): T.word_tokenizer([""])
    with pytest.raises(TypeError, match="one string"): T.char_tokenizer("abc")
    with pytest.raises(TypeError, match="mapping"): T.bpe_tokenizer({"train": ["x"]})
    with pytest.raises(ValueError, match="vocab_size"): T.bpe_tokenizer(["abc"], vocab_size=100)
    with pytest.raises(ValueError, match="spec"): T.make_tokenizer("sentencepiece")
    with pytest.raises(FileNotFoundError): T.load_tokenizer("/nonexistent")
    assert T.char_tokenizer(alphabet="ab").decode(T.char_tokenizer(alphabet="ab")("abz")["input_ids"]) == "<s>ab<unk>"


# ---------------------------------------------------------------- models and masks
def test_sizes_and_model_factory(bpe):
    s = T.parse_size("llama-4L-256-8h")
    assert (s["n_layers"], s["d_model"], s["n_heads"]) == (4, 256, 8)
    m = T.make_model("llama-2L-128", bpe, seed=5)
    assert m.config.vocab_size == len(bpe) and m.config.num_hidden_layers == 2 and m.config.hidden_size == 128
    assert m.config.pad_token_id == 0 and m.config.eos_token_id == 2
    assert torch.equal(m.lm_head.weight, m.model.embed_tokens.weight)       # tied
    torch.manual_seed(0)
    a = torch.rand(1)
    m2 = T.make_model("llama-2L-128", bpe, seed=5)
    torch.manual_seed(0)
    assert torch.rand(1) == a                         # global RNG untouched
    assert all(torch.equal(p, q) for p, q in zip(m.parameters(), m2.parameters()))
    assert T.make_model("llama-1L-64", bpe, attn="eager").config._attn_implementation == "eager"
    for bad in ("llama-2L", "gpt-2L-128", "llama-2L-100-3h"):
        with pytest.raises(ValueError): T.parse_size(bad)
    with pytest.raises(TypeError, match="tokenizer"): T.make_model("llama-1L-64", None)
    with pytest.raises(ValueError, match="attn"): T.make_model("llama-1L-64", bpe, attn="flash")


@pytest.mark.parametrize("attn", ["sdpa", "eager"])
def test_masked_forward_equals_plain_forward(bpe, attn):
    m = T.make_model("llama-2L-128", bpe, attn=attn, seed=1)
    a = torch.tensor([bpe("import os\nx = 1")["input_ids"]])
    b = torch.tensor([bpe("def g():\n    pass")["input_ids"]])
    with torch.no_grad():
        pa, pb = m(input_ids=a).logits, m(input_ids=b).logits
        torch.testing.assert_close(
            T.forward_logits(m, a, allowed=T.causal_allowed(torch.ones_like(a))), pa, atol=1e-5, rtol=0
        )
        seg = torch.tensor([[0] * a.shape[1] + [1] * b.shape[1]])
        pos = torch.cat([torch.arange(a.shape[1]), torch.arange(b.shape[1])])[None]
        out = T.forward_logits(m, torch.cat([a, b], 1), allowed=T.segment_allowed(seg), position_ids=pos)
        torch.testing.assert_close(out[:, :a.shape[1]], pa, atol=1e-5, rtol=0)
        torch.testing.assert_close(out[:, a.shape[1]:], pb, atol=1e-5, rtol=0)
        # left padding with a 2-D mask: same logits on the real tokens
        padded = torch.cat([torch.zeros(1, 3, dtype=torch.long), a], 1)
        mask = torch.cat([torch.zeros(1, 3, dtype=torch.long), torch.ones_like(a)], 1)
        torch.testing.assert_close(T.forward_logits(m, padded, attention_mask=mask)[:, 3:], pa, atol=1e-5, rtol=0)
    with pytest.raises(ValueError, match="not both"):
        T.forward_logits(m, a, attention_mask=torch.ones_like(a), allowed=T.causal_allowed(torch.ones_like(a)))
    with pytest.raises(ValueError, match="allowed"):
        T.forward_logits(m, a, allowed=torch.ones(2, 3, 3, dtype=torch.bool))
    with pytest.raises(TypeError, match="boolean"): T.additive_mask(torch.ones(3, 3))


# ---------------------------------------------------------------- data, training, evaluation
def test_sft_labels_and_collate(bpe):
    ex = T.sft_encode(bpe, [{"prompt": "x=", "answer": "1"}, {"prompt": "yy=", "answer": "22"}])
    for e in ex:
        n_prompt = sum(l == T.IGNORE_INDEX for l in e["labels"])
        assert e["labels"][n_prompt:] == e["input_ids"][n_prompt:] and e["input_ids"][-1] == bpe.eos_token_id
    b = T.collate(ex, bpe.pad_token_id)
    assert b["input_ids"].shape == b["labels"].shape == b["attention_mask"].shape
    assert (b["labels"][b["attention_mask"] == 0] == T.IGNORE_INDEX).all()
    with pytest.raises(KeyError, match="answer"): T.sft_encode(bpe, [{"prompt": "x"}])
    with pytest.raises(ValueError, match="empty"): T.sft_encode(bpe, [])
    with pytest.raises(ValueError, match="side"): T.collate(ex, 0, side="middle")


def test_train_config_schedule_and_checks():
    c = T.TrainConfig(steps=100, warmup=10, lr=1.0, min_lr_ratio=0.1)
    assert c.lr_at(0) == pytest.approx(0.1) and c.lr_at(9) == pytest.approx(1.0)
    assert c.lr_at(99) == pytest.approx(0.1, abs=1e-3) and c.lr_at(10) == pytest.approx(1.0)
    assert T.TrainConfig(schedule="constant", warmup=0, lr=2.0).lr_at(50) == 2.0
    for kw in (dict(steps=0), dict(lr=0), dict(schedule="linear"), dict(min_lr_ratio=2), dict(grad_clip=-1)):
        with pytest.raises(ValueError): T.TrainConfig(**kw)
    with pytest.raises(TypeError, match=r"unknown TrainConfig setting\(s\) \[.stepz.\]"): T._config(None, {"stepz": 3})


def test_training_lowers_loss_and_perplexity_is_consistent(bpe):
    c = T.stdlib_corpus(60_000)
    tr, va = T.encode_corpus(bpe, c["train"]), T.encode_corpus(bpe, c["validation"])
    m = T.make_model("llama-1L-64", bpe, seed=0)
    p0 = T.perplexity(m, va, seq_len=32, max_tokens=2048)
    res = T.train_lm(m, tr, va, steps=30, batch_size=8, seq_len=32, lr=1e-2, warmup=3, eval_tokens=2048)
    assert res.steps == 30 and res.final["val_ppl"] < p0 and res.history[-1]["loss"] < res.history[0]["loss"]
    assert res.final["val_ppl"] == pytest.approx(T.perplexity(m, va, seq_len=32, max_tokens=2048), rel=1e-6)
    x = va[:32][None]
    assert math.log(T.perplexity(m, va[:32], seq_len=32)) == pytest.approx(
        m(input_ids=x, labels=x).loss.item(), rel=1e-5
    )
    # unigram baseline: uniform counts give perplexity V
    assert T.unigram_perplexity(
        torch.arange(10).repeat(5), torch.arange(10).repeat(4), 10, seq_len=None
    ) == pytest.approx(10.0, rel=1e-6)
    with pytest.raises(ValueError, match="vocabulary"): T.train_lm(m, torch.tensor([5000] * 100), steps=1, seq_len=8)
    with pytest.raises(ValueError, match="longer than seq_len"): T.train_lm(m, tr[:10], steps=1, seq_len=32)
    with pytest.raises(ValueError, match="empty"): T.encode_corpus(bpe, [])


def test_sft_memorises_and_exact_match():
    w = T.fact_world(2, seed=0, attributes=["job", "pet"])
    qa = w.qa()
    tok = T.word_tokenizer(qa)
    m = T.make_model("llama-1L-64", tok, seed=0)
    T.train_sft(m, tok, qa, steps=100, batch_size=8, lr=3e-3, warmup=5)
    em, preds = T.exact_match(m, tok, qa, return_predictions=True)
    assert em == 1.0, list(zip(preds, [r["answer"] for r in qa]))


def test_generation_is_deterministic_and_matches_full_forward(bpe):
    m = T.make_model("llama-1L-64", bpe, seed=0)
    prompts = ["import ", "def main", "x"]
    a = T.generate(m, bpe, prompts, 6, do_sample=True, seed=11)
    torch.rand(3)                                          # disturbing the global RNG must not matter
    assert a == T.generate(m, bpe, prompts, 6, do_sample=True, seed=11)
    assert a != T.generate(m, bpe, prompts, 6, do_sample=True, seed=12)
    # padding does not change greedy output
    assert T.generate(m, bpe, prompts, 6) == T.generate(m, bpe, prompts, 6, batch_size=1)
    ids, mask = T.sample_tokens(m, [bpe("def ")["input_ids"]], 5, eos_token_id=None)
    full = torch.tensor([bpe("def ")["input_ids"]])
    for t in range(5):
        assert m(input_ids=full).logits[0, -1].argmax().item() == ids[0, t].item()
        full = torch.cat([full, ids[:, t:t + 1]], 1)
    with pytest.raises(TypeError, match="tokenizer"): T.generate(m, None, ["x"])
    with pytest.raises(TypeError, match="causal LM"): T.generate(object(), bpe, ["x"])
    with pytest.raises(ValueError, match="empty"): T.generate(m, bpe, [])
    with pytest.raises(ValueError, match="temperature"): T.generate(m, bpe, ["x"], do_sample=True, temperature=0)


# ---------------------------------------------------------------- cache
def test_pretrained_cache_hit_miss_and_keying(cache):
    kw = dict(
        size="llama-1L-64",
        tokenizer="bpe-300",
        corpus_kwargs={"max_chars": 40_000},
        batch_size=2,
        seq_len=16,
        warmup=1,
        eval_tokens=256,
    )
    a, ta, ia = T.pretrained("stdlib-code", steps=2, **kw)
    b, tb, ib = T.pretrained("stdlib-code", steps=2, **kw)
    assert (ia["cached"], ib["cached"]) == (False, True) and ia["key"] == ib["key"] and ia["path"] == ib["path"]
    assert all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), b.state_dict().values()))
    assert ib["val_ppl"] == pytest.approx(ia["val_ppl"]) and "unigram_ppl" in ib and ib["history"]
    path = Path(ia["path"])
    assert (path / "model.safetensors").exists() and not list(path.glob("*.bin")) and (path / "tokenizer.json").exists()
    assert json.loads((path / "meta.json").read_text())["spec"]["size"] == "llama-1L-64"
    # changing any field retrains under a new key; the tokenizer (keyed without the model) is shared
    keys = {ia["key"]}
    for change in (dict(steps=3), dict(seed=1), dict(lr=1e-3), dict(size="llama-1L-32")):
        _, t, info = T.pretrained("stdlib-code", **{**kw, "steps": 2, **change})
        assert info["cached"] is False and info["key"] not in keys
        keys.add(info["key"])
        if "size" in change: assert t.get_vocab() == ta.get_vocab()
    assert len(list((cache / "tokenizers").iterdir())) == 1
    assert (
        T.cache_key({"a": 1, "b": [1, 2]}) == T.cache_key({"b": [1, 2], "a": 1}) != T.cache_key({"a": 2, "b": [1, 2]})
    )


def test_cache_refuses_pickles_and_bad_input(cache, bpe, tmp_path):
    d = tmp_path / "pickled"
    d.mkdir()
    (d / "config.json").write_text("{}")
    (d / "pytorch_model.bin").write_bytes(b"not loaded")
    with pytest.raises(ValueError, match="safetensors"): T.load_model(d)
    with pytest.raises(FileNotFoundError): T.load_model(tmp_path / "none")
    m = T.make_model("llama-1L-64", bpe)
    with pytest.raises(TypeError, match="tokenizer"): T.save_model(m, None, tmp_path / "x")
    with pytest.raises(ValueError, match="unknown corpus"): T.pretrained("wikipedia")
    with pytest.raises(ValueError, match="max_seconds"):
        T.pretrained("stdlib-code", steps=1, max_seconds=5.0, corpus_kwargs={"max_chars": 20_000}, tokenizer="bpe-300")
    with pytest.raises(ValueError, match="folder name"): T.cached_model("a/b", {}, lambda: None)
    calls = []
    def build():
        calls.append(1)
        return T.make_model("llama-1L-64", bpe, seed=3), bpe, {"note": "x"}
    m1, _, i1 = T.cached_model("custom", {"k": 1}, build)
    m2, _, i2 = T.cached_model("custom", {"k": 1}, build)
    assert len(calls) == 1 and i2["cached"] and i2["note"] == "x"
    assert T.cache_dir() == cache


def test_throughput_reports_positive_rates():
    r = T.train_throughput("llama-1L-64", vocab_size=64, batch_size=2, seq_len=16, steps=1, warmup=0)
    assert r["steps_per_s"] > 0 and r["tokens_per_s"] == pytest.approx(32 * r["steps_per_s"]) and r["params"] > 0
    with pytest.raises(TypeError, match="size"): T.train_throughput(3)


# ---- property tests for bad input (issue #60): a ValueError/TypeError naming the argument, never a silent result ----
from hypothesis import given, settings, strategies as st  # noqa: E402
import iclr26.tinylm as _tl  # noqa: E402

_TINY = {}


def _tiny():
    "One tiny untrained model for every example (built once)."
    if not _TINY: _TINY["m"] = _tl.make_model("llama-1L-64", vocab_size=32, seed=0)
    return _TINY["m"]


@settings(max_examples=20, deadline=None)
@given(n=st.integers(8, 40), seq=st.integers(-2, 1), bs=st.integers(-3, 0), oob=st.integers(32, 100))
def test_prop_eval_loss_rejects_bad_streams_and_settings(n, seq, bs, oob):
    m, toks = _tiny(), torch.randint(0, 32, (n,))
    for f in (_tl.eval_loss, _tl.window_losses, _tl.perplexity):
        with pytest.raises(ValueError, match="tokens must be a 1-D"):
            f(m, toks.view(1, -1), seq_len=4)
        with pytest.raises(TypeError, match="tokens must hold integer ids"):
            f(m, toks.float(), seq_len=4)
        with pytest.raises(ValueError, match="seq_len"):
            f(m, toks, seq_len=seq)
        with pytest.raises(ValueError, match="batch_size"):
            f(m, toks, seq_len=4, batch_size=bs)
        bad = toks.clone()
        bad[0] = oob
        with pytest.raises(ValueError, match="vocabulary"):
            f(m, bad, seq_len=4)
        with pytest.raises(ValueError, match="seq_len"):
            f(m, toks, seq_len=n + 1)


@settings(max_examples=20, deadline=None)
@given(fr=st.lists(st.floats(-1, 2, allow_nan=False), min_size=0, max_size=4), lr=st.floats(-1, 0),
       n=st.integers(-3, 0))
def test_prop_splits_configs_and_tasks_reject_bad_values(fr, lr, n):
    if len(fr) != 3 or any(f < 0 for f in fr) or abs(sum(fr) - 1) > 1e-6:
        with pytest.raises(ValueError, match="fracs"):
            _tl.split_of("a.py", tuple(fr))
    with pytest.raises(ValueError, match="lr"):
        _tl.TrainConfig(lr=lr)
    with pytest.raises(ValueError, match="lr"):
        _tl.TrainConfig(lr=float("nan"))
    with pytest.raises(ValueError, match="steps"):
        _tl.TrainConfig(steps=n)
    with pytest.raises(ValueError, match="n"):
        _tl.arithmetic(n)
    with pytest.raises(TypeError, match="model"):
        _tl.n_params(n)
