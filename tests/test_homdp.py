"""iclr26.homdp: exact counting, sensitivity bounds, accounting against OpenDP, the mechanism, loaders and bad input."""
import gzip
import math

import networkx as nx
import numpy as np
import pytest

from iclr26.homdp import (PrivateHomDensities, audit_sensitivity, calibrate_noise, check_degree_bound, clopper_pearson,
                          csl_graphs, cycle_homs, cycle_patterns, density_sensitivity, distinguishing_attack,
                          dp_success_bound, edge_flips, hom_brute_force, hom_count, hom_counts, hom_densities, hom_tree,
                          opendp_zcdp_epsilon, pattern_name, project_max_degree, read_ogb_graphprop, read_tu_dataset,
                          sbm_dataset, sensitivity_vector, tcdp_epsilon_authors, to_adjacency, tree_patterns,
                          write_tu_dataset, zcdp_epsilon, zcdp_of_noise, elimination_order, treewidth, hom_treedec,
                          random_patterns, _hom_td_A, degree_histogram, degree_histogram_sigma, DEGREE_HIST_L2,
                          worst_flip_ratio, adversarial_flip_search)

GENERAL = [nx.complete_graph(4), nx.house_graph(), nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)])]   # K4, house, paw


# ---------------------------------------------------------------- counting
@pytest.mark.parametrize("seed", range(4))
def test_fast_paths_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(int(rng.integers(4, 8)), float(rng.uniform(0.3, 0.8)), seed=seed)
    for F in tree_patterns(5) + cycle_patterns(5):
        assert hom_count(F, G) == hom_brute_force(F, G), pattern_name(F)


def test_general_patterns_counted_exactly():
    K = nx.complete_graph(5)   # hom(F, K5) = chromatic polynomial P_F(5)
    assert hom_count(nx.complete_graph(4), K) == 5 * 4 * 3 * 2
    assert hom_count(GENERAL[2], K) == 5 * 4 * 3 * 4           # paw: triangle then a pendant vertex
    assert hom_count(nx.complete_graph(4), nx.cycle_graph(6)) == 0


ATLAS = [nx.convert_node_labels_to_integers(g) for g in nx.graph_atlas_g()[1:]
         if 3 <= g.number_of_nodes() <= 6 and nx.is_connected(g)]


@pytest.mark.parametrize("seed", range(3))
def test_tree_decomposition_dp_equals_brute_force(seed):
    G = nx.gnp_random_graph(6, [0.4, 0.6, 0.9][seed], seed=seed)
    A = to_adjacency(G)
    pats = [F for F in ATLAS if treewidth(F) <= 3]
    assert len(pats) == 130
    for F in pats:
        assert hom_treedec(F, A) == hom_brute_force(F, A), sorted(F.edges())
    for F in pats[::9]:                                       # the chunked product (tiny memory limit) too
        assert _hom_td_A(F, A, chunk_limit=10) == hom_brute_force(F, A)


def test_tree_decomposition_width_matches_networkx():
    from networkx.algorithms.approximation import treewidth_min_degree, treewidth_min_fill_in
    for F in ATLAS:
        assert treewidth(F) == min(treewidth_min_fill_in(F)[0], treewidth_min_degree(F)[0])
    assert [
        treewidth(F) for F in (nx.path_graph(6), nx.cycle_graph(7), nx.complete_graph(4), nx.complete_graph(5))
    ] == [1, 2, 3, 4]
    order, w = elimination_order(nx.grid_2d_graph(3, 3))
    assert w == 3 and len(order) == 9


