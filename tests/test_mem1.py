"Unit and bad-input tests of iclr26.mem1 (MEM1 environment, pruning, masked trajectories)."
import copy

import pytest
import torch

from iclr26.tinylm import KnowledgeBase, knowledge_base, make_model
from iclr26.mem1 import (Episode, MultiObjectiveEnv, SearchTool, Task, agent_tokenizer, batch_trajectories, context_ids,
                         f1_score, fact_text, held_ids, hop_query, make_tasks, masked_trajectory, normalize_answer,
                         official_peak_tokens,
                         official_style_trajectory, parse_action, parse_answers, rest_text, run_episodes, score,
                         scripted_episode, scripted_turns, sft_batches, state_text, summarize, task_prompt,
                         trajectory_logprobs, turn_rows)


@pytest.fixture(scope="module")
def env_parts():
    kb = knowledge_base(seed=0)
    tool = SearchTool(kb, n_docs=1, retriever="exact")
    return kb, tool, agent_tokenizer(kb, tool, n_tasks=12)


def _hand_episode():
    # prompt [1, 2]; turn 0 gen [10, 11] obs [20]; turn 1 gen [12] obs [21, 22]; turn 2 gen [13, 14] obs []
    ep = Episode(Task(["q"], ["a"], [[["s", "r", "o"]]]), [1, 2])
    ep.gen_ids, ep.obs_ids = [[10, 11], [12], [13, 14]], [[20], [21, 22], []]
    return ep


def test_mask_three_turns_mem1():
    ep = _hand_episode()
    tr = masked_trajectory(ep, prune=True)
    # blocks: prompt | gen0 | copy(gen0+obs0) gen1 | copy(gen1+obs1) gen2
    assert tr["input_ids"].tolist() == [1, 2, 10, 11, 10, 11, 20, 12, 12, 21, 22, 13, 14]
    assert tr["position_ids"].tolist() == [0, 1, 2, 3, 2, 3, 4, 5, 2, 3, 4, 5, 6]
    assert tr["loss_mask"].tolist() == [0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1]
    A = tr["allowed"]
    # the last token (turn 2) sees the prompt, the copy of turn 1 and its own turn, nothing of turns 0 / the first copy
    assert A[12].nonzero().squeeze(-1).tolist() == [0, 1, 8, 9, 10, 11, 12]
    # turn 1's generated token sees prompt + copy of turn 0 + itself
    assert A[7].nonzero().squeeze(-1).tolist() == [0, 1, 4, 5, 6, 7]
    assert not A.triu(1).any()                       # causal


def test_mask_full_context_is_causal():
    tr = masked_trajectory(_hand_episode(), prune=False)
    L = len(tr["input_ids"])
    assert torch.equal(tr["allowed"], torch.ones(L, L, dtype=torch.bool).tril())
    assert tr["position_ids"].tolist() == list(range(L))


def test_pruning_keeps_latest_turn_only():
    ep = _hand_episode()
    assert context_ids(ep, prune=True) == [1, 2, 13, 14]
    ep.gen_ids, ep.obs_ids = ep.gen_ids[:2], ep.obs_ids[:2]
    assert context_ids(ep, prune=True) == [1, 2, 12, 21, 22]
    assert context_ids(ep, prune=False) == [1, 2, 10, 11, 20, 12, 21, 22]


def test_truncation_null_drops_the_state_hand_episode():
    "issue #58: the truncation null keeps the latest action and observation, not the state (ids up to </IS> = 99)."
    ep = _hand_episode()
    ep.gen_ids = [[10, 99, 11], [12, 99], [13, 14]]
    ep.reward = 1.0
    ep.state_end_id = 99
    assert held_ids(ep, ep.gen_ids[0]) == [11] and held_ids(ep, ep.gen_ids[1]) == [] and held_ids(ep, [13]) == [13]
    ep.gen_ids, ep.obs_ids = ep.gen_ids[:1], ep.obs_ids[:1]
    assert context_ids(ep, prune=True) == [1, 2, 11, 20]
    ep.gen_ids, ep.obs_ids = [[10, 99, 11], [12, 99], [13, 14]], [[20], [21, 22], []]
    # official MEM1 peak: max_j |held turn j-1| + |obs j-1| + |turn j| = max(3, 1 + 1 + 2, 0 + 2 + 2) = 4
    assert official_peak_tokens(ep, prune=True) == 4
    ep.state_end_id = None
    assert official_peak_tokens(ep, prune=True) == 6                     # MEM1 holds the whole turn: 2 + 2 + 2


