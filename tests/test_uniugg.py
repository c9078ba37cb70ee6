"""Geometry, loss, model-shape and bad-input tests of iclr26.uniugg (fast: tiny shapes, no training)."""

import math

import numpy as np
import pytest
import torch

from iclr26.uniugg import (
    CallableTeacher,
    Primitive,
    Scene,
    SemanticTeacher,
    SpatialDecoder,
    SpatialVAE,
    ViTEncoder,
    GeoSemModel,
    Stage1Config,
    avg_dist_normalise,
    chamfer,
    conf_loss,
    correspondences,
    encode_questions,
    infonce_match,
    intrinsics,
    invert_pose,
    kl_normal,
    load_dust3r_pair,
    look_at,
    make_dataset,
    make_pair,
    pixel_rays,
    plucker_raymap,
    regr_loss,
    render,
    sample_scene,
    semantic_loss,
    sliced_wasserstein,
    stage1_losses,
    target_metrics,
    transform_points,
    vqa_questions,
    vqa_tokenizer,
    _rot,
    UnifiedModel,
    train_stage3,
    mmd_rbf,
    target_depth,
    depth_set_mmd,
    image_metric_hooks,
    pretrain_geometry,
)


def test_sphere_depth_at_centre_pixel():
    K = intrinsics(17)  # odd size: centre pixel ray = optical axis
    R, t = look_at((0, 1, -3), (0, 1, 0))
    for r in (0.5, 1.0):
        v = render(Scene([Primitive("sphere", (0, 1, 0), r, "red")], room=10.0, wall=5.0), K, R, t, 17)
        assert v["depth"][8, 8] == pytest.approx(3 - r, abs=1e-5)
        assert v["ids"][8, 8] == 1 and v["mask"][8, 8]
        np.testing.assert_allclose(v["pts"][8, 8], [0, 0, 3 - r], atol=1e-5)
    # a cube of half-side 0.5: front face at distance 2.5
    v = render(Scene([Primitive("cube", (0, 1, 0), 0.5, "blue")], room=10.0, wall=5.0), K, R, t, 17)
    assert v["depth"][8, 8] == pytest.approx(2.5, abs=1e-5)


def test_pointmap_is_depth_times_ray_and_transforms_invert():
    rng = np.random.default_rng(1)
    K = intrinsics(16)
    v = render(sample_scene(rng), K, *look_at((0, 1.5, -3), (0, 0.3, 0)), 16)
    m = v["mask"]
    np.testing.assert_allclose(v["pts"][m], (pixel_rays(K, 16) * v["depth"][..., None])[m], rtol=1e-5)
    assert (v["depth"][m] > 0).all() and (v["depth"][~m] == 0).all()
    R, t = _rot(0.4, -0.2, 0.1), np.array([0.3, -0.1, 0.2])
    np.testing.assert_allclose(
        transform_points(transform_points(v["pts"], R, t), *invert_pose(R, t)), v["pts"], atol=1e-5
    )
    np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-12)


def test_pair_frames_and_correspondences():
    rng = np.random.default_rng(0)
    pr = make_pair(sample_scene(rng), rng, size=24, patch=4, n_corr=32)
    m2 = pr["mask"][1]
    np.testing.assert_allclose(
        transform_points(pr["pts"][1], *invert_pose(pr["R12"], pr["t12"]))[m2], pr["pts_own"][m2], atol=1e-4
    )
    ok = pr["corr"][:, 0] >= 0
    assert ok.sum() > 10
    d = np.linalg.norm(
        pr["pts"][0].reshape(-1, 3)[pr["corr"][ok, 0]] - pr["pts"][1].reshape(-1, 3)[pr["corr"][ok, 1]], axis=-1
    )
    footprint = pr["depth"][1].reshape(-1)[pr["corr"][ok, 1]] / pr["K"][0, 0]  # metres per pixel at that depth
    assert np.median(d / footprint) < 1.0  # the same 3-D point up to pixel quantisation
    # identity pose: every valid pixel corresponds to itself
    v = render(sample_scene(np.random.default_rng(3)), intrinsics(16), *look_at((0, 1.5, -3), (0, 0.3, 0)), 16)
    c = correspondences(
        v["pts"], v["mask"], v["depth"], v["mask"], intrinsics(16), np.eye(3), np.zeros(3), 50, np.random.default_rng(0)
    )
    c = c[c[:, 0] >= 0]
    assert len(c) == 50 and (c[:, 0] == c[:, 1]).all()