def test_bounded_treewidth_pattern_on_larger_graph():
    F6 = nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 2), (4, 5)])   # two triangles and a tail: width 2
    G = nx.gnp_random_graph(30, 0.3, seed=1)
    with pytest.raises(ValueError, match="max_maps"):
        hom_brute_force(F6, G)
    # hom(F6, G) by hand: a = sum_{u,v,w} [triangle u-v-w] * (walks) -- here via the identity for this pattern:
    A = to_adjacency(G)
    A2 = A @ A
    tri_at = np.diag(A2 @ A)                                   # closed 3-walks at each node
    # F6: triangle (0,1,2) at node 2; triangle (2,3,4) at node 2 and 4; pendant 5 on 4.
    # hom = sum_{x2,x4} tri_at[x2] * A[x2,x4] * (A2[x2,x4]) * deg[x4]
    deg = A.sum(1)
    want = float(np.sum(tri_at[:, None] * A * A2 * deg[None, :]))
    assert hom_count(F6, G) == want
    assert hom_count(nx.complete_graph(4), nx.complete_graph(7)) == 7 * 6 * 5 * 4


def test_treewidth_and_memory_limits():
    with pytest.raises(ValueError, match="max_treewidth"):
        hom_treedec(nx.complete_graph(5), nx.complete_graph(6))
    assert hom_treedec(nx.complete_graph(5), nx.complete_graph(6), max_treewidth=4) == 6 * 5 * 4 * 3 * 2
    with pytest.raises(ValueError, match="TD_MAX_ENTRIES"):
        hom_treedec(nx.complete_graph(5), np.zeros((200, 200)), max_treewidth=4)   # 200^4 tables refused, not allocated
    with pytest.raises(ValueError, match="heuristic"):
        elimination_order(nx.cycle_graph(4), "exact")


def test_random_patterns():
    for w in (2, 3):
        pats = random_patterns(5, 6, max_treewidth=w, seed=w)
        assert len(pats) == 5 and all(
            nx.is_connected(F) and F.number_of_nodes() == 6 and treewidth(F) <= w for F in pats
        )
        assert not any(nx.is_isomorphic(a, b) for i, a in enumerate(pats) for b in pats[i + 1:])
    with pytest.raises(ValueError, match="distinct"):
        random_patterns(50, 4, max_treewidth=2, seed=0, max_tries=200)   # only 6 connected graphs on 4 nodes


def test_ignore_weights():
    K = nx.karate_club_graph()
    assert any(d.get("weight", 1) != 1 for _, _, d in K.edges(data=True))
    with pytest.raises(ValueError, match="ignore_weights"):
        to_adjacency(K)
    U = nx.Graph()
    U.add_nodes_from(K)
    U.add_edges_from(K.edges())                               # the same graph without its weights
    np.testing.assert_array_equal(to_adjacency(K, ignore_weights=True), to_adjacency(U))
    pats = [nx.cycle_graph(3), nx.complete_graph(4), nx.path_graph(3)]
    np.testing.assert_array_equal(hom_densities([K], pats, ignore_weights=True), hom_densities([U], pats))
    assert hom_count(nx.cycle_graph(3), K, ignore_weights=True) == 6 * sum(nx.triangles(U).values()) / 3
    mech = PrivateHomDensities(pats, rho=math.inf, max_degree=17, ignore_weights=True)
    np.testing.assert_array_equal(mech.release([K]), hom_densities([U], pats))
    with pytest.raises(ValueError, match="weighted"):
        PrivateHomDensities(pats, rho=1.0, max_degree=17).release([K])
    np.testing.assert_array_equal(to_adjacency(np.array([[0, 3.0], [3.0, 0]]), ignore_weights=True), [[0, 1], [1, 0]])


def test_classical_identities():
    G = nx.petersen_graph()
    A = to_adjacency(G)
    assert hom_count(nx.path_graph(2), G) == 2 * G.number_of_edges()
    assert hom_count(nx.star_graph(4), G) == float(np.sum(A.sum(1) ** 4))
    assert hom_tree(nx.path_graph(5), G) == float(np.ones(10) @ np.linalg.matrix_power(A, 4) @ np.ones(10))
    ev = np.linalg.eigvalsh(A)
    np.testing.assert_allclose(cycle_homs(G, 9), [np.sum(ev ** k) for k in range(3, 10)], rtol=1e-10, atol=1e-9)
    assert cycle_homs(G, 5)[0] == 0            # Petersen has girth 5
    assert cycle_homs(G, 5)[2] == 12 * 10      # 12 pentagons × 10 closed walks each


