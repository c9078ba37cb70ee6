"Unit and bad-input tests of iclr26.pard (PARD parallel drafts, COD, lossless speculative decoding, vLLM layout)."
import json
import os

import pytest
import torch

from iclr26.pard import (PardCollator, add_pard_token, ar_decode, check_same_tokenizer, check_same_vocab,
                         chi_square_test, cod_keep, commit_round, crop_cache, decode, draft_proposals,
                         exact_token_distributions, greedy_rounds, interleaved_timing, median_ratio, pard_allowed,
                         pard_example, pard_layout, pard_logits, pard_token_id, run_method, save_pard_draft,
                         simulated_tau, speculative_decode, train_pard, verify_sampled, vllm_generate,
                         vllm_speculative_config, vllm_status)
from iclr26.tinylm import char_tokenizer, make_model

pytestmark = pytest.mark.usefixtures("one_torch_thread")   # tiny models: one thread, no spinning

ALPHABET = "abcdefgh ,."


@pytest.fixture(scope="module")
def tok():
    return char_tokenizer(alphabet=ALPHABET)


@pytest.fixture(scope="module")
def models(tok):
    target = make_model("llama-2L-32", tok, seed=1)
    draft = make_model("llama-1L-32", tok, seed=2)
    add_pard_token(draft, tok, token="<mask>")      # the char tokenizer's own mask token: no resize, one vocabulary
    return target, draft


def bruteforce(stream, pos):
    N = len(stream)
    out = torch.zeros(N, N, dtype=torch.bool)
    for q in range(N):
        k, t = int(stream[q]), int(pos[q])
        for j in range(N):
            kk, s = int(stream[j]), int(pos[j])
            out[q, j] = (kk == 0 and s <= t - k) or (1 <= kk <= k and s == t - k + kk)
    return out


@pytest.mark.parametrize("L", [2, 3, 5, 9])
@pytest.mark.parametrize("K", [1, 2, 3, 5])
@pytest.mark.parametrize("cod", [False, True])
def test_mask_matches_bruteforce(L, K, cod):
    keep = cod_keep(L, K, 0.6, 0.2, torch.Generator().manual_seed(L * 7 + K), cod)
    st, ps = pard_layout(L, K, keep)
    assert torch.equal(pard_allowed(st, ps), bruteforce(st, ps))


def test_whole_streams_layout():
    L, K = 10, 4
    keep = cod_keep(L, K, cod=False)
    assert [p.tolist() for p in keep] == [list(range(k, L - 1)) for k in range(1, K)]
    st, ps = pard_layout(L, K)
    assert len(st) == L + sum(L - 1 - k for k in range(1, K))


def test_cod_counts_and_prefix_integrity():
    g = torch.Generator().manual_seed(0)
    for L in (16, 64, 128):
        for K in (2, 8, 12):
            for _ in range(10):
                keep = cod_keep(L, K, 0.7, 0.2, g)
                for k in range(1, K):
                    assert len(keep[k - 1]) <= int(L * max(0.7 ** k, 0.2))
                    if len(keep[k - 1]): assert keep[k - 1].min() >= k and keep[k - 1].max() <= L - 2
                    if k >= 2:
                        prev = set(keep[k - 2].tolist())
                        assert all(t - 1 in prev for t in keep[k - 1].tolist())
    # the expected saving at the paper's defaults (K=8, r=0.7, r_min=0.2) is above 2x
    L, K = 64, 8
    whole = len(pard_layout(L, K)[0])
    cod = len(pard_layout(L, K, cod_keep(L, K, 0.7, 0.2, g))[0])
    assert whole / cod >= 2.0


def test_example_targets(tok):
    ids = torch.arange(5, 15)
    ex = pard_example(ids, 3, tok.mask_token_id)
    s0 = ex["stream"] == 0
    assert torch.equal(ex["input_ids"][s0], ids)
    assert (ex["input_ids"][~s0] == tok.mask_token_id).all()
    # slot (k, t) predicts x_{t+1}
    for inp, p, y, k in zip(ex["input_ids"], ex["position_ids"], ex["targets"], ex["stream"]):
        if p < len(ids) - 1: assert y == ids[p + 1]
        else: assert y == -100 and k == 0


