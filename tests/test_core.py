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
    return tmp_path


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


def test_reported_failure_does_not_raise(results):
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
    set_seed(11); a = (np.random.rand(), torch.rand(2))
    set_seed(11); b = (np.random.rand(), torch.rand(2))
    assert a[0] == b[0] and torch.equal(a[1], b[1])
    with pytest.raises(TypeError):
        set_seed(1.5)


def test_scoreboard_markdown(results):
    record("toy", "smoke", {}, [claim("c|1", 1, "in", (0, 2), paper=1)])
    md = core.scoreboard_markdown(load_results())
    assert "c\\|1" in md and "in [0, 2]" in md and "| pass |" in md


def test_results_are_strict_json(results):
    out = record("toy", "smoke", {"nan": float("nan"), "arr": np.array([1.0, np.inf])}, [claim("v", np.float64("nan"), "<", 1, gate=False)])
    text = (results / "smoke" / "toy.json").read_text()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    assert out["metrics"] == {"nan": None, "arr": [1.0, None]} and out["claims"][0]["value"] is None