def test_plucker_raymap_properties():
    K = intrinsics(32)
    R, t = _rot(0.3, 0.1, -0.05), np.array([0.5, -0.2, 0.1])
    rm = plucker_raymap(K, R, t, 32, 4)
    assert rm.shape == (6, 8, 8)
    d, m = rm[:3], rm[3:]
    np.testing.assert_allclose(np.linalg.norm(d, axis=0), 1, atol=1e-6)
    np.testing.assert_allclose((d * m).sum(0), 0, atol=1e-6)  # moment ⟂ direction
    np.testing.assert_allclose(m, np.cross(t, d.transpose(1, 2, 0)).transpose(2, 0, 1), atol=1e-6)
    # the mean direction is close to the camera's optical axis R e_z
    mean_d = d.reshape(3, -1).mean(1)
    mean_d /= np.linalg.norm(mean_d)
    assert mean_d @ R[:, 2] > 0.99
    # identity camera at the origin: zero moments
    assert np.abs(plucker_raymap(K, np.eye(3), np.zeros(3), 32, 4)[3:]).max() == 0
    with pytest.raises(ValueError, match="divisible"):
        plucker_raymap(K, R, t, 30, 4)


def test_losses_on_hand_made_tensors():
    pts = torch.randn(2, 2, 4, 4, 3)
    mask = torch.ones(2, 2, 4, 4, dtype=torch.bool)
    assert regr_loss(pts * 5, pts, mask) == pytest.approx(0, abs=1e-5)  # average-distance normalisation: scale-free
    one = torch.ones(2, 2, 4, 4)
    assert conf_loss(pts, one, pts, mask) == pytest.approx(0, abs=1e-6)
    assert conf_loss(pts, one * math.e**2, pts, mask, alpha=0.2) == pytest.approx(-0.4, abs=1e-5)
    # one point wrong by a known amount, confidence 1: loss = its normalised error / number of valid pixels
    gt = torch.zeros(1, 2, 1, 2, 3)
    gt[..., 2] = 1.0  # all points at distance 1 -> norm factor 1
    pr = gt.clone()
    pr[0, 1, 0, 1, 2] = 1.0
    mk = torch.ones(1, 2, 1, 2, dtype=torch.bool)
    _, nrm = avg_dist_normalise(pr, mk)
    assert nrm.item() == pytest.approx(1.0)
    assert regr_loss(pr, gt, mk) == pytest.approx(0.0)
    pr[0, 1, 0, 1] = torch.tensor([0.0, 0.0, 3.0])  # avg dist (1+1+1+3)/4 = 1.5
    assert regr_loss(pr, gt, mk).item() == pytest.approx((3 * abs(1 / 1.5 - 1) + abs(3 / 1.5 - 1)) / 4, rel=1e-5)
    # masked pixels are ignored
    mk2 = mk.clone()
    mk2[0, 1, 0, 1] = False
    assert regr_loss(pr, gt, mk2) == pytest.approx(0.0, abs=1e-6)
    # semantic loss: 0.9 (1 - cos) + 0.1 smooth-L1
    a, b = torch.tensor([[1.0, 0.0]]), torch.tensor([[0.0, 1.0]])
    assert semantic_loss(a, b) == pytest.approx(
        0.9 * 1 + 0.1 * 0.5, abs=1e-6
    )  # cos 0; |diff| = 1 per entry -> smooth-L1 0.5
    # InfoNCE: perfect one-hot descriptors -> loss ~ 0 at a low temperature; padding ignored
    desc = torch.eye(4).view(1, 2, 2, 4)
    corr = torch.tensor([[[0, 0], [1, 1], [2, 2], [3, 3], [-1, -1]]])
    assert infonce_match(desc, desc, corr, tau=0.05) < 1e-6
    swapped = infonce_match(desc, desc, torch.tensor([[[0, 1], [1, 0], [2, 3], [3, 2]]]), tau=0.05)
    assert swapped > 10
    # KL of the standard normal is 0
    assert kl_normal(torch.zeros(2, 4, 3, 3), torch.zeros(2, 4, 3, 3)) == 0
    # Chamfer and sliced Wasserstein: 0 on identical clouds, the shift on a translated one
    p = torch.randn(50, 3)
    assert chamfer(p, p) == 0
    assert chamfer(p, p + torch.tensor([0.01, 0, 0])) == pytest.approx(0.02, abs=1e-6)
    assert sliced_wasserstein(p, p) == pytest.approx(0, abs=1e-9)
    assert sliced_wasserstein(p, p + 1.0) > 0.5