def test_stream0_equals_causal(tok, models):
    _, draft = models
    x = torch.randint(5, len(tok), (2, 12))
    col = PardCollator(tok.mask_token_id, K=4, seed=0)
    b = col(x)
    lg = pard_logits(draft, b)
    ref = draft(input_ids=x).logits
    assert (lg[:, :12] - ref).abs().max() <= 1e-5
    # padding (examples of different COD lengths) leaves real slots finite
    assert torch.isfinite(lg).all()


def test_cache_crop(models):
    target, _ = models
    x = torch.randint(5, 12, (1, 10))
    out = target(input_ids=x, use_cache=True)
    cache = out.get("cache", None) if "cache" in out else out.past_key_values
    crop_cache(cache, 6)
    assert cache.get_seq_length() == 6
    kw = "cache" if "cache" in out else "past_key_values"
    nxt = target(input_ids=x[:, 6:], position_ids=torch.arange(6, 10)[None], use_cache=True, **{kw: cache}).logits
    ref = target(input_ids=x).logits[:, 6:]
    assert (nxt - ref).abs().max() < 1e-4
    with pytest.raises(ValueError, match="cannot crop"):
        crop_cache(cache, 99)


@pytest.mark.parametrize("method", ["pard", "vsd"])
@pytest.mark.parametrize("k", [1, 2, 5])
def test_lossless(models, method, k):
    target, draft = models
    p = [5, 6, 7, 8, 9, 5, 6]
    ref = ar_decode(target, p, 20)
    res = speculative_decode(target, draft, p, 20, k, method)
    assert res.tokens == ref.tokens and len(res.tokens) == 20
    assert sum(res.accepted) == 20 and all(1 <= a <= k + 1 for a in res.accepted)
    assert res.target_calls == len(res.accepted) and res.tau == 20 / res.target_calls
    if method == "pard": assert res.draft_calls == len(res.accepted)
    else: assert res.draft_calls == k * len(res.accepted)


def test_lossless_with_eos(models):
    target, draft = models
    p = [5, 6, 7]
    ref = ar_decode(target, p, 12)
    eos = ref.tokens[3]
    a = ar_decode(target, p, 12, eos_token_id=eos)
    b = speculative_decode(target, draft, p, 12, 4, "pard", eos_token_id=eos)
    assert a.tokens == b.tokens and a.tokens[-1] == eos


def test_self_draft_accepts_everything(models):
    target, _ = models
    res = speculative_decode(target, target, [5, 6, 7], 16, 3, "vsd")
    assert res.accepted == [4, 4, 4, 4]
    # the last round overshoots the budget: only the kept tokens count (τ = 10 / 3, not 12 / 3)
    res = speculative_decode(target, target, [5, 6, 7], 10, 3, "vsd")
    assert res.accepted == [4, 4, 2] and res.tokens == ar_decode(target, [5, 6, 7], 10).tokens
    assert res.tau == pytest.approx(10 / 3)


def test_tau_accounting_hand_made_trace():
    # commit_round cuts a round at the budget and just after EOS
    assert commit_round([7, 8, 9], 0, 10) == [7, 8, 9]
    assert commit_round([7, 8, 9], 8, 10) == [7, 8]
    assert commit_round([7, 2, 9], 0, 10, eos_token_id=2) == [7, 2]
    assert commit_round([7, 8], 10, 10) == []
    # greedy_rounds on a hand-made trace: target output y = prompt [0, 1] + [10, 11, 12, 13, 14, 15, 16]
    y = [0, 1, 10, 11, 12, 13, 14, 15, 16]
    props = torch.full((3, len(y)), -1)
    props[:, 1] = torch.tensor([10, 11, 99])        # round 1 (last real position 1): 2 accepted + bonus 12 -> 3 tokens
    props[:, 4] = torch.tensor([13, 14, 15])        # round 2 (position 4): 3 accepted + bonus 16 -> 4 tokens
    assert greedy_rounds(y, props, start=2, k=3) == [3, 4]
    props[:, 4] = torch.tensor([13, 14, 15])
    assert greedy_rounds(y[:-1], props, start=2, k=3) == [3, 3]          # the budget ends inside round 2: 3 kept, not 4
    assert greedy_rounds(y, props, start=2, k=1) == [2, 1, 2, 1, 1]


