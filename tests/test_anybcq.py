"""API, exactness and bad-input tests of iclr26.anybcq (PyTorch path; the kernel has its own file)."""
import math

import pytest
import torch
import torch.nn as nn

from iclr26.anybcq import (AnyBCQLinear, anybcq_quantize, bcq_fit_scales, bcq_greedy, bcq_nearest_codes,
                           bcq_quantize, bcq_reconstruct, blockwise_reconstruct, fake_quantize_model, group_size_for,
                           load_quantized, nested_kmeans, nested_uniform, pack_code, quantize_model, relative_error,
                           rtn_quantize, save_quantized, separate_bcq, set_model_precision, sign_patterns, sign_pm)
from iclr26.kernels.anybcq import dequantize, unpack_bitplanes


def _W(N=48, Kd=256, seed=0, scale=0.02):
    return torch.randn(N, Kd, generator=torch.Generator().manual_seed(seed)) * scale


def test_greedy_is_best_one_bit_fit_and_planes_are_pm1():
    w = _W(10, 128).view(10, 1, 128)
    B, a = bcq_greedy(w, 3)
    assert B.shape == (10, 1, 3, 128) and a.shape == (10, 1, 3)
    assert set(B.unique().tolist()) == {-1.0, 1.0}
    torch.testing.assert_close(a[..., 0], w.abs().mean(-1))
    assert torch.all(a[..., 0] >= a[..., 1])
    assert sign_pm(torch.tensor([0.0, -0.0, -1e-9])).tolist() == [1.0, 1.0, -1.0]


def test_least_squares_scales_beat_greedy_and_solve_normal_equations():
    w = _W(8, 128).view(8, 1, 128)
    B, a = bcq_greedy(w, 2)
    a2, b2 = bcq_fit_scales(w, B, offset=True)
    r = w - bcq_reconstruct(B, a2, b2)
    # the residual is orthogonal to every plane and to the constant column
    assert (r[..., None, :] * B).sum(-1).abs().max() < 1e-5
    assert r.sum(-1).abs().max() < 1e-5
    assert relative_error(w, bcq_reconstruct(B, a2, b2)) <= relative_error(w, bcq_reconstruct(B, a))
    a3, b3 = bcq_fit_scales(w, B, offset=False)
    assert b3 is None and a3.shape == a.shape


def test_alternating_is_monotone_and_codes_are_nearest():
    w = _W(16, 128, seed=1).view(16, 1, 128)
    errs = [relative_error(w, bcq_reconstruct(*bcq_quantize(w, 3, iters=i))) for i in (0, 1, 3, 8)]
    assert all(b <= a + 1e-12 for a, b in zip(errs, errs[1:]))
    B, a, b = bcq_quantize(w, 3, iters=3)
    Bn = bcq_nearest_codes(w, a, b)
    codes = a @ sign_patterns(3).T + b[..., None]
    best = (w[..., None] - codes[..., None, :]).abs().min(-1).values
    torch.testing.assert_close((w - bcq_reconstruct(Bn, a, b)).abs(), best)


@pytest.mark.parametrize("offset", [True, False])
def test_progressive_expansion_nested_and_monotone(offset):
    W = _W(32, 256, seed=2)
    code = anybcq_quantize(W, 1, 5, group_size=64, iters=4, offset=offset)
    errs = [relative_error(W, code.weight(p)) for p in range(1, 6)]
    assert all(b < a for a, b in zip(errs, errs[1:]))
    assert (code.betas[3] is None) == (not offset)
    # expansion reuses the lower planes: a code grown to 5 planes holds the 3-plane code unchanged (planes and scales)
    code3 = anybcq_quantize(W, 1, 3, group_size=64, iters=4, offset=offset)
    assert torch.equal(code.planes[:, :, :3], code3.planes)
    for p in (1, 2, 3):
        torch.testing.assert_close(code.weight(p), code3.weight(p))
    # the one-shot step (0 rounds): plane p+1 = sign of the p-bit residual
    one = anybcq_quantize(W, 1, 5, group_size=64, iters=4, offset=offset, expand_iters=0)
    w = W.view(32, 4, 64)
    torch.testing.assert_close(
        one.planes[:, :, 3], sign_pm(w - bcq_reconstruct(one.planes[:, :, :3], one.alphas[3], one.betas[3]))
    )
    assert torch.equal(one.planes[:, :, 0], code.planes[:, :, 0])


