"""Unit and bad-input tests for iclr26.mrmr (paper 16: MRMR retrieval harness), on the fixture in the real MRMR schema.

The fixture (tests/fixtures/mrmr/) is copied in shape from the released data: configurations, column names, qrels
spellings and the caption-file layout from the official loaders of github.com/rebeccaz4/MRMR (commit 0bb55295), the
numbered `image 1` ... `image 4` query columns from the `MRMRbenchmark/*` hub snapshot, the hub names and pinned
revisions from the MTEB v2 port; its README.md lists which file each part comes from.
"""
import sys, types, warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from iclr26.mrmr import (MRMR_REVISIONS, MRMR_TASKS, PROMPT_TEMPLATES, SUBTASKS, BM25Retriever, CLIPStyleEncoder,
                         DocumentAsImage, DualStreamFusion, HashingEncoder, ImageEncoder, MergedImage, MTEBTaskAdapter,
                         OracleRetriever, RandomRetriever, RetrievalTask, SentenceTransformerEncoder, TemplateExpander,
                         TextEncoder, TextToText, caption_scene, default_backend, evaluate, evaluate_run, format_doc,
                         format_query, load_captions, load_mini_mrmr, load_task, make_mini_mrmr, merge_images,
                         multichoice_hit1, query_texts, render_scene, run_task, scores_to_run, substitute_captions,
                         task_instruction, tiny_clip_style, to_array)

FIX = Path(__file__).parent / "fixtures" / "mrmr"
warnings.filterwarnings("ignore", message=".*unsafe cast.*")


@pytest.fixture(scope="module")
def kn():
    with pytest.warns(UserWarning, match="missing from the corpus"):
        return load_task(FIX / "knowledge", captions=FIX / "knowledge" / "captions.json")


@pytest.fixture(scope="module")
def neg():
    return load_task(FIX / "negation", captions=FIX / "negation" / "captions.json")


class _Img:   # a tiny stand-in image encoder: mean colour, padded
    def encode_images(self, ims):
        a = np.stack([to_array(i, size=8).reshape(-1, 3).mean(0) for i in ims]).astype(np.float32)
        out = np.zeros((len(ims), 384), np.float32)
        out[:, :3] = a + 1
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_fixture_loads_in_real_schema(kn, neg):
    assert len(kn.queries) == 3 and len(kn.corpus) == 7
    assert kn.corpus["source"].tolist().count("pin_p") == 2 and kn.corpus["id"].is_unique
    assert kn.corpus["id"].tolist()[5:] == ["redo-test-0", "redo-test-1"]   # the official Knowledge re-id (ids collide)
    assert [len(x) for x in kn.queries["images"]] == [1, 2, 0]             # `image`; `image 1`, `image 2`; none
    assert kn.queries["images"][0][0].shape == (16, 16, 3)
    assert kn.queries["subtask"].tolist() == ["Art", "Medicine", "Humanities"]
    assert kn.qrels == {"q1": {"d1": 1}, "q2": {"d3": 1}, "q3": {"d4": 1, "d5": 1, "d9": 1}}   # d9: not in the corpus
    assert kn.missing == {"qrels_queries": 0, "qrels_docs": 1}
    assert kn.corpus["vision"][0].shape == (16, 16, 3) and kn.corpus["vision"][1] is None
    assert neg.protocol == "hit@1-of-4" and neg.qrels == {"n1": {"n1_1": 1}, "n2": {"n2_1": 1}}   # hyphenated columns
    assert neg.query_captions(0) == {"image": "a blue square"}
    assert neg.candidates == {"n1": ["n1_1", "n1_2", "n1_3", "n1_4"], "n2": ["n2_1", "n2_2", "n2_3", "n2_4"]}
    with pytest.warns(UserWarning):
        assert len(load_task(FIX / "knowledge", extra=False).corpus) == 5
    with pytest.raises(ValueError, match="unknown corpus ids"):
        load_task(FIX / "knowledge", strict=True)


def test_load_from_mapping_and_datasets_like(tmp_path):
    rows = {"query": [{"id": 1, "text": "hi", "image": None, "modality": "text", "category": "Math"}],
            "corpus": pd.DataFrame([{"id": 7, "text": "x"}, {"id": 8, "text": "y"}]),
            "qrels": {"query-id": [1], "corpus-id": [8], "score": [1]}}
    t = load_task(rows, "theorem")
    assert t.qrels == {"1": {"8": 1}} and t.queries["subtask"][0] == "Math"
    with pytest.raises(ValueError, match="name"):
        load_task(rows)


def _img(v):
    return np.full((4, 4, 3), v, np.uint8)