def test_densities_isomorphism_invariant_and_in_unit_interval():
    G, y = csl_graphs(per_class=2, seed=1)
    pats = tree_patterns(5) + cycle_patterns(8)
    T = hom_densities(G, pats)
    assert np.all((T >= 0) & (T <= 1))
    for c in range(10): np.testing.assert_array_equal(T[2 * c], T[2 * c + 1])
    assert len({tuple(r) for r in T[:, :len(tree_patterns(5))]}) == 1     # trees cannot separate CSL
    assert len({tuple(r) for r in T[:, len(tree_patterns(5)):]}) == 10    # cycles C3..C8 can


def test_hom_counts_matches_hom_densities():
    Gs = [nx.cycle_graph(7), nx.path_graph(5)]
    pats = tree_patterns(4) + cycle_patterns(4)
    C, T = hom_counts(Gs, pats), hom_densities(Gs, pats)
    k = np.array([F.number_of_nodes() for F in pats])
    np.testing.assert_allclose(T, C / np.array([[7.0], [5.0]]) ** k)


def test_pattern_names_unique():
    names = [pattern_name(F) for F in tree_patterns(8) + cycle_patterns(8)]
    assert len(set(names)) == len(names)


# ---------------------------------------------------------------- sensitivity
def test_sensitivity_formula_hand_checked():
    assert density_sensitivity(nx.cycle_graph(3), 10, 3) == pytest.approx(6 / 100 * 3 / 10)
    assert density_sensitivity(nx.path_graph(2), 10, 9) == pytest.approx(2 / 100)
    assert density_sensitivity(nx.star_graph(3), 20, 5) == pytest.approx(2 * 3 / 400 * (5 / 20) ** 2)
    # Δ capped at n-1
    assert density_sensitivity(nx.cycle_graph(4), 5, 100) == density_sensitivity(nx.cycle_graph(4), 5, 4)
    np.testing.assert_allclose(
        sensitivity_vector(cycle_patterns(4), 41, 4), [6 / 41**2 * 4 / 41, 8 / 41**2 * (4 / 41) ** 2]
    )


def test_sensitivity_bound_attained_and_never_exceeded():
    # P3 + edge 0-2 = triangle: Δhom(C3) = 6, bound 2·3·Δ = 12 with Δ = 2
    au = audit_sensitivity([nx.path_graph(3)], [nx.cycle_graph(3), nx.path_graph(2)], 2)
    assert au["ratios"][:, 0].max() == pytest.approx(0.5)
    assert au["ratios"][:, 1].max() == 1.0     # the edge density changes by exactly 2/n²
    graphs = [nx.random_regular_graph(3, 8, seed=s) for s in range(3)] + [nx.grid_2d_graph(3, 3)]
    au = audit_sensitivity(graphs, tree_patterns(5) + cycle_patterns(6), 4)
    assert au["ratios"].max() <= 1.0 and au["l2_ratio"].max() <= 1.0


def test_worst_flip_ratio_matches_the_enumeration_and_closed_forms():
    K5 = nx.complete_graph(5)
    for F in tree_patterns(4) + cycle_patterns(4):
        r, (u, v) = worst_flip_ratio(K5, F, 4)
        assert r == pytest.approx(audit_sensitivity([K5], [F], 4)["ratios"].max(), abs=1e-15)
        assert K5.has_edge(u, v)                              # on K5 every admissible flip removes an edge
    assert worst_flip_ratio(K5, nx.path_graph(3), 4)[0] == (4 * 4 - 2) / 16   # P3: Δhom <= 4Δ - 2 against 4Δ
    assert worst_flip_ratio(nx.empty_graph(4), nx.path_graph(2), 3)[0] == 1.0  # K2: attained on every flip