def test_model_shapes_and_stage1_loss_terms():
    data = make_dataset(4, seed=0, size=16, patch=4, n_corr=16)
    assert data["rgb"].shape == (4, 2, 3, 16, 16) and data["raymap"].shape == (4, 6, 4, 4)
    assert all(q["type"] in ("count", "closer", "left") for qs in data["vqa"] for q in qs)
    T = SemanticTeacher(4, 16).eval()
    f, s = T(data["rgb"][:, 0])
    assert f.shape == (4, 16, 16) and s.shape == (4, 16)
    m = GeoSemModel(16, 4, 32, 1, 1, 16)
    batch = {k: data[k] for k in ("rgb", "pts", "mask", "corr")}
    parts = stage1_losses(m, T, batch, Stage1Config())
    assert set(parts) == {"feat", "summary", "conf", "match", "regr"} and all(torch.isfinite(v) for v in parts.values())
    parts = stage1_losses(m, T, batch, Stage1Config(sem=False))
    assert "feat" not in parts
    o = m.decoder(m.encoder(data["rgb"][:, 0]), m.encoder(data["rgb"][:, 1]))
    assert o["pts"].shape == (4, 2, 16, 16, 3) and (o["conf"] >= 1).all()
    torch.testing.assert_close(o["desc"].norm(dim=-1), torch.ones(4, 2, 16, 16))
    vae = SpatialVAE(32, 4, 16, 4)
    rec, mu, lv = vae(m.encoder(data["rgb"][:, 0]))
    assert rec.shape == (4, 16, 32) and mu.shape == (4, 4, 4, 4)
    met = target_metrics(data["pts"], data, torch.arange(4))
    assert met["chamfer"] == pytest.approx(0, abs=1e-9) and met["absrel"] < 1e-4 and met["delta1"] == 1.0


def test_vqa_questions_and_tokenizer():
    rng = np.random.default_rng(0)
    data = make_dataset(6, seed=1, size=16, patch=4)
    qs = [q for v in data["vqa"] for q in v]
    tok = vqa_tokenizer(qs)
    ids, lens, ans = encode_questions(tok, qs)
    assert ids.shape[0] == len(qs) == len(lens) == len(ans)
    assert (ans != tok.unk_token_id).all() and len(set(ans.tolist())) >= 2  # real answer tokens, not <unk>
    # closer answers agree with the depth of the objects' centres
    pr = make_pair(
        Scene([Primitive("sphere", (0.0, 0.3, -1.0), 0.3, "red"), Primitive("cube", (0.0, 0.3, 1.0), 0.3, "blue")]),
        rng,
        16,
        4,
    )
    R1, t1 = pr["pose1"]
    q = {x["type"]: x for x in vqa_questions(pr, rng)}
    if "closer" in q:
        red_first = q["closer"]["question"].startswith("is the red")
        zr = transform_points(np.array([0.0, 0.3, -1.0]), *invert_pose(R1, t1))[2]
        zb = transform_points(np.array([0.0, 0.3, 1.0]), *invert_pose(R1, t1))[2]
        assert (q["closer"]["answer"] == "yes") == ((zr < zb) == red_first)


def test_dust3r_loader_round_trip(tmp_path):
    rng = np.random.default_rng(2)
    pr = make_pair(sample_scene(rng), rng, size=16, patch=4)
    R1, t1 = pr["pose1"]
    R2, t2 = R1 @ pr["R12"], R1 @ pr["t12"] + t1
    views = []
    for v, (R, t) in enumerate(((R1, t1), (R2, t2))):
        P = np.eye(4)
        P[:3, :3], P[:3, 3] = R, t
        f = tmp_path / f"v{v}.npz"
        np.savez(
            f,
            rgb=(pr["rgb"][v] * 255).astype(np.uint8),
            depthmap=pr["depth"][v],
            camera_intrinsics=pr["K"],
            camera_pose=P,
        )
        views.append(f)
    out = load_dust3r_pair(*views, patch=4)
    np.testing.assert_allclose(out["pts"][pr["mask"]], pr["pts"][pr["mask"]], atol=1e-4)
    np.testing.assert_allclose(out["raymap"], pr["raymap"], atol=1e-5)
    np.testing.assert_allclose(out["R12"], pr["R12"], atol=1e-5)