def test_numbered_image_columns_both_spellings_and_order():
    for sp in ("image {}", "image_{}", "image{}"):
        row = {"id": "a", "text": "<image 1> <image 2> <image 3>", "image": None,
               sp.format(3): _img(3), sp.format(1): _img(1), sp.format(2): _img(2), "category": "Math"}
        t = load_task({"query": [row], "corpus": [{"id": "d", "text": "x"}],
                       "qrels": [{"query_id": "a", "corpus_id": "d"}]}, "theorem")
        assert [int(im[0, 0, 0]) for im in t.queries["images"][0]] == [1, 2, 3], sp
    # `image` fills slot 1 when no numbered column does; a numbered `image 1` wins over it
    rows = [{"id": "a", "text": "t", "image": _img(7), "image 1": None, "image 2": _img(8)},
            {"id": "b", "text": "t", "image": _img(7), "image 1": _img(1), "image 2": None}]
    t = load_task({"query": rows, "corpus": [{"id": "d", "text": "x"}], "qrels": [{"query_id": "a", "corpus_id": "d"}]},
                  "design")
    assert [[int(im[0, 0, 0]) for im in s] for s in t.queries["images"]] == [[7, 8], [1]]


def test_non_strict_qrels_warn_and_count():
    cfg = {"query": [{"id": "a", "text": "t", "category": "Math"}], "corpus": [{"id": "d", "text": "x"}],
           "qrels": [{"query_id": "a", "corpus_id": "d"}, {"query_id": "a", "corpus_id": "gone"},
                     {"query_id": "zz", "corpus_id": "d"}]}
    with pytest.warns(UserWarning) as rec:
        t = load_task(cfg, "theorem")
    msgs = " ".join(str(w.message) for w in rec)
    assert "not among the queries" in msgs and "missing from the corpus" in msgs
    assert t.missing == {"qrels_queries": 1, "qrels_docs": 1} and t.qrels == {"a": {"d": 1, "gone": 1}}
    # the missing gold document counts (as in MTEB): a perfect ranking of what exists scores 1/(1 + 1/log2 3)
    r = run_task(OracleRetriever(), t, backend="numpy")
    assert r["ndcg@10"].iloc[0] == pytest.approx(1 / (1 + 1 / np.log2(3)))
    with pytest.raises(ValueError, match="unknown query ids"):
        load_task(cfg, "theorem", strict=True)