def test_adversarial_search_respects_the_bound_and_beats_its_start():
    F = nx.cycle_graph(4)
    s = adversarial_flip_search(F, 9, 4, steps=25, restarts=2, seed=1)
    assert s["A"].sum(1).max() <= 4 and np.array_equal(s["A"], s["A"].T) and not np.diag(s["A"]).any()
    assert s["ratio"] == pytest.approx(worst_flip_ratio(s["A"], F, 4)[0])
    assert worst_flip_ratio(nx.complete_graph(5), F, 4)[0] <= s["ratio"] <= 1.0   # restart 0 starts from K5
    assert s["evaluations"] == 2 * 26 and len(s["restart_ratios"]) == 2
    # an under-estimated bound fails the same audit: against s_F / |E(F)| the ratio exceeds 1
    assert s["ratio"] * F.number_of_edges() > 1.0
    with pytest.raises(ValueError, match="restarts"):
        adversarial_flip_search(F, 9, 4, restarts=0)
    with pytest.raises(TypeError, match="F"):
        worst_flip_ratio(nx.path_graph(3), "C4", 2)


def test_degree_histogram_sensitivity_is_2_sqrt2_over_n_and_attained():
    worst = 0.0
    for G in (nx.empty_graph(4), nx.path_graph(6), nx.gnp_random_graph(8, 0.4, seed=3)):
        A = to_adjacency(G)
        for bins in (None, 3):
            h0 = degree_histogram([A], 8, bins)[0]
            for _, _, B in edge_flips(A, 8):
                worst = max(worst, np.linalg.norm(degree_histogram([B], 8, bins)[0] - h0) * len(A) / DEGREE_HIST_L2)
    assert worst == pytest.approx(1.0)
    H = degree_histogram([nx.path_graph(4), nx.star_graph(3)], 3)
    np.testing.assert_allclose(H, [[0, 0.5, 0.5, 0], [0, 0.75, 0, 0.25]])
    np.testing.assert_allclose(degree_histogram([nx.path_graph(4)], 3, bins=2), [[0.5, 0.5]])   # bins [0, 2), [2, 4)
    assert degree_histogram_sigma(100, math.inf) == 0.0
    assert degree_histogram_sigma(100, 0.5) == pytest.approx(DEGREE_HIST_L2 / 100)


def test_degree_histogram_bad_input():
    with pytest.raises(TypeError, match="sequence"):
        degree_histogram(nx.path_graph(3), 3)
    with pytest.raises(ValueError, match="empty"):
        degree_histogram([], 3)
    with pytest.raises(ValueError, match="maximum degree"):
        degree_histogram([nx.star_graph(5)], 3)
    with pytest.raises(ValueError, match="bins"):
        degree_histogram([nx.path_graph(3)], 3, bins=0)
    with pytest.raises(ValueError, match="rho"):
        degree_histogram_sigma(10, 0.0)


def test_edge_flips_respect_degree_bound():
    G = nx.cycle_graph(6)
    flips = list(edge_flips(G, 2))
    assert len(flips) == 6 and all(B.sum() == 10 for _, _, B in flips)   # only removals are admissible at Δ = 2
    assert len(list(edge_flips(G, 3))) == 15


# ---------------------------------------------------------------- mechanism and accounting
@pytest.mark.parametrize("rho", [1e-4, 0.01, 0.5, 2.0])
def test_accounting_matches_opendp(rho):
    assert zcdp_epsilon(rho, 1e-6) == pytest.approx(opendp_zcdp_epsilon(rho, 1e-6), rel=1e-9)
    assert zcdp_epsilon(rho, 1e-6, "gaussian") <= zcdp_epsilon(rho, 1e-6) <= zcdp_epsilon(rho, 1e-6, "bun-steinke")