def test_bad_inputs():
    with pytest.raises(ValueError, match="divisible"):
        ViTEncoder(30, 4)
    with pytest.raises(ValueError, match="divisible"):
        ViTEncoder(32, 4)(torch.zeros(1, 3, 30, 30))
    with pytest.raises(ValueError, match="divisible"):
        SemanticTeacher(4)(torch.zeros(1, 3, 30, 30))
    with pytest.raises(ValueError, match="divisible"):
        make_pair(sample_scene(np.random.default_rng(0)), np.random.default_rng(0), size=30, patch=4)
    with pytest.raises(ValueError, match=r"\(B, 3, H, W\)"):
        ViTEncoder(16, 4)(torch.zeros(1, 1, 16, 16))
    with pytest.raises(ValueError, match="same shape"):
        SpatialDecoder(grid=2)(torch.zeros(1, 4, 64), torch.zeros(1, 5, 64))
    with pytest.raises(ValueError, match="tokens"):
        SpatialDecoder(grid=2)(torch.zeros(1, 5, 64), torch.zeros(1, 5, 64))
    pts, mask = torch.zeros(1, 2, 4, 4, 3), torch.ones(1, 2, 4, 4, dtype=torch.bool)
    with pytest.raises(ValueError, match="same shape"):
        conf_loss(pts, torch.ones(1, 2, 4, 4), torch.zeros(1, 2, 4, 5, 3), mask)
    with pytest.raises(ValueError, match="alpha"):
        conf_loss(pts, torch.ones(1, 2, 4, 4), pts, mask, alpha=0.0)
    with pytest.raises(ValueError, match="same shape"):
        semantic_loss(torch.zeros(2, 3), torch.zeros(2, 4))
    with pytest.raises(ValueError, match="must match"):
        infonce_match(torch.zeros(1, 2, 2, 4), torch.zeros(1, 2, 3, 4), torch.zeros(1, 3, 2, dtype=torch.long))
    with pytest.raises(ValueError, match="corr"):
        infonce_match(torch.zeros(1, 2, 2, 4), torch.zeros(1, 2, 2, 4), torch.zeros(1, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="n_objects"):
        sample_scene(np.random.default_rng(0), n_objects=(3, 9))
    with pytest.raises(TypeError, match="rng"):
        sample_scene(0)
    with pytest.raises(ValueError, match=r"\(N, 3\)"):
        chamfer(torch.zeros(4, 2), torch.zeros(4, 3))
    with pytest.raises(ValueError, match="features"):
        SpatialVAE(32, 4, 16, 4).encode(torch.zeros(1, 9, 32))
    with pytest.raises(ValueError, match="n must be"):
        make_dataset(0)
    v = {
        "rgb": np.zeros((16, 16, 3)),
        "depthmap": np.ones((16, 16)),
        "camera_intrinsics": intrinsics(16),
        "camera_pose": np.eye(4),
    }
    with pytest.raises(ValueError, match="same size"):
        load_dust3r_pair(v, v | {"depthmap": np.ones((8, 8))})
    with pytest.raises(ValueError, match="lacks"):
        load_dust3r_pair(v, {k: x for k, x in v.items() if k != "camera_pose"})
    with pytest.raises(ValueError, match="divisible"):
        load_dust3r_pair(v, v, patch=5)


def test_callable_teacher_hook():
    t = CallableTeacher(lambda x: (torch.zeros(len(x), 4, 8), torch.zeros(len(x), 8)), 8)
    f, s = t(torch.zeros(2, 3, 8, 8))
    assert f.shape == (2, 4, 8) and s.shape == (2, 8)
    with pytest.raises(ValueError, match="teacher must return"):
        CallableTeacher(lambda x: (torch.zeros(1, 4, 8), torch.zeros(1, 8)), 6)(torch.zeros(1, 3, 8, 8))
    with pytest.raises(TypeError, match="fn"):
        CallableTeacher(3, 8)


def _tiny_llm(kind, vocab):
    from transformers import GPT2Config, GPT2LMHeadModel, Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    if kind == "gpt2":
        return GPT2LMHeadModel(
            GPT2Config(
                n_embd=32, n_layer=1, n_head=2, vocab_size=vocab, n_positions=256, bos_token_id=0, eos_token_id=0
            )
        )
    return Qwen2ForCausalLM(
        Qwen2Config(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=1,
            vocab_size=vocab,
            max_position_embeddings=256,
        )
    )


@pytest.mark.parametrize("kind", ["gpt2", "qwen2"])
def test_unified_model_with_any_hf_causal_lm(kind):
    """UnifiedModel reaches the LM only through get_decoder / get_input_embeddings / get_output_embeddings."""
    data = make_dataset(3, seed=0, size=16, patch=4)
    qs = [q for v in data["vqa"] for q in v]
    tok = vqa_tokenizer(qs)
    llm = _tiny_llm(kind, len(tok))
    um = UnifiedModel(llm, tok, feat_dim=8, grid=4, unet_channels=(8, 8))
    feats = torch.randn(3, 16, 8)
    cond = um.condition(feats, data["raymap"])
    assert cond.shape == (3, 16, 32)
    ids, lens, ans = encode_questions(tok, [v[0] for v in data["vqa"]])
    logits = um.vqa_logits(feats, ids, lens)
    assert logits.shape == (3, len(tok))
    loss = um.gen_loss(cond, torch.randn(3, 4, 4, 4)) + torch.nn.functional.cross_entropy(logits, ans)
    loss.backward()
    assert um.llm.get_input_embeddings().weight.grad is not None and um.ref_proj.weight.grad is not None
    z = um.generate(feats, data["raymap"], steps=2)
    assert z.shape == (3, 4, 4, 4) and torch.isfinite(z).all()
    hist = train_stage3(
        um, feats, data["raymap"], torch.randn(3, 4, 4, 4), data["vqa"], steps=2, batch=2, vqa_per_gen=2
    )
    assert [h["kind"] for h in hist] == ["joint", "vqa", "vqa", "joint", "vqa", "vqa"]
    assert all("gen" in h for h in hist if h["kind"] == "joint") and not any(
        "gen" in h for h in hist if h["kind"] == "vqa"
    )
    with pytest.raises(TypeError, match="get_decoder"):
        UnifiedModel(torch.nn.Linear(2, 2), tok, 8, 4)
    with pytest.raises(ValueError, match="vqa_per_gen"):
        train_stage3(um, feats, data["raymap"], torch.randn(3, 4, 4, 4), data["vqa"], steps=1, vqa_per_gen=-1)


def test_set_level_mmd():
    g = torch.Generator().manual_seed(0)
    real = torch.randn(200, 6, generator=g)
    same = torch.randn(200, 6, generator=g)
    assert abs(mmd_rbf(same, real)) < 0.02  # unbiased: ~0 for the same distribution
    assert mmd_rbf(same + 1.0, real) > 0.1
    # the conditional mean of every sample (a "regression" set) is far from the data set, a fresh draw is not
    assert mmd_rbf(real.mean(0, keepdim=True).expand(200, -1) + 1e-3 * same, real) > 10 * abs(mmd_rbf(same, real))
    # a fixed bandwidth is used when given, and the statistic is symmetric up to the kernel choice
    assert mmd_rbf(same, real, bandwidth=2.0) == pytest.approx(mmd_rbf(real, same, bandwidth=2.0), abs=1e-12)
    with pytest.raises(ValueError, match="bandwidth"):
        mmd_rbf(same, real, bandwidth=0.0)
    with pytest.raises(ValueError, match=r"\(n, d\)"):
        mmd_rbf(same, real[:, :3])
    # target depth in camera 2: the true pointmaps give the true depth; the set distance of the truth is ~0
    data = make_dataset(6, seed=0, size=16, patch=4)
    idx = torch.arange(6)
    torch.testing.assert_close(
        target_depth(data["pts"], data, idx), target_depth(None, data, idx), atol=1e-4, rtol=1e-4
    )
    assert depth_set_mmd(data["pts"] * 2.0, data, idx) == pytest.approx(
        mmd_rbf(
            torch.nn.functional.avg_pool2d(target_depth(None, data, idx)[:, None], 2).flatten(1),
            torch.nn.functional.avg_pool2d(target_depth(None, data, idx)[:, None], 2).flatten(1),
        ),
        abs=1e-4,
    )  # scale-free


def test_image_metric_hooks_name_what_is_missing(monkeypatch):
    import sys

    for m in ("torchmetrics", "torchmetrics.image", "torchmetrics.image.fid", "torchmetrics.image.kid", "lpips"):
        monkeypatch.setitem(sys.modules, m, None)  # import of these raises ImportError
    with pytest.warns(UserWarning, match="lpips"):
        out = image_metric_hooks(torch.rand(2, 3, 16, 16), torch.rand(2, 3, 16, 16))
    assert set(out["missing"]) == {"fid", "kid", "lpips"}
    assert "torchmetrics" in out["missing"]["fid"] and "lpips" in out["missing"]["lpips"]
    assert not {"fid", "kid", "lpips"} & set(out)


def test_geometry_pretraining_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path))
    data = make_dataset(6, seed=0, size=16, patch=4, n_corr=16)
    make = lambda: GeoSemModel(16, 4, 16, 1, 1, 8)
    m1, h1, meta1 = pretrain_geometry(data, make, steps=3, batch=2)
    assert not meta1["cached"] and len(h1) == 3 and all("feat" not in h for h in h1)
    m2, h2, meta2 = pretrain_geometry(data, make, steps=3, batch=2)
    assert meta2["cached"] and meta2["path"] == meta1["path"] and h2 == h1
    for (n, a), b in zip(m1.state_dict().items(), m2.state_dict().values()):
        torch.testing.assert_close(a, b, msg=n)
    _, _, meta3 = pretrain_geometry(data, make, steps=4, batch=2)  # another recipe: another entry
    assert not meta3["cached"] and meta3["path"] != meta1["path"]
    with pytest.raises(ValueError, match="steps"):
        pretrain_geometry(data, make, steps=0)
    with pytest.raises(TypeError, match="GeoSemModel"):
        pretrain_geometry(data, lambda: torch.nn.Linear(2, 2), steps=1)


