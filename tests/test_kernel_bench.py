"Unit tests of the shared benchmark plumbing in `kernels/_bench.py` (the scripts themselves need a GPU)."
import json

import pytest
import torch

from iclr26.kernels._bench import bench_parser, median_time, write_report

cpu = torch.device("cpu")


def test_median_time_units():
    calls = []
    ms = median_time(lambda: calls.append(1), cpu, warmup=2, iters=5)
    assert len(calls) == 7 and ms >= 0
    assert median_time(lambda: None, cpu, iters=1, unit="us") >= 0
    with pytest.raises(ValueError, match="unit"): median_time(lambda: None, cpu, unit="s")
    with pytest.raises(ValueError, match="iters"): median_time(lambda: None, cpu, iters=0)


def test_parser_defaults():
    a = bench_parser("Title line\nmore", "demo").parse_args([])
    assert (a.out, a.iters, a.tiny) == ("results/bench_demo.json", 50, False)


def test_write_report(tmp_path):
    out = tmp_path / "sub" / "r.json"
    assert write_report(out, cpu, [dict(ok=True), dict(ok=True)], 0.0, timing=[1]) == 0
    r = json.loads(out.read_text())
    assert r["all_correct"] and r["timing"] == [1] and r["device"].startswith("cpu")
    assert write_report(out, cpu, [dict(ok=False)], 0.0) == 1