@pytest.mark.parametrize("method", ["pard", "vsd"])
def test_replayed_tau_equals_decoded(models, method):
    target, draft = models
    p = [5, 6, 7, 8, 9]
    ref = ar_decode(target, p, 16).tokens
    props = draft_proposals(draft, torch.tensor([p + ref]), 3, method)
    dec = speculative_decode(target, draft, p, 16, 3, method)
    assert greedy_rounds(p + ref, props[0], len(p), 3) == dec.accepted
    assert simulated_tau(draft, torch.tensor([p + ref]), len(p), 3, method) == pytest.approx(dec.tau)


def test_verify_sampled_gives_target_distribution():
    "The rejection-sampling step alone: drafts drawn from q come out distributed as p; q itself fails the test."
    g = torch.Generator().manual_seed(0)
    p = torch.softmax(torch.randn(3, 10, generator=g) * 1.5, -1)
    q = torch.softmax(torch.randn(2, 10, generator=g) * 1.5, -1)
    first, raw = [], []
    for _ in range(3000):
        d = [int(torch.multinomial(q[j], 1, generator=g)) for j in range(2)]
        a, nxt = verify_sampled(p, q, d, g)
        first.append(d[0] if a >= 1 else nxt)
        raw.append(d[0])
        assert 0 <= a <= 2
    assert chi_square_test(first, p[0])["p_value"] > 1e-3
    assert chi_square_test(raw, p[0])["p_value"] < 1e-6
    # identical distributions accept everything
    for _ in range(20):
        d = [int(torch.multinomial(p[j], 1, generator=g)) for j in range(2)]
        assert verify_sampled(p, p[:2], d, g)[0] == 2
    with pytest.raises(ValueError, match="need q"): verify_sampled(p, q[:1], [1, 2], g)


def _peaked(model, scale=6.0):
    "Sharpen a random model's output so that its distributions are far from uniform."
    with torch.no_grad(): model.lm_head.weight.mul_(scale)
    return model


@pytest.mark.parametrize("method", ["pard", "vsd"])
def test_speculative_sampling_distribution(tok, method):
    "End to end at T > 0: the first two sampled tokens follow the target's exact distributions (chi-square)."
    target = _peaked(make_model("llama-2L-32", tok, seed=11))
    draft = _peaked(make_model("llama-1L-32", tok, seed=12))
    add_pard_token(draft, tok, token="<mask>")
    prompt = [5, 6, 7]
    p1, p2 = exact_token_distributions(target, prompt, 1.0)
    g = torch.Generator().manual_seed(1)
    outs = [speculative_decode(target, draft, prompt, 2, 2, method, temperature=1.0, generator=g).tokens
            for _ in range(600)]
    assert all(len(o) == 2 for o in outs)
    assert chi_square_test([o[0] for o in outs], p1)["p_value"] > 1e-3
    assert chi_square_test([o[1] for o in outs], p2)["p_value"] > 1e-3
    assert abs(float(p1.sum()) - 1) < 1e-9 and abs(float(p2.sum()) - 1) < 1e-9


def test_chi_square_test():
    probs = torch.tensor([0.5, 0.3, 0.2])
    r = chi_square_test([0] * 50 + [1] * 30 + [2] * 20, probs)
    assert r["statistic"] == pytest.approx(0.0) and r["p_value"] == pytest.approx(1.0) and r["dof"] == 2
    assert chi_square_test([0] * 100, probs)["p_value"] < 1e-10
    with pytest.raises(ValueError, match="samples"): chi_square_test([], probs)
    with pytest.raises(ValueError, match="distribution"): chi_square_test([0], torch.tensor([0.5, 0.6]))


def test_interleaved_timing():
    calls = []
    jobs = {"a": lambda: calls.append("a") or 4, "b": lambda: calls.append("b") or 8}
    t = interleaved_timing(jobs, 3)
    assert calls == ["a", "b", "b", "a", "a", "b"]                       # rotating order
    assert [n for n, _ in t["a"]] == [4, 4, 4] and median_ratio(t, "a", "a") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="jobs"): interleaved_timing({}, 2)