# ---- property tests for bad input (issue #60): each bad argument fails with an error that names it ----
from hypothesis import given, settings, strategies as st

_nonfinite = st.sampled_from([float("nan"), float("inf"), -float("inf")])


@settings(max_examples=20, deadline=None)
@given(n=st.integers(0, 4), m=st.integers(0, 4), dp=st.integers(2, 4), dg=st.integers(2, 4),
       bad=st.one_of(st.none(), _nonfinite), fn=st.sampled_from([chamfer, sliced_wasserstein]))
def test_property_point_cloud_metrics_reject_bad_clouds(n, m, dp, dg, bad, fn):
    p, g = torch.zeros(n, dp), torch.ones(m, dg)
    if bad is not None and p.numel(): p[0, 0] = bad
    if n and m and dp == dg == 3 and bad is None:
        assert fn(p, g) >= 0
    else:
        with pytest.raises(ValueError, match="p and g"):
            fn(p, g)


def test_property_point_cloud_metrics_reject_non_tensors():
    with pytest.raises(TypeError, match="p and g"):
        chamfer([[0.0, 0.0, 0.0]], torch.zeros(1, 3))


@settings(max_examples=20, deadline=None)
@given(bw=st.one_of(st.floats(max_value=0.0), _nonfinite), bad=st.one_of(st.none(), _nonfinite))
def test_property_mmd_rejects_bad_bandwidth_and_samples(bw, bad):
    x, y = torch.randn(4, 2, generator=torch.Generator().manual_seed(0)), torch.randn(5, 2)
    with pytest.raises(ValueError, match="bandwidth"):
        mmd_rbf(x, y, bandwidth=bw)
    if bad is not None:
        x[1, 1] = bad
        with pytest.raises(ValueError, match="x and y"):
            mmd_rbf(x, y)