def test_missing_category_warns():
    cfg = {"query": [{"id": "a", "text": "t"}], "corpus": [{"id": "d", "text": "x"}],
           "qrels": [{"query_id": "a", "corpus_id": "d"}]}
    with pytest.warns(UserWarning, match="no 'category' column"):
        t = load_task(cfg, "knowledge")
    assert t.queries["subtask"].tolist() == ["Knowledge"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_task(cfg, "design").queries["subtask"].tolist() == ["Design"]   # no category map: no warning


def test_pin_p_ids_as_the_official_loaders():
    base = {"query": [{"id": "a", "text": "t", "category": "Math"}], "corpus": [{"id": "d", "text": "x"}],
            "qrels": [{"query_id": "a", "corpus_id": "d"}],
            "pin_p": [{"id": "p7", "text": "y"}, {"id": "p8", "text": "z"}]}
    assert load_task(base, "knowledge").corpus["id"].tolist() == ["d", "redo-test-0", "redo-test-1"]   # always re-id'd
    assert load_task(base, "theorem").corpus["id"].tolist() == ["d", "p7", "p8"]                       # kept
    nb = {**base, "pin_p": [{"text": "y"}]}
    assert load_task(nb, "theorem").corpus["id"].tolist() == ["d", "redo-test-0"]          # ids given when missing


def test_hub_names_use_pinned_revisions(monkeypatch):
    calls = []
    rows = {"query": [{"id": "a", "text": "t", "category": "Art"}], "corpus": [{"id": "d", "text": "x"}],
            "qrels": [{"query_id": "a", "corpus_id": "d", "score": 1}]}

    def load_dataset(path, config, split=None, revision=None):
        calls.append((path, config, revision))
        if config not in rows: raise ValueError(f"no config {config}")
        return pd.DataFrame(rows[config])
    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    t = load_task("MRMRbenchmark/knowledge")
    assert t.name == "knowledge" and len(t.corpus) == 1
    assert {c[0] for c in calls} == {"MRMRbenchmark/knowledge"}
    assert {c[2] for c in calls} == {MRMR_REVISIONS["knowledge"]}
    calls.clear()
    load_task("MRMRbenchmark/knowledge", revision="abc")
    assert {c[2] for c in calls} == {"abc"}
    calls.clear()
    load_task("MMB-25/knowledge")                                # the older organisation: latest snapshot
    assert {c[2] for c in calls} == {None}


def test_placeholder_substitution():
    caps = {"image_1": "a red circle", "image_2": "a blue square"}
    assert substitute_captions("<image 1> vs <image 2>?", caps) == "<a red circle> vs <a blue square>?"
    assert substitute_captions("<image 1> vs <image 3>", caps, brackets=False) == "a red circle vs <image 3>"
    assert substitute_captions("", {"image": "a scene"}) == "<a scene>"
    assert substitute_captions("Q", {}) == "Q"
    assert substitute_captions("see <Image1>", {"1": "x"}) == "see <x>"
    with pytest.raises(TypeError):
        substitute_captions(3, caps)
    caps2 = load_captions([{"subset": "query", "item_id": 5, "captions": {"image_1": {"caption": "c"}}}])
    assert caps2 == {"query-5": {"image_1": "c"}}
    with pytest.raises(ValueError, match="subset"):
        load_captions([{"item_id": 5}])


def test_metrics_on_hand_made_runs():
    qrels = {"a": {"x": 1, "z": 1}, "b": {"y": 1}, "c": {"w": 0}}
    run = {"a": {"x": 0.9, "y": 0.8, "z": 0.7}, "b": {"x": 0.5, "y": 0.4}}
    for be in ("numpy", "ranx", "pytrec_eval"):
        e = evaluate_run(qrels, run, ["ndcg@10", "recall@1", "recall@10"], backend=be)
        assert list(e.index) == ["a", "b"]   # 'c' has no relevant document
        assert e.loc["a", "ndcg@10"] == pytest.approx((1 + 0.5) / (1 + 1 / np.log2(3)))
        assert e.loc["b", "ndcg@10"] == pytest.approx(1 / np.log2(3))
        assert e.loc["a", "recall@1"] == 0.5 and e.loc["b", "recall@1"] == 0.0 and e.loc["b", "recall@10"] == 1.0
    e = evaluate_run({"a": {"x": 1}, "b": {"y": 1}}, {"a": {"x": 1.0}}, ["ndcg@10"], backend="numpy")
    assert e.loc["b", "ndcg@10"] == 0.0   # a query missing from the run scores 0
    h = multichoice_hit1({"q": {"c1": 0.2, "c2": 0.9, "c3": 0.1}, "r": {"d1": 0.5, "d2": 0.5}},
                         {"q": {"c2": 1}, "r": {"d1": 1}}, {"q": ["c1", "c2", "c3"], "r": ["d1", "d2"]}, ties="miss")
    assert h["q"] == 1.0 and h["r"] == 0.0   # ties='miss': a tie with a wrong candidate is a miss


def test_ties_default_to_pytrec_eval_order():
    import pytrec_eval  # noqa: F401  (installed with the mrmr extra)
    assert default_backend() == "pytrec_eval"
    rng = np.random.default_rng(1)
    docs = [f"d{i}" for i in range(12)]
    qrels = {f"q{i}": {d: 1 for d in rng.choice(docs, int(rng.integers(1, 4)), replace=False)} for i in range(40)}
    run = {q: {d: float(rng.integers(0, 3)) for d in docs} for q in qrels}   # many ties
    ms = ["ndcg@10", "recall@5", "hit@1"]
    tr, nt, ni = (evaluate_run(qrels, run, ms, backend=b, ties=t)
                  for b, t in (("pytrec_eval", "trec"), ("numpy", "trec"), ("numpy", "id")))
    assert np.abs(tr - nt).to_numpy().max() < 1e-9                   # the reference follows trec_eval's order exactly
    assert np.abs(tr - ni).to_numpy().max() > 0.01                    # the other order gives other numbers on tied runs
    assert np.abs(evaluate_run(qrels, run, ms) - tr).to_numpy().max() == 0   # the default is pytrec_eval
    rx = evaluate_run(qrels, run, ms, backend="ranx")                 # ranx has its own tie order (an unstable sort):
    assert np.abs(rx - tr).to_numpy().max() > 0.01                    # on tied runs it differs from MTEB's numbers
    with pytest.raises(ValueError, match="ties"):
        evaluate_run(qrels, run, ms, backend="numpy", ties="random")
    cands = {"n": ["n_1", "n_2", "n_3"]}
    tied = {"n": {"n_1": 0.5, "n_2": 0.5, "n_3": 0.1}}
    assert multichoice_hit1(tied, {"n": {"n_2": 1}}, cands).iloc[0] == 1.0             # trec: the larger id first
    assert multichoice_hit1(tied, {"n": {"n_1": 1}}, cands).iloc[0] == 0.0
    assert multichoice_hit1(tied, {"n": {"n_2": 1}}, cands, ties="miss").iloc[0] == 0.0
    with pytest.raises(ValueError, match="ties"):
        multichoice_hit1(tied, {"n": {"n_2": 1}}, cands, ties="first")


def test_ranx_and_pytrec_eval_agree_on_random_graded_runs():
    rng = np.random.default_rng(0)
    docs = [f"d{i}" for i in range(40)]
    qrels = {f"q{i}": {d: int(rng.integers(1, 3)) for d in rng.choice(docs, int(rng.integers(1, 5)), replace=False)}
             for i in range(30)}
    run = {q: dict(zip(docs, rng.permutation(len(docs)).astype(float))) for q in qrels}
    ms = ["ndcg@10", "recall@5", "recall@20", "precision@5"]
    a, b, c = (evaluate_run(qrels, run, ms, backend=be) for be in ("ranx", "pytrec_eval", "numpy"))
    assert np.abs(a - b).to_numpy().max() < 1e-6 and np.abs(a - c).to_numpy().max() < 1e-6


def test_oracle_and_random_on_fixture(kn, neg):
    rep = evaluate(OracleRetriever(), {"knowledge": kn, "negation": neg}, backend="pytrec_eval")
    q3 = (1 + 1 / np.log2(3)) / (1 + 1 / np.log2(3) + 1 / 2)   # its third relevant document is not in the corpus
    assert rep.subtasks.to_dict() == pytest.approx({"Art": 1.0, "Medicine": 1.0, "Humanities": q3, "Negation": 1.0})
    assert set(rep.subtasks.index) == {"Art", "Medicine", "Humanities", "Negation"} and not rep.complete
    r = run_task(RandomRetriever(0), neg, backend="numpy")
    assert set(r["main"]) <= {0.0, 1.0} and "hit@1" in r
    r2 = run_task(RandomRetriever(0), neg, negation="corpus", backend="numpy")
    assert (r2["main"] == r2["ndcg@10"]).all()


def test_paradigms_run_on_fixture(kn):
    enc, img = HashingEncoder(), _Img()
    for r in (TextToText(enc), TextToText(enc, expander=TemplateExpander()), DualStreamFusion(enc, img),
              MergedImage(enc, img), BM25Retriever()):
        S = r.score(kn)
        assert S.shape == (3, 7) and np.isfinite(S).all()
    with pytest.raises(ValueError, match="vision"):
        DocumentAsImage(enc, img).score(kn)   # some fixture documents have no rendering
    assert merge_images(kn.queries["images"][1], height=8).shape == (8, 16, 3)


def test_mini_mrmr_roundtrip_and_protocol():
    mini = make_mini_mrmr(8, 12, 6, 5, 5, 4, seed=1)
    b = load_mini_mrmr(mini, noise=0.0)
    assert set(b) == {"knowledge", "theorem", "negation", "design", "traffic"}
    assert len(b["knowledge"].corpus) == 36 + 4 and all(len(v) == 4 for v in b["negation"].candidates.values())
    rep = evaluate(OracleRetriever(), b, backend="numpy")
    assert rep.complete and list(rep.subtasks.index) == list(SUBTASKS) and rep.average == 1.0
    objs = [dict(shape="circle", color="red", x=0.5, y=0.3, r=0.2),
            dict(shape="square", color="blue", x=0.5, y=0.8, r=0.2)]
    assert caption_scene(objs) == "a red circle above a blue square"
    assert render_scene(objs).shape == (32, 32, 3)
    noisy = caption_scene(objs, noise=1.0, rng=np.random.default_rng(0))
    first, second = noisy.split(" above ") if " above " in noisy else noisy.split(" below ")
    assert "red" not in first and "circle" not in first and "blue" not in second and "square" not in second


def test_bad_input(kn):
    with pytest.raises(ValueError, match="unknown corpus ids"):
        RetrievalTask("x", kn.queries, kn.corpus, {"q1": {"nope": 1}}, strict=True)
    with pytest.raises(ValueError, match="unknown query ids"):
        RetrievalTask("x", kn.queries, kn.corpus, {"zz": {"d1": 1}}, strict=True)
    with pytest.raises(ValueError, match="empty corpus"):
        RetrievalTask("x", kn.queries, kn.corpus.iloc[:0], {})
    with pytest.raises(ValueError, match="k"):
        scores_to_run(np.zeros((3, 7)), kn, k=0)
    with pytest.raises(TypeError, match="k"):
        scores_to_run(np.zeros((3, 7)), kn, k=2.5)
    with pytest.raises(ValueError, match="shape"):
        scores_to_run(np.zeros((3, 6)), kn)
    with pytest.raises(ValueError, match="metric"):
        evaluate_run({"a": {"x": 1}}, {"a": {"x": 1.0}}, ["ndcg@-1"])
    with pytest.raises(ValueError, match="k"):
        evaluate_run({"a": {"x": 1}}, {"a": {"x": 1.0}}, ["recall@0"])
    with pytest.raises(ValueError, match="backend"):
        evaluate_run({"a": {"x": 1}}, {"a": {"x": 1.0}}, backend="trec")
    with pytest.raises(ValueError, match="relevant"):
        evaluate_run({"a": {"x": 0}}, {"a": {"x": 1.0}})
    with pytest.raises(ValueError, match="negation"):
        run_task(OracleRetriever(), kn, negation="pooled")
    with pytest.raises(ValueError, match="neither a folder"):
        load_task(FIX / "does_not_exist")
    with pytest.raises(ValueError, match="no 'qrels'"):
        load_task({"query": [{"id": 1, "text": "t"}], "corpus": [{"id": 2, "text": "u"}]}, "knowledge")
    with pytest.raises(ValueError, match="n_knowledge"):
        make_mini_mrmr(n_knowledge=0)
    with pytest.raises(ValueError, match="noise"):
        caption_scene([dict(shape="circle", color="red", x=0.5, y=0.5)], noise=2)
    with pytest.raises(TypeError):
        evaluate(object(), {"knowledge": kn})


# ---- real-model adapters: prompts, protocols, CLIP/SigLIP-style and sentence-transformers models, the MTEB layout

class _Recorder(HashingEncoder):   # remembers every text it was asked to embed
    def __init__(self):
        super().__init__()
        self.seen = []

    def encode(self, texts):
        self.seen += list(texts)
        return super().encode(texts)


def test_prompt_templates_are_the_official_forms(kn, neg):
    assert set(PROMPT_TEMPLATES) == {"none", "instruct", "clip"}
    inst = "Retrieve relevant documents that help answer the question."
    assert format_query("Q?", inst, "instruct") == "Instruct: " + inst + "\nQuery:Q?"   # Qwen3-Embedding style
    assert format_query("Q?", inst, "clip") == inst + "\nQ?"                            # the official is_clip form
    assert format_query("Q?", inst) == "Q?" and format_doc("D", "instruct") == "D" == format_doc("D", "clip")
    assert format_query("Q", "", ("query: {text}", "passage: {text}")) == "query: Q"
    assert format_doc("D", ("query: {text}", "passage: {text}")) == "passage: D"
    for bad in ("e5", ("{text}",), ("no text", "{text}")):
        with pytest.raises(ValueError, match="template"):
            format_query("Q", "", bad)
    assert task_instruction(kn) == inst == task_instruction(kn, captioned=True)
    assert task_instruction(neg) == MRMR_TASKS["negation"]["prompt"]
    assert task_instruction(neg, captioned=True).startswith("Given an image caption,")
    assert MRMR_TASKS["design"]["prompt"] == ("Given a vehicle design, retrieve the design requirements that it "
                                              "violates.")


def test_bare_image_placeholder_takes_the_lone_caption():
    assert substitute_captions("<image> Which rule?", {"image": "a red car"}) == "<a red car> Which rule?"
    assert substitute_captions("<image>", {"image_1": "x"}) == "<x>"
    assert substitute_captions("<image> and <image 2>", {"image": "a", "image_2": "b"}) == "<a> and <b>"


def test_retrievers_prompt_queries_not_documents(neg):
    rec = _Recorder()
    TextToText(rec, template="instruct").score(neg)
    n = len(neg.queries)
    assert rec.seen[:n] == ["Instruct: " + MRMR_TASKS["negation"]["prompt_captioned"] + "\nQuery:<a blue square>",
                            "Instruct: " + MRMR_TASKS["negation"]["prompt_captioned"] + "\nQuery:<a green circle>"]
    assert rec.seen[n:] == list(neg.corpus["text"])
    assert query_texts(neg) == ["<a blue square>", "<a green circle>"]                  # no template: unchanged
    rec.seen = []
    q = DocumentAsImage(rec, _Img(), query_form="captioned", template="clip").encode_queries(neg)
    assert q.shape == (2, 384) and rec.seen == [MRMR_TASKS["negation"]["prompt_captioned"] + "\n<a blue square>",
                                               MRMR_TASKS["negation"]["prompt_captioned"] + "\n<a green circle>"]
    rec.seen = []
    DualStreamFusion(rec, _Img(), template="clip").encode_queries(neg)                # image queries: instruction only
    assert rec.seen == [MRMR_TASKS["negation"]["prompt"] + "\n"] * 2
    with pytest.raises(ValueError, match="query_form"):
        DocumentAsImage(rec, _Img(), query_form="merged")
    with pytest.raises(ValueError, match="template"):
        TextToText(rec, template="nope")
    assert DocumentAsImage(rec, _Img(), query_form="captioned").name == "document-as-image (captioned query)"


def test_encoder_protocols():
    assert isinstance(HashingEncoder(), TextEncoder) and not isinstance(HashingEncoder(), ImageEncoder)
    assert isinstance(_Img(), ImageEncoder)
    with pytest.raises(TypeError, match="encode"):
        TextToText(_Img())
    with pytest.raises(TypeError, match="encode_images"):
        DualStreamFusion(HashingEncoder(), HashingEncoder())


@pytest.fixture(scope="module")
def mini():
    return load_mini_mrmr(make_mini_mrmr(6, 12, 4, 4, 4, 4, seed=2), noise=0.0)


@pytest.mark.parametrize("arch", ["clip", "siglip"])
def test_clip_style_adapter_matches_the_models_forward(arch, mini, neg):
    import torch
    from PIL import Image
    texts = ["a red circle above a blue square", "there is no circle in the picture", "an unknown word"]
    enc = tiny_clip_style(arch, texts, seed=1)
    assert isinstance(enc, TextEncoder) and isinstance(enc, ImageEncoder)
    assert enc.text_padding == ("max_length" if arch == "siglip" else True)
    ims = [render_scene([dict(shape=s, color=c, x=0.5, y=0.5, r=0.3)])
           for s, c in (("circle", "red"), ("ring", "blue"))]
    T, I = enc.encode(texts), enc.encode_images(ims)
    assert T.shape == (3, 32) and I.shape == (2, 32)
    assert np.allclose(np.linalg.norm(T, axis=1), 1, atol=1e-5) and np.allclose(np.linalg.norm(I, axis=1), 1, atol=1e-5)
    tok = enc.tokenizer(texts, padding=enc.text_padding, truncation=True, max_length=enc.max_length,
                        return_tensors="pt")
    px = enc.image_processor(images=[Image.fromarray(a) for a in ims], return_tensors="pt")["pixel_values"]
    with torch.no_grad():
        out = enc.model(input_ids=tok["input_ids"], attention_mask=tok.get("attention_mask"), pixel_values=px)
    ref_t = out.text_embeds / out.text_embeds.norm(dim=-1, keepdim=True)
    ref_i = out.image_embeds / out.image_embeds.norm(dim=-1, keepdim=True)
    assert np.abs(T - ref_t.numpy()).max() < 1e-5 and np.abs(I - ref_i.numpy()).max() < 1e-5
    small = CLIPStyleEncoder(enc.model, tokenizer=enc.tokenizer, image_processor=enc.image_processor, batch_size=1)
    assert np.abs(small.encode(texts) - T).max() < 1e-5 and np.abs(small.encode_images(ims) - I).max() < 1e-5
    assert len(enc.cache) == 3 and np.array_equal(enc.encode([texts[1]])[0], T[1])
    # one model serves both streams of every paradigm on the mini benchmark (and the fixture)
    for r in (DualStreamFusion(enc, enc), MergedImage(enc, enc), DocumentAsImage(enc, enc),
              DocumentAsImage(enc, enc, query_form="captioned", template="clip")):
        for t in mini.values():
            S = r.score(t)
            assert S.shape == (len(t.queries), len(t.corpus)) and np.isfinite(S).all()
    assert np.isfinite(evaluate(DualStreamFusion(enc, enc), {"negation": neg}).average)


def test_clip_style_adapter_bad_input():
    enc = tiny_clip_style("clip", ["a b"])
    with pytest.raises(TypeError, match="get_text_features"):
        CLIPStyleEncoder(HashingEncoder())
    with pytest.raises(ValueError, match="tokenizer"):
        CLIPStyleEncoder(enc.model, image_processor=enc.image_processor)
    with pytest.raises(ValueError, match="image_processor"):
        CLIPStyleEncoder(enc.model, tokenizer=enc.tokenizer)
    with pytest.raises(TypeError, match="list"):
        enc.encode("a b")
    with pytest.raises(ValueError, match="non-empty"):
        enc.encode_images([])
    with pytest.raises(ValueError, match="arch"):
        tiny_clip_style("blip")
    with pytest.raises(ValueError, match="dim"):
        tiny_clip_style("clip", dim=30)


@pytest.fixture(scope="module")
def tiny_st_path(tmp_path_factory):
    "A sentence-transformers model folder: a random 1-layer BERT and a word-level tokenizer, built here (no download)."
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + "a red circle blue square the is of in instruct query given".split()
    tk = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
                                   sep_token="[SEP]", model_max_length=64)
    d = tmp_path_factory.mktemp("tiny_st")
    cfg = BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64)
    BertModel(cfg).save_pretrained(d)
    fast.save_pretrained(d)
    return d