def test_truncation_null_rollout(env_parts):
    kb, tool, tok = env_parts
    model = make_model("llama-1L-64", tok, seed=0).eval()
    tasks = make_tasks(kb, 2, 2, seed=3)
    eps = run_episodes(model, tok, tool, tasks, prune=True, max_new_tokens=5, max_turns=3, drop_state=True)
    sid = tok.convert_tokens_to_ids("</IS>")
    for ep in eps:
        assert ep.state_end_id == sid
        for t in range(1, len(ep.gen_ids)):                    # each context holds the held part of the last turn only
            assert ep.ctx_lens[t] == len(ep.prompt_ids) + len(held_ids(ep, ep.gen_ids[t - 1])) + len(ep.obs_ids[t - 1])
    with pytest.raises(ValueError, match="drop_state needs prune"):
        run_episodes(model, tok, tool, tasks, prune=False, drop_state=True)
    with pytest.raises(TypeError, match="drop_state"): run_episodes(model, tok, tool, tasks, prune=True, drop_state=1)

def test_malformed_actions_give_error_observations(env_parts):
    kb, tool, _ = env_parts
    task = make_tasks(kb, 2, 1, seed=3)[0]
    env = MultiObjectiveEnv(tool, task, max_turns=10)
    for bad in ["", "<IS></IS>", "<search> unclosed", "<search></search>", "<search> colour Nobody</search>",
                "<answer> x <search>"]:
        obs = env.step(bad)
        assert obs.startswith("<info>") and "error" in obs, (bad, obs)
    assert parse_action("<answer> a ; b</answer>") == ("answer", "a ; b")
    assert parse_answers("a ; b", 3) == ["a", "b", ""]
    with pytest.raises(TypeError): parse_action(None)


def test_scripted_agent_solves_and_reward(env_parts):
    kb, tool, _ = env_parts
    for k in (1, 2, 4):
        task = make_tasks(kb, k, 1, seed=k)[0]
        _, _, env = scripted_turns(tool, task, 2 * k + 2)
        assert env.reward == k
    t = make_tasks(kb, 2, 1)[0]
    assert score(t.answers, t)["em"] == 2 and score(["", ""], t)["em_k"] == 0


def test_scripted_peak_tokens_grow_for_full_context(env_parts):
    kb, tool, tok = env_parts
    peak = {}
    for k in (2, 4):
        t = make_tasks(kb, k, 1, seed=1)[0]
        for prune in (True, False):
            peak[(k, prune)] = scripted_episode(tok, tool, t, 2 * k + 3, prune=prune).peak_tokens
    assert peak[(2, True)] < peak[(2, False)] and peak[(4, True)] < peak[(4, False)]
    assert peak[(4, False)] / peak[(2, False)] > peak[(4, True)] / peak[(2, True)]


def test_logprob_equality_random_policy(env_parts):
    kb, tool, tok = env_parts
    model = make_model("llama-1L-64", tok, seed=0)
    tasks = make_tasks(kb, 2, 2, seed=4)
    for prune in (True, False):
        eps = run_episodes(model, tok, tool, tasks, prune=prune, do_sample=True, max_new_tokens=6, max_turns=3,
                           generator=torch.Generator().manual_seed(0))
        b = batch_trajectories([masked_trajectory(e, prune) for e in eps], pad_id=tok.pad_token_id)
        lp, m = trajectory_logprobs(model, b)
        for i, e in enumerate(eps):
            ref = torch.tensor([x for l in e.gen_logp for x in l])
            assert (lp[i][m[i] > 0] - ref).abs().max() <= 1e-5


def test_bad_inputs(env_parts):
    kb, tool, _ = env_parts
    with pytest.raises(ValueError, match="k must"): make_tasks(kb, 0, 1)
    with pytest.raises(ValueError, match="n must"): make_tasks(kb, 1, 0)
    empty = KnowledgeBase({}, {})
    with pytest.raises(ValueError, match="empty"): SearchTool(empty)
    with pytest.raises(ValueError, match="empty"): make_tasks(empty, 1, 1)
    with pytest.raises(TypeError, match="kb"): SearchTool("kb")
    with pytest.raises(ValueError, match="n_docs"): SearchTool(kb, n_docs=0)
    with pytest.raises(ValueError, match="retriever"): SearchTool(kb, retriever="dense")
    with pytest.raises(ValueError, match="max_turns"): MultiObjectiveEnv(tool, make_tasks(kb, 1, 1)[0], 0)
    with pytest.raises(TypeError): trajectory_logprobs(None, "not an episode")