def test_default_is_official_20_rounds_and_refinement_lowers_error():
    import inspect
    assert inspect.signature(anybcq_quantize).parameters["expand_iters"].default == 20
    gen = torch.Generator().manual_seed(5)
    # a heavy-tailed (Student-t, 3 dof) matrix: x / sqrt(chi2_3 / 3)
    z = torch.randn(64, 512, generator=gen)
    chi = (torch.randn(3, 64, 512, generator=gen) ** 2).sum(0) / 3
    W = 0.02 * z / chi.sqrt()
    e = {r: [relative_error(W, anybcq_quantize(W, 2, 5, 128, iters=5, expand_iters=r).weight(p)) for p in range(2, 6)]
         for r in (0, 1, 20)}
    for r in (0, 20):
        assert all(b < a for a, b in zip(e[r], e[r][1:]))         # strictly falls with each plane
    assert e[20][0] == e[0][0]                                     # the base is not touched
    for i in range(1, 4):                                          # more rounds, lower error at every added plane
        assert e[20][i] <= e[1][i] * (1 + 1e-3) and e[1][i] <= e[0][i] * (1 + 1e-3)
    assert e[20][2] < 0.9 * e[0][2]


def test_cached_cpu_path_matches_and_is_cleared():
    lin = nn.Linear(128, 24, bias=False)
    q = AnyBCQLinear.from_linear(lin, 2, 4, 128, iters=2)
    x = torch.randn(4, 128)
    with torch.no_grad():
        y = {p: q.set_precision(p)(x) for p in (2, 3, 4)}
    assert sorted(q._wcache) == [2, 3, 4]
    q.cache_dequant = False
    with torch.no_grad():
        for p in (2, 3, 4):
            torch.testing.assert_close(q.set_precision(p)(x), y[p])
    q.load_code(anybcq_quantize(_W(24, 128, seed=9), 2, 4, 128, iters=2))
    assert q._wcache == {}


def test_odd_widths_are_padded_and_conv1d_is_quantised():
    from transformers.pytorch_utils import Conv1D
    lin = nn.Linear(100, 24, bias=True)
    q = AnyBCQLinear.from_linear(lin, 2, 4, 128, iters=3)
    assert q.k_pad == 128 and q.qweight.shape == (4, 4, 24)
    x = torch.randn(3, 100)
    with torch.no_grad():
        torch.testing.assert_close(q.set_precision(3)(x), x @ q.weight_at(3).T + lin.bias, rtol=1e-4, atol=1e-5)
    assert relative_error(lin.weight.data, q.weight_at(4)) < relative_error(lin.weight.data, q.weight_at(2)) < 0.2
    c = Conv1D(48, 64)
    with torch.no_grad(): c.bias.normal_()
    qc = AnyBCQLinear.from_linear(c, 2, 4, 128, iters=3)
    x = torch.randn(2, 5, 64)
    with torch.no_grad():
        torch.testing.assert_close(qc(x), x @ qc.weight_at(4).T + c.bias, rtol=1e-4, atol=1e-5)
    assert relative_error(c.weight.data.T, qc.weight_at(4)) < 0.05


def test_gpt2_conv1d_model_is_quantised(one_torch_thread):
    from transformers import GPT2Config, GPT2LMHeadModel
    m = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=32, n_embd=64, n_layer=1, n_head=2)).eval()
    ids = torch.randint(0, 64, (1, 12), generator=torch.Generator().manual_seed(0))
    ref = fake_quantize_model(m, lambda W, n: anybcq_quantize(W, 2, 4, group_size_for(W.shape[1]), 3).weight(4))
    layers = quantize_model(m, 2, 4, 128, iters=3, progress_bar=False)
    assert sorted(n.rsplit(".", 1)[1] for n in layers) == ["c_attn", "c_fc", "c_proj", "c_proj"]
    with torch.no_grad():
        torch.testing.assert_close(set_model_precision(m, 4)(input_ids=ids).logits, ref(input_ids=ids).logits,
                                   rtol=1e-3, atol=1e-3)


def test_pack_code_round_trip_and_per_precision_scales():
    W = _W(40, 128, seed=3)
    code = anybcq_quantize(W, 2, 4, group_size=64, iters=3)
    pk = pack_code(code)
    assert pk["qweight"].shape == (4, 4, 40) and pk["alpha"].shape == (3, 2, 4, 40) and pk["beta"].shape == (3, 2, 40)
    torch.testing.assert_close(unpack_bitplanes(pk["qweight"]), code.planes.permute(2, 1, 3, 0).reshape(4, 128, 40))
    for j, p in enumerate((2, 3, 4)):
        torch.testing.assert_close(dequantize(pk["qweight"], pk["alpha"][j], pk["beta"][j], p, 64), code.weight(p).T)
        assert torch.all(pk["alpha"][j, :, p:] == 0)