def test_sentence_transformer_adapter(tiny_st_path, neg):
    enc = SentenceTransformerEncoder(tiny_st_path, batch_size=2)                   # loads the folder lazily
    assert enc.name == tiny_st_path.name and isinstance(enc, TextEncoder)
    texts = ["a red circle", "the blue square", "a red circle"]
    E = enc.encode(texts)
    ref = enc.model.encode(texts[:2], normalize_embeddings=True, convert_to_numpy=True)
    assert E.shape == (3, 16) and np.abs(E[:2] - ref).max() < 1e-5 and np.array_equal(E[0], E[2])
    assert len(enc.cache) == 2
    # the instruct template equals sentence-transformers' own prompt= (how the official wrapper prompts Qwen3-Embedding)
    inst = "Given a query"
    mine = enc.encode([format_query("a red circle", inst, "instruct")])[0]
    theirs = enc.model.encode(["a red circle"], prompt=f"Instruct: {inst}\nQuery:", normalize_embeddings=True)[0]
    assert np.abs(mine - theirs).max() < 1e-5
    S = TextToText(enc, template="instruct").score(neg)
    assert S.shape == (2, 8) and np.isfinite(S).all()
    with pytest.raises(TypeError, match="encode"):
        SentenceTransformerEncoder(object())


def test_mteb_task_adapter_layout(kn, neg):
    ad = MTEBTaskAdapter(neg)
    assert ad.name == "MRMRNegationRetrieval" and ad.main_score == "hit_rate_at_1"
    assert ad.prompt == {"query": MRMR_TASKS["negation"]["prompt"]}
    split = ad.dataset["default"]["test"]
    assert set(split) == {"corpus", "queries", "relevant_docs", "top_ranked"}
    assert split["top_ranked"] == {"n1": ["n1_1", "n1_2", "n1_3", "n1_4"], "n2": ["n2_1", "n2_2", "n2_3", "n2_4"]}
    assert split["relevant_docs"] == {"n1": {"n1_1": 1}, "n2": {"n2_1": 1}}
    assert all(set(r) == {"id", "text", "image"} for r in split["corpus"] + split["queries"])
    assert [q["text"] for q in split["queries"]] == ["", ""] and split["queries"][0]["image"].shape == (16, 16, 3)
    k = MTEBTaskAdapter(kn)
    assert k.name == "MRMRKnowledgeRetrieval" and k.main_score == "ndcg_at_10" and k.top_ranked is None
    assert [q["id"] for q in k.queries] == ["q1", "q2"]          # the text-only query is left out, as the port does
    assert [q["id"] for q in MTEBTaskAdapter(kn, image_queries_only=False).queries] == ["q1", "q2", "q3"]
    assert k.corpus[0]["image"] is kn.corpus["vision"][0] and k.corpus[1]["image"] is None   # image = vision
    assert k.corpus[2]["text"] == kn.corpus["text"][2]
    with pytest.raises(TypeError, match="RetrievalTask"):
        MTEBTaskAdapter({"query": []})