def test_peak_tokens_both_metrics_hand_episode():
    ep = _hand_episode()
    ep.ctx_lens = [2, 5, 5]                      # prompt 2; MEM1 contexts: prompt, prompt+gen0+obs0, prompt+gen1+obs1
    assert ep.peak_tokens == 7                   # ours: prompt included, max over turns of context + generated
    assert official_peak_tokens(ep, prune=True) is None          # EM = 0: left out, as the official eval.py does
    ep.reward = 1.0
    # official MEM1: max(|g0|, |g0|+|o0|+|g1|, |g1|+|o1|+|g2|) = max(2, 4, 5); prompt excluded
    assert official_peak_tokens(ep, prune=True) == 5
    # official full context: everything generated and observed, prompt excluded: 3 + 3 + 2
    assert official_peak_tokens(ep, prune=False) == 8
    assert official_peak_tokens(ep, prune=False, max_turns=2) == 6   # at most max_turns turns count
    assert official_peak_tokens(ep, prune=True, max_turns=1) == 2
    with pytest.raises(ValueError, match="max_turns"): official_peak_tokens(ep, True, max_turns=0)
    zero = _hand_episode()
    zero.ctx_lens = [2, 5, 5]
    s = summarize([ep, zero], prune=True)
    assert s["peak_official"] == 5 and s["n_official"] == 1 and s["peak_tokens"] == 7
    assert summarize([zero], prune=True)["peak_official"] is None


def test_official_mask_hand_episode():
    ep = _hand_episode()
    # state_end_id 10: turn 0 = state [10] + action [11]; turns 1, 2 have no state token: all action
    tr = official_style_trajectory(ep, state_end_id=10)
    assert tr["input_ids"].tolist() == [1, 2, 10, 11, 20, 12, 21, 22, 13, 14]
    assert tr["position_ids"].tolist() == list(range(10))                    # cumulative positions
    assert tr["loss_mask"].tolist() == [0, 0, 1, 1, 0, 1, 0, 0, 1, 1]
    A = tr["allowed"]
    row = lambda i: A[i].nonzero().squeeze(-1).tolist()
    assert row(3) == [0, 1, 2, 3]                 # action r0: prompt, its state t0, itself
    assert row(4) == [4]                          # info tokens attend only themselves
    assert row(7) == [6, 7]
    assert row(5) == [0, 1, 3, 4, 5]              # r1: prompt, previous action r0 and info i0; not the state t0
    assert row(9) == [0, 1, 5, 6, 7, 8, 9]        # r2: prompt, r1, i1, itself; nothing of turn 0
    assert not A.triu(1).any()
    # without a state id every turn is an action
    assert official_style_trajectory(ep)["allowed"][5].nonzero().squeeze(-1).tolist() == [0, 1, 2, 3, 4, 5]


def test_bm25_retriever_deterministic_n_passages():
    kb = knowledge_base(seed=0)
    a, b = SearchTool(kb, n_docs=3, seed=0), SearchTool(kb, n_docs=3, seed=0)
    firsts = set()
    for d in kb.documents()[:20]:
        q = f"works for {d['title']}" if d["type"] == "person" else d["title"]
        got = a.retrieve(q)
        assert got == b.retrieve(q) and a(q) == b(q)              # deterministic in (seed, query)
        assert len(got) == 3 and len(set(got)) == 3
        assert d["title"] in got                                   # the named page is among the passages
        firsts.add(got.index(d["title"]))
    assert len(firsts) > 1                                         # its position is not fixed
    assert a("! ?") == "error : no such page ."                    # nothing to match: an error observation


def test_answer_normalisation():
    assert normalize_answer("The  Omel Corp.") == "omel corp"
    assert normalize_answer("an Apple, a day!") == "apple day"
    assert normalize_answer("theatre") == "theatre"               # articles only as whole words
    t = Task(["q1", "q2"], ["Omel Corp", "Vetaville"], [[], []])
    assert score(["the omel corp.", "VETAVILLE"], t)["em"] == 2.0
    assert score(["omel", "Veta ville"], t)["em"] == 0.0
    assert f1_score("the Omel", "Omel Corp") == pytest.approx(2 / 3)
    with pytest.raises(TypeError): normalize_answer(None)


