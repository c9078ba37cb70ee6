"Unit and bad-input tests of iclr26.judo (JUDO, paper 21): cells, rewards, data layout, model plumbing."

import json

import numpy as np
import pytest
import torch

from iclr26.judo import (
    JUDO_TRL_SETTINGS,
    PatchEncoder,
    SynthMMAD,
    TinyVLM,
    _tokenize_records,
    accuracy_reward,
    APPEARANCE,
    CATEGORIES,
    CONSEQUENCES,
    DEFECTS,
    answer_prior_baseline,
    build_tokenizer,
    cells_from_mask,
    check_pair,
    constant_letter_baseline,
    decode_cells,
    encode_cells,
    evaluate_mmad,
    extract_choice,
    format_reward,
    freeze,
    judo_advantages,
    judo_reward_funcs,
    letter_counts,
    load_mmad,
    lookup_records,
    make_conversation,
    oracle_baseline,
    perception_predictions,
    product_prior_baseline,
    make_domain_reward,
    make_seg_f1_reward,
    make_structure_reward,
    make_synth_mmad,
    mcq_records,
    mmad_scores,
    paired_bootstrap,
    parse_seg,
    perception_accuracy,
    perception_pretrain,
    perception_records,
    structure_reward,
    sub_cell_labels,
    trl_rows,
    vlm_completion_logprobs,
    vlm_generate,
)


@pytest.fixture(scope="module")
def ds():
    return make_synth_mmad(n_train=1, n_test=1, n_normal_train=1, n_normal_test=1, n_seg=6, seed=0)


# ---- cells -------------------------------------------------------------------------------------------------
def test_cells_round_trip():
    rng = np.random.default_rng(1)
    for grid in (8, 16):
        for _ in range(300):
            cells = {(int(r), int(c)) for r, c in rng.integers(1, grid + 1, size=(int(rng.integers(0, 40)), 2))}
            text = encode_cells(cells)
            assert decode_cells(text, grid) == cells
            assert parse_seg(f"<seg>{text}</seg><think>t</think>", grid) == cells


def test_cells_from_mask_threshold_and_format():
    m = np.zeros((32, 32), bool)
    m[0, 0] = True  # 1/16 of cell (1,1) at 8x8 -> covered (>= 0.02)
    m[8:12, 4:12] = True  # row 3, cols 2-3
    assert cells_from_mask(m, 8) == {(1, 1), (3, 2), (3, 3)}
    assert encode_cells(cells_from_mask(m, 8)) == "(1,1) , (3,2)-(3,3)"
    big = np.zeros((64, 64), bool)
    big[0, 0] = True  # 1/16 of a 4x4 cell at 16x16 -> covered; 1/64 at 8x8 -> not
    assert cells_from_mask(big, 16) == {(1, 1)}
    assert cells_from_mask(big, 8) == set()
    assert cells_from_mask(big, 8, fallback=True) == {(1, 1)}
    assert encode_cells(set()) == "None"


@pytest.mark.parametrize(
    "payload", ["(0,1)", "(1,9)", "(2,3)-(3,4)", "(2,5)-(2,3)", "(a,b)", "(1,1) x", "1,1", "", "(1,1)-"]
)
def test_decode_strict(payload):
    with pytest.raises(ValueError):
        decode_cells(payload, 8)
    assert parse_seg(f"<seg>{payload}</seg>", 8) is None


def test_parse_seg_official_semantics():
    assert parse_seg("no tag at all", 8) == set()  # the official parser: missing tag -> "no anomaly"
    assert parse_seg("<seg> none </seg>", 8) == set()
    assert parse_seg(None, 8) is None