def test_mteb_task_adapter_scores_as_the_paper(kn, neg, mini):
    ad = MTEBTaskAdapter(neg)
    rng = np.random.default_rng(0)
    for _ in range(20):   # reranking top_ranked by hit_rate_at_1 is Hit@1-of-4, ties included
        S = rng.integers(0, 3, (2, 8)).astype(float)
        assert ad.evaluate(S).tolist() == run_task(S, neg)["main"].tolist()
    m = MTEBTaskAdapter(mini["negation"])
    S = RandomRetriever(3).score(mini["negation"])
    assert np.allclose(m.evaluate(S).to_numpy(), run_task(S, mini["negation"])["main"].to_numpy())
    t = MTEBTaskAdapter(mini["theorem"])
    S = TextToText(HashingEncoder()).score(mini["theorem"])
    assert np.allclose(t.evaluate(S).to_numpy(), run_task(S, mini["theorem"])["main"].to_numpy())
    assert MTEBTaskAdapter(kn).evaluate(OracleRetriever()).tolist() == [1.0, 1.0]


# ---- property tests for bad input (issue #60) ----
from hypothesis import given, settings, strategies as st  # noqa: E402

_bad = st.sampled_from([float("nan"), float("inf"), -float("inf")])


@settings(max_examples=20, deadline=None)
@given(dq=st.integers(-1, 1), dd=st.integers(-1, 1), bad=_bad, k=st.integers(-3, 0))
def test_property_scores_to_run_bad_scores(kn, dq, dd, bad, k):
    shape = (len(kn.queries), len(kn.corpus))
    if (dq, dd) != (0, 0):
        with pytest.raises(ValueError, match="scores must have shape"):
            scores_to_run(np.zeros((shape[0] + dq, shape[1] + dd)), kn)
    S = np.zeros(shape)
    S[0, 0] = bad
    with pytest.raises(ValueError, match="scores must be finite"): scores_to_run(S, kn)
    with pytest.raises(ValueError, match="k"): scores_to_run(np.zeros(shape), kn, k=k)