def test_run_method(models):
    target, draft = models
    prompts = [[5, 6, 7], [8, 9, 10, 5]]
    ar, refs = run_method(target, prompts, 8, "ar")
    st, _ = run_method(target, prompts, 8, "pard", draft, 3, refs)
    assert st.lossless == 1.0 and st.tokens == 16 and st.tau >= 1


def test_train_pard_runs(tok):
    draft = make_model("llama-1L-32", tok, seed=3)
    add_pard_token(draft, tok, token="<mask>")
    stream = torch.randint(5, len(tok), (2000,))
    r_cod = train_pard(draft, stream, K=4, cod=True, steps=3, batch_size=2, seq_len=16, warmup=1, log_every=1)
    r_all = train_pard(draft, stream, K=4, cod=False, steps=3, batch_size=2, seq_len=16, warmup=1, log_every=1)
    assert r_cod.tokens < r_all.tokens
    assert draft.config.pard_token == tok.mask_token_id == draft.config.mask_token_id
    # component streams with weights, and snapshots for learning curves
    r = train_pard(draft, {"a": stream[:1000], "b": stream[1000:]}, K=3, weights={"a": 1.0, "b": 0.0},
                   checkpoint_every=2, steps=4, batch_size=2, seq_len=16, warmup=1, log_every=1)
    assert [c[0] for c in r.checkpoints] == [2, 4] and r.checkpoints[-1][1] == r.tokens
    with pytest.raises(ValueError, match="weights"):
        train_pard(draft, {"a": stream}, K=2, weights={"a": 0.0}, steps=1, batch_size=1, seq_len=8)


def test_bad_inputs(tok, models):
    target, draft = models
    with pytest.raises(ValueError, match="K"): cod_keep(8, 0)
    with pytest.raises(ValueError, match="K"): PardCollator(tok.mask_token_id, K=0)
    with pytest.raises(ValueError, match="k"): speculative_decode(target, draft, [5, 6], 4, 0)
    with pytest.raises(TypeError, match="k"): speculative_decode(target, draft, [5, 6], 4, 2.0)
    with pytest.raises(ValueError, match="method"): speculative_decode(target, draft, [5, 6], 4, 2, "eagle")
    with pytest.raises(ValueError, match="prompt_ids"): speculative_decode(target, draft, [], 4, 2)
    with pytest.raises(ValueError, match="temperature"):
        speculative_decode(target, draft, [5, 6], 4, 2, temperature=-0.5)
    with pytest.raises(ValueError, match="temperature"): ar_decode(target, [5, 6], 4, temperature=-1.0)
    with pytest.raises(ValueError, match="temperature"): exact_token_distributions(target, [5, 6], 0.0)
    with pytest.raises(ValueError, match="K"): draft_proposals(draft, torch.tensor([[5, 6, 7]]), 0)
    with pytest.raises(ValueError, match="method"): decode(target, [5, 6], 4, "eagle", draft)
    with pytest.raises(ValueError, match="needs a draft"): decode(target, [5, 6], 4, "pard")
    # a draft whose vocabulary differs from the target's
    other = make_model("llama-1L-32", char_tokenizer(alphabet="xyz"), seed=5)
    add_pard_token(other, char_tokenizer(alphabet="xyz"), token="<mask>")
    with pytest.raises(ValueError, match="differs from the target"): speculative_decode(target, other, [5, 6], 4, 2)
    with pytest.raises(ValueError, match="differs from the target"): check_same_vocab(target, other)
    with pytest.raises(ValueError, match="r must"): cod_keep(8, 3, r=0)
    # mask id missing from the vocabulary
    bad = make_model("llama-1L-32", tok, seed=4)
    bad.config.pard_token = len(tok) + 5
    with pytest.raises(ValueError, match="missing from the model's vocabulary"): pard_token_id(bad)
    with pytest.raises(ValueError, match="missing from the draft's vocabulary"):
        train_pard(bad, torch.randint(5, 10, (500,)), K=2, mask_id=len(tok) + 5, steps=1, batch_size=1, seq_len=8)
    nomask = make_model("llama-1L-32", tok, seed=4)
    with pytest.raises(ValueError, match="no PARD mask token"): pard_token_id(nomask)
    # a config whose mask_token_id disagrees with pard_token (newer vLLM would read the wrong id)
    nomask.config.pard_token, nomask.config.mask_token_id = 3, 4
    with pytest.raises(ValueError, match="conflicting draft token ids"): pard_token_id(nomask)
    # the mask id must not appear in training windows
    with pytest.raises(ValueError, match="mask id"):
        PardCollator(tok.mask_token_id, K=2)(torch.full((1, 6), tok.mask_token_id))
    # draft/target tokenizer mismatch
    with pytest.raises(ValueError, match="tokenizer mismatch"):
        check_same_tokenizer(tok, char_tokenizer(alphabet="xyz"))
    check_same_tokenizer(tok, char_tokenizer(alphabet=ALPHABET))