# ---- rewards (table-driven) ----------------------------------------------------------------------------------
GOOD = "<seg>(2,3)-(2,4)</seg><think>query has scratch at top left . answer B</think><answer>B</answer>"
ARTICLE = "<seg>(2,3)</seg><think>A scratch crosses the washer near the top left . answer B</think><answer>B</answer>"
ARTICLE_MID = (
    "<seg>(2,3)</seg><think>the washer is damaged . A scratch crosses it near the top left corner of the washer . "
    "answer B</think><answer>B</answer>"
)
CASES = [
    (accuracy_reward, GOOD, dict(solution="B"), 1.0),
    (accuracy_reward, GOOD, dict(solution="A"), 0.0),
    (accuracy_reward, "<answer> (C). </answer>", dict(solution="C"), 1.0),
    (accuracy_reward, "C", dict(solution="C"), 0.0),
    (format_reward, GOOD, {}, 0.2),
    (format_reward, "<seg>x</seg> junk <think>y</think> junk <answer>z</answer>", {}, 0.2),
    (format_reward, "<think>y</think><answer>z</answer>", {}, 0.0),
    (structure_reward, GOOD, dict(solution="B"), 1.0),
    (structure_reward, "<think>B . the scratch</think><answer>B</answer>", dict(solution="B"), 0.0),  # lazy think
    (
        structure_reward,
        "<think>my pick is B , since a long scratch is on the part</think><answer>B</answer>",
        dict(solution="B"),
        0.2,
    ),  # early answer
    (structure_reward, ARTICLE, dict(solution="B"), 0.0),  # quirk: article "A" read as a lazy think
    (make_structure_reward(True), ARTICLE, dict(solution="B"), 1.0),
    (structure_reward, ARTICLE_MID, dict(solution="B"), 0.2),  # quirk: article "A" read as an early answer
    (make_structure_reward(True), ARTICLE_MID, dict(solution="B"), 1.0),
    (structure_reward, "<think>looks clean</think><answer>B</answer>", dict(solution="B"), 0.8),
    (structure_reward, "<think>looks clean</think><answer>B</answer>", dict(solution="C"), 0.05),
    (structure_reward, "<think>it is a hole so answer C</think><answer>C</answer>", dict(solution="B"), 0.1),
    (structure_reward, "<think>it is a hole so answer C</think><answer>D</answer>", dict(solution="B"), 0.0),
    (make_seg_f1_reward(8), GOOD, dict(gt_cells={(2, 3), (2, 4)}), 1.0),
    (make_seg_f1_reward(8), GOOD, dict(gt_cells={(2, 3)}), 0.2 + 0.8 * 2 / 3),
    (make_seg_f1_reward(8), GOOD, dict(gt_cells={(5, 5)}), 0.2),
    (make_seg_f1_reward(8), "<seg>None</seg>", dict(mask=None), 1.0),
    (make_seg_f1_reward(8), GOOD, dict(mask=None), 0.0),
    (make_seg_f1_reward(8), "<seg>None</seg>", dict(gt_cells={(1, 1)}), 0.0),
    (make_seg_f1_reward(8), "<seg>(9,1)</seg>", dict(gt_cells={(1, 1)}), 0.0),
]


@pytest.mark.parametrize("f,completion,kw,want", CASES)
def test_reward_table(f, completion, kw, want):
    got = f([completion], **{k: [v] for k, v in kw.items()})
    assert got == pytest.approx([want])
    # trl's conversational form gives the same reward
    assert f([[{"role": "assistant", "content": completion}]], **{k: [v] for k, v in kw.items()}) == pytest.approx(
        [want]
    )


def test_seg_reward_from_mask_array():
    m = np.zeros((32, 32), bool)
    m[4:8, 8:16] = True  # cells (2,3), (2,4)
    assert make_seg_f1_reward(8)([GOOD], mask=[m]) == pytest.approx([1.0])


@pytest.mark.parametrize(
    "bad", [None, 42, 3.5, [], [{"role": "assistant"}], {"x": 1}, [{"content": None}], "<seg>(((</seg><answer>"]
)
def test_malformed_completions_give_zero(bad):
    for f, kw in [
        (accuracy_reward, dict(solution=["A"])),
        (format_reward, {}),
        (structure_reward, dict(solution=["A"])),
        (make_seg_f1_reward(8), dict(gt_cells=[{(1, 1)}])),
        (make_domain_reward(lambda t: np.ones((len(t), 3))), dict(domain_gt=["x"])),
    ]:
        assert f([bad], **kw) == [0.0]


def test_reward_length_mismatch_raises():
    with pytest.raises(ValueError):
        accuracy_reward([GOOD, GOOD], solution=["B"])
    with pytest.raises(TypeError):
        format_reward(GOOD)


def test_domain_reward_with_stub_encoder():
    enc = lambda texts: np.array([[1.0, 0.0] if "scratch" in t else [0.0, 1.0] for t in texts])
    r = make_domain_reward(enc)
    comps = [
        "<seg>None</seg><think>scratch here</think><answer>A</answer>",
        "<seg>None</seg> <think>clean</think> <answer>A</answer>",
        "<think>scratch here</think><answer>A</answer>",
    ]
    assert r(comps, domain_gt=["scratch"] * 3) == pytest.approx([0.1, 0.0, 0.0])


def test_extract_choice_quirks():
    assert extract_choice("B.") == "B"
    assert extract_choice("(C)") == "C"
    assert extract_choice("the answer is D") == "D"
    assert extract_choice("nothing") is None
    assert extract_choice("A or B? I pick B") == "B"