@settings(max_examples=20, deadline=None)
@given(size=st.one_of(st.integers(max_value=1), st.booleans(), st.floats(allow_nan=True)))
def test_property_intrinsics_bad_size(size):
    with pytest.raises(ValueError, match="size"):
        intrinsics(size)


@settings(max_examples=20, deadline=None)
@given(fov=st.one_of(st.floats(max_value=0.0), st.floats(min_value=180.0), _nonfinite))
def test_property_intrinsics_bad_fov(fov):
    with pytest.raises(ValueError, match="fov_deg"):
        intrinsics(8, fov)


@settings(max_examples=20, deadline=None)
@given(v=_nonfinite, shape_ok=st.booleans())
def test_property_avg_dist_normalise_bad_input(v, shape_ok):
    pts, mask = torch.ones(1, 2, 3, 3, 3), torch.ones(1, 2, 3, 3, dtype=torch.bool)
    if shape_ok:
        pts[0, 1, 1, 1, 0] = v
        with pytest.raises(ValueError, match="pts must be finite"):
            avg_dist_normalise(pts, mask)
    else:
        with pytest.raises(ValueError, match="pts .* and mask"):
            avg_dist_normalise(pts, mask[:, :1])


# --- issue #54: pixel-aligned target geometry, unseen pixels, gap closure, denoiser targets, token probe ---
from iclr26.uniugg import novel_mask, pair_metrics, gap_closure, gap_closure_ci, token_probe, object_tokens


def test_novel_mask_and_pair_metrics():
    data = make_dataset(6, seed=3, size=16, patch=4)
    idx = torch.arange(6)
    nov = novel_mask(data, idx)
    assert nov.shape == (6, 16, 16) and not (nov & ~data["mask"][:, 1]).any()  # only valid target pixels
    assert nov.any() and (~nov & data["mask"][:, 1]).any()  # a real camera move: some new, some seen pixels
    same = dict(data, pts=data["pts"][:, [0, 0]], mask=data["mask"][:, [0, 0]], depth=data["depth"][:, [0, 0]])
    assert not novel_mask(same, idx).any()  # the reference seen again: nothing is new
    pm = pair_metrics(data["pts"], data, idx, min_novel=1)
    np.testing.assert_allclose(pm["absrel"], 0, atol=1e-5)
    np.testing.assert_allclose(pm["chamfer"][np.isfinite(pm["chamfer"])], 0, atol=1e-6)
    assert (pm["delta1"] == 1).all() and 0 < pm["novel_frac"] < 1
    # copying the reference view's pointmap into the target branch is worse, most of all on the unseen pixels
    cp = pair_metrics(data["pts"][:, [0, 0]], data, idx, min_novel=1)
    assert cp["absrel"].mean() > 0.01 and np.nanmean(cp["chamfer_novel"]) > 0
    with pytest.raises(ValueError, match="pred must have shape"):
        pair_metrics(data["pts"][:, :1], data, idx)
    with pytest.raises(ValueError, match="tol"):
        novel_mask(data, idx, tol=0)