def test_add_pard_token_without_mask():
    from transformers import PreTrainedTokenizerFast
    t = char_tokenizer(alphabet="abc")
    raw = PreTrainedTokenizerFast(tokenizer_object=t.backend_tokenizer, pad_token="<pad>", eos_token="</s>")
    # a copy of the tokenizer with no mask token registered
    assert raw.mask_token_id is None
    m = make_model("llama-1L-32", vocab_size=len(raw), seed=0)
    n0 = m.get_input_embeddings().num_embeddings
    mid = add_pard_token(m, raw, token="<pard_mask>")
    assert m.config.pard_token == mid and mid < m.get_input_embeddings().num_embeddings
    assert m.get_input_embeddings().num_embeddings >= n0


def test_draft_config_token_ids(tmp_path):
    "add_pard_token uses <pard> (added if missing) and writes pard_token = mask_token_id; the saved config agrees."
    t = char_tokenizer(alphabet="abc")
    m = make_model("llama-1L-32", t, seed=0)
    mid = add_pard_token(m, t)
    assert t.convert_ids_to_tokens(mid) == "<pard>" and mid != t.mask_token_id
    assert m.config.pard_token == m.config.mask_token_id == mid and mid < m.get_input_embeddings().num_embeddings
    assert add_pard_token(m, t) == mid                                     # idempotent: the token is not added twice
    p = save_pard_draft(m, t, tmp_path / "d")
    cfg = json.loads((p / "config.json").read_text())
    assert cfg["pard_token"] == cfg["mask_token_id"] == mid
    cfg["mask_token_id"] = 3
    (p / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ValueError, match="conflicts with pard_token"): vllm_speculative_config(p, 4)
    m.config.mask_token_id = 3
    with pytest.raises(ValueError, match="conflicting"): save_pard_draft(m, t, tmp_path / "e")


def test_vllm_layout(tmp_path, tok, models):
    _, draft = models
    p = save_pard_draft(draft, tok, tmp_path / "draft")
    cfg = json.loads((p / "config.json").read_text())
    assert cfg["pard_token"] == cfg["mask_token_id"] == tok.mask_token_id
    assert (p / "model.safetensors").exists() and (p / "tokenizer.json").exists()
    sc = vllm_speculative_config(p, 6)
    assert sc == {"model": str(p), "num_speculative_tokens": 6, "method": "draft_model", "parallel_drafting": True}
    with pytest.raises(ValueError, match="k"): vllm_speculative_config(p, 0)
    with pytest.raises(FileNotFoundError): vllm_speculative_config(tmp_path / "nowhere", 4)
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "config.json").write_text("{}")
    with pytest.raises(ValueError, match="pard_token"): vllm_speculative_config(tmp_path / "plain", 4)


_VLLM_OK, _VLLM_WHY = vllm_status()
# `make test` builds .venv-vllm and sets ICLR26_REQUIRE_VLLM=1: there a missing vLLM is a failure, not a skip
needs_vllm = pytest.mark.skipif(not _VLLM_OK and not os.environ.get("ICLR26_REQUIRE_VLLM"), reason=_VLLM_WHY)