# ---- advantages and scores -----------------------------------------------------------------------------------------
def test_judo_advantages():
    a = judo_advantages(torch.tensor([1.0, 0.0, 3.0, 3.0]), 2)
    assert torch.allclose(a[:2], torch.tensor([1.0, -1.0]) * 0.5 / (0.5**0.5 + 1e-4))
    assert torch.allclose(a[2:], torch.zeros(2))
    with pytest.raises(ValueError):
        judo_advantages(torch.ones(3), 2)
    with pytest.raises(ValueError):
        judo_advantages(torch.ones(4), 1)


def test_mmad_scores_balanced():
    rows = (
        [dict(dataset="d", type="Anomaly Detection", normal=True, correct=True)] * 3
        + [dict(dataset="d", type="Anomaly Detection", normal=False, correct=False)]
        + [dict(dataset="e", type="Object Structure", normal=False, correct=True)]
    )
    s = mmad_scores(rows)
    assert s["table"]["d"]["Anomaly Detection"] == pytest.approx(50.0)
    assert s["table"]["e"]["Object Analysis"] == pytest.approx(100.0)
    assert s["average"] == pytest.approx(75.0)
    with pytest.raises(ValueError):
        mmad_scores([])


# ---- data ---------------------------------------------------------------------------------------------------------
def test_image_mask_size_mismatch():
    with pytest.raises(ValueError, match="sizes differ"):
        check_pair(np.zeros((32, 32, 3)), np.zeros((16, 16)))
    with pytest.raises(ValueError):
        cells_from_mask(np.zeros((4, 4)), 8)  # grid finer than the mask
    with pytest.raises(ValueError):
        cells_from_mask(np.zeros(5), 8)


def test_synth_mmad_layout(ds, tmp_path):
    assert isinstance(ds, SynthMMAD)
    q, meta = next((q, m) for q, m in ds.mmad.items() if m["mask_path"])
    assert set(meta) >= {"image_path", "mask_path", "similar_templates", "random_templates", "conversation"}
    types = [c["type"] for c in meta["conversation"]]
    assert len(types) == 7
    for c in meta["conversation"]:
        assert c["Answer"] in c["Options"] and list(c["Options"]) == [chr(65 + i) for i in range(len(c["Options"]))]
    normal = next(m for m in ds.mmad.values() if not m["mask_path"])
    assert [c["type"] for c in normal["conversation"]] == [
        "Anomaly Detection",
        "Object Classification",
        "Object Analysis",
    ]
    ko = {k for k, f in ds.facts.items() if f["knowledge_only"]}
    assert len(ko) == 6 and not any(
        (m["synthetic"]["category"], m["synthetic"]["defect"]) in ko for m in ds.train.values()
    )
    path = ds.save(tmp_path)
    meta2, images, masks = load_mmad(path)
    assert meta2.keys() == ds.mmad.keys()
    assert np.array_equal(images[q], ds.images[q]) and np.array_equal(masks[q], ds.masks[q])
    # a resized mask is rejected when loading
    from PIL import Image

    Image.fromarray(np.zeros((8, 8), np.uint8)).save(tmp_path / meta["mask_path"])
    with pytest.raises(ValueError, match="sizes differ"):
        load_mmad(path)


def test_bad_arguments():
    with pytest.raises(ValueError):
        make_synth_mmad(n_train=-1)
    with pytest.raises(ValueError):
        make_seg_f1_reward(0)
    with pytest.raises(ValueError):
        encode_cells({(0, 1)})


# ---- model plumbing ------------------------------------------------------------------------------------------------
def test_vlm_generate_and_logprobs(ds):
    tok = build_tokenizer(ds, 8)
    recs = mcq_records(ds, dict(list(ds.mmad.items())[:2]), "judo", 8)
    model = TinyVLM(tok, "llama-1L-64", 32, 8, seed=0)
    images = torch.stack([r["images"] for r in recs[:3]])
    new, mask, pids, pm, texts = vlm_generate(
        model,
        tok,
        images,
        [r["prompt"] for r in recs[:3]],
        6,
        do_sample=True,
        temperature=0.8,
        generator=torch.Generator().manual_seed(0),
    )
    assert new.shape == mask.shape and len(texts) == 3
    lp = vlm_completion_logprobs(model, images, pids, pm, new, mask)
    assert lp.shape == new.shape and torch.isfinite(lp).all() and (lp <= 0).all()
    # KV-cached greedy decoding agrees with a full forward pass
    g, gm, *_ = vlm_generate(model, tok, images, [r["prompt"] for r in recs[:3]], 5)
    full = model.text_logits(images, torch.cat([pids, g], 1), torch.cat([pm, gm], 1))
    assert torch.equal(full[:, pids.shape[1] :].argmax(-1)[gm.bool()], g[gm.bool()])
    with pytest.raises(ValueError):
        vlm_generate(model, tok, images, ["x"], 3)
    with pytest.raises(ValueError):
        model.encoder(torch.zeros(1, 2, 3, 16, 16))
    res = evaluate_mmad(model, tok, recs[:4], 8, max_new_tokens=4)
    assert res["n"] == 4 and 0 <= res["well_formed"] <= 1


