"""UNTIE and Couplings: hand-computed coupling spaces, the value-level solver against the naive
n x n computation, the omega step, invariances, outputs and errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from catembed import CatEmbedError, CatEmbedWarning, ValueStatistics, compute_statistics
from catembed.embed._untie_objective import ValueLevelProblem, independence_cooc
from catembed.embed._untie_selection import eigengap_n_clusters, gap_statistic
from catembed.embed._untie_solvers import omega_step, regularised_objective, untie_exact
from catembed.embed._untie_spaces import (
    DEFAULT_KERNELS,
    coupling_spaces,
    kernel_matrix,
    kernel_spaces,
    parse_kernels,
    scale_spaces,
    space_energies,
)
from catembed.embed.couplings import Couplings
from catembed.embed.untie import UNTIE

# UNTIE Table I, the watermelon table
MELON = pd.DataFrame(
    {
        "texture": ["clear", "blurry", "blurry", "clear", "blurry", "clear"],
        "color": ["white", "yellow", "yellow", "green", "green", "black"],
        "root": ["straight", "straight", "curled", "slightly curled", "curled",
                 "slightly curled"],
    }
)


def random_table(n: int = 40, sizes=(3, 2, 4), seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {f"a{j}": [f"v{x}" for x in rng.integers(0, s, n)] for j, s in enumerate(sizes)}
    )


def one_hot(df: pd.DataFrame, stats: ValueStatistics) -> np.ndarray:
    O = np.zeros((len(df), stats.n_values))
    for j, (name, cats) in enumerate(zip(stats.feature_names, stats.categories, strict=True)):
        codes = pd.Index(cats).get_indexer(df[name])
        O[np.arange(len(df)), stats.offsets[j] + codes] = 1
    return O


def value_matrix(stats: ValueStatistics, spaces) -> np.ndarray:
    """The l x D matrix B of the derivation, built the obvious way."""
    D = sum(s.K.shape[1] for s in spaces)
    B = np.zeros((stats.n_values, D))
    col = 0
    for s in spaces:
        rows = slice(stats.offsets[s.attribute], stats.offsets[s.attribute + 1])
        B[rows, col:col + s.K.shape[1]] = s.K
        col += s.K.shape[1]
    return B


# ---------------------------------------------------------------- coupling spaces, kernels
def test_coupling_spaces_watermelon_by_hand():
    stats = ValueStatistics.from_frame(MELON)
    spaces = coupling_spaces(stats)
    # color values sorted: black, green, white, yellow
    intra, inter = spaces[1]
    assert intra[:, 0] == pytest.approx([1 / 6, 2 / 6, 1 / 6, 2 / 6])
    # yellow against (blurry, clear, curled, slightly curled, straight) -- paper Sec. 4.2
    assert inter[3] == pytest.approx([2 / 3, 0, 1 / 2, 0, 1 / 2])
    # linear kernel before normalisation: k(yellow, yellow) = 17/18 (paper Sec. 4.3)
    assert inter[3] @ inter[3] == pytest.approx(17 / 18)


def test_kernel_matrix_values():
    F = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 2.0]])
    K = kernel_matrix(F, "gaussian", 0.5)
    assert K[0, 1] == pytest.approx(np.exp(-0.5 * 0.5))
    assert K[0, 2] == pytest.approx(np.exp(-0.5 * 5))
    P = kernel_matrix(F, "poly", 2)
    # cosine-normalised K_ab / sqrt(K_aa K_bb) with K = (a.b)^2
    assert P[0, 1] == pytest.approx(0.25 / np.sqrt(1 * 0.25))
    assert P[1, 2] == pytest.approx(1.0 / np.sqrt(0.25 * 16))
    assert np.allclose(np.diag(P), 1) and np.allclose(np.diag(K), 1)
    # a zero vector under a polynomial kernel: 1 on the diagonal, 0 elsewhere
    Z = kernel_matrix(np.array([[0.0, 0.0], [1.0, 1.0]]), "poly", 1)
    assert np.allclose(Z, np.eye(2))


def test_parse_kernels():
    assert len(parse_kernels(None)) == 14 == len(DEFAULT_KERNELS)
    assert parse_kernels(["gaussian:0.5", ("poly", 2), "rbf:2"]) == [
        ("gaussian", 0.5), ("poly", 2.0), ("gaussian", 2.0)
    ]
    for bad in ("gaussian:1", [], ["cosine:1"], ["poly:1.5"], ["gaussian:-1"], [3]):
        with pytest.raises(CatEmbedError):
            parse_kernels(bad)


# ---------------------------------------------------------------- value level == naive n x n
@pytest.mark.parametrize("c", [1, 2, 3])
def test_value_level_problem_matches_naive_nxn(c):
    df = random_table(n=60, sizes=(3, 2, 4, 3), seed=c)
    stats = ValueStatistics.from_frame(df)
    spaces = kernel_spaces(stats, parse_kernels(["gaussian:1", "poly:2"]))
    problem = ValueLevelProblem(stats, spaces)
    rng = np.random.default_rng(c)
    w = rng.uniform(0.1, 2.0, problem.n_coords)

    O = one_hot(df, stats)
    X = O @ value_matrix(stats, spaces) * np.sqrt(w)
    S = X @ X.T  # the naive n x n kernel
    lam, U = np.linalg.eigh(S)
    lam, U = lam[::-1], U[:, ::-1]
    assert lam[c - 1] - lam[c] > 1e-6 * lam[0]  # H is unique up to rotation
    H = U[:, :c]
    naive = np.trace(S) - np.trace(H.T @ S @ H)

    # same objective
    assert problem.objective(w, c) == pytest.approx(naive, rel=1e-9, abs=1e-9)
    # same non-zero spectrum
    lam_v, _ = problem.spectrum(w)
    assert np.allclose(lam_v, lam[: lam_v.size], rtol=1e-8, atol=1e-8 * lam[0])
    assert np.allclose(lam[lam_v.size:], 0, atol=1e-8 * lam[0])
    # same H up to rotation: H = O A, compare projectors
    Wc, A = problem.h_factor(w, c)
    Hv = O @ A
    assert np.allclose(Hv.T @ Hv, np.eye(c), atol=1e-8)
    assert np.allclose(Hv @ Hv.T, H @ H.T, atol=1e-8)
    # same linear coefficients of the omega step: a_d = ||(I - H H^T) O b_d||^2
    Xb = O @ value_matrix(stats, spaces)
    resid = Xb - H @ (H.T @ Xb)
    assert np.allclose(problem.coefficients(Wc), (resid ** 2).sum(axis=0), atol=1e-8)
    assert w @ problem.coefficients(Wc) == pytest.approx(naive, rel=1e-9)


def test_fitted_model_objective_and_similarity_match_naive():
    df = random_table(n=50, sizes=(3, 3, 2), seed=7)
    est = UNTIE(n_clusters=2, kernels=["gaussian:0.5", "gaussian:4", "poly:1"]).fit(df)
    X = est.transform(df)
    assert X.shape == (50, 3 * 2 * 8)  # 3 kernels x (intra, inter) x l=8 values
    S = X @ X.T
    Xc = X - X.mean(axis=0)  # centered=True (default): the constant vector is in H
    lam = np.linalg.eigvalsh(Xc @ Xc.T)[::-1]
    w = est.omega_
    # kmeans_objective_ is taken at the weights rescaled to Tr(S) of omega = 1
    e = (Xc[:, w > 0] ** 2).sum(axis=0) / w[w > 0]
    scale = e.sum() / (e @ w[w > 0])
    assert est.kmeans_objective_ == pytest.approx(scale * lam[1:].sum(), rel=1e-8)
    assert est.energy_ratio_ == pytest.approx(lam[1:].sum() / lam.sum(), rel=1e-8)
    assert est.gap_ >= est.uniform_gap_ and not est.fallback_
    assert np.allclose(est.similarity(df), S)
    assert np.allclose(est.similarity(df.iloc[:5], df.iloc[10:13]), S[:5, 10:13])


def test_objective_does_not_depend_on_repeating_rows():
    """Only the counts matter: the table repeated 25 times gives the same weights."""
    df = random_table(n=30, seed=3)
    a = UNTIE(n_clusters=2).fit(df)
    b = UNTIE(n_clusters=2).fit(pd.concat([df] * 25, ignore_index=True))
    assert np.allclose(a.omega_, b.omega_, rtol=1e-6)
    assert b.kmeans_objective_ == pytest.approx(25 * a.kmeans_objective_, rel=1e-6)


# ---------------------------------------------------------------- the exact solver
def test_exact_solver_decreases_and_converges():
    df = random_table(n=80, sizes=(4, 3, 3, 2), seed=11)
    stats = ValueStatistics.from_frame(df)
    problem = ValueLevelProblem(stats, kernel_spaces(stats, parse_kernels(None)), centered=True)
    for tau in (0.03, 0.3, 3.0):
        res = untie_exact(problem, 3, tau=tau)
        path = np.asarray(res.path)
        assert np.all(np.diff(path) <= 1e-9 * abs(path[0]))
        assert res.n_iter < 100
        assert abs(path[-1] - path[-2]) <= 1e-8 * abs(path[-1])
        # the feasible set: Tr(S) of omega = 1
        assert problem.energy @ res.w == pytest.approx(problem.energy.sum(), rel=1e-9)
        assert np.all(res.w > 0)
        assert res.objective == pytest.approx(
            regularised_objective(problem, res.w, 3, tau), rel=1e-9)


def test_omega_step_is_the_exact_minimiser():
    """w_d = exp(-r_d / tau) / Z, r_d = a_d / e_d: no other feasible weights score lower."""
    df = random_table(n=40, seed=5)
    stats = ValueStatistics.from_frame(df)
    problem = ValueLevelProblem(stats, kernel_spaces(stats, parse_kernels(["gaussian:1"])))
    Wc, _ = problem.h_factor(np.ones(problem.n_coords), 2)
    a = problem.coefficients(Wc)
    e = problem.energy
    assert np.all(e > 0)
    tau = 0.2

    def F(w):
        return w @ a + tau * np.sum(e * w * np.log(w))

    w_star = omega_step(problem, a, tau)
    assert e @ w_star == pytest.approx(e.sum())
    r = a / e
    assert np.allclose(np.log(w_star) + r / tau, np.log(w_star[0]) + r[0] / tau)
    rng = np.random.default_rng(0)
    for _ in range(50):
        v = w_star * np.exp(0.1 * rng.standard_normal(a.size))
        v *= e.sum() / (e @ v)
        assert F(w_star) <= F(v) + 1e-12


def test_omega_step_has_no_bias_toward_rare_values():
    """Two coordinates whose energy the cluster subspace captures equally well (same
    r_d = a_d / e_d) get the same weight, however small their energy: the omega step ranks
    coordinates by the share of their energy the clusters explain, not by its size. (The
    earlier step, softmax(-a_d / tau), gave rare values a large weight for their small
    residual alone, which drove the Hepatitis collapse.)"""
    df, _, _ = planted_with_missing_markers()
    stats = ValueStatistics.from_frame(df)
    problem = ValueLevelProblem(stats, kernel_spaces(stats, parse_kernels(["gaussian:1"])),
                                centered=True)
    e = problem.energy
    assert np.all(e > 0) and e.max() / e.min() > 10  # energies of very different sizes
    a = 0.5 * e  # the same share everywhere
    w = omega_step(problem, a, 0.1)
    assert np.allclose(w, 1.0)
    a[1] = 0.25 * e[1]  # better explained: more weight
    w = omega_step(problem, a, 0.1)
    assert w[1] / w[2] == pytest.approx(np.exp(0.25 / 0.1))


def test_independence_cooc_and_gap_by_hand():
    """Shuffling each column of a full factorial changes nothing: the null counts equal the
    real ones and the gap is 0 for any weights; planted clusters give a positive gap."""
    df = full_factorial((3, 2, 4))
    stats = ValueStatistics.from_frame(df)
    assert np.allclose(independence_cooc(stats), stats.cooc_dense())
    spaces = kernel_spaces(stats, parse_kernels(["poly:1"]), identity_for=[0, 1, 2])
    real = ValueLevelProblem(stats, spaces, centered=True)
    null = ValueLevelProblem(stats, spaces, centered=True, null=True)
    w = np.random.default_rng(0).uniform(0.5, 2, real.n_coords)
    assert gap_statistic(real, null, w, 3) == pytest.approx(0.0, abs=1e-9)
    # two attributes: the off-diagonal block becomes n p q^T
    small = ValueStatistics.from_frame(pd.DataFrame({"a": list("xxxy"), "b": list("uvvv")}))
    assert np.allclose(independence_cooc(small), [[3, 0, 3 / 4, 9 / 4], [0, 1, 1 / 4, 3 / 4],
                                                  [3 / 4, 1 / 4, 1, 0], [9 / 4, 3 / 4, 0, 3]])
    rng = np.random.default_rng(1)
    g = rng.integers(0, 2, 200)
    planted = pd.DataFrame({f"a{j}": np.where(rng.random(200) < 0.9, g, rng.integers(0, 2, 200))
                            .astype(str) for j in range(5)})
    st = ValueStatistics.from_frame(planted)
    sp = kernel_spaces(st, parse_kernels(["gaussian:1", "poly:1"]))
    real = ValueLevelProblem(st, sp, centered=True)
    null = ValueLevelProblem(st, sp, centered=True, null=True)
    assert gap_statistic(real, null, np.ones(real.n_coords), 2) > 0.5


def test_auto_temperature_maximises_the_gap():
    df = random_table(n=80, sizes=(3, 4, 2, 3), seed=6)
    kernels = ["gaussian:1", "gaussian:8", "poly:2"]
    est = UNTIE(n_clusters=3, kernels=kernels).fit(df)
    temps, gaps = zip(*est.temperature_scores_, strict=True)
    assert temps[0] == np.inf and len(temps) == 7
    assert est.temperature_ == temps[int(np.argmax(gaps))]
    stats = ValueStatistics.from_frame(df)
    spaces = kernel_spaces(stats, parse_kernels(kernels))
    real = ValueLevelProblem(stats, spaces, centered=True)
    null = ValueLevelProblem(stats, spaces, centered=True, null=True)
    assert gap_statistic(real, null, est.omega_, 3) == pytest.approx(max(gaps), rel=1e-9)
    fixed = UNTIE(n_clusters=3, kernels=["gaussian:1"], temperature=3).fit(df)
    assert fixed.temperature_ == 3 and fixed.temperature_scores_ == []


def test_exact_beats_sgd_on_the_same_objective():
    df = random_table(n=200, sizes=(3, 3, 2, 4), seed=2)
    exact = UNTIE(n_clusters=3, temperature=10).fit(df)
    sgd = UNTIE(n_clusters=3, temperature=10, solver="sgd", random_state=0, max_iter=200).fit(df)
    assert exact.tau_ == pytest.approx(sgd.tau_)
    assert exact.objective_ <= sgd.objective_
    assert sgd.sgd_objective_ == sgd.objective_path_[-1]
    assert len(sgd.objective_path_) == 200


def test_sgd_is_reproducible_and_needs_rows():
    df = random_table(n=60, seed=4)
    a = UNTIE(n_clusters=2, solver="sgd", random_state=1, max_iter=50).fit(df)
    b = UNTIE(n_clusters=2, solver="sgd", random_state=1, max_iter=50).fit(df)
    assert np.array_equal(a.omega_, b.omega_)
    with pytest.raises(CatEmbedError, match="needs fit"):
        UNTIE(solver="sgd").fit_statistics(ValueStatistics.from_frame(df))


# ---------------------------------------------------------------- n_clusters
def test_eigengap_rule():
    assert eigengap_n_clusters(np.array([100.0, 5, 4.9, 1, 0.9, 0.8])) == 3
    assert eigengap_n_clusters(np.array([100.0, 5, 1, 0.9])) == 2
    assert eigengap_n_clusters(np.array([3.0, 1.0])) == 1
    # centred: the constant vector is the c-th direction
    assert eigengap_n_clusters(np.array([5.0, 4.9, 1, 0.9]), centered=True) == 3


def test_n_clusters_from_labels_or_eigengap():
    df = random_table(n=60, seed=8)
    y = np.repeat(["a", "b", "c", "d"], 15)
    assert UNTIE().fit(df, y).n_clusters_ == 4
    assert UNTIE(n_clusters=2).fit(df, y).n_clusters_ == 2
    est = UNTIE().fit(df)
    stats = ValueStatistics.from_frame(df)
    problem = ValueLevelProblem(stats, kernel_spaces(stats, parse_kernels(None)), centered=True)
    lam, _ = problem.spectrum(np.ones(problem.n_coords))
    assert est.n_clusters_ == eigengap_n_clusters(lam, centered=True)


# ---------------------------------------------------------------- outputs
def test_vector_representation_is_eq21():
    est = UNTIE(n_clusters=2, kernels=["poly:1", "gaussian:2"]).fit(MELON)
    X = est.transform(MELON)
    stats = ValueStatistics.from_frame(MELON)
    spaces = kernel_spaces(stats, parse_kernels(["poly:1", "gaussian:2"]))
    expected = one_hot(MELON, stats) @ value_matrix(stats, spaces) * np.sqrt(est.omega_)
    assert np.allclose(X, expected)
    eq = UNTIE(n_clusters=2, kernels=["poly:1", "gaussian:2"], scale="attribute").fit(MELON)
    scaled = scale_spaces(stats, spaces, "attribute")
    expected = one_hot(MELON, stats) @ value_matrix(stats, scaled) * np.sqrt(eq.omega_)
    assert np.allclose(eq.transform(MELON), expected)
    names = est.get_feature_names_out()
    assert len(names) == X.shape[1] and names[0] == "texture__untie0"


def test_kernel_weights_names_and_values():
    est = UNTIE(n_clusters=2, kernels=["gaussian:1", "poly:2"]).fit(MELON)
    kw = est.kernel_weights_
    assert kw.index.names == ["attribute", "coupling", "kernel"]
    assert len(kw) == 3 * 2 * 2
    assert ("color", "inter", "poly(d=2)") in kw.index
    # color has 4 values: its intra gaussian space holds omega_[12:16]? (texture: 2 values x 4)
    assert kw[("texture", "intra", "gaussian(g=1)")] == pytest.approx(est.omega_[:2].mean())
    assert kw[("color", "intra", "gaussian(g=1)")] == pytest.approx(est.omega_[8:12].mean())


def test_n_components_all_keeps_distances_and_int_matches_pca():
    from scipy.spatial.distance import pdist
    from sklearn.decomposition import PCA

    df = random_table(n=70, sizes=(3, 4, 2), seed=9)
    full = UNTIE(n_clusters=2).fit(df).transform(df)
    proj = UNTIE(n_clusters=2, n_components="all").fit(df)
    Z = proj.transform(df)
    assert Z.shape[1] <= 9 - 3 + 1 + 1
    assert np.allclose(pdist(Z), pdist(full), atol=1e-9)
    assert np.allclose(Z.mean(axis=0), 0, atol=1e-9)
    Z3 = UNTIE(n_clusters=2, n_components=3).fit(df).transform(df)
    ref = PCA(3, svd_solver="full").fit(full)
    assert np.allclose(np.abs(Z3), np.abs(ref.transform(full)), atol=1e-8)
    assert list(proj.get_feature_names_out()[:2]) == ["untie0", "untie1"]


def test_set_output_pandas_and_unknown_values():
    est = UNTIE(n_clusters=2, kernels=["poly:1"], handle_unknown="ignore").set_output(
        transform="pandas"
    )
    out = est.fit(MELON).transform(MELON)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == list(
        est.get_feature_names_out()
    )
    new = MELON.iloc[:1].copy()
    new["color"] = "purple"
    row = est.transform(new).to_numpy()[0]
    width = 2 * 2  # texture: 2 values x (intra, inter)
    assert np.allclose(row[width:width + 2 * 4], 0)  # color block is zero
    S = est.similarity(new, MELON)
    assert S.shape == (1, 6)


def test_fit_statistics_from_chunks_equals_fit():
    df = random_table(n=90, seed=12)
    a = UNTIE(n_clusters=3).fit(df)
    stats = compute_statistics(iter([df.iloc[:40], df.iloc[40:]]))
    b = UNTIE(n_clusters=3).fit_statistics(stats)
    assert np.allclose(a.omega_, b.omega_)
    assert np.allclose(a.transform(df), b.transform(df))


def test_save_load_roundtrip(tmp_path):
    df = random_table(n=50, seed=13)
    est = UNTIE(n_clusters=2, n_components=4, kernels=["gaussian:1", "poly:2"]).fit(df)
    est.save(tmp_path / "m.npz")
    back = UNTIE.load(tmp_path / "m.npz")
    assert np.allclose(back.transform(df), est.transform(df))
    assert back.kernel_weights_.equals(est.kernel_weights_)
    assert back.objective_ == est.objective_ and back.n_clusters_ == 2
    c = Couplings().fit(df)
    c.save(tmp_path / "c.npz")
    assert np.allclose(Couplings.load(tmp_path / "c.npz").transform(df), c.transform(df))


def test_similarity_guard():
    est = UNTIE(n_clusters=2, kernels=["poly:1"]).fit(MELON)
    with pytest.raises(CatEmbedError, match="max_entries"):
        est.similarity(MELON, max_entries=10)


# ---------------------------------------------------------------- Couplings
def test_couplings_watermelon_by_hand():
    est = Couplings().fit(MELON)
    X = est.transform(MELON)
    assert X.shape == (6, (1 + 9 - 2) + (1 + 9 - 4) + (1 + 9 - 3))
    # row A2: texture blurry, color yellow, root straight
    color_block = X[1, 8:8 + 6]
    assert color_block == pytest.approx([2 / 6, 2 / 3, 0, 1 / 2, 0, 1 / 2])
    assert est.get_feature_names_out()[0] == "texture__coupling0"


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "params",
    [{"solver": "lp"}, {"n_clusters": 0}, {"temperature": 0}, {"temperature": "hot"},
     {"tied_values": "merge"}, {"kernels": "poly:1"},
     {"n_components": "some"}, {"batch_size": 1}, {"max_iter": 0}],
)
def test_bad_parameters(params):
    with pytest.raises(CatEmbedError):
        UNTIE(**params).fit(MELON)


def test_too_many_clusters_warns():
    with pytest.warns(CatEmbedWarning, match="rank"):
        est = UNTIE(n_clusters=50, kernels=["poly:1"]).fit(MELON)
    assert np.allclose(est.omega_, 1)


# ---------------------------------------------------------------- scikit-learn conventions
@parametrize_with_checks(
    [UNTIE(n_clusters=2, kernels=["gaussian:1", "poly:2"]), UNTIE(solver="sgd", max_iter=20,
                                                               random_state=0), Couplings()],
    expected_failed_checks=lambda est: {},
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_pipeline_with_pandas_output():
    est = UNTIE(n_clusters=2, n_components=3).set_output(transform="pandas")
    z = make_pipeline(est).fit_transform(MELON)
    assert list(z.columns) == ["untie0", "untie1", "untie2"]
    assert np.allclose(z.to_numpy(), clone(est).fit_transform(MELON))


def test_untie_cluster_labels_finds_planted_groups():
    from catembed.evaluation.untie_protocol import untie_cluster_labels
    from catembed.metrics import f_score

    rng = np.random.default_rng(0)
    groups = rng.integers(0, 2, 120)
    df = pd.DataFrame({
        f"a{j}": np.where(rng.random(120) < 0.85, groups, rng.integers(0, 2, 120)).astype(str)
        for j in range(6)
    })
    a = untie_cluster_labels(df, 2, random_state=0, kernels=["gaussian:1", "poly:1"])
    b = untie_cluster_labels(df, 2, random_state=0, kernels=["gaussian:1", "poly:1"])
    assert np.array_equal(a, b)
    assert f_score(groups, a) > 0.95


def test_centered_variant_matches_naive_nxn():
    """centered=True: H = [1/sqrt(n), top c-1 eigenvectors of J S J]."""
    df = random_table(n=50, sizes=(3, 3, 2, 4), seed=21)
    c = 3
    stats = ValueStatistics.from_frame(df)
    spaces = kernel_spaces(stats, parse_kernels(["gaussian:2", "poly:1"]))
    problem = ValueLevelProblem(stats, spaces, centered=True)
    w = np.random.default_rng(0).uniform(0.2, 2.0, problem.n_coords)
    O = one_hot(df, stats)
    X = O @ value_matrix(stats, spaces) * np.sqrt(w)
    S = X @ X.T
    n = len(df)
    J = np.eye(n) - 1.0 / n
    lam, U = np.linalg.eigh(J @ S @ J)
    H = np.column_stack([np.full(n, 1 / np.sqrt(n)), U[:, ::-1][:, : c - 1]])
    naive = np.trace(S @ (np.eye(n) - H @ H.T))
    assert problem.objective(w, c) == pytest.approx(naive, rel=1e-9)
    Wc, _ = problem.h_factor(w, c)
    Xb = O @ value_matrix(stats, spaces)
    resid = Xb - H @ (H.T @ Xb)
    assert np.allclose(problem.coefficients(Wc), (resid ** 2).sum(axis=0), atol=1e-8)
    est = UNTIE(n_clusters=c, temperature=3, kernels=["gaussian:2", "poly:1"]).fit(df)
    path = np.asarray(est.objective_path_)
    assert np.all(np.diff(path) <= 1e-9 * abs(path[0]))


# ---------------------------------------------------------------- degenerate cases
def full_factorial(sizes=(3, 2, 2)) -> pd.DataFrame:
    """Every combination once (like Nursery): uniform counts, independent attributes."""
    grid = np.stack(np.meshgrid(*[np.arange(s) for s in sizes], indexing="ij"), -1)
    grid = grid.reshape(-1, len(sizes))
    return pd.DataFrame({f"a{j}": [f"v{x}" for x in grid[:, j]] for j in range(len(sizes))})


def test_tied_values_get_the_identity_kernel_nursery_regression():
    """Nursery (a full factorial) gave every row the same vector: all values of an
    attribute have the same frequency and the same conditional probabilities."""
    df = full_factorial()
    with pytest.warns(CatEmbedWarning, match="cannot tell apart"):
        est = UNTIE(n_clusters=2, kernels=["gaussian:1", "poly:1"]).fit(df)
    X = est.transform(df)
    assert np.unique(X.round(10), axis=0).shape[0] == len(df)  # 12 distinct rows
    assert ("a0", "identity", "delta") in est.kernel_weights_.index
    assert X.shape[1] == 2 * 2 * 7 + 7  # 2 kernels x (intra, inter) x 7 values + identity
    with pytest.warns(CatEmbedWarning, match="same UNTIE vector"):
        keep = UNTIE(n_clusters=2, kernels=["poly:1"], tied_values="keep").fit(df)
    Xk = keep.transform(df)
    assert np.allclose(Xk, Xk[0])


def test_nursery_rows_are_distinct():
    from catembed.datasets import load_dataset
    from conftest import shared_dataset

    df = load_dataset(shared_dataset("nursery")).frame
    X = df.drop(columns="class")
    with pytest.warns(CatEmbedWarning, match="cannot tell apart"):
        Z = UNTIE(n_components="all").fit_transform(X)
    assert np.unique(Z.round(8), axis=0).shape[0] == X.drop_duplicates().shape[0] == 12960


def test_learned_weights_never_worse_than_uniform():
    for seed in range(4):
        df = random_table(n=60, sizes=(3, 4, 2, 3), seed=seed)
        est = UNTIE(n_clusters=3, kernels=["gaussian:0.5", "gaussian:8", "poly:2"]).fit(df)
        assert est.gap_ >= est.uniform_gap_
        assert not est.fallback_


def test_degenerate_weights_fall_back_to_uniform(monkeypatch):
    """A weighting with less cluster structure than omega = 1 (here all weight on the
    coordinate the clusters explain worst) is refused with a warning."""
    import catembed.embed._untie_selection as mod
    from catembed.embed._untie_solvers import SolverResult

    def bad_solver(problem, c, *, tau, max_iter, tol):
        Wc, _ = problem.h_factor(np.ones(problem.n_coords), c)
        e = problem.energy
        r = np.where(e > 0, problem.coefficients(Wc) / np.where(e > 0, e, 1), -1)
        w = np.full(problem.n_coords, 1e-6)
        w[np.argmax(r)] = problem.n_coords
        return SolverResult(w, 0.0, 1, [0.0], tau)

    monkeypatch.setattr(mod, "untie_exact", bad_solver)
    df = random_table(n=60, sizes=(3, 4, 2), seed=1)
    with pytest.warns(CatEmbedWarning, match="degenerate"):
        est = UNTIE(n_clusters=3, kernels=["gaussian:1", "poly:2"], temperature=10).fit(df)
    assert est.fallback_ and np.allclose(est.omega_, 1)
    assert est.gap_ == est.uniform_gap_


def planted_with_missing_markers(seed: int = 3, n: int = 300) -> tuple[pd.DataFrame, np.ndarray,
                                                                      np.ndarray]:
    """Two planted groups seen by six attributes, and 12 rows missing in four attributes
    together (Hepatitis's lab values): the missing markers are rare values that co-occur,
    a small real structure that is not the groups."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    cols = {}
    for j in range(6):
        v = np.where(rng.random(n) < 0.75, g, rng.integers(0, 3, n))
        cols[f"a{j}"] = np.array([f"v{x}" for x in v], dtype=object)
    miss = np.zeros(n, dtype=bool)
    miss[rng.choice(n, 12, replace=False)] = True
    for j in range(4):
        cols[f"a{j}"][miss] = None
    return pd.DataFrame(cols), g, miss


def test_rare_co_occurring_missing_markers_do_not_take_the_weight():
    """Hepatitis regression: the earlier omega step (weights softmax(-a_d / tau), a_d the
    residual energy) favoured the missing-marker coordinates for their small energy alone;
    "auto" chose temperature 0.3 on this table and k-means then split the 12 marker rows
    from the rest (ARI 1.0 with the markers, 0.00 with the groups). Now the clusters are
    the planted groups."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    df, g, miss = planted_with_missing_markers()
    est = UNTIE(n_clusters=2, n_components="all").fit(df)
    labels = KMeans(2, n_init=10, random_state=0).fit_predict(est.transform(df))
    assert adjusted_rand_score(g, labels) > 0.9
    assert abs(adjusted_rand_score(miss, labels)) < 0.05
    # the learned weights keep at least the cluster structure of omega = 1 (the guard)
    assert est.gap_ >= est.uniform_gap_


def test_same_seed_same_output():
    """The exact solver draws no random numbers: any seed, any order gives the same vectors;
    fit and fit_statistics agree."""
    df, _, _ = planted_with_missing_markers(seed=1, n=120)
    a = UNTIE(n_clusters=2, random_state=0).fit(df)
    b = UNTIE(n_clusters=2, random_state=0).fit(df)
    c = UNTIE(n_clusters=2, random_state=7).fit_statistics(compute_statistics(df))
    assert np.array_equal(a.omega_, b.omega_) and np.array_equal(a.omega_, c.omega_)
    assert np.array_equal(a.transform(df), b.transform(df))
    assert a.temperature_scores_ == c.temperature_scores_


def test_n_clusters_not_below_the_rank_keeps_uniform_weights():
    """Titanic in Table IV (4 classes, two binary attributes): nothing to learn, omega = 1,
    reported as temperature inf (it was reported as 1)."""
    df = random_table(n=40, sizes=(2, 2), seed=2)
    with pytest.warns(CatEmbedWarning, match="not below the rank"):
        est = UNTIE(n_clusters=4).fit(df)
    assert np.all(est.omega_ == 1) and est.temperature_ == np.inf and est.tau_ == np.inf
    assert not est.fallback_


# ---------------------------------------------------------------- attribute scale (issue 25)
def wide_noise_table(seed: int = 0, n: int = 240) -> tuple[pd.DataFrame, np.ndarray]:
    """Two planted groups seen by four binary attributes (70% pure), and three numeric-looking
    noise columns read as categories (about 165 values each, nearly all seen once): the
    shape of a table with numbers read one value per number."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    d = {f"s{j}": np.where(rng.random(n) < 0.7, g, rng.integers(0, 2, n)).astype(str)
         for j in range(4)}
    for j in range(3):
        d[f"x{j}"] = np.round(np.exp(rng.normal(0, 1, n)), 2).astype(str)
    return pd.DataFrame(d), g