def test_gap_closure_and_its_interval():
    c, o = np.array([1.0, 2.0, 3.0, np.nan]), np.array([0.5, 1.0, 1.5, 0.2])
    assert gap_closure(c, c, o) == 0 and gap_closure(o, c, o) == 1  # NaN pairs dropped
    assert gap_closure(c + 1, c, o) < 0  # worse than copying
    assert gap_closure(1 - c, 1 - c, 1 - o) == 0 and gap_closure(1 - o, 1 - c, 1 - o) == 1  # higher-is-better too
    with pytest.raises(ValueError, match="empty"):
        gap_closure(c, c, c)
    assert np.isnan(gap_closure(c, c, c, empty="nan"))  # an empty gap on request (a decoder that ignores view 2)
    with pytest.raises(ValueError, match="empty must be"):
        gap_closure(c, c, o, empty="zero")
    with pytest.raises(ValueError, match="1-D"):
        gap_closure(c, c[:2], o)
    rng = np.random.default_rng(0)
    o = rng.uniform(0.5, 1, 600)
    c = o + 0.4
    v, lo, hi = gap_closure_ci(c - 0.3 + rng.normal(0, 0.05, 600), c, o)
    assert lo <= v <= hi and lo < 0.75 < hi and hi - lo < 0.05


@pytest.mark.parametrize("prediction", ["epsilon", "sample", "v_prediction"])
def test_denoiser_targets(prediction):
    data = make_dataset(3, seed=0, size=16, patch=4)
    tok = vqa_tokenizer([q for v in data["vqa"] for q in v])
    um = UnifiedModel(_tiny_llm("gpt2", len(tok)), tok, feat_dim=8, grid=4, unet_channels=(8, 8), prediction=prediction)
    assert um.scheduler.config.prediction_type == prediction
    feats, z0 = torch.randn(3, 16, 8), torch.randn(3, 4, 4, 4)
    cond = um.condition(feats, data["raymap"])
    # the loss's target is the one the scheduler samples with: rebuild it from the same generator draws
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    loss = um.gen_loss(cond, z0, g1)
    noise = torch.randn(z0.shape, generator=g2)
    t = torch.randint(0, 1000, (3,), generator=g2)
    out = um.unet(um.scheduler.add_noise(z0, noise, t), t, encoder_hidden_states=cond).sample
    tgt = {"epsilon": noise, "sample": z0, "v_prediction": um.scheduler.get_velocity(z0, noise, t)}[prediction]
    assert loss.item() == pytest.approx(torch.nn.functional.mse_loss(out, tgt).item(), rel=1e-5)
    z = um.generate(feats, data["raymap"], steps=2)
    assert z.shape == (3, 4, 4, 4) and torch.isfinite(z).all()
    with pytest.raises(ValueError, match="prediction"):
        UnifiedModel(_tiny_llm("gpt2", len(tok)), tok, 8, 4, prediction="x0")


def test_more_questions_per_scene_and_token_probe():
    d1 = make_dataset(8, seed=4, size=16, patch=4)
    d6 = make_dataset(8, seed=4, size=16, patch=4, n_pairs=6)
    assert torch.equal(d1["rgb"], d6["rgb"])  # the renders do not depend on the questions
    assert sum(map(len, d6["vqa"])) > sum(map(len, d1["vqa"]))
    for qs in d6["vqa"]:
        pair_qs = [q["question"] for q in qs if q["type"] == "closer"]
        assert len(pair_qs) == len(set(pair_qs)) <= 6  # distinct ordered pairs
    with pytest.raises(ValueError, match="n_pairs"):
        vqa_questions(make_pair(sample_scene(np.random.default_rng(0)), np.random.default_rng(0), 16, 4),
                      np.random.default_rng(0), n_pairs=0)
    # object tokens: a token map that is 1 on object 1's patches and 0 elsewhere pools to 1 for object 1
    ids = d6["ids"][:, 0]
    cov = torch.nn.functional.avg_pool2d((ids[0] == 1).float()[None, None], 4).flatten()
    feats = (cov > 0).float()[None, :, None].repeat(8, 1, 3)
    assert torch.allclose(object_tokens(feats, ids, 0, 1, 4), torch.ones(3))
    # the probe reads depth from tokens that hold it: tokens = true patch depth (+ noise) answer "closer" well
    tr, te = make_dataset(120, seed=5, size=16, patch=4, n_pairs=6), make_dataset(40, seed=6, size=16, patch=4)
    tokens = lambda d: (
        torch.nn.functional.avg_pool2d(d["depth"][:, 0][:, None], 4).flatten(1)[..., None].repeat(1, 1, 4)
    )
    pr = token_probe(tokens(tr), tr, tr["vqa"], tokens(te), te, te["vqa"], patch=4)
    assert pr["closer"] > 0.8 and pr["n"] == sum(map(len, te["vqa"]))