def test_vllm_generate_bad_input(tmp_path):
    "Bad methods, a missing draft or config, empty prompts and a missing vLLM each give a clear error."
    from iclr26.zoo import models_dir
    t = models_dir() / "draft"
    with pytest.raises(ValueError, match="methods"): vllm_generate(t, [[5, 6]], 4, methods=["beam"])
    with pytest.raises(ValueError, match="pard_draft"): vllm_generate(t, [[5, 6]], 4, methods=["pard"])
    with pytest.raises(FileNotFoundError, match="vsd_draft"):
        vllm_generate(t, [[5, 6]], 4, methods=["vsd"], vsd_draft=tmp_path)
    with pytest.raises(ValueError, match="prompts"): vllm_generate(t, [[]], 4, methods=["ar"])
    with pytest.raises(ValueError, match="k"): vllm_generate(t, [[5]], 4, methods=["ar"], k=0)
    with pytest.raises(RuntimeError, match="make vllm"):
        vllm_generate(t, [[5, 6]], 4, methods=["ar"], python=tmp_path / "no-python")


@pytest.mark.slow
@needs_vllm
def test_vllm_pard_is_lossless_on_the_zoo(tmp_path):
    """vLLM (the CPU build in .venv-vllm) serves a zoo target with AR, VSD and PARD drafting: at T=0 all three give
    our own greedy tokens, the saved PARD config is what vLLM reads, and its counters show drafts were verified."""
    assert _VLLM_OK, _VLLM_WHY
    from iclr26 import zoo
    target, tk = zoo.load("small")
    draft, _ = zoo.load("draft")
    pard_dir = save_pard_draft(draft, tk, tmp_path / "pard")        # the zoo's <pard> token (id 20) as mask token
    assert json.loads((pard_dir / "config.json").read_text())["pard_token"] == 20
    prompts = [tk.encode("def add(a, b):\n    return"), tk.encode("The capital of")]
    ref = [ar_decode(target, p, 12).tokens for p in prompts]
    r = vllm_generate(zoo.models_dir() / "small", prompts, 12, pard_draft=pard_dir,
                      vsd_draft=zoo.models_dir() / "draft", k={"vsd": 3, "pard": 4})
    m = r["methods"]
    assert m["ar"]["tokens"] == m["vsd"]["tokens"] == m["pard"]["tokens"] == ref
    assert r["k"] == {"ar": 1, "vsd": 3, "pard": 4}
    for meth in ("vsd", "pard"):
        s = m[meth]["spec"]
        assert s["drafts"] > 0 and s["draft_tokens"] == r["k"][meth] * s["drafts"] and 1 <= s["mean_acceptance_length"]


# ---- property tests for bad input (issue #60): each bad argument fails with an error that names it ----
from hypothesis import given, settings, strategies as st

_nonfinite = st.sampled_from([float("nan"), float("inf"), -float("inf")])


@settings(max_examples=20, deadline=None)
@given(r=st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0001), _nonfinite, st.text(max_size=2)),
       which=st.sampled_from(["r", "r_min"]))
def test_property_cod_keep_bad_rates(r, which):
    if which == "r_min" and isinstance(r, float) and 0 <= r <= 1: r = -r - 0.1
    with pytest.raises((ValueError, TypeError), match=which):
        cod_keep(8, 3, **{which: r})


@settings(max_examples=20, deadline=None)
@given(L=st.integers(-3, 1), K=st.integers(-3, 0))
def test_property_cod_keep_bad_sizes(L, K):
    with pytest.raises(ValueError, match="L"):
        cod_keep(L, 3)
    with pytest.raises(ValueError, match="K"):
        cod_keep(8, K)


@settings(max_examples=20, deadline=None)
@given(K=st.integers(1, 3), dq=st.integers(-1, 1), dp=st.integers(-1, 1), bad=st.sampled_from(["none", "nan", "neg",
                                                                                              "id"]))
def test_property_verify_sampled_bad_input(K, dq, dp, bad):
    V = 5
    p, q = torch.full((K + 1 + dp, V), 1 / V), torch.full((max(K + dq, 0), V), 1 / V)
    drafts = [1] * K
    if bad == "nan" and p.numel(): p[0, 0] = float("nan")
    if bad == "neg" and q.numel(): q[0, 0] = -0.5
    if bad == "id": drafts[-1] = V
    g = torch.Generator().manual_seed(0)
    if dq == 0 and dp == 0 and bad == "none":
        a, tok_ = verify_sampled(p, q, drafts, g)
        assert 0 <= a <= K and 0 <= tok_ < V
    else:
        with pytest.raises(ValueError, match="need q|p must|q must|drafts"):
            verify_sampled(p, q, drafts, g)


