"""Run by tests/test_rl.py in `.venv-trl` (trl cannot share the project's venv): `to_trl` on trl itself.

Checks the config mapping and trains `trl.GRPOTrainer` for a few steps on the zoo's draft model with a reward
function in iclr26.rl's (= trl's) signature; prints a JSON summary on its last line.
usage: python tests/trl_check.py OUTPUT_DIR
"""
import json
import sys
import warnings

import trl
from datasets import Dataset

from iclr26 import zoo
from iclr26.rl import RLConfig, to_trl


def first_digit_reward(prompts, completions, target, **kwargs):
    "1 when the completion starts with the target digit (a dataset column trl passes through), else 0."
    return [float(c.strip()[:1] == str(t)) for c, t in zip(completions, target)]


out = sys.argv[1]
# the mapping: the v-step stale sampler at one step per batch is trl's steps_per_generation; the pi_k clip cannot bind
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    cfg = RLConfig(group_size=4, prompts_per_step=2, max_new_tokens=4, iterations=3, sync_every=2, clip_centre="pi_k",
                   lr=1e-4, seed=0)
    off, funcs = to_trl(cfg, out, first_digit_reward, use_cpu=True, bf16=False)
assert any("unbiased std" in str(w.message) for w in caught), "the normaliser difference is warned of"
assert (off.steps_per_generation, off.epsilon, off.epsilon_high, off.adam_beta2) == (2, 1.0, 1e6, 0.99)
assert (off.num_generations, off.per_device_train_batch_size, off.max_steps) == (4, 8, 3)
on = to_trl(RLConfig(eps_low=0.2, eps_high=0.28), out, first_digit_reward, use_cpu=True, bf16=False)[0]
assert (on.steps_per_generation, on.epsilon, on.epsilon_high) == (1, 0.2, 0.28)
try:
    to_trl(RLConfig(sync_every=2, inner_steps=2), out, first_digit_reward)
    raise AssertionError("a stale sampler with inner_steps > 1 must be refused")
except ValueError as e:
    assert "do not compose" in str(e)

model, tok = zoo.load("draft")
data = Dataset.from_list([{"prompt": f"{a}+{b}=", "target": (a + b) % 10} for a in range(4) for b in range(4)])
trainer = trl.GRPOTrainer(model=model, reward_funcs=funcs, args=off, train_dataset=data, processing_class=tok)
trainer.train()
logs = [h for h in trainer.state.log_history if "reward" in h]
print(json.dumps({"trl": trl.__version__, "steps": trainer.state.global_step, "logged": len(logs),
                  "rewards": [h["reward"] for h in logs], "keys": sorted(logs[0]) if logs else []}))