def test_authors_tcdp_is_looser_than_zcdp():
    assert tcdp_epsilon_authors(0.01, 2, 1e-6) > zcdp_epsilon(0.01, 1e-6)
    with pytest.raises(ValueError, match="omega"):
        tcdp_epsilon_authors(2.0, 2, 1e-6)


@pytest.mark.parametrize("calibration", ["shared", "per_density"])
def test_calibration_spends_exactly_rho(calibration):
    s = np.array([1e-3, 2e-4, 1e-5])
    assert zcdp_of_noise(s, calibrate_noise(s, 0.03, calibration)) == pytest.approx(0.03)


def test_release_unbiased_and_noise_scale():
    mech = PrivateHomDensities(cycle_patterns(4), rho=1e-3, max_degree=4)
    T = hom_densities([nx.circulant_graph(41, [1, 3])], mech.patterns)
    X = mech.add_noise(np.repeat(T, 20000, 0), 41, rng=0)
    sig = mech.sigmas(41)
    assert np.all(np.abs(X.mean(0) - T[0]) <= 4 * sig / math.sqrt(20000))
    np.testing.assert_allclose(X.std(0), sig, rtol=0.03)


def test_attack_stays_within_guarantee():
    mech = PrivateHomDensities(cycle_patterns(4) + tree_patterns(4), rho=0.5, max_degree=4)
    G0 = nx.cycle_graph(8)
    G1 = G0.copy()
    G1.add_edge(0, 4)
    r = distinguishing_attack(mech, G0, G1, 20000, rng=1)
    assert r["success_lo"] <= dp_success_bound(mech.epsilon(), 1e-6)
    assert r["eps_lower"] <= mech.epsilon()
    lo, hi = clopper_pearson(int(round(r["tpr"] * 20000)), 20000)
    assert lo <= r["tpr"] <= hi


# ---------------------------------------------------------------- data
def test_sbm_dataset_respects_degree_bound():
    graphs, y, redraws = sbm_dataset(n=40, per_class=3, seed=0)
    assert len(graphs) == 12 and sorted(set(y)) == [0, 1, 2, 3]
    assert all(A.sum(1).max() <= 0.5 * 40 + math.sqrt(39 * math.log(40)) for A in graphs)
    with pytest.raises(ValueError, match="gap"):
        sbm_dataset(n=20, gaps=(0.6,), per_class=1)


def test_tu_round_trip(tmp_path):
    graphs = [nx.cycle_graph(5), nx.path_graph(3), nx.petersen_graph()]
    write_tu_dataset(graphs, [0, 1, 0], tmp_path, "TOY")
    back, y = read_tu_dataset(tmp_path, "TOY")
    assert list(y) == [0, 1, 0] and all(nx.is_isomorphic(a, b) for a, b in zip(graphs, back))


def test_tu_fixture_by_hand(tmp_path):
    d = tmp_path / "HAND"
    d.mkdir()
    (d / "HAND_A.txt").write_text("1, 2\n2, 1\n2, 3\n3, 2\n4, 5\n5, 4\n")
    (d / "HAND_graph_indicator.txt").write_text("1\n1\n1\n2\n2\n")
    (d / "HAND_graph_labels.txt").write_text("1\n-1\n")
    G, y = read_tu_dataset(tmp_path, "HAND")
    assert [g.number_of_edges() for g in G] == [2, 1] and list(y) == [1, -1]