# ---- second pass (issue #36): balanced letters, blind baselines, perception pre-stage, lookup, trl recipe -----------
def test_letters_balanced_per_type(ds):
    big = make_synth_mmad(n_train=1, n_test=3, n_normal_train=1, n_normal_test=2, n_seg=2, seed=1)
    for split in (big.mmad, big.train):
        for group, c in letter_counts(split).items():
            assert max(c.values()) - min(c.values()) <= 1, (group, c)
    for meta in big.mmad.values():  # the true text is still the answer
        syn = meta["synthetic"]
        for qa in meta["conversation"]:
            if qa["type"] == "Object Classification":
                assert qa["Options"][qa["Answer"]] == syn["category"]
            if qa["type"] == "Object Analysis":
                assert qa["Options"][qa["Answer"]] == syn["color"]
            if qa["type"] == "Defect Classification":
                assert qa["Options"][qa["Answer"]] == syn["defect"]
    unbalanced = make_synth_mmad(
        n_train=1, n_test=1, n_normal_train=1, n_normal_test=1, n_seg=2, seed=1, balance_letters=False
    )
    assert (
        unbalanced.mmad.keys()
        == make_synth_mmad(n_train=1, n_test=1, n_normal_train=1, n_normal_test=1, n_seg=2, seed=1).mmad.keys()
    )


def _recs(answers, types=None, paths=None):
    types = types or ["Defect Classification"] * len(answers)
    return [
        {
            "dataset": "d",
            "type": t,
            "normal": False,
            "knowledge_only": False,
            "solution": a,
            "path": p,
            "options": {"A": "hole", "B": "scratch", "C": "stain", "D": "crack"},
        }
        for a, t, p in zip(answers, types, paths or [f"img{i}" for i in range(len(answers))])
    ]


def test_constant_letter_and_prior_baselines():
    recs = _recs(list("AABCD"))
    c = constant_letter_baseline(recs)
    assert c["letter"] == "A" and c["average"] == pytest.approx(40.0) and c["per_letter"]["D"] == pytest.approx(20.0)
    train = {
        "x": {
            "conversation": [
                {
                    "type": "Defect Classification",
                    "Answer": "C",
                    "Options": {"A": "hole", "B": "scratch", "C": "stain", "D": "crack"},
                }
            ]
        }
    }
    p = answer_prior_baseline(recs, train)  # 'stain' is always letter C here
    assert [r["pred"] for r in p["rows"]] == ["C"] * 5 and p["average"] == pytest.approx(20.0)
    with pytest.raises(ValueError):
        constant_letter_baseline([])


def test_paired_bootstrap():
    recs = _recs(list("AB") * 20)
    a = constant_letter_baseline(recs, "A")["rows"]
    b = constant_letter_baseline(recs, "B")["rows"]
    out = paired_bootstrap(a, a, 50)
    assert out["diff"]["average"] == 0 and out["se"]["average"] == 0
    out = paired_bootstrap(a, b, 200, seed=1)
    assert out["diff"]["average"] == pytest.approx(0.0) and 10 < out["se"]["average"] < 25  # sd 1 per image, n=40
    lo, hi = out["ci"]["average"]
    assert lo < 0 < hi and hi - lo == pytest.approx(4 * out["se"]["average"], rel=0.3)
    with pytest.raises(ValueError):
        paired_bootstrap(a, b[:-1])
    with pytest.raises(ValueError):
        paired_bootstrap(a, b[::-1])