@settings(max_examples=20, deadline=None)
@given(bad=_bad, metric=st.sampled_from(["ndcg", "ndcg@0", "map@10", "recall@-1", ""]))
def test_property_evaluate_run_bad_input(bad, metric):
    qrels = {"q1": {"d1": 1}}
    with pytest.raises(ValueError, match="run scores must be finite"): evaluate_run(qrels, {"q1": {"d1": bad}})
    with pytest.raises(ValueError, match="metric|k in metric"): evaluate_run(qrels, {"q1": {"d1": 1.0}}, [metric])
    with pytest.raises(TypeError, match="run"): evaluate_run(qrels, {"q1": [("d1", 1.0)]})
    with pytest.raises(TypeError, match="qrels"): evaluate_run({"q1": ["d1"]}, {"q1": {"d1": 1.0}})


@settings(max_examples=20, deadline=None)
@given(texts=st.lists(st.one_of(st.integers(), st.floats(allow_nan=True), st.binary(max_size=3)), min_size=1,
                      max_size=3), dim=st.integers(-2, 7))
def test_property_hashing_encoder_bad_input(texts, dim):
    with pytest.raises(TypeError, match="texts"): HashingEncoder(16).encode(texts)
    with pytest.raises(ValueError, match="dim"): HashingEncoder(dim)


