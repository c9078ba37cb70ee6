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


# ---------------------------------------------------------------------------------------------
# the shared error measure and edge inputs (tests/helpers.py re-exports them)
# ---------------------------------------------------------------------------------------------
def test_rel_err_and_edge_inputs():
    from iclr26.kernels._bench import edge_inputs, rel_err
    assert rel_err(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 4.0])) == 0.5
    assert rel_err(torch.zeros(0), torch.zeros(0)) == 0.0
    with pytest.raises(ValueError, match="one shape"): rel_err(torch.zeros(2), torch.zeros(3))
    knots = torch.tensor([-2.0, -1.0, 0.0, 1.0, 2.0])
    x = edge_inputs(8, 6, knots, torch.Generator().manual_seed(0))
    assert x.shape == (8, 6) and x.dtype == torch.float32
    assert (x[0] == 6).all() and (x[1] == -6).all() and (x[2] == 0).all()
    near = x[3:].reshape(-1)[:15]
    torch.testing.assert_close(near, torch.cat([knots - 1e-5, knots + 1e-5, knots]))
    assert not (edge_inputs(8, 6, knots, torch.Generator().manual_seed(0), exact_knots=False)[3:] == 1.0).any()


# ---------------------------------------------------------------------------------------------
# kernels/gpu_check.py (make gpu-check): a dry run of the whole check on the CPU, in the interpreter
# ---------------------------------------------------------------------------------------------
def test_gpu_check_knows_every_benchmark():
    from iclr26.kernels import gpu_check
    assert gpu_check.kernels() == ["anybcq", "lmkan", "lse_matmul"]
    with pytest.raises(SystemExit):
        gpu_check.main(["--kernels", "nope"])


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_gpu_check_without_cuda_says_so(capsys):
    from iclr26.kernels import gpu_check
    assert gpu_check.main([]) == 2
    assert "no CUDA device" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_gpu_check_dry_run(tmp_path):
    "`gpu_check --tiny`: every kernel's tests collected, its benchmark run on tiny shapes, one JSON each."
    import subprocess, sys
    from conftest import ROOT
    env = dict(__import__("os").environ, TRITON_INTERPRET="1", OMP_NUM_THREADS="1")
    p = subprocess.run([sys.executable, str(ROOT / "kernels" / "gpu_check.py"), "--tiny", "--out", str(tmp_path)],
                       env=env, capture_output=True, text=True, timeout=280)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["ok"] and summary["tiny"] and set(summary["kernels"]) == {"anybcq", "lmkan", "lse_matmul"}
    for name, k in summary["kernels"].items():
        r = json.loads((tmp_path / f"{name}.json").read_text())
        assert r["all_correct"] and r["correctness"] and r["timing"], name
        assert r["gpu_check"]["tests"]["collected"] > 0 and r["gpu_check"]["bench"]["rc"] == 0
        assert k["tests"] > 0 and any(key.startswith("speedup") for row in k["timing"] for key in row), name
        assert any(key.endswith(("GBps", "tflops", "gops")) for row in r["timing"] for key in row), name