def test_anybcq_linear_matches_code_and_switches_precision():
    lin = nn.Linear(128, 24, bias=True)
    q = AnyBCQLinear.from_linear(lin, 2, 4, 128, iters=3)
    code = anybcq_quantize(lin.weight.data, 2, 4, 128, iters=3)
    x = torch.randn(3, 5, 128)
    for p in (4, 2, 3):
        torch.testing.assert_close(q.set_precision(p)(x), x @ code.weight(p).T + lin.bias, rtol=1e-4, atol=1e-5)
    assert q.read_bytes(2) < q.read_bytes(3) < q.read_bytes(4) < q.storage_bytes()
    with pytest.raises(ValueError, match="p must be in"):
        q.set_precision(5)
    with pytest.raises(ValueError, match="p must be in"):
        q.set_precision(1)
    with pytest.raises(TypeError, match="nn.Linear or a transformers Conv1D"):
        AnyBCQLinear.from_linear(nn.Conv1d(2, 2, 1))
    with pytest.raises(ValueError, match="p must be in"):
        set_model_precision(nn.Sequential(q), 7)


def test_group_size_for_small_layers():
    assert group_size_for(256, 128) == 128
    assert group_size_for(100, 128) == 128          # zero-padded to 128 inputs
    # a multiple of 32 that does not divide the padded width falls back to a smaller one, and says so
    with pytest.warns(UserWarning, match="group_size=128"):
        assert group_size_for(352, 128) == 32
    with pytest.warns(UserWarning, match="group_size=128"):
        assert group_size_for(192, 128) == 96
    with pytest.warns(UserWarning, match="group_size"):
        assert group_size_for(160, 128) == 32 and group_size_for(448, 128) == 64
    with pytest.raises(ValueError, match="group_size"):
        group_size_for(256, 16)


def test_group_size_not_a_multiple_of_32_raises():
    # issue #60 item 2: group_size=100 silently became 96 on a 192-wide layer
    with pytest.raises(ValueError, match="group_size must be a multiple of 32"):
        group_size_for(192, 100)
    with pytest.raises(ValueError, match="group_size"):
        AnyBCQLinear.from_linear(nn.Linear(192, 8), group_size=100)
    with pytest.raises(ValueError, match="group_size"):
        quantize_model(nn.Sequential(nn.Linear(192, 8)), group_size=100, skip=(), progress_bar=False)


def test_save_pretrained_of_a_quantised_model_raises(tmp_path, one_torch_thread):
    # issue #60 item 2: save_pretrained wrote a file that from_pretrained reloaded as random plain nn.Linear layers
    from iclr26.tinylm import make_model
    qm = make_model("llama-1L-64", vocab_size=64, seed=0)
    quantize_model(qm, 2, 3, 64, iters=0, expand_iters=0, progress_bar=False)
    with pytest.raises(RuntimeError, match="save_quantized"):
        qm.save_pretrained(tmp_path / "hf")
    assert not (tmp_path / "hf" / "model.safetensors").exists()
    with pytest.raises(RuntimeError, match="save_quantized"):
        qm.push_to_hub("nobody/x")                 # push_to_hub goes through save_pretrained: refused before any upload
    other = make_model("llama-1L-64", vocab_size=64, seed=1)
    load_quantized(other, save_quantized(qm, tmp_path / "q.safetensors"))
    with pytest.raises(RuntimeError, match="save_quantized"):
        other.save_pretrained(tmp_path / "hf2")    # a model filled by load_quantized is guarded as well