def test_ogb_fixture(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    files = {"edge.csv.gz": "0,1\n1,2\n2,0\n0,1\n", "num-node-list.csv.gz": "3\n2\n", "num-edge-list.csv.gz": "3\n1\n",
             "graph-label.csv.gz": "1\n0\n"}
    for name, text in files.items():
        with gzip.open(raw / name, "wt") as fh: fh.write(text)
    G, y = read_ogb_graphprop(tmp_path)
    assert hom_count(nx.cycle_graph(3), G[0]) == 6 and G[1].number_of_edges() == 1 and list(y) == [1.0, 0.0]
    (raw / "num-edge-list.csv.gz").unlink()
    with pytest.raises(FileNotFoundError):
        read_ogb_graphprop(tmp_path)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad,match", [
    (nx.DiGraph([(0, 1), (1, 2)]), "undirected"),
    (nx.Graph([(0, 1, {"weight": 0.5}), (1, 2)]), "weighted"),
    (nx.Graph([(0, 0), (0, 1)]), "self loop"),
    (nx.MultiGraph([(0, 1), (0, 1)]), "multigraph"),
    (np.array([[0, 1], [0, 0]]), "symmetric"),
    (np.array([[0, 2.0], [2.0, 0]]), "weighted"),
    (np.array([[1, 1], [1, 0]]), "self loop"),
    (np.zeros((2, 3)), "square"),
])
def test_bad_graphs_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        to_adjacency(bad)
    with pytest.raises(ValueError, match=match):
        PrivateHomDensities(cycle_patterns(4), rho=0.1, max_degree=4).release([bad])


def test_bad_types_refused():
    with pytest.raises(TypeError):
        to_adjacency([[0, 1], [1, 0]])
    with pytest.raises(TypeError):
        hom_densities(nx.cycle_graph(4), cycle_patterns(4))   # a single graph, not a list
    with pytest.raises(TypeError):
        PrivateHomDensities([nx.DiGraph([(0, 1)])], rho=0.1, max_degree=3)


@pytest.mark.parametrize("rho", [0, -0.1, float("nan")])
def test_bad_rho_refused(rho):
    with pytest.raises(ValueError, match="rho"):
        PrivateHomDensities(cycle_patterns(4), rho=rho, max_degree=4)
    with pytest.raises(ValueError, match="rho"):
        calibrate_noise([1e-3], rho)
    with pytest.raises(ValueError, match="rho"):
        zcdp_epsilon(rho, 1e-6)


def test_degree_bound_below_max_degree_refused_or_projected():
    mech = PrivateHomDensities(tree_patterns(3), rho=0.1, max_degree=3)
    with pytest.raises(ValueError, match="maximum degree 5 > max_degree=3"):
        mech.release([nx.star_graph(5)])
    with pytest.warns(UserWarning, match="projected"):
        A = check_degree_bound(nx.complete_graph(6), 2, on_violation="project")
    assert A.sum(1).max() <= 2 and np.array_equal(A, project_max_degree(nx.complete_graph(6), 2))
    with pytest.raises(ValueError, match="on_violation"):
        check_degree_bound(nx.path_graph(3), 2, on_violation="clip")
    with pytest.raises(ValueError, match="max_degree"):
        PrivateHomDensities(tree_patterns(3), rho=0.1, max_degree=0)


def test_bad_patterns_and_parameters_refused():
    with pytest.raises(ValueError, match="connected"):
        density_sensitivity(nx.Graph([(0, 1), (2, 3)]), 10, 3)
    with pytest.raises(ValueError, match="connected"):
        hom_count(nx.empty_graph(2), nx.path_graph(3))
    with pytest.raises(ValueError, match="calibration"):
        calibrate_noise([1e-3], 0.1, "median")
    with pytest.raises(ValueError, match="delta"):
        zcdp_epsilon(0.1, 1.5)
    with pytest.raises(ValueError, match="method"):
        zcdp_epsilon(0.1, 1e-6, "rdp")
    with pytest.raises(ValueError, match="max_maps"):
        hom_brute_force(nx.path_graph(8), nx.path_graph(40))
    with pytest.raises(ValueError, match="tree"):
        hom_tree(nx.cycle_graph(4), nx.path_graph(3))