def test_lookup_records_loss_on_letter_only(ds):
    tok = build_tokenizer(ds, 8)
    recs = lookup_records(ds, 50, seed=0)
    for r in recs:
        prompt_opts = dict(
            (v.rsplit(" ", 1)[1], v.rsplit(" ", 1)[0]) for v in r["prompt"].split("options : ")[1].split(" , ")
        )
        text = r["target_prefix"].split("answer ", 1)[1]
        letter = r["solution"]
        assert prompt_opts[letter] == text
    r = _tokenize_records(tok, recs[:1])[0]
    supervised = [t for t, lab in zip(r["_ids"], r["_labels"]) if lab != -100]
    assert tok.decode(supervised[:1]).strip() == recs[0]["solution"] and supervised[-1] == tok.eos_token_id
    with pytest.raises(ValueError):
        lookup_records(ds, 0)


def test_lookup_accuracy_decodes_the_trained_sequence(ds):
    # issue #55: lookup_accuracy decodes after the very token sequence training used (prompt + target_prefix with no
    # space: no lone ' ' token before <think>), and the supervised letter is the answer letter
    tok = build_tokenizer(ds, 8)
    for r in lookup_records(ds, 20, seed=3):
        ids = lambda s_: tok(s_, add_special_tokens=False)["input_ids"]
        prompt_ids = tok(r["prompt"])["input_ids"]
        assert tok(r["prompt"] + r["target_prefix"])["input_ids"] == prompt_ids + ids(r["target_prefix"])
        assert tok.decode(ids(r["target"])[:1]).strip() == r["solution"]


def test_sub_cell_labels_and_perception(ds):
    m = np.zeros((32, 32), bool)
    m[0:2, 12:14] = True  # cell (1,4) of 8x8 -> patch (0,1) of 4x4, sub-cell (0,1)
    lab = sub_cell_labels(m, 8, 4)
    assert lab.shape == (16, 4) and lab.sum() == 1 and lab[1, 1] == 1
    assert sub_cell_labels(None, 8, 4).sum() == 0
    with pytest.raises(ValueError):
        sub_cell_labels(m, 8, 3)
    tok = build_tokenizer(ds, 8)
    model = TinyVLM(tok, "llama-1L-64", 32, 4, seed=0)
    recs = perception_records(ds, list(ds.seg_pool), 8, 4, True, 0)
    assert {r["defect"] for r in recs} >= {0} and all(r["images"].shape == (2, 3, 32, 32) for r in recs)
    heads, hist = perception_pretrain(model, recs, 3, 4, 1e-3)
    acc = perception_accuracy(model, heads, recs)
    assert set(acc) >= {"defect_acc", "location_acc", "normal_vs_defect_acc", "cell_f1"} and len(hist) == 2
    freeze(model.encoder)
    assert not any(p.requires_grad for p in model.encoder.parameters())


def test_encoder_side_by_side_and_pixel_diff():
    enc = PatchEncoder(16, 32, 4)
    x = torch.rand(2, 2, 3, 32, 32)
    assert enc(x).shape == (2, 2 * 17, 16) and enc.tokens_per_image == 17
    y = x.clone()
    y[:, 1] = torch.rand(2, 3, 32, 32)  # side by side: the query's tokens do not depend on the template
    assert torch.allclose(enc(x)[:, :17], enc(y)[:, :17])
    diff = PatchEncoder(16, 32, 4, pixel_diff=True)
    assert not torch.allclose(diff(x)[:, :17], diff(y)[:, :17])
    assert enc(x[:, :1]).shape == (2, 17, 16)


def test_rewards_in_trl_signature(ds):
    rows = trl_rows(dict(list(ds.mmad.items())[:3]), "/nonexistent", ds.facts)
    assert {"prompt", "images", "solution", "mask_path", "domain_gt"} <= set(rows[0])
    assert rows[0]["prompt"][1]["content"][:2] == [{"type": "image"}, {"type": "image"}] and len(rows[0]["images"]) == 2
    comp = [
        [{"role": "assistant", "content": f"<seg>None</seg><think>looks fine</think><answer>{r['solution']}</answer>"}]
        for r in rows
    ]
    cols = {k: [r[k] for r in rows] for k in rows[0] if k != "prompt"}
    kw = dict(
        prompts=[r["prompt"] for r in rows],
        completions=comp,
        completion_ids=[[1]] * len(rows),
        trainer_state=None,
        **cols,
    )
    funcs = judo_reward_funcs(8, encoder=lambda t: np.ones((len(t), 4)))
    out = {f.__name__: f(**kw) for f in funcs}
    assert out["accuracy_reward"] == [1.0] * len(rows) and out["format_reward"] == [0.2] * len(rows)
    assert out["domain_reward"] == pytest.approx([0.1] * len(rows))
    assert out["seg_f1_reward"] == [1.0] * len(rows)  # missing mask files read as normal, as the official reward
    assert JUDO_TRL_SETTINGS["num_generations"] == 16 and JUDO_TRL_SETTINGS["beta"] == 0.04
    with pytest.raises(ValueError):
        trl_rows({})