def test_quantize_hf_model_save_load_and_reconstruct(tmp_path, one_torch_thread):
    from iclr26.tinylm import make_model
    fp = make_model("llama-1L-64", vocab_size=64, seed=0)
    qm = fake_quantize_model(fp, lambda W, n: W)          # a copy
    layers = quantize_model(qm, 2, 4, 128, iters=2, progress_bar=False)
    assert len(layers) == 7 and not any(n.endswith("lm_head") for n in layers)
    ids = torch.randint(0, 64, (2, 16), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        outs = {p: set_model_precision(qm, p)(input_ids=ids).logits for p in (2, 4)}
    assert not torch.allclose(outs[2], outs[4])
    path = save_quantized(qm, tmp_path / "q.safetensors")
    other = fake_quantize_model(fp, lambda W, n: W)
    load_quantized(other, path)
    with torch.no_grad():
        torch.testing.assert_close(set_model_precision(other, 2)(input_ids=ids).logits, outs[2], rtol=1e-4, atol=1e-4)
    log = blockwise_reconstruct(qm, fp, ids, steps=8, lr=1e-3)
    assert log[0]["loss_last"] < log[0]["loss_first"]
    assert all(not l.alpha.requires_grad for l in layers.values())
    with pytest.raises(ValueError, match="no AnyBCQLinear"):
        save_quantized(fp, tmp_path / "x.safetensors")
    with pytest.raises(FileNotFoundError):
        load_quantized(fp, tmp_path / "missing.safetensors")


def test_baselines():
    W = _W(16, 256, seed=4)
    for p in (2, 3, 4):
        assert all(len(r.unique()) <= 2 ** p for r in rtn_quantize(W, p, 64).view(-1, 64))
        assert all(len(r.unique()) <= 2 ** p for r in nested_uniform(W, p, 4, 64).view(-1, 64))
    nk = nested_kmeans(W, 2, 4, iters=5)
    for p in (2, 3):   # nesting: weights that share a (p+1)-bit value share the p-bit value
        for r in range(16):
            for v in nk[p + 1][r].unique():
                assert len(nk[p][r][nk[p + 1][r] == v].unique()) == 1
    e = [relative_error(W, nk[p]) for p in (2, 3, 4)]
    assert e[0] > e[1] > e[2]
    assert relative_error(W, separate_bcq(W, 3, 64, 5)) < relative_error(W, separate_bcq(W, 2, 64, 5))


def test_null_baselines_frozen_scales_and_naive_truncation():
    """The headlines' nulls (issue #51): nested BCQ without the expansion's scale refinement keeps the base and the
    lower scales and has a higher error than AnyBCQ; naive truncation reads the dropped bits as zeros."""
    W = _W(32, 256, seed=5)
    any_ = anybcq_quantize(W, 2, 4, 64, iters=5)
    fz = anybcq_quantize(W, 2, 4, 64, iters=5, refit_scales=False)
    assert torch.equal(fz.weight(2), any_.weight(2))                      # the same 2-bit base
    for p in (3, 4):
        assert torch.equal(fz.alphas[p][..., :-1], fz.alphas[p - 1])      # lower scales frozen
        assert torch.equal(fz.betas[p], fz.betas[2])
        assert relative_error(W, fz.weight(p)) > relative_error(W, any_.weight(p))
    e_fz = [relative_error(W, fz.weight(p)) for p in (2, 3, 4)]
    assert e_fz[0] > e_fz[1] > e_fz[2]                                    # the greedy step still lowers the error
    # naive truncation: the low bits of the 4-bit code read as zero; cell centres are closer on average
    g = W.view(32, 4, 64)
    lo, hi = g.amin(-1, keepdim=True), g.amax(-1, keepdim=True)
    q = ((g - lo) / ((hi - lo) / 15)).round().clamp(0, 15)
    want = (lo + (hi - lo) / 15 * (q.long() >> 2 << 2).float()).reshape(W.shape)
    torch.testing.assert_close(nested_uniform(W, 2, 4, 64, centre=False), want)
    for p in (2, 3):
        naive, centred = nested_uniform(W, p, 4, 64, centre=False), nested_uniform(W, p, 4, 64)
        assert relative_error(W, naive) > relative_error(W, centred)
    assert torch.equal(nested_uniform(W, 4, 4, 64, centre=False), nested_uniform(W, 4, 4, 64))
    with pytest.raises(TypeError, match="refit_scales"):
        anybcq_quantize(W, 2, 4, 64, refit_scales=1)
    with pytest.raises(TypeError, match="centre"):
        nested_uniform(W, 2, 4, 64, centre="yes")


def test_bad_inputs():
    with pytest.raises(ValueError, match="group_size"):
        anybcq_quantize(torch.randn(4, 100), group_size=32)
    with pytest.raises(ValueError, match="p_max"):
        anybcq_quantize(torch.randn(4, 64), 3, 2, group_size=32)
    with pytest.raises(ValueError, match="p must be >= 1"):
        bcq_greedy(torch.randn(3, 8), 0)
    with pytest.raises(TypeError, match="floating point"):
        bcq_quantize(torch.ones(3, 8, dtype=torch.int64), 2)
    with pytest.raises(ValueError, match="group_size"):
        AnyBCQLinear(100, 8, group_size=48)
    with pytest.raises(ValueError, match="p_max"):
        AnyBCQLinear(64, 8, p_min=3, p_max=2, group_size=32)
    with pytest.raises(ValueError, match="expand_iters"):
        anybcq_quantize(torch.randn(4, 64), group_size=32, expand_iters=-1)
    with pytest.raises(ValueError, match="bits"):
        nested_uniform(torch.randn(4, 64), 5, 4, 32)
    with pytest.raises(ValueError, match="p must be in"):
        anybcq_quantize(torch.randn(4, 64), 2, 3, group_size=32).weight(4)
    with pytest.raises(ValueError, match="2-D"):
        rtn_quantize(torch.randn(64), 2, 32)
    with pytest.raises(TypeError, match="BCQCode"):
        pack_code({})


def test_sequential_reconstruction_does_not_raise_end_to_end_error(one_torch_thread):
    from iclr26 import zoo
    lm, tok = zoo.load("small")
    lm = lm.float().eval()
    tr = torch.cat([s.long() for _, s in sorted(zoo.mix_streams(tok, "train", 0.02).items())])
    st = torch.randint(0, len(tr) - 64, (8,), generator=torch.Generator().manual_seed(0))
    calib, held = (torch.stack([tr[i:i + 64] for i in st[j]]) for j in (slice(0, 6), slice(6, 8)))
    q = fake_quantize_model(lm, lambda W, n: W)
    quantize_model(q, 2, 4, 128, iters=3, progress_bar=False)

    def err(m):
        with torch.no_grad():
            ref = lm(input_ids=held).logits
            return [((set_model_precision(m, p)(input_ids=held).logits - ref) ** 2).mean().item() for p in (2, 3, 4)]
    before = err(q)
    log = blockwise_reconstruct(q, lm, calib, steps=10, lr=3e-5, mode="sequential", mix=0.5)
    assert [r["precision"] for r in log] == [2] * 3 + [3] * 3 + [4] * 3
    # first/last steps may see different (fp or quantised) inputs
    assert all(math.isfinite(r["loss_last"]) for r in log)
    after = err(q)
    assert all(a <= b for a, b in zip(after, before)), (before, after)
    assert all(not l.alpha.requires_grad and l.precision == 4 for l in q.modules() if isinstance(l, AnyBCQLinear))
    with pytest.raises(ValueError, match="mode"):
        blockwise_reconstruct(q, lm, calib, steps=1, mode="both")
    with pytest.raises(ValueError, match="mix"):
        blockwise_reconstruct(q, lm, calib, steps=1, mix=1.5)


# ---- property tests for bad input (issue #60): a ValueError/TypeError naming the argument, never a silent result ----
from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 4), i=st.integers(0, 63), bad=st.sampled_from([float("nan"), float("inf"), float("-inf")]))
def test_prop_quantisers_reject_non_finite_weights(n, i, bad):
    W = torch.randn(n, 64)
    W.view(-1)[i % W.numel()] = bad
    for f in (
        lambda: anybcq_quantize(W, 2, 3, group_size=32, iters=1),
        lambda: rtn_quantize(W, 2, 32),
        lambda: nested_uniform(W, 2, 4, 32),
        lambda: separate_bcq(W, 2, 32, 1),
        lambda: nested_kmeans(W, 2, 3, 1),
    ):
        with pytest.raises(ValueError, match="W must"):
            f()
    with pytest.raises(ValueError, match="W and W_hat"):
        relative_error(W, torch.randn(n, 64))


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 4), g=st.integers(1, 200).filter(lambda g: g % 32), p_min=st.integers(1, 4),
       dp=st.integers(1, 3))
