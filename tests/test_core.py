"""The claims API: pass/fail per operator, gates raise, JSON round trip; scales and seeds."""
import json
import math

import numpy as np
import pytest

from iclr26 import core
from iclr26.core import Claim, GateFailure, claim, load_results, record, scale_config, set_seed


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR26_RESULTS", str(tmp_path))
    monkeypatch.delenv("ICLR26_ALLOW_DIRTY", raising=False)
    return tmp_path


@pytest.fixture
def clean_tree(monkeypatch):
    "record() sees a clean commit, whatever the state of the shared checkout."
    monkeypatch.setattr(core, "git_commit", lambda root=None: "0123abcd" * 5)


@pytest.mark.parametrize("op,value,threshold,expected", [
    (">=", 1, 1, True), (">=", 0.9, 1, False), (">", 1, 1, False), (">", 1.1, 1, True),
    ("<=", 1, 1, True), ("<=", 1.1, 1, False), ("<", 1, 1, False), ("<", 0.9, 1, True),
    ("==", 3, 3, True), ("==", 3, 4, False), ("in", 0.5, (0, 1), True), ("in", 1.5, (0, 1), False),
    ("in", 1, [1, 2], True),
])
def test_claim_operators(op, value, threshold, expected):
    assert Claim("x", value, op, threshold).passed is expected


def test_claim_nan_and_none_fail():
    assert not Claim("x", math.nan, "<", 1).passed
    assert not Claim("x", None, ">=", 0).passed


def test_claim_numpy_values_become_plain():
    c = Claim("x", np.float32(0.25), "<", np.int64(1), paper=np.array([1.0]))
    assert type(c.value) is float and type(c.threshold) is int and c.paper == [1.0]


@pytest.mark.parametrize("kwargs,match", [
    (dict(name="", value=1, op=">=", threshold=0), "name"),
    (dict(name="x", value=1, op="=>", threshold=0), "op must be"),
    (dict(name="x", value=1, op="in", threshold=0), "low, high"),
])
def test_claim_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Claim(**kwargs)


def test_status_labels():
    assert Claim("a", 1, ">", 0).status == "pass"
    assert Claim("a", 0, ">", 1).status == "FAIL"
    assert Claim("a", 0, ">", 1, gate=False).status == "miss"


def test_record_round_trip(results):
    cs = [claim("gate holds", 2.0, ">=", 1.0, paper=1.5), claim("reported miss", 0.0, ">", 1.0, gate=False)]
    out = record("toy", "demo", {"loss": np.float64(0.125), "curve": np.arange(3)}, cs, seed=7)
    f = results / "demo" / "toy.json"
    back = json.loads(f.read_text())
    assert back == json.loads(json.dumps(out, default=str))
    assert back["passed"] is True and back["seed"] == 7 and back["metrics"]["curve"] == [0, 1, 2]
    assert [c["status"] for c in back["claims"]] == ["pass", "miss"]
    for k in ("wall_time_s", "versions", "commit", "date"):
        assert k in back
    assert back["versions"]["torch"].startswith("2.")
    assert load_results("demo") == [back]


def test_failed_gate_raises_after_writing(results):
    with pytest.raises(GateFailure, match="1 gate"):
        record("toy", "smoke", {}, [claim("bad", 0.1, ">=", 1.0)])
    assert json.loads((results / "smoke" / "toy.json").read_text())["passed"] is False
    out = record("toy2", "smoke", {}, [claim("bad", 0.1, ">=", 1.0)], raise_on_fail=False)
    assert out["passed"] is False