def test_trl_config_in_trl_venv(tmp_path):
    "The recipe's settings are valid trl.GRPOConfig fields (in .venv-trl, where trl lives); skipped without it."
    import subprocess
    from pathlib import Path

    py = Path(__file__).resolve().parents[1] / ".venv-trl" / "bin" / "python"
    if not py.exists():
        pytest.skip(".venv-trl not installed")
    code = (
        "import json, sys; from iclr26.judo import judo_trl_config, JUDO_TRL_SETTINGS; "
        f"c = judo_trl_config({str(tmp_path)!r}, use_cpu=True, bf16=False); "
        "print(json.dumps({k: getattr(c, k) for k in JUDO_TRL_SETTINGS}, default=str))"
    )
    root = Path(__file__).resolve().parents[1]
    env = {"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "HOME": str(tmp_path)}
    out = subprocess.run([str(py), "-c", code], capture_output=True, text=True, timeout=300, cwd=root, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["num_generations"] == 16 and got["beta"] == 0.04 and got["epsilon"] == 0.2 and got["temperature"] == 0.8


# ---- property tests for bad input (issue #60) ----
from hypothesis import given, settings, strategies as st  # noqa: E402

from iclr26.judo import cells_from_mask as _cfm, judo_advantages as _jadv, decode_cells as _dec  # noqa: E402
from iclr26.judo import constant_letter_baseline as _clb, paired_bootstrap as _pb  # noqa: E402

_bad = st.sampled_from([float("nan"), float("inf"), -float("inf")])


@settings(max_examples=20, deadline=None)
@given(h=st.integers(2, 8), w=st.integers(2, 8), bad=_bad)
def test_property_cells_from_mask_non_finite(h, w, bad):
    m = np.zeros((h, w))
    m[0, 0] = bad
    with pytest.raises(ValueError, match="mask must be finite"): _cfm(m, grid=2)


@settings(max_examples=20, deadline=None)
@given(shape=st.sampled_from([(0,), (3,), (0, 4), (2, 3, 4, 5)]), grid=st.one_of(st.integers(-3, 0), st.just(True)),
       thresh=st.one_of(st.floats(max_value=-1e-6, allow_nan=False), st.floats(min_value=1.000001, allow_nan=False),
                        st.just(float("nan"))))
def test_property_cells_from_mask_bad_shapes_and_ranges(shape, grid, thresh):
    with pytest.raises(ValueError, match="mask"): _cfm(np.zeros(shape), grid=1)
    with pytest.raises(ValueError, match="grid"): _cfm(np.zeros((4, 4)), grid=grid)
    with pytest.raises(ValueError, match="grid"): _cfm(np.zeros((4, 4)), grid=5)
    with pytest.raises(ValueError, match="coverage_thresh"): _cfm(np.zeros((4, 4)), grid=2, coverage_thresh=thresh)
    with pytest.raises(TypeError, match="mask"): _cfm(np.array([["a", "b"], ["c", "d"]]), grid=1)


@settings(max_examples=20, deadline=None)
@given(g=st.integers(2, 5), groups=st.integers(1, 3), extra=st.integers(1, 1), bad=_bad)
def test_property_judo_advantages_bad_rewards(g, groups, extra, bad):
    r = torch.zeros(g * groups)
    r[0] = bad
    with pytest.raises(ValueError, match="rewards must be finite"): _jadv(r, g)
    with pytest.raises(ValueError, match="rewards must be 1-D"): _jadv(torch.zeros(g * groups + extra), g)
    with pytest.raises(ValueError, match="group_size"): _jadv(torch.zeros(4), 1)


@settings(max_examples=20, deadline=None)
@given(grid=st.integers(1, 6), r=st.integers(7, 12))
def test_property_decode_cells_out_of_range(grid, r):
    with pytest.raises(ValueError): _dec(f"({r},1)", grid=grid)
    with pytest.raises(TypeError, match="payload"): _dec(None, grid=grid)


@settings(max_examples=20, deadline=None)
@given(letters=st.sampled_from(["", "AA", "ABA"]))
def test_property_constant_letter_bad_letters(letters):
    rec = [{"dataset": "d", "type": "Defect Classification", "solution": "A", "normal": False, "path": "x"}]
    with pytest.raises(ValueError, match="records"): _clb([])
    with pytest.raises(ValueError, match="letters"): _clb(rec, letters=letters)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 4), extra=st.integers(1, 3))