def test_prop_quantiser_settings_out_of_range(n, g, p_min, dp):
    with pytest.raises(ValueError, match="group_size"):
        group_size_for(192, max(g, 32) if g >= 32 else 32 + g)
    with pytest.raises(ValueError, match="p_max"):
        anybcq_quantize(torch.randn(n, 64), p_min + dp, p_min, group_size=32)
    with pytest.raises(TypeError, match="W must be floating point"):
        anybcq_quantize(torch.ones(n, 64, dtype=torch.long), group_size=32)
    with pytest.raises(ValueError, match="W must not be empty"):
        anybcq_quantize(torch.ones(0, 64), group_size=32)
    with pytest.raises(ValueError, match="bits"):
        separate_bcq(torch.randn(n, 64), 1 - p_min, 32)
    with pytest.raises(ValueError, match="W_hat"):
        relative_error(torch.randn(n, 64), torch.randn(n + dp, 64))


@settings(max_examples=20, deadline=None)
@given(k=st.integers(1, 3), d=st.integers(1, 20), p=st.integers(-2, 8).filter(lambda p: not 2 <= p <= 4))
def test_prop_anybcq_linear_rejects_bad_inputs(k, d, p):
    lay = AnyBCQLinear(32 * k, 4, group_size=32)
    with pytest.raises(ValueError, match="x must have"):
        lay(torch.randn(2, 32 * k + d))
    with pytest.raises(TypeError, match="x must be a floating-point"):
        lay(torch.ones(2, 32 * k, dtype=torch.long))
    with pytest.raises(ValueError, match="p must be in"):
        lay.set_precision(p)
    with pytest.raises(TypeError, match="fn must be callable"):
        fake_quantize_model(nn.Sequential(nn.Linear(4, 4)), k)