@settings(max_examples=20, deadline=None)
@given(v=_nonfinite, n=st.integers(1, 5))
def test_property_chi_square_rejects_nonfinite_probs(v, n):
    probs = torch.full((4,), 0.25, dtype=torch.float64)
    probs[1] = v
    with pytest.raises(ValueError, match="probs"):
        chi_square_test([0] * n, probs)


@settings(max_examples=20, deadline=None)
@given(n1=st.integers(0, 3), n2=st.integers(0, 3), s=st.one_of(st.floats(0.01, 2.0), _nonfinite, st.just(0.0)))
def test_property_median_ratio_bad_times(n1, n2, s):
    times = {"a": [(10, 1.0)] * n1, "b": [(10, s)] * n2}
    if n1 == n2 and n1 > 0 and 0 < s < float("inf"):
        assert median_ratio(times, "a", "b") == pytest.approx(s)
    else:
        with pytest.raises(ValueError, match="times"):
            median_ratio(times, "a", "b")
    with pytest.raises(ValueError, match="num/den"):
        median_ratio(times, "a", "c")


@settings(max_examples=20, deadline=None)
@given(produced=st.integers(-3, 3), budget=st.integers(-3, 3))
def test_property_commit_round_bad_counts(produced, budget):
    if produced >= 0 and budget >= 0:
        assert commit_round([1, 2, 3], produced, budget) == [1, 2, 3][:max(0, budget - produced)]
    else:
        with pytest.raises(ValueError, match="produced|max_new_tokens"):
            commit_round([1, 2, 3], produced, budget)


# --- the real-target measurement helpers (issue #63.2)
def test_verify_cost_curve_times_every_point_and_checks_names(models):
    from iclr26.pard import verify_cost_curve
    target, draft = models
    out = verify_cost_curve({"target": target, "draft": draft}, {"target": [1, 2, 5], "draft": [1]}, context=6,
                            rounds=3)
    assert sorted(out["target"]) == [1, 2, 5] and list(out["draft"]) == [1]
    assert all(s > 0 for d in out.values() for s in d.values())
    with pytest.raises(ValueError, match="n_tokens"):
        verify_cost_curve({"target": target}, {"draft": [1]})
    with pytest.raises(ValueError, match="rounds"):
        verify_cost_curve({"target": target}, {"target": [1]}, rounds=1)


def test_cost_model_speedup_is_eq4():
    from iclr26.pard import cost_model_speedup
    tc, dc = {1: 2.0, 2: 2.2, 5: 3.0}, {1: 0.1, 4: 0.2}
    assert cost_model_speedup(5.0, 4, "pard", tc, dc) == pytest.approx(5.0 * 2.0 / (3.0 + 0.2))
    assert cost_model_speedup(5.0, 4, "vsd", tc, dc) == pytest.approx(5.0 * 2.0 / (3.0 + 0.4))
    assert cost_model_speedup(1.0, 1, "vsd", tc, dc) == pytest.approx(2.0 / 2.3)     # no acceptance: a slow-down
    with pytest.raises(ValueError, match="draft_cost"):
        cost_model_speedup(2.0, 1, "pard", tc, {4: 0.2})
    with pytest.raises(ValueError, match="method"):
        cost_model_speedup(2.0, 1, "eagle", tc, dc)


def test_per_prompt_ratio_pairs_prompts_and_takes_medians():
    from iclr26.pard import per_prompt_ratio
    times = {"p/0": [(8, 1.0), (8, 2.0), (8, 1.0)], "ar/0": [(8, 2.0)], "p/1": [(3, 1.0)], "ar/1": [(3, 1.0)]}
    assert per_prompt_ratio(times, "p", "ar") == pytest.approx([2.0, 1.0])   # median 8 tokens/s over 4
    with pytest.raises(ValueError, match="lacks"):
        per_prompt_ratio({"p/0": [(1, 1.0)]}, "p", "ar")