def test_property_paired_bootstrap_mismatched_rows(n, extra):
    row = {"path": "p", "type": "Defect Classification", "dataset": "d", "correct": True, "normal": False}
    with pytest.raises(ValueError, match="rows_a"): _pb([row] * n, [row] * (n + extra), n_boot=2)


# ---- the product leak (issue #55) ----------------------------------------------------------------------------------
def test_distractors_from_the_products_own_pool():
    "Every defect-analysis / description question offers exactly the product's own four consequences / appearances."
    big = make_synth_mmad(n_train=2, n_test=2, n_normal_train=1, n_normal_test=1, n_seg=2, seed=3)
    seen = 0
    for split in (big.mmad, big.train):
        for meta in split.values():
            syn = meta["synthetic"]
            cat = syn["category"]
            own_c = {big.facts[(cat, d)]["consequence"] for d in DEFECTS[cat]}
            own_a = {APPEARANCE[d] for d in DEFECTS[cat]}
            for qa in meta["conversation"]:
                opts = set(qa["Options"].values())
                if qa["type"] == "Defect Analysis":
                    assert opts == own_c, (cat, opts, own_c)
                    assert qa["Options"][qa["Answer"]] == big.facts[(cat, syn["defect"])]["consequence"]
                    seen += 1
                if qa["type"] == "Defect Description":
                    assert opts == own_a and qa["Options"][qa["Answer"]] == APPEARANCE[syn["defect"]]
    assert seen > 0
    # so the options of a product's defect-analysis questions are one fixed set: knowing the product (and the
    # options) says nothing about which of them is right; the answer is spread evenly over the product's four
    recs = mcq_records(big, big.mmad, "answer", 8)
    for cat in CATEGORIES:
        answers = [
            r["answer_text"] for r in recs if r["type"] == "Defect Analysis" and r["synthetic"]["category"] == cat
        ]
        counts = {c: answers.count(c) for c in {big.facts[(cat, d)]["consequence"] for d in DEFECTS[cat]}}
        assert len(set(counts.values())) == 1, (cat, counts)


def test_leaky_pool_is_detectable():
    "With all twelve consequences as the pool (the first design) the product's options differ question to question."
    rng = np.random.default_rng(0)
    conv = make_conversation(rng, "washer", "red", "hole", "top", "rust")
    da = next(q for q in conv if q["type"] == "Defect Analysis")
    assert set(da["Options"].values()) <= set(CONSEQUENCES) and da["Options"][da["Answer"]] == "rust"
    with pytest.raises(ValueError):
        make_conversation(rng, "washer", "red", "hole", "top", "rust", ["leakage", "tearing"])


def test_product_prior_and_oracle_baselines(ds):
    recs = mcq_records(ds, ds.mmad, "answer", 8)
    pp = product_prior_baseline(recs, ds.train)
    assert len(pp["rows"]) == len(recs) and 0 <= pp["average"] <= 100
    with pytest.raises(ValueError):
        product_prior_baseline([{k: v for k, v in recs[0].items() if k != "synthetic"}], ds.train)
    # the oracle with the true readings answers every question right
    truth = {
        p: {k: m["synthetic"][k] for k in ("defect", "location", "category", "color")} for p, m in ds.mmad.items()
    }
    o = oracle_baseline(recs, truth, ds.facts)
    assert all(r["correct"] for r in o["rows"]) and o["average"] == pytest.approx(100.0)
    wrong = {p: {**t, "category": next(c for c in CATEGORIES if c != t["category"])} for p, t in truth.items()}
    assert oracle_baseline(recs, wrong, ds.facts)["per_type"]["Object Classification"] == 0.0
    with pytest.raises(ValueError):
        oracle_baseline(recs, {}, ds.facts)


def test_perception_predictions(ds):
    tok = build_tokenizer(ds, 8)
    model = TinyVLM(tok, "llama-1L-64", 32, 4, seed=0)
    recs = perception_records(ds, list(ds.mmad.values()), 8, 4, False, 0)
    heads, _ = perception_pretrain(model, recs, 2, 4, 1e-3)
    read = perception_predictions(model, heads, recs, list(ds.mmad))
    assert set(read) == set(ds.mmad)
    for x in read.values():
        assert x["defect"] in (None, *APPEARANCE) and x["category"] in CATEGORIES
    with pytest.raises(ValueError):
        perception_predictions(model, heads, recs, list(ds.mmad)[:-1])