# --- the real-weight table (issue #63, item 3): the function the SmolLM2 run calls, on a tiny Llama ---------------
from iclr26.anybcq import REAL_METHODS, method_weights, real_weight_table, spread_window_nll  # noqa: E402


def _tiny_llama(vocab=1024):
    from transformers import LlamaConfig, LlamaForCausalLM
    with torch.random.fork_rng():
        torch.manual_seed(0)
        return LlamaForCausalLM(LlamaConfig(vocab_size=vocab, hidden_size=64, intermediate_size=128,
                                            num_hidden_layers=2, num_attention_heads=2)).eval()


@pytest.mark.slow
def test_real_weight_table_on_a_tiny_llama(one_torch_thread):
    from iclr26 import zoo
    tok, lm = zoo.load_tokenizer(), _tiny_llama()
    texts = {"prose": ["the cat sat on the mat " * 12], "code": ["def f(x):\n    return x + 1\n" * 6]}
    before = {k: v.clone() for k, v in lm.state_dict().items()}
    seen = []
    t = real_weight_table(lm, tok, texts, methods=REAL_METHODS, group_size=32, max_tokens=48, seq_len=24, iters=2,
                          expand_iters=2, kmeans_iters=2, callback=lambda r: seen.append(list(r["ppl"])))
    assert all(torch.equal(before[k], v) for k, v in lm.state_dict().items())          # the model is left unchanged
    assert [s[-1] for s in seen] == list(REAL_METHODS) and t["settings"]["windows"] == 2
    assert set(t["fp"]) == {"prose", "code"} and t["settings"]["layers"] == 14            # 7 linear layers per block
    for m in REAL_METHODS:
        assert set(t["ppl"][m]) == {"prose", "code"} and t["seconds"][m]["quantise"] >= 0
        for s in texts:
            assert sorted(t["ppl"][m][s]) == [2, 3, 4] and all(math.isfinite(v) for v in t["ppl"][m][s].values())
            assert all(len(t["nll"][m][p][s]) == 2 for p in (2, 3, 4))
    assert t["ppl"]["separate BCQ"]["code"][2] == t["ppl"]["AnyBCQ"]["code"][2]       # the shared base fit
    fp = spread_window_nll(lm, torch.arange(100) % 1024, 2, seq_len=24)
    assert fp.shape == (2,) and fp.dtype == torch.float64


def test_real_weight_table_bad_inputs():
    tok, lm = object(), _tiny_llama(64)
    ok = {"a": ["x y z"]}
    for kw, msg in [(dict(texts={}), "texts must be"), (dict(texts={"a": []}), "non-empty list of strings"),
                    (dict(methods=("GPTQ",)), "methods must be"), (dict(methods="AnyBCQ"), "methods must be"),
                    (dict(bits=(2, 4)), "bits must be"), (dict(bits=()), "bits must be"),
                    (dict(max_tokens=8, seq_len=16), "max_tokens"), (dict(seq_len=1), "seq_len")]:
        with pytest.raises(ValueError, match=msg):
            real_weight_table(lm, tok, **{"texts": ok, **kw})
    with pytest.raises(ValueError, match="method must be one of"):
        method_weights("GPTQ", _W(), (2, 3))
    with pytest.raises(ValueError, match="fewer than seq_len"):
        spread_window_nll(lm, torch.arange(5), 1, seq_len=8)