# ---------------------------------------------------------------- optional dependencies name the extra (issue #60)
@pytest.mark.parametrize("blocked, call", [("networkx", ""), ("opendp", "opendp_zcdp_epsilon"),
                                           ("sklearn", "make_classifier")])
def test_missing_optional_dependency_names_the_extra(blocked, call):
    "`import iclr26.homdp` without networkx (and a call that needs opendp / scikit-learn) names the extra."
    import subprocess, sys
    code = f"import sys\nsys.modules[{blocked!r}] = None\nimport iclr26.homdp as h\n"
    if call == "make_classifier": code += "h.make_classifier('knn')\n"
    elif call: code += f"h.{call}(1.0, 1e-5)\n"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
    assert p.returncode != 0 and last.startswith("ImportError") and "pip install 'iclr26[homdp]'" in last, last


# ------------------------------------------------------------ property tests: bad input names the argument (issue #60)
from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

from iclr26.homdp import cv_accuracy, reidentification_rate  # noqa: E402

BAD = st.sampled_from([math.nan, math.inf, -math.inf])


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 5), bad=BAD, data=st.data())
def test_property_adjacency_with_nan_or_inf_is_refused(n, bad, data):
    A = np.zeros((n, n))
    i, j = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    A[i, j] = A[j, i] = bad
    with pytest.raises(ValueError, match="G"): to_adjacency(A)


@settings(max_examples=20, deadline=None)
@given(shape=st.sampled_from([(0, 0), (2, 3), (3,), (2, 2, 2), (1, 0)]))
def test_property_adjacency_of_the_wrong_shape_or_empty(shape):
    with pytest.raises(ValueError, match="G"): to_adjacency(np.zeros(shape))


@settings(max_examples=20, deadline=None)
@given(rho=st.one_of(st.floats(max_value=0.0), st.just(math.nan)), delta=st.floats(0.1, 0.5))
def test_property_budgets_out_of_range(rho, delta):
    with pytest.raises(ValueError, match="rho"): calibrate_noise([1.0, 2.0], rho)
    with pytest.raises(ValueError, match="rho"): zcdp_epsilon(rho, delta)


@settings(max_examples=20, deadline=None)
@given(delta=st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(math.nan)))
def test_property_delta_out_of_range(delta):
    with pytest.raises(ValueError, match="delta"): zcdp_epsilon(1.0, delta)


@settings(max_examples=20, deadline=None)
@given(s=hnp.arrays(float, st.sampled_from([(0,), (2, 2), (3,)]),
                    elements=st.one_of(st.floats(-1, 1), BAD)))
def test_property_sensitivities_are_validated(s):
    ok = s.ndim == 1 and s.size > 0 and np.isfinite(s).all() and (s >= 0).all()
    if ok: assert calibrate_noise(s, 1.0).shape == s.shape
    else:
        with pytest.raises(ValueError, match="s must"): calibrate_noise(s, 1.0)


@settings(max_examples=20, deadline=None)
@given(n=st.one_of(st.integers(-3, 1), st.floats(2.5, 3.5)), deg=st.one_of(st.floats(max_value=0.0), BAD))
def test_property_sensitivity_arguments(n, deg):
    C3 = cycle_patterns(3)[0]
    with pytest.raises((ValueError, TypeError), match="n must"): density_sensitivity(C3, n, 2.0)
    with pytest.raises(ValueError, match="max_degree"): density_sensitivity(C3, 10, deg)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(4, 8), cut=st.integers(1, 3))
def test_property_mismatched_lengths(n, cut):
    X, y = np.zeros((n, 2)), np.arange(n) % 2
    with pytest.raises(ValueError, match="X"): cv_accuracy(X, y[:-cut])
    with pytest.raises(ValueError, match="same shape"): reidentification_rate(np.zeros((n, 2)), np.zeros((n - cut, 2)))
    with pytest.raises(ValueError, match="graphs"): hom_densities([], cycle_patterns(3))