def test_tokenizer_without_bos_eos(env_parts):
    kb, tool, tok = env_parts
    tok2 = copy.deepcopy(tok)
    tok2.bos_token, tok2.eos_token = None, None
    assert tok2.bos_token_id is None and tok2.eos_token_id is None
    task = make_tasks(kb, 1, 1, seed=2)[0]
    ep = scripted_episode(tok2, tool, task, 4)
    assert ep.reward == 1 and ep.prompt_ids[0] != tok.bos_token_id
    model = make_model("llama-1L-64", tok, seed=0)
    eps = run_episodes(model, tok2, tool, [task], prune=True, max_turns=2, max_new_tokens=4)
    assert len(eps[0].gen_ids) >= 1 and all(len(g) == 4 for g in eps[0].gen_ids)


def test_state_has_no_index_tokens(env_parts):
    "issue #58: the state lists the pending questions (no index tokens) and copies the fact it read."
    kb, tool, _ = env_parts
    task = make_tasks(kb, 5, 1, seed=2)[0]
    turns, obs, env = scripted_turns(tool, task, 2 * 5 + 4)
    assert env.reward == 5 and len(turns) == 11
    assert not any(f" q{i}" in t for t in turns for i in range(1, 6)) and " q1" not in task_prompt(task)
    ch = task.chains[0]
    assert turns[0] == state_text([], task.questions) + f"<search> {hop_query(ch, 0, ch[0][0])}</search>"
    assert rest_text(ch, 1, ch[1][0]) == hop_query(ch, 1, ch[1][0])         # one hop left: the rest is the query
    assert task.questions[0] == f"What is {rest_text(ch, 0, ch[0][0])}?"
    assert turns[1].startswith(f"<IS> {fact_text(ch[0])} | {rest_text(ch, 1, ch[1][0])} > {task.questions[0]}")
    assert fact_text(ch[0]) in obs[0]                                        # the fact is copied from the observation
    assert turns[2].startswith(f"<IS> {fact_text(ch[1])} | {task.answers[0]} ; {' '.join(task.questions[1:])}</IS>")
    assert turns[-1] == (state_text(task.answers, fact=fact_text(task.chains[-1][-1])) + "<answer>"
                         + " ;".join(f" {a}" for a in task.answers) + "</answer>")
    assert tool.parse(hop_query(ch, 0, ch[0][0])) == (ch[0][1], ch[0][0])
    with pytest.raises(ValueError, match="p_noise"): scripted_turns(tool, task, 4, p_noise=1.5)
    with pytest.raises(TypeError, match="pending"): state_text([], "one question?")
    _, _, noisy = scripted_turns(tool, task, 14, p_noise=1.0)
    assert noisy.reward == 0                                                # every answer misread


def test_unpacked_rows_equal_packed_trajectories(env_parts):
    kb, tool, tok = env_parts
    model = make_model("llama-1L-64", tok, seed=0).eval()
    eps = [scripted_episode(tok, tool, t, 6, prune=p) for t in make_tasks(kb, 2, 2, seed=6) for p in (True,)]
    rows = turn_rows(eps[0], prune=True)
    assert len(rows) == len(eps[0].gen_ids)
    assert rows[1]["input_ids"] == context_ids(Episode(eps[0].task, eps[0].prompt_ids, eps[0].gen_ids[:1],
                                                       obs_ids=eps[0].obs_ids[:1]), True) + eps[0].gen_ids[1]
    for prune in (True, False):
        eps = [scripted_episode(tok, tool, t, 6, prune=prune) for t in make_tasks(kb, 2, 2, seed=6)]
        with torch.no_grad():
            a = model(**sft_batches(eps, prune, tok.pad_token_id, 2)(0)).loss
            b = model(**sft_batches(eps, prune, tok.pad_token_id, 2, packed=True)(0)).loss
        assert abs(a.item() - b.item()) <= 1e-5
    with pytest.raises(ValueError, match="batch_size"): sft_batches(eps, True, 0, 0)