def test_grounding_targets_and_loss():
    """Eq. (7): name-token positions and patch coverages; the loss is lowest when the query points at the object."""
    from iclr26.uniugg import COLOURS, grounding_loss, grounding_targets

    data = make_dataset(6, seed=3, size=16, patch=4, n_pairs=4)
    qs = [q for v in data["vqa"] for q in v]
    scene = [i for i, v in enumerate(data["vqa"]) for _ in v]
    tok = vqa_tokenizer(qs)
    pos, cov = grounding_targets(tok, qs, scene, data["ids"][:, 0], data["colours"], 4)
    assert pos.shape == (len(qs), 2) and cov.shape == (len(qs), 2, 16)
    for k, q in enumerate(qs):
        words = q["question"].split()
        if q["type"] == "count":
            assert (pos[k] == -1).all()
            continue
        for s in range(2):
            assert words[int(pos[k, s]) - 1] in COLOURS  # a colour word, then the shape word
            assert math.isclose(float(cov[k, s].sum()), 1.0, rel_tol=1e-5)
            obj = data["colours"][scene[k]].index(words[int(pos[k, s]) - 1]) + 1
            assert data["shapes"][scene[k]][obj - 1] == words[int(pos[k, s])]  # the name's last word
    um = UnifiedModel(_tiny_llm("gpt2", len(tok)), tok, feat_dim=8, grid=4, head="regression")
    torch.nn.init.eye_(um.ground_proj.weight)
    torch.nn.init.zeros_(um.ground_proj.bias)
    # hand-made hidden states: image token j = e_j; the name token = 20 * (its object's coverage)
    k = next(k for k, q in enumerate(qs) if q["type"] != "count")
    d = um.llm.config.hidden_size
    h = torch.zeros(1, 16 + 12, d)
    h[0, :16, :16] = torch.eye(16)
    p_, c_ = pos[k : k + 1, :1], cov[k : k + 1, :1]
    h[0, 16 + p_[0, 0], :16] = 20 * c_[0, 0]
    good = grounding_loss(um, h, 16, p_, c_)
    h_bad = h.clone()
    h_bad[0, 16 + p_[0, 0], :16] = 20 * c_[0, 0].flip(0)
    assert float(good) < float(grounding_loss(um, h_bad, 16, p_, c_))
    assert float(grounding_loss(um, h, 16, torch.full_like(p_, -1), c_)) == 0.0
    # VQA-only training with the grounding loss: every step carries it, the evaluations land where asked
    feats = torch.randn(6, 16, 8)
    hist = train_stage3(um, feats, None, None, data["vqa"], steps=4, batch=4, w_ground=1.0,
                        ref_ids=data["ids"][:, 0], colours=data["colours"], gen=False,
                        evaluate=lambda: 0.25, eval_at=(2, 4))
    assert [h_["kind"] for h_ in hist] == ["vqa"] * 4 and all(h_["ground"] > 0 for h_ in hist)
    assert [h_.get("eval") for h_ in hist] == [None, 0.25, None, 0.25]
    with pytest.raises(ValueError, match="ref_ids"):
        train_stage3(um, feats, None, None, data["vqa"], steps=1, gen=False, w_ground=1.0)
    with pytest.raises(ValueError, match="w_ground"):
        train_stage3(um, feats, None, None, data["vqa"], steps=1, gen=False, w_ground=-1.0)
    logits, hh = um.vqa_logits(feats[:2], *encode_questions(tok, qs[:2])[:2], return_hidden=True)
    assert logits.shape == (2, len(tok)) and hh.shape[:2] == (2, 16 + encode_questions(tok, qs[:2])[0].shape[1])