@settings(max_examples=20, deadline=None)
@given(noise=st.one_of(st.floats(max_value=-1e-6, allow_nan=False), st.floats(min_value=1.000001, allow_nan=False),
                       st.just(float("nan"))))
def test_property_caption_noise_out_of_range(noise):
    with pytest.raises(ValueError, match="noise"): caption_scene([{"color": "red", "shape": "circle"}], noise=noise)


# ---- image paths: the split folder first, then the dataset root (issue #51)

def _copy_layout(tmp_path, images_in_split_folder: bool):
    "The mrmr_root fixture copied; with `images_in_split_folder` its images move beside the query/corpus files."
    import shutil
    root = tmp_path / "knowledge"
    shutil.copytree(FIX.parent / "mrmr_root" / "knowledge", root)
    if images_in_split_folder:
        for split in ("query", "corpus"):
            shutil.copytree(root / "images", root / split / "images")
        shutil.rmtree(root / "images")
    return root


@pytest.mark.parametrize("split_folder", [True, False], ids=["split-relative", "root-relative"])
def test_image_paths_resolve_against_split_folder_then_dataset_root(tmp_path, split_folder):
    root = _copy_layout(tmp_path, split_folder)
    with pytest.warns(UserWarning, match="missing from the corpus"):
        t = load_task(root)
    label = "split folder" if split_folder else "dataset root"
    assert t.image_roots == {"query": {label: 3}, "corpus": {label: 2}}
    with pytest.warns(UserWarning, match="missing from the corpus"):
        ref = load_task(FIX / "knowledge", extra=False)
    for a, b in zip(t.queries["images"], ref.queries["images"]):
        assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
    assert all(np.array_equal(x, y) for x, y in zip(t.corpus["vision"].dropna(), ref.corpus["vision"].dropna()))


