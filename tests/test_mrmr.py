"Unit and bad-input tests for iclr26.mrmr (paper 16: MRMR retrieval harness), on the fixture in the real MRMR schema."
import json, warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from iclr26.mrmr import (SUBTASKS, BM25Retriever, DocumentAsImage, DualStreamFusion, HashingEncoder, MergedImage, OracleRetriever,
                         RandomRetriever, RetrievalTask, TemplateExpander, TextToText, caption_scene, evaluate, evaluate_run,
                         load_captions, load_mini_mrmr, load_task, make_mini_mrmr, merge_images, multichoice_hit1, render_scene,
                         run_task, scores_to_run, substitute_captions, to_array)

FIX = Path(__file__).parent / "fixtures" / "mrmr"
warnings.filterwarnings("ignore", message=".*unsafe cast.*")


@pytest.fixture(scope="module")
def kn():
    return load_task(FIX / "knowledge", captions=FIX / "knowledge" / "captions.json")


@pytest.fixture(scope="module")
def neg():
    return load_task(FIX / "negation")


class _Img:   # a tiny stand-in image encoder: mean colour, padded
    def encode_images(self, ims):
        a = np.stack([to_array(i, size=8).reshape(-1, 3).mean(0) for i in ims]).astype(np.float32)
        out = np.zeros((len(ims), 384), np.float32)
        out[:, :3] = a + 1
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_fixture_loads_in_real_schema(kn, neg):
    assert len(kn.queries) == 3 and len(kn.corpus) == 7
    assert kn.corpus["source"].tolist().count("pin_p") == 2 and kn.corpus["id"].is_unique
    assert [len(x) for x in kn.queries["images"]] == [1, 2, 0]
    assert kn.queries["images"][0][0].shape == (16, 16, 3)
    assert kn.queries["subtask"].tolist() == ["Art", "Medicine", "Humanities"]
    assert kn.qrels == {"q1": {"d1": 1}, "q2": {"d3": 1}, "q3": {"d4": 1, "d5": 1}}
    assert kn.corpus["vision"][0].shape == (16, 16, 3) and kn.corpus["vision"][1] is None
    assert neg.protocol == "hit@1-of-4" and neg.qrels == {"n1": {"n1_3": 1}, "n2": {"n2_1": 1}}   # hyphenated columns
    assert neg.candidates == {"n1": ["n1_1", "n1_2", "n1_3", "n1_4"], "n2": ["n2_1", "n2_2", "n2_3", "n2_4"]}
    assert len(load_task(FIX / "knowledge", extra=False).corpus) == 5


def test_load_from_mapping_and_datasets_like(tmp_path):
    rows = {"query": [{"id": 1, "text": "hi", "image": None, "modality": "text", "category": "Math"}],
            "corpus": pd.DataFrame([{"id": 7, "text": "x"}, {"id": 8, "text": "y"}]),
            "qrels": {"query-id": [1], "corpus-id": [8], "score": [1]}}
    t = load_task(rows, "theorem")
    assert t.qrels == {"1": {"8": 1}} and t.queries["subtask"][0] == "Math"
    with pytest.raises(ValueError, match="name"):
        load_task(rows)


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
                         {"q": {"c2": 1}, "r": {"d1": 1}}, {"q": ["c1", "c2", "c3"], "r": ["d1", "d2"]})
    assert h["q"] == 1.0 and h["r"] == 0.0   # a tie with a wrong candidate is a miss


def test_ranx_and_pytrec_eval_agree_on_random_graded_runs():
    rng = np.random.default_rng(0)
    docs = [f"d{i}" for i in range(40)]
    qrels = {f"q{i}": {d: int(rng.integers(1, 3)) for d in rng.choice(docs, int(rng.integers(1, 5)), replace=False)} for i in range(30)}
    run = {q: dict(zip(docs, rng.permutation(len(docs)).astype(float))) for q in qrels}
    ms = ["ndcg@10", "recall@5", "recall@20", "precision@5"]
    a, b, c = (evaluate_run(qrels, run, ms, backend=be) for be in ("ranx", "pytrec_eval", "numpy"))
    assert np.abs(a - b).to_numpy().max() < 1e-6 and np.abs(a - c).to_numpy().max() < 1e-6


def test_oracle_and_random_on_fixture(kn, neg):
    rep = evaluate(OracleRetriever(), {"knowledge": kn, "negation": neg}, backend="pytrec_eval")
    assert rep.average == 1.0 and set(rep.subtasks.index) == {"Art", "Medicine", "Humanities", "Negation"} and not rep.complete
    r = run_task(RandomRetriever(0), neg, backend="numpy")
    assert set(r["main"]) <= {0.0, 1.0} and "hit@1" in r
    r2 = run_task(RandomRetriever(0), neg, negation="corpus", backend="numpy")
    assert (r2["main"] == r2["ndcg@10"]).all()


def test_paradigms_run_on_fixture(kn):
    enc, img = HashingEncoder(), _Img()
    for r in (TextToText(enc), TextToText(enc, expander=TemplateExpander()), DualStreamFusion(enc, img), MergedImage(enc, img), BM25Retriever()):
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
    objs = [dict(shape="circle", color="red", x=0.5, y=0.3, r=0.2), dict(shape="square", color="blue", x=0.5, y=0.8, r=0.2)]
    assert caption_scene(objs) == "a red circle above a blue square"
    assert render_scene(objs).shape == (32, 32, 3)
    noisy = caption_scene(objs, noise=1.0, rng=np.random.default_rng(0))
    first, second = noisy.split(" above ") if " above " in noisy else noisy.split(" below ")
    assert "red" not in first and "circle" not in first and "blue" not in second and "square" not in second


def test_bad_input(kn):
    with pytest.raises(ValueError, match="unknown corpus ids"):
        RetrievalTask("x", kn.queries, kn.corpus, {"q1": {"nope": 1}})
    with pytest.raises(ValueError, match="unknown query ids"):
        RetrievalTask("x", kn.queries, kn.corpus, {"zz": {"d1": 1}})
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