# ---- issue #55, after the run of 20930d8: one letter-token format for every stage ----------------------------------
def test_lookup_target_is_the_judo_think_ending(ds):
    # the lookup pre-stage supervises the very tokens the JUDO think ends with: ' X' (the prompt's own letter token,
    # with its leading space) directly followed by '</think>', then '<answer>X</answer>'
    import iclr26.judo as J

    tok = build_tokenizer(ds, 8)
    ids = lambda s_: tok(s_, add_special_tokens=False)["input_ids"]
    for L in "ABCD":
        test_end = ids(L + " </think><answer>" + L + "</answer>")  # the format of the run of 20930d8
        assert test_end[0] != ids(" " + L)[0] and tok.convert_ids_to_tokens(test_end[1]) == " "
        assert ids(J.letter_ending(L)) == [ids(" " + L)[0], *ids(f"</think><answer>{L}</answer>")]
    judo = mcq_records(ds, ds.train, "judo", 8)
    answer = mcq_records(ds, ds.train, "answer", 8)
    for r, a in zip(judo, answer):
        end = ids(J.letter_ending(r["solution"]))
        assert r["target"].endswith(J.letter_ending(r["solution"])) and ids(r["target"])[-5:] == end
        assert ids(a["target"]) == end[2:]  # the answer-only target: the same '<answer>X</answer>' tokens
    for r in _tokenize_records(tok, lookup_records(ds, 40, seed=1)):
        sup = [t for t, lab in zip(r["_ids"], r["_labels"]) if lab != -100]
        assert sup == ids(J.letter_ending(r["solution"])) + [tok.eos_token_id]
        # the supervised letter is the token that follows the named option's text in the prompt
        p, text = tok(r["prompt"])["input_ids"], ids(" " + r["target_prefix"].split("answer ", 1)[1])
        at = next(i for i in range(len(p)) if p[i : i + len(text)] == text)
        assert p[at + len(text)] == sup[0]


def test_letter_ending_parsed_by_the_rewards():
    import iclr26.judo as J

    for L in "ABCD":
        t = ("<seg>None</seg><think>query matches template : the red washer has no defect . answer "
             f"yes{J.letter_ending(L)}")
        assert accuracy_reward([t], [L]) == [1.0] and format_reward([t]) == [0.2]
        assert structure_reward([t], [L]) == [1.0]
        assert J._THINK_CHOICE.search(t).groups() == ("yes", L)


def test_lookup_accuracy_counts_only_the_think_letter_token(ds, monkeypatch):
    # a prediction of 'X' (no leading space) is not the think's ' X' and is not a hit (the stripped text match was)
    import iclr26.judo as J

    tok = build_tokenizer(ds, 8)
    recs = lookup_records(ds, 6, seed=2)
    model = TinyVLM(tok, "llama-1L-64", 32, 4, seed=0)

    def fake(pred):
        def gen(model_, tok_, images, prompts, max_new_tokens, **kw):
            assert max_new_tokens == 1 and len(prompts) == images.shape[0]
            new = torch.tensor([tok(pred(r), add_special_tokens=False)["input_ids"][:1] for r in recs[: len(prompts)]])
            return new, torch.ones_like(new), None, None, [tok.decode(n) for n in new.tolist()]

        return gen

    monkeypatch.setattr(J, "vlm_generate", fake(lambda r: " " + r["solution"]))
    assert J.lookup_accuracy(model, tok, recs) == 1.0
    monkeypatch.setattr(J, "vlm_generate", fake(lambda r: r["solution"]))
    assert J.lookup_accuracy(model, tok, recs) == 0.0


def test_reasoning_diagnostics_own_option_and_think_lookup():
    import iclr26.judo as J

    think = lambda text, L: f"<think>x . answer {text}{J.letter_ending(L)}"
    rows = [
        {"text": think("red", "A"), "answer_text": "red", "correct": True, "options": {"A": "red", "B": "blue"}},
        {"text": think("red", "A"), "answer_text": "blue", "correct": False, "options": {"A": "blue", "B": "red"}},
        {"text": think("hole", "B"), "answer_text": "red", "correct": False, "options": {"A": "red", "B": "blue"}},
        {"text": "<answer>A</answer>", "answer_text": "red", "correct": True, "options": {"A": "red", "B": "blue"}},
    ]
    d = J.reasoning_diagnostics(rows)
    assert d["think_names_own_option"] == pytest.approx(0.5)
    assert d["think_letter_follows_named_option"] == pytest.approx(0.5)
    assert d["think_names_right_option"] == pytest.approx(0.25)
    assert "think_names_own_option" not in J.reasoning_diagnostics(
        [{k: v for k, v in rows[0].items() if k != "options"}]
    )