def test_committed_root_relative_fixture_loads():
    with pytest.warns(UserWarning, match="missing from the corpus"):
        t = load_task(FIX.parent / "mrmr_root" / "knowledge")
    assert t.image_roots == {"query": {"dataset root": 3}, "corpus": {"dataset root": 2}}
    assert [len(x) for x in t.queries["images"]] == [1, 2, 0]


def test_split_folder_wins_and_a_missing_image_names_both_folders(tmp_path):
    from PIL import Image
    root = _copy_layout(tmp_path, False)
    (root / "query" / "images").mkdir()
    # a different q1 in the split folder: it wins over the dataset root's
    Image.new("RGB", (4, 4), (1, 2, 3)).save(root / "query" / "images" / "q1.png")
    with pytest.warns(UserWarning):
        t = load_task(root)
    assert t.image_roots["query"] == {"split folder": 1, "dataset root": 2}
    assert t.queries["images"][0][0].shape == (4, 4, 3)
    (root / "images" / "q2_1.png").unlink()
    with pytest.raises(ValueError, match=r"does not exist \(also tried"):
        load_task(root)


def test_resolve_image_path(tmp_path):
    from iclr26.mrmr import resolve_image_path
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.png").write_bytes(b"")
    got = resolve_image_path("x.png", [tmp_path / "a", tmp_path / "b"])
    assert got == (tmp_path / "b" / "x.png", str(tmp_path / "b"))
    assert resolve_image_path("x.png", [("split folder", tmp_path / "a"), ("dataset root", tmp_path / "b")])[1] == \
        "dataset root"
    assert resolve_image_path(tmp_path / "b" / "x.png")[1] == "absolute"
    with pytest.raises(ValueError, match="does not exist"):
        resolve_image_path("y.png", tmp_path / "b")


def test_shuffle_query_captions_is_a_permutation(kn):
    from iclr26.mrmr import shuffle_query_captions
    with pytest.warns(UserWarning):
        s = shuffle_query_captions(kn, seed=3)
    q = lambda t: sorted(str(v) for k, v in t.captions.items() if k.startswith("query-"))
    assert q(s) == q(kn)
    assert {k: v for k, v in s.captions.items() if k.startswith("corpus-")} == \
        {k: v for k, v in kn.captions.items() if k.startswith("corpus-")}
    assert s.corpus is kn.corpus and s.qrels == kn.qrels
    with pytest.raises(TypeError, match="RetrievalTask"):
        shuffle_query_captions({"query": []})