def test_reported_failure_does_not_raise(results, clean_tree):
    assert record("toy", "full", {}, [claim("r", 0, ">=", 1, gate=False)])["passed"] is True


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(paper="not a key", scale="smoke"), ValueError, "paper"),
    (dict(paper="toy", scale="huge"), ValueError, "smoke, demo, full"),
])
def test_record_bad_input(results, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        record(metrics={}, claims=[], **kwargs)


def test_record_rejects_duplicates_and_non_claims(results):
    with pytest.raises(ValueError, match="unique"):
        record("toy", "smoke", {}, [Claim("a", 1, ">", 0), Claim("a", 1, ">", 0)])
    with pytest.raises(TypeError, match="Claim"):
        record("toy", "smoke", {}, [("a", 1)])


def test_scale_config():
    t = {"smoke": {"n": 1}, "demo": {"n": 2}, "full": {"n": 3}}
    assert scale_config(t, "full").n == 3
    with pytest.raises(ValueError, match="same fields"):
        scale_config({"smoke": {"n": 1}, "demo": {"m": 2}, "full": {"n": 3}}, "demo")
    with pytest.raises(ValueError, match="scale"):
        scale_config(t, "Demo")
    with pytest.raises(AttributeError, match="fields"):
        scale_config(t, "demo").missing


def test_seed_determinism():
    import torch
    set_seed(11)
    a = (np.random.rand(), torch.rand(2))
    set_seed(11)
    b = (np.random.rand(), torch.rand(2))
    assert a[0] == b[0] and torch.equal(a[1], b[1])
    with pytest.raises(TypeError):
        set_seed(1.5)


def test_scoreboard_markdown(results):
    record("toy", "smoke", {}, [claim("c|1", 1, "in", (0, 2), paper=1)])
    md = core.scoreboard_markdown(load_results())
    assert "c\\|1" in md and "in [0, 2]" in md and "| pass |" in md


def test_results_are_strict_json(results):
    out = record("toy", "smoke", {"nan": float("nan"), "arr": np.array([1.0, np.inf])},
                 [claim("v", np.float64("nan"), "<", 1, gate=False)])
    text = (results / "smoke" / "toy.json").read_text()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    assert out["metrics"] == {"nan": None, "arr": [1.0, None]} and out["claims"][0]["value"] is None


def test_scale_config_error_names_the_fields():
    "The message lists the offending fields (it once printed its own f-string source instead)."
    with pytest.raises(ValueError) as e:
        scale_config({"smoke": {"n": 1}, "demo": {"n": 2, "lr": 0.1}, "full": {"n": 3}}, "smoke")
    msg = str(e.value)
    assert "{'demo': ['lr']}" in msg and "'smoke': ['lr']" in msg and "'full': ['lr']" in msg
    assert "sorted(k)" not in msg and "{s:" not in msg


EVIDENCE = dict(paper=1.0, ci=(0.5, 1.5), n=5, null=-1.0, oracle=2.0, protocol="ours: a test")


@pytest.mark.parametrize("kind", core.KINDS)
def test_claim_kind_is_stored(results, kind):
    ev = EVIDENCE if kind == "headline" else {}
    out = record("toy", "smoke", {}, [claim("c", 1, ">=", 0, kind=kind, **ev)])
    assert out["claims"][0]["kind"] == kind and load_results("smoke")[0]["claims"][0]["kind"] == kind
    assert Claim("c", 1, ">=", 0).kind == "claim" and f"[{kind}, gate]" in str(Claim("c", 1, ">=", 0, kind=kind, **ev))


@pytest.mark.parametrize("kind", ["main", "Headline", None, ""])
def test_claim_bad_kind(kind):
    with pytest.raises(ValueError, match="kind must be one of headline, claim, check, precondition"):
        claim("c", 1, ">=", 0, kind=kind)


def test_claim_signature_order():
    "claim(name, value, op, threshold, paper, gate, kind, note): positional callers land in the right fields."
    c = claim("c", 1, ">=", 0, 2, False, "check", "a note")
    assert (c.paper, c.gate, c.kind, c.note) == (2, False, "check", "a note")


def test_old_results_read_with_default_kind(results):
    "Files written before `kind`/`reproducible` existed: claims read as 'claim', reproducible from the commit."
    (results / "full").mkdir()
    old = {"paper": "old", "scale": "full", "passed": True, "commit": "abc+dirty",
           "claims": [{"name": "x", "value": 1, "op": ">=", "threshold": 0, "paper": None, "gate": True, "note": "",
                       "passed": True, "status": "pass"}],
           "figures": ["/somewhere/results/full/figures/old/a.png", "full/figures/old/b.png"]}
    (results / "full" / "old.json").write_text(json.dumps(old))
    back = load_results("full")[0]
    assert back["claims"][0]["kind"] == "claim" and back["reproducible"] is False
    assert back["figures"] == ["full/figures/old/a.png", "full/figures/old/b.png"]
    assert json.loads((results / "full" / "old.json").read_text()) == old  # read, never rewritten


@pytest.mark.parametrize("commit", ["0123abcd+dirty", None])
def test_full_refuses_dirty_or_unknown_commit(results, monkeypatch, commit):
    monkeypatch.setattr(core, "git_commit", lambda root=None: commit)
    with pytest.raises(core.DirtyTreeError, match="commit first, then run full"):
        record("toy", "full", {}, [claim("a", 1, ">", 0)])
    assert not (results / "full" / "toy.json").exists()
    with pytest.raises(core.DirtyTreeError, match="ICLR26_ALLOW_DIRTY"):
        core.require_clean("full")


def test_full_dirty_override_marks_not_reproducible(results, monkeypatch):
    monkeypatch.setattr(core, "git_commit", lambda root=None: "0123abcd+dirty")
    out = record("toy", "full", {}, [claim("a", 1, ">", 0)], allow_dirty=True)
    assert out["reproducible"] is False and out["commit"] == "0123abcd+dirty"
    assert json.loads((results / "full" / "toy.json").read_text())["reproducible"] is False
    monkeypatch.setenv("ICLR26_ALLOW_DIRTY", "1")
    assert record("toy2", "full", {}, [claim("a", 1, ">", 0)])["reproducible"] is False
    monkeypatch.setenv("ICLR26_ALLOW_DIRTY", "0")
    with pytest.raises(core.DirtyTreeError):
        record("toy3", "full", {}, [claim("a", 1, ">", 0)])
    with pytest.raises(TypeError, match="allow_dirty"):
        record("toy4", "full", {}, [claim("a", 1, ">", 0)], allow_dirty="yes")


def test_clean_full_and_dirty_demo(results, monkeypatch, clean_tree):
    assert record("toy", "full", {}, [claim("a", 1, ">", 0)])["reproducible"] is True
    monkeypatch.setattr(core, "git_commit", lambda root=None: "0123abcd+dirty")
    out = record("toy", "demo", {}, [claim("a", 1, ">", 0)])  # smoke and demo runs are never refused
    assert out["reproducible"] is False


def _res(paper, claims, scale="full", commit="0123456789", reproducible=True):
    cs = [{"name": n, "value": v, "op": op, "threshold": t, "paper": None, "gate": True, "passed": p,
           "status": "pass" if p else "FAIL", **({"kind": k} if k else {})} for n, k, v, op, t, p in claims]
    return {"paper": paper, "scale": scale, "commit": commit, "reproducible": reproducible, "claims": cs}


@pytest.mark.parametrize("claims,verdict", [
    ([("a", "headline", 2, ">", 1, True), ("b", "claim", 0, ">", 1, False)], "holds"),
    ([("a", "headline", 2, ">", 1, True), ("b", "headline", 0, ">", 1, False)], "fails"),
    ([("a", "claim", 2, ">", 1, True), ("b", "check", 2, ">", 1, True)], "no headline marked"),
    ([("a", None, 2, ">", 1, True)], "no headline marked"),   # results written before claims had a kind
    ([("pre", "check", 0.1, ">=", 0.9, False)], "not reached"),   # stopped at a failed precondition
    ([("a", None, 0, ">", 1, False)], "no headline marked"),  # an old failed claim is not a precondition
])
def test_headline_verdict(claims, verdict):
    assert core.headline_verdict(_res("p", claims)) == verdict
    assert core.headline_verdict(None) == "not run yet"


def test_headline_summary_prefers_full_and_keeps_paper_order():
    rs = [_res("b", [("x", "headline", 0.5, "<", 1, True)], scale="demo"),
          _res("b", [("x", "headline", 2.0, "<", 1, False)], scale="full", commit="abcdef0123+dirty",
               reproducible=False),
          _res("a", [("y", "check", 1, "==", 1, True)], scale="smoke")]
    s = core.headline_summary(rs, [("a", "A"), ("b", "B"), ("c", "C")])
    assert [x["paper"] for x in s] == ["a", "b", "c"] and [x["label"] for x in s] == ["A", "B", "C"]
    assert s[1]["scale"] == "full" and s[1]["verdict"] == "fails" and s[1]["commit"] == "abcdef0+dirty"
    assert s[1]["reproducible"] is False and s[1]["headlines"][0]["ratio"] == 2.0
    assert s[0]["verdict"] == "no headline marked" and s[0]["scale"] == "smoke" and s[2]["verdict"] == "not run yet"
    md = core.headline_markdown(s)
    assert "| B | x |" in md and "| **fails** |" in md and "abcdef0+dirty ⚠ |" in md


@pytest.mark.parametrize("c,ratio", [
    (dict(op=">=", value=3.0, threshold=1.5), 2.0), (dict(op="<", value=0.5, threshold=2), 0.25),
    (dict(op=">", value=-1.0, threshold=0.5), None), (dict(op="<", value=0.0, threshold=1), None),
    (dict(op="in", value=0.5, threshold=[0, 1]), None), (dict(op="==", value=True, threshold=True), None),
    (dict(op=">", value=None, threshold=1), None),
])
def test_claim_ratio(c, ratio):
    assert core.claim_ratio(c) == ratio


def test_short_commit():
    assert [core.short_commit(c) for c in ("0123456789abc", "0123456789abc+dirty", None, "")] == \
        ["0123456", "0123456+dirty", "unknown", "unknown"]


def test_grouped_markdown_orders_headline_claim_check():
    r = _res("p", [("chk", "check", 1, ">", 0, True), ("cl", "claim", 1, ">", 0, True),
                   ("hd", "headline", 1, ">", 0, True)],
             commit="0123456789+dirty", reproducible=False)
    md = core.grouped_markdown([r], [("p", "Paper P")])
    assert md.startswith("### Paper P (full)") and "⚠ not reproducible" in md and "headline: **holds**" in md
    assert md.index("| hd |") < md.index("| cl |") < md.index("| chk |")


def test_scoreboard_figure(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    s = core.headline_summary([_res("a", [("x", "headline", 2, ">", 1, True)]),
                               _res("b", [("y", "claim", 1, ">", 0, True)])])
    fig = core.scoreboard_figure(s, tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 5000 and len(fig.axes) == 2
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["a", "b"]
    with pytest.raises(ValueError, match="summary"):
        core.scoreboard_figure([])


# --- the headline protocol (issue #49) ------------------------------------------------------------------------------

@pytest.mark.parametrize("missing,match", [
    ("paper", "paper: a headline needs"), ("protocol", "protocol: a headline needs"),
    ("ci", "ci: a headline needs a ci or a ci_why"), ("null", "null: a headline needs"),
    ("oracle", "oracle: a headline needs"),
])
def test_headline_refuses_missing_evidence(missing, match):
    ev = {k: v for k, v in EVIDENCE.items() if k != missing}
    with pytest.raises(ValueError, match=match):
        claim("h", 1, ">=", 0, kind="headline", **ev)
    if missing in ("ci", "null", "oracle"):   # a reason in place of the value is accepted
        assert claim("h", 1, ">=", 0, kind="headline", **ev, **{f"{missing}_why": "not measured"}).verdict


@pytest.mark.parametrize("bad,err,match", [
    (dict(ci=(2.0, 3.0)), ValueError, "does not contain value"), (dict(ci=(1.5, 0.5)), ValueError, "lo <= hi"),
    (dict(ci=[0.5, float("nan")]), ValueError, "finite"), (dict(protocol="mine"), ValueError, "protocol must start"),
    (dict(n=0), ValueError, "n must be a positive int"), (dict(null_why=3), TypeError, "null_why must be a string"),
])
def test_headline_evidence_is_checked(bad, err, match):
    with pytest.raises(err, match=match):
        claim("h", 1, ">=", 0, kind="headline", **{**EVIDENCE, **bad})


def test_claim_rejects_unknown_evidence_field():
    with pytest.raises(TypeError, match="unknown evidence field"):
        claim("h", 1, ">=", 0, nul=0.0)


@pytest.mark.parametrize("fields,verdict", [
    (dict(value=0.7, ci=(0.6, 0.8)), "holds"),
    (dict(value=0.3, ci=(0.2, 0.4)), "fails"),
    (dict(value=0.6, ci=(0.4, 0.8)), "inconclusive"),
    (dict(value=0.7, ci=(0.6, 0.8), null=0.55), "vacuous"),
    (dict(value=0.7, ci=(0.6, 0.8), null=0.1, oracle=0.2), "unreachable"),
    (dict(value=0.7), "holds"), (dict(value=0.3), "fails"),           # no CI: the point value decides
])
def test_claim_verdict_each(fields, verdict):
    assert core.claim_verdict({"op": ">=", "threshold": 0.5, **fields}) == verdict


@pytest.mark.parametrize("op,ci,verdict", [
    ("<=", (0.1, 0.4), "holds"), ("<=", (0.6, 0.9), "fails"), ("<", (0.4, 0.6), "inconclusive"),
    ("in", (0.45, 0.55), "holds"), ("in", (0.61, 0.7), "fails"), ("in", (0.55, 0.65), "inconclusive"),
])
def test_claim_verdict_directions(op, ci, verdict):
    t = (0.4, 0.6) if op == "in" else 0.5
    v = (ci[0] + ci[1]) / 2
    assert core.claim_verdict({"op": op, "threshold": t, "value": v, "ci": ci}) == verdict


def test_paper_verdict_not_reached_by_precondition():
    h = {"name": "h", "kind": "headline", "value": 2, "op": ">", "threshold": 1, "passed": True, "gate": True}
    pre = {"name": "base learnt", "kind": "precondition", "value": 0.2, "op": ">=", "threshold": 0.9, "passed": False,
           "gate": False}
    assert core.headline_verdict({"claims": [h, pre]}) == "not reached"
    assert core.headline_verdict({"claims": [h, {**pre, "passed": True}]}) == "holds"
    assert "precondition failed: base learnt" in core.paper_reason({"claims": [h, pre]}, "not reached")


def test_paper_verdict_worst_first():
    h = lambda **f: {"name": "h", "kind": "headline", "op": ">=", "threshold": 0.5, "passed": True, **f}
    assert core.headline_verdict({"claims": [h(value=0.7, ci=(0.6, 0.8)), h(value=0.3, ci=(0.2, 0.4))]}) == "fails"
    assert core.headline_verdict({"claims": [h(value=0.7, null=0.6), h(value=0.6, ci=(0.4, 0.8))]}) == "vacuous"


def test_inconclusive_says_how_many_more_units():
    c = {"op": ">=", "threshold": 0.5, "value": 0.6, "ci": (0.45, 0.75), "n": 4}
    assert core.units_to_decide(c) == 5 and "5 more units" in core.verdict_reason(c)
    assert core.units_to_decide({**c, "n": None}) is None


def test_intervals():
    m, lo, hi = core.mean_ci([0.1, 0.2, 0.3, 0.4])
    assert lo < m < hi and abs(m - 0.25) < 1e-12
    k, lo, hi = core.binomial_ci(0, 10)
    assert (k, lo) == (0.0, 0.0) and 0.30 < hi < 0.31          # the exact interval for 0 of 10: [0, 0.308]
    v, lo, hi = core.bootstrap_ci([1.0, 2.0, 3.0, 4.0], seed=1)
    assert lo <= v <= hi and v == 2.5
    with pytest.raises(ValueError, match="values must be finite"):
        core.mean_ci([1.0, float("inf")])


def test_headline_evidence_is_recorded_and_summarised(results):
    out = record("toy", "smoke", {}, [claim("h", 1.0, ">=", 0, kind="headline", **EVIDENCE),
                                      claim("c", 1, ">=", 0)])
    h, c = out["claims"]
    for k in ("paper", "ci", "null", "null_passed", "oracle", "oracle_passed", "protocol", "verdict"):
        assert k in h, k
    assert (h["null_passed"], h["oracle_passed"], h["verdict"]) == (False, True, "holds")
    assert "ci" not in c and "null_passed" not in c        # evidence fields only where set, outside headlines
    s = core.headline_summary(load_results("smoke"))[0]
    row = s["headlines"][0]
    assert (row["ci"], row["null"], row["oracle"], s["verdict"]) == ("[0.5, 1.5]", "-1 ✗", "2 ✓", "holds")
    md = core.headline_markdown([s], findings={"toy": "nbs/toy.ipynb#what-we-found"})
    assert "1 [0.5, 1.5]" in md and "[what we found](nbs/toy.ipynb#what-we-found)" in md


def test_annotate_result_adds_evidence_without_changing_the_run(results):
    record("toy", "full", {"null_gap": 0.1}, [claim("gap", 0.7, ">=", 0.5, kind="claim"),
                                              claim("broken", 0.1, ">=", 0.5, gate=False)], allow_dirty=True)
    f = results / "full" / "toy.json"
    before = json.loads(f.read_text())
    c = core.annotate_result(f, "gap", source="metrics.null_gap", kind="headline", paper=0.6, null=0.1,
                             ci_why="one seed", oracle_why="none exists", protocol="ours: toy")
    after = json.loads(f.read_text())
    assert after["passed"] == before["passed"] and c["value"] == 0.7 and c["passed"] is True
    assert c["verdict"] == "holds" and c["evidence_added"]["source"] == "metrics.null_gap"
    new = core.annotate_result(f, "made up later", source="metrics.null_gap",
                               create={"value": 0.1, "op": ">=", "threshold": 0.5})
    assert new["gate"] is False and new["passed"] is False and "created" in new["evidence_added"]["fields"]
    with pytest.raises(ValueError, match="is not a claim"):
        core.annotate_result(f, "nope", source="x", paper=1)
    with pytest.raises(ValueError, match="cannot be annotated"):
        core.annotate_result(f, "gap", source="x", threshold=0.1)
    with pytest.raises(ValueError, match="headline needs"):
        core.annotate_result(f, "broken", source="x", kind="headline")