def attribute_energies(est: UNTIE, df: pd.DataFrame) -> np.ndarray:
    Z = est.transform(df)
    e = ((Z - Z.mean(0)) ** 2).sum(0)
    widths = np.cumsum([0] + [T.shape[1] for T in est._tables])
    return np.array([e[a:b].sum() for a, b in zip(widths[:-1], widths[1:], strict=True)])


def test_paper_scale_collapses_on_wide_noise_columns_attribute_scale_does_not():
    """The near-collapse: with the paper's spaces every attribute's energy grows with its
    number of values, the three ~165-value noise columns hold 91% of it and k-means splits
    on noise (NMI 0.009, Couplings 0.588); equal energy per attribute recovers the groups."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import normalized_mutual_info_score

    df, g = wide_noise_table(0)
    out = {}
    for scale in ("none", "attribute"):
        est = UNTIE(n_clusters=2, scale=scale).fit(df)  # the Eq. 21 vectors
        assert est.temperature_ == np.inf and not est.fallback_  # omega = 1 both times
        assert np.allclose(est.kernel_weights_, 1.0) and est.scale == scale
        lab = KMeans(2, n_init=1, random_state=0).fit_predict(est.transform(df))
        out[scale] = (normalized_mutual_info_score(g, lab), attribute_energies(est, df))
    nmi_none, e_none = out["none"]
    nmi_attr, e_attr = out["attribute"]
    assert nmi_none == pytest.approx(0.009, abs=0.002)
    assert nmi_attr == pytest.approx(0.561, abs=0.002)
    assert e_none[4:].sum() / e_none.sum() == pytest.approx(0.914, abs=0.001)
    assert np.allclose(e_attr, e_attr.mean(), rtol=1e-9)  # every attribute the same energy
    assert e_attr.sum() == pytest.approx(e_none.sum())  # the total energy is kept


def test_space_energies_and_scales_from_the_counts():
    df = random_table(n=90, sizes=(2, 5, 3), seed=4)
    stats = ValueStatistics.from_frame(df)
    spaces = kernel_spaces(stats, parse_kernels(["gaussian:1", "poly:2"]))
    X = one_hot(df, stats) @ value_matrix(stats, spaces)
    energy = ((X - X.mean(0)) ** 2).sum(0)
    sizes = [sp.K.shape[1] for sp in spaces]
    by_space = np.add.reduceat(energy, np.cumsum([0] + sizes[:-1]))
    assert np.allclose(space_energies(stats, spaces), by_space)
    groups = [sp.attribute for sp in spaces]
    totals = np.bincount(groups, weights=by_space)
    assert np.allclose(totals, [2.8272, 8.6835, 11.7655], atol=1e-4)
    scaled = scale_spaces(stats, spaces, "attribute")
    e = np.bincount(groups, weights=space_energies(stats, scaled))
    assert np.allclose(e, totals.mean())  # equal, and the total energy is kept
    assert scale_spaces(stats, spaces, "none") is spaces
    with pytest.raises(CatEmbedError, match="scale"):
        UNTIE(scale="kernel").fit(df)