def test_run_episodes_runs_in_eval_mode_and_restores_the_mode(env_parts):
    "issue #60 item 3: a model left in train mode (dropout > 0) must roll out as in eval mode, and keep its mode."
    kb, tool, tok = env_parts
    model = make_model("llama-1L-64", tok, seed=0, attention_dropout=0.5)
    tasks = make_tasks(kb, 2, 2, seed=4)
    kw = dict(prune=True, max_new_tokens=6, max_turns=3)
    model.eval()
    ref = run_episodes(model, tok, tool, tasks, **kw)
    assert not model.training
    model.train()
    torch.manual_seed(1)
    got = run_episodes(model, tok, tool, tasks, **kw)
    assert model.training                                   # the caller's mode is back
    assert [e.gen_ids for e in got] == [e.gen_ids for e in ref]
    for a, b in zip(got, ref):
        la, lb = [x for l in a.gen_logp for x in l], [x for l in b.gen_logp for x in l]
        assert len(la) == len(lb) and max(abs(x - y) for x, y in zip(la, lb)) <= 1e-6
    model.eval()
    for e in got:                                           # the masked trajectory reproduces the train-mode rollout
        lp, m = trajectory_logprobs(model, e)
        ref_lp = torch.tensor([x for l in e.gen_logp for x in l])
        assert (lp[0][m[0] > 0] - ref_lp).abs().max().item() <= 1e-5
    model.train()

    def boom(*args, **kwargs): raise RuntimeError("boom")
    model.forward = boom                                    # the rollout raises after eval() was called
    with pytest.raises(RuntimeError, match="boom"): run_episodes(model, tok, tool, tasks, **kw)
    assert model.training                                   # restored on the exception too


# ---- property tests for bad input (issue #60) ----
from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=20, deadline=None)
@given(k=st.one_of(st.integers(-3, 0), st.just(True), st.floats(1.0, 3.0)), hops=st.integers(-2, 0))
def test_property_make_tasks_bad_sizes(env_parts, k, hops):
    kb = env_parts[0]
    with pytest.raises(ValueError, match="k must"): make_tasks(kb, k, 1)
    with pytest.raises(ValueError, match="n must"): make_tasks(kb, 1, k)
    with pytest.raises(ValueError, match="hops"): make_tasks(kb, 1, 1, hops=hops)


@settings(max_examples=20, deadline=None)
@given(extra=st.integers(-2, 2), bad=st.sampled_from([None, 3, b"x"]))
def test_property_score_mismatched_answers(env_parts, extra, bad):
    t = make_tasks(env_parts[0], 2, 1, seed=0)[0]
    if extra:
        with pytest.raises(ValueError, match="answers must hold"): score(list(t.answers) + [""] * extra
                                                                         if extra > 0 else t.answers[:2 + extra], t)
    with pytest.raises(TypeError, match="answers"): score([t.answers[0], bad], t)
    with pytest.raises(TypeError, match="answers"): score("a ; b", t)


@settings(max_examples=20, deadline=None)
@given(what=st.sampled_from(["max_turns", "max_new_tokens", "temperature", "tasks", "prune", "model", "empty"]),
       v=st.sampled_from([0, -1, True, 2.5, float("nan"), float("inf")]))
def test_property_run_episodes_bad_arguments(env_parts, what, v):
    kb, tool, tok = env_parts
    model = make_model("llama-1L-64", tok, seed=0)
    tasks = make_tasks(kb, 1, 1, seed=0)
    kw = dict(model=model, tok=tok, tool=tool, tasks=tasks, prune=True, max_turns=2, max_new_tokens=4)
    if what in ("max_turns", "max_new_tokens"): kw[what] = v
    if what == "temperature": kw.update(do_sample=True, temperature=-abs(v) if v == v and abs(v) < 3 else v)
    if what == "tasks": kw["tasks"] = ["what is x?"]
    if what == "prune": kw["prune"] = 1
    if what == "model": kw["model"] = "llama"
    if what == "empty": kw["tasks"] = []
    word = {"tasks": "tasks", "prune": "prune", "model": "model", "empty": "tasks"}.get(what, what)
    with pytest.raises((ValueError, TypeError), match=word): run_episodes(**kw)
    assert not model.training or what != "model"            # validation leaves the model alone


@settings(max_examples=20, deadline=None)
@given(pad=st.one_of(st.integers(-5, -1), st.just(True), st.just(1.5)))
def test_property_batch_trajectories_bad_input(pad):
    with pytest.raises(ValueError, match="trajs"): batch_trajectories([], pad_id=0)
    traj = masked_trajectory(_hand_episode(), True)
    with pytest.raises(ValueError, match="pad_id"): batch_trajectories([traj], pad_id=pad)
