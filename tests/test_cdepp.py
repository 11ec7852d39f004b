"""CDE++ (Dong, Jian, Zuo 2020): knee detector, hybrid value clustering, autoencoder, variants."""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from catembed import CatEmbedError, CatEmbedWarning, CDEAutoencoder, CDEPlusPlus, load, save
from catembed._utils._torch import require_torch
from catembed.datasets import load_dataset
from catembed.embed._autoencoder import code_size
from catembed.embed._value_clusters import (
    dbscan_sweep,
    hierarchical_sweep,
    hybrid_value_clusters,
    k_distance_eps,
    knee_point,
)
from catembed.embed.cde import cde_influence_matrices, matlab_kmeans, multi_granularity_clustering
from catembed.metrics import f_score
from catembed.stats import ValueStatistics

# three planted groups of four rows (l = 12): A = 0-3, B = 4-7, C = 8-11
GROUPS = np.array(
    [[0, 0], [0, 1.0], [1.2, 0], [0.5, 0.4],
     [10, 0], [10, 1.1], [11, 0.3], [10.6, 0.9],
     [0, 10], [0.3, 11], [1, 10.5], [0.8, 9.7]]
)
A, B, C = (np.isin(np.arange(12), r).astype(float) for r in (range(4), range(4, 8), range(8, 12)))


def _has_column(ind: np.ndarray, col: np.ndarray) -> bool:
    return bool(np.any(np.all(ind == col[:, None], axis=0)))


# ----------------------------------------------------------------------------- knee detector
def test_knee_point_on_constructed_k_distance_curve():
    # steep drop of slope 2 to index 4, then slope 0.2: the corner is index 4
    curve = [10, 8, 6, 4, 2, 1.8, 1.6, 1.4, 1.2, 1.0]
    assert knee_point(curve) == 4
    # distance to the chord of the scaled curve: (10 - i - y_i) / 9 is largest at i = 4
    assert [round(10 - i - y, 6) for i, y in enumerate(curve)][4] == 4.0
    # an exponential decay y = exp(-x): scaled, the farthest point from the chord
    x = np.linspace(0, 5, 501)
    y = np.exp(-x)
    yn = (y - y.min()) / (y.max() - y.min())
    expected = int(np.argmax(np.abs(1 - np.linspace(0, 1, 501) - yn)))
    assert knee_point(y) == expected
    assert 0 < expected < 200
    # a concave curve: the knee is where it falls off
    assert knee_point([5, 4.9, 4.8, 4.7, 4.6, 1, 0]) == 4


def test_knee_point_degenerate_curves():
    assert knee_point([3.0, 3.0, 3.0, 3.0]) == 0
    assert knee_point([2.0, 1.0]) == 0
    assert knee_point([]) == 0


def test_k_distance_eps_reads_the_sorted_graph():
    D = np.abs(GROUPS[:, None, 0] - GROUPS[None, :, 0])  # 1-D distances on the first axis
    Ds = np.sort(D, axis=1)
    kdist = np.sort(Ds[:, 2])[::-1]
    assert k_distance_eps(Ds, 2) == kdist[knee_point(kdist)]


# ----------------------------------------------------------------------------- the sweep
def test_generic_sweep_stop_rule_with_a_scripted_clusterer():
    # k=2: two clusters of 3; k=3: one singleton (1 dropped, ceil(3/2)=2: go on);
    # k=4: three singletons (3 > ceil(4/2)=2: stop, keep its one survivor); k=5 never runs
    script = {
        2: [0, 0, 0, 1, 1, 1],
        3: [0, 0, 0, 1, 1, 2],
        4: [0, 1, 2, 3, 3, 3],
        5: [0, 1, 2, 3, 4, 4],
    }
    M = np.arange(36, dtype=float).reshape(6, 6)
    ran = []

    def fake(k):
        ran.append(k)
        return np.array(script[k])

    ind, steps = multi_granularity_clustering(M, fake, 2)
    assert ran == [2, 3, 4]
    assert [(s.k, s.n_nonempty, s.n_dropped, s.n_kept) for s in steps] == [
        (2, 2, 0, 2), (3, 3, 1, 2), (4, 4, 3, 1)
    ]
    assert ind.shape == (6, 5)
    np.testing.assert_array_equal(ind[:, -1], [0, 0, 0, 1, 1, 1])
    # noise (-1) is no cluster; fixed k_values skip the stop rule
    ind, steps = multi_granularity_clustering(
        M, lambda k: np.array([-1, 0, 0, 0, 1, 1]), 2, k_values=[3, 7]
    )
    assert [s.k for s in steps] == [3, 7]
    np.testing.assert_array_equal(ind[:, 0], [0, 1, 1, 1, 0, 0])
    assert ind.shape == (6, 4)


def test_hierarchical_sweep_finds_planted_groups_and_stops():
    ind, steps = hierarchical_sweep(GROUPS, epsilon=8)
    # k=4..6 split one group 3+1 (one singleton, not more than ceil(k/8)=1);
    # k=7 gives three singletons: 3 > 1, the sweep stops there
    assert [(s.k, s.n_dropped) for s in steps] == [(2, 0), (3, 0), (4, 1), (5, 1), (6, 1), (7, 3)]
    for group in (A, B, C):
        assert _has_column(ind, group)
    # k=3 is exactly the three groups
    np.testing.assert_array_equal(ind[:, 2:5].sum(axis=1), 1)
    # a small epsilon tolerates 2k dropped clusters: the sweep runs to the 12 distinct rows
    _, steps = hierarchical_sweep(GROUPS, epsilon=0.5)
    assert [s.k for s in steps] == list(range(2, 13))


def test_dbscan_sweep_drops_noise():
    M = np.vstack([GROUPS, [[30.0, 30.0]]])  # value 12 is an outlier
    ind, steps, eps = dbscan_sweep(M, [2, 3])
    assert set(eps) == {2, 3}
    assert ind[12].sum() == 0  # noise belongs to no cluster
    for group in (A, B, C):
        assert _has_column(ind, np.append(group, 0))
    # each k's eps is the knee of its k-distance graph
    Ds = np.sort(np.linalg.norm(M[:, None] - M[None], axis=2), axis=1)
    assert eps[3] == pytest.approx(k_distance_eps(Ds, 3))


def test_hybrid_concatenates_and_keeps_duplicates_once():
    h = hybrid_value_clusters({"A": GROUPS, "B": GROUPS[::-1].copy()}, epsilon=8)
    assert h.indicator.shape[1] == len(h.names)
    assert len(np.unique(h.indicator.T, axis=0)) == h.indicator.shape[1]
    assert h.n_duplicates > 0
    assert h.names[0].startswith("A_dbscan_k2")
    assert set(h.steps) == {"A/dbscan", "A/hc", "B/dbscan", "B/hc"}
    # DBSCAN runs at exactly the k of the hierarchical sweep
    assert [s.k for s in h.steps["A/dbscan"]] == [s.k for s in h.steps["A/hc"]]
    only_hc = hybrid_value_clusters({"A": GROUPS}, methods=("hc",))
    assert all("_hc_" in n for n in only_hc.names)


# ----------------------------------------------------------------------------- estimator
def test_cdepp_without_autoencoder_embeds_the_indicator(watermelon):
    est = CDEPlusPlus(encoder="none").fit(watermelon)
    stats = ValueStatistics.from_frame(watermelon)
    m_c, m_o = cde_influence_matrices(stats)
    h = hybrid_value_clusters({"M_o": m_o, "M_c": m_c}, epsilon=8)
    np.testing.assert_array_equal(est.value_clusters_.to_numpy(), h.indicator)
    np.testing.assert_array_equal(est.value_embedding_.to_numpy(), h.indicator)
    Z = est.transform(watermelon)
    assert Z.shape == (6, 3 * h.indicator.shape[1])
    # row A1 = clear, white, straight: its three value rows side by side
    vc = h.indicator.shape[1]
    np.testing.assert_array_equal(Z[0, :vc], h.indicator[1])  # clear is value 1
    assert list(est.get_feature_names_out()[:2]) == ["texture__cdepp0", "texture__cdepp1"]


@pytest.mark.parametrize("clustering", ["dbscan", "hc"])
def test_ablation_switches(clustering):
    ds = load_dataset("soybean_small")
    X = ds.frame[ds.categorical_columns]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = CDEPlusPlus(value_clustering=clustering, encoder="none").fit(X)
        full = CDEPlusPlus(encoder="none").fit(X)
    assert all(f"_{clustering}_" in n for n in est.value_clusters_.columns)
    assert set(est.granularity_steps_) == {f"M_o/{clustering}", f"M_c/{clustering}"}
    # the hybrid matrix holds every column of the single-clusterer one
    full_cols = {tuple(c) for c in full.value_clusters_.to_numpy().T}
    assert {tuple(c) for c in est.value_clusters_.to_numpy().T} <= full_cols


def test_cdepp_soybean_clusters_well():
    ds = load_dataset("soybean_small")
    X = ds.frame[ds.categorical_columns]
    y = ds.frame[ds.target].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = CDEPlusPlus(encoder="pca").fit_transform(X)
    scores = [f_score(y, matlab_kmeans(Z, 4, s)) for s in range(10)]
    assert np.mean(scores) > 0.8


def test_bad_parameters_raise():
    X = pd.DataFrame({"a": list("xxyy"), "b": list("uvuv")})
    with pytest.raises(CatEmbedError, match="epsilon"):
        CDEPlusPlus(epsilon=0).fit(X)
    with pytest.raises(CatEmbedError, match="linkage"):
        CDEPlusPlus(linkage="centroid", encoder="none").fit(X)
    with pytest.raises(CatEmbedError, match="encoder"):
        CDEPlusPlus(encoder="tsne").fit(X)


def test_save_load_roundtrip_without_autoencoder(tmp_path, watermelon):
    est = CDEPlusPlus(encoder="pca").fit(watermelon)
    save(est, tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.transform(watermelon), est.transform(watermelon))
    assert back.dbscan_eps_ == est.dbscan_eps_
    assert back.value_clusters_.equals(est.value_clusters_)


class _NoTorch:
    """A meta-path finder that makes ``import torch`` fail, as without the extra."""

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ImportError(f"No module named {name!r}")
        return None


def test_missing_torch_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [_NoTorch(), *sys.meta_path])
    with pytest.raises(CatEmbedError, match=r'pip install -e "\.\[deep\]"'):
        require_torch()
    X = pd.DataFrame({"a": list("xxyyzz"), "b": list("uvuvww")})
    with pytest.raises(CatEmbedError, match="PyTorch"):
        CDEPlusPlus(training="joint").fit(X)
    # the default (MATLAB-style layer-wise) training needs NumPy only
    assert CDEPlusPlus(max_epochs=5, random_state=0).fit(X).n_components_ >= 2


def test_code_size():
    assert code_size(95, 10) == 10
    assert code_size(100, 10) == 10
    assert code_size(101, 10) == 11
    assert code_size(5, 10) == 2
    assert code_size(7, 2) == math.ceil(7 / 2)


@parametrize_with_checks([CDEPlusPlus(encoder="none"), CDEPlusPlus(encoder="pca")])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ----------------------------------------------------------------------------- autoencoder
def _structured(n_rows=30, seed=0):
    """Rows that are noisy copies of three prototypes: learnable with a small code."""
    rng = np.random.default_rng(seed)
    protos = (rng.random((3, 20)) < 0.4).astype(float)
    X = protos[rng.integers(0, 3, n_rows)]
    flip = rng.random(X.shape) < 0.05
    return np.where(flip, 1 - X, X)


def test_autoencoder_learns_and_is_deterministic():
    pytest.importorskip("torch")
    from catembed.embed._autoencoder import train_autoencoder

    X = _structured()
    r1 = train_autoencoder(X, 3, max_epochs=60, random_state=0, sparsity_weight=0.1)
    r2 = train_autoencoder(X, 3, max_epochs=60, random_state=0, sparsity_weight=0.1)
    r3 = train_autoencoder(X, 3, max_epochs=60, random_state=1, sparsity_weight=0.1)
    before, after = r1.reconstruction_error
    assert after < 0.5 * before
    assert r1.loss_history[-1] < r1.loss_history[0]
    assert r1.codes.shape == (30, 3)
    assert np.all((r1.codes >= 0) & (r1.codes <= 1))  # sigmoid codes
    np.testing.assert_array_equal(r1.codes, r2.codes)
    assert not np.array_equal(r1.codes, r3.codes)
    assert 1 <= r1.n_epochs <= 60
    assert r1.weights["W1"].shape == (20, 64) and r1.weights["W2"].shape == (64, 3)
    adam = train_autoencoder(X, 3, max_epochs=60, optimizer="adam", random_state=0)
    assert adam.n_epochs == 60 and adam.reconstruction_error[1] < adam.reconstruction_error[0]


def test_autoencoder_device_errors():
    torch = pytest.importorskip("torch")
    from catembed.embed._autoencoder import train_autoencoder

    with pytest.raises(CatEmbedError, match="device"):
        train_autoencoder(np.eye(4), 2, max_epochs=2, device="tpu")
    if not torch.cuda.is_available():
        with pytest.raises(CatEmbedError, match="CUDA"):
            train_autoencoder(np.eye(4), 2, max_epochs=2, device="cuda")


def test_cdepp_with_autoencoder_is_deterministic(tmp_path):
    pytest.importorskip("torch")
    ds = load_dataset("lenses")
    X = ds.frame[ds.categorical_columns]
    a = CDEPlusPlus(max_epochs=40, random_state=3).fit(X)
    b = CDEPlusPlus(max_epochs=40, random_state=3).fit(X)
    vc = a.value_clusters_.shape[1]
    assert a.n_components_ == max(2, math.ceil(vc / 10))
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    assert a.transform(X).shape == (24, 4 * a.n_components_)
    assert a.reconstruction_error_[1] < 0.5 * a.reconstruction_error_[0]
    assert a.value_embedding_.std().max() > 0.1  # not the constant code
    save(a, tmp_path / "a.npz")
    back = load(tmp_path / "a.npz")
    np.testing.assert_array_equal(back.transform(X), a.transform(X))
    assert back.n_epochs_ == a.n_epochs_


def test_autoencoder_collapse_is_reported():
    # MATLAB's defaults (L2 weight 0.001, sparsity proportion 0.05) collapse the end-to-end
    # (training="joint") network on
    # Lenses (9 values): all values get
    # one vector and the reconstruction is the column means (error = mean column variance)
    pytest.importorskip("torch")
    ds = load_dataset("lenses")
    X = ds.frame[ds.categorical_columns]
    with pytest.warns(CatEmbedWarning, match="constant code"):
        est = CDEPlusPlus(max_epochs=40, random_state=3, l2_weight=0.001,
                          sparsity_proportion=0.05, training="joint",
                          optimizer="lbfgs").fit(X)
    C = est.value_clusters_.to_numpy()
    assert est.reconstruction_error_[1] == pytest.approx(C.var(axis=0).mean(), abs=1e-4)


def test_variants_cde_ae_and_onehot_ae():
    pytest.importorskip("torch")
    from catembed import CDE, CDEAutoencoder, OneHotAutoencoder

    ds = load_dataset("lenses")
    X = ds.frame[ds.categorical_columns]
    cde = CDE(random_state=5).fit(X)
    ae = CDEAutoencoder(random_state=5, max_epochs=30).fit(X)
    # the same value clusters as CDE with the same seed, then the autoencoder
    assert ae.value_clusters_.equals(cde.value_clusters_)
    assert ae.n_components_ == max(2, math.ceil(cde.value_clusters_.shape[1] / 10))
    oh = OneHotAutoencoder(random_state=0, max_epochs=30, hidden_factor=3).fit(X)
    assert oh.n_components_ == 3  # l = 9 values, ceil(9 / 3)
    assert oh.transform(X).shape == (24, 12)


def _ae_estimators():
    try:
        import torch  # noqa: F401
    except ImportError:
        return []
    from catembed import CDEAutoencoder, OneHotAutoencoder

    return [
        CDEPlusPlus(max_epochs=5, random_state=0),
        CDEAutoencoder(max_epochs=5, random_state=0),
        OneHotAutoencoder(max_epochs=5, random_state=0),
    ]


@pytest.mark.skipif(not _ae_estimators(), reason="torch not installed")
@parametrize_with_checks(_ae_estimators())
def test_sklearn_compatible_autoencoders(estimator, check):
    check(estimator)


# ----------------------------------------------------------------------------- MATLAB-style
def test_scaled_conjugate_gradient_solves_a_quadratic():
    from catembed.embed._scg import scaled_conjugate_gradient

    rng = np.random.default_rng(0)
    M = rng.normal(size=(6, 6))
    A = M @ M.T + 6 * np.eye(6)
    b = rng.normal(size=6)
    x, hist, n_iter = scaled_conjugate_gradient(lambda x: (0.5 * x @ A @ x - b @ x, A @ x - b),
                                                np.zeros(6), max_iter=200)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), atol=1e-6)
    assert hist[-1] == pytest.approx(-0.5 * b @ np.linalg.solve(A, b), abs=1e-10)
    assert np.all(np.diff(hist) <= 1e-12)  # never goes uphill
    assert n_iter < 200  # stopped on the gradient norm (min_grad = 1e-6)
    # Rosenbrock: a non-convex valley
    from scipy.optimize import rosen, rosen_der

    x, _, _ = scaled_conjugate_gradient(lambda x: (rosen(x), rosen_der(x)),
                                        np.array([-1.2, 1.0]), max_iter=1000)
    np.testing.assert_allclose(x, [1.0, 1.0], atol=1e-4)


def test_sparse_autoencoder_objective_value_and_gradient():
    from scipy.optimize import check_grad

    from catembed.embed._sparse_autoencoder import sparse_autoencoder_objective

    X = _structured(12)[:, :7]
    d, h, rho = 7, 4, 0.05
    # all weights and biases 0: every output is 1/2 and each hidden unit pays KL(rho || 1/2);
    # the squared error is summed over features and averaged over rows (the documented
    # formula), or averaged over all entries (mse_normalization="elements")
    zero = np.zeros(d * h + h + h * d + d)
    value, grad = sparse_autoencoder_objective(zero, X, h, 0.001, 1.0, rho)
    kl = rho * np.log(rho / 0.5) + (1 - rho) * np.log((1 - rho) / 0.5)
    assert value == pytest.approx(float(((0.5 - X) ** 2).sum(axis=1).mean()) + h * kl,
                                  rel=1e-12)
    per_entry = sparse_autoencoder_objective(zero, X, h, 0.001, 1.0, rho, "elements")[0]
    assert per_entry == pytest.approx(float(((0.5 - X) ** 2).mean()) + h * kl, rel=1e-12)
    # the L2 term: 1/2 * l2 * sum of squared weights, biases excluded
    theta = np.random.default_rng(1).normal(0, 0.5, zero.size)
    with_l2 = sparse_autoencoder_objective(theta, X, h, 0.01, 1.0, rho)[0]
    without = sparse_autoencoder_objective(theta, X, h, 0.0, 1.0, rho)[0]
    w = np.concatenate([theta[:d * h], theta[d * h + h:d * h + h + h * d]])
    assert with_l2 - without == pytest.approx(0.005 * (w ** 2).sum(), rel=1e-10)
    for norm in ("elements", "samples"):
        def f(t, norm=norm):
            return sparse_autoencoder_objective(t, X, h, 0.01, 1.0, rho, norm)

        err = check_grad(lambda t: f(t)[0], lambda t: f(t)[1], theta)
        assert err < 1e-5 * max(1.0, np.linalg.norm(f(theta)[1]))


def test_matlab_objective_scaling_and_row_weights():
    from scipy.optimize import check_grad

    from catembed.embed._sparse_autoencoder import sparse_autoencoder_objective

    X = _structured(12)[:, :7]
    d, h, rho = 7, 4, 0.05
    gain = np.array([1.0, 2.0, 1.0, 0.5, 1.0, 4.0, 1.0])  # ScaleData gains
    Xs = X * gain
    zero = np.zeros(d * h + h + h * d + d)
    # MATLAB's code: summed squared error in the data's units + N K * (L2 / K) + 2 N K *
    # (sparsity / K), all divided by the N K error entries
    kl = rho * np.log(rho / 0.5) + (1 - rho) * np.log((1 - rho) / 0.5)
    value = sparse_autoencoder_objective(zero, Xs, h, 0.001, 1.0, rho, "matlab", gain)[0]
    assert value == pytest.approx(float((((0.5 - Xs) / gain) ** 2).mean()) + 2 * h * kl / d,
                                  rel=1e-12)
    theta = np.random.default_rng(1).normal(0, 0.5, zero.size)
    w = np.concatenate([theta[:d * h], theta[d * h + h:d * h + h + h * d]])
    with_l2 = sparse_autoencoder_objective(theta, Xs, h, 0.01, 1.0, rho, "matlab", gain)[0]
    without = sparse_autoencoder_objective(theta, Xs, h, 0.0, 1.0, rho, "matlab", gain)[0]
    assert with_l2 - without == pytest.approx(0.01 * (w ** 2).sum() / d, rel=1e-10)
    # distinct rows weighted by their counts: the objective of the repeated table, exactly
    counts = np.array([1, 3, 1, 2, 1, 1, 2, 1, 1, 1, 4, 1])
    rep = np.repeat(Xs, counts, axis=0)
    for norm in ("matlab", "samples", "elements"):
        def f(t, norm=norm):
            return sparse_autoencoder_objective(t, Xs, h, 0.01, 1.0, rho, norm, gain, counts)

        full = sparse_autoencoder_objective(theta, rep, h, 0.01, 1.0, rho, norm, gain)
        assert f(theta)[0] == pytest.approx(full[0], rel=1e-12)
        np.testing.assert_allclose(f(theta)[1], full[1], rtol=1e-10, atol=1e-14)
        err = check_grad(lambda t: f(t)[0], lambda t: f(t)[1], theta)
        assert err < 1e-5 * max(1.0, np.linalg.norm(f(theta)[1]))


def test_sparse_autoencoder_scg_and_lbfgs_agree():
    from catembed.embed._sparse_autoencoder import train_sparse_autoencoder

    X = _structured(30)
    scg = train_sparse_autoencoder(X, 5, random_state=0)
    lbfgs = train_sparse_autoencoder(X, 5, random_state=0, optimizer="lbfgs")
    assert scg.loss_history[-1] < 0.5 * scg.loss_history[0]
    assert scg.loss_history[-1] == pytest.approx(lbfgs.loss_history[-1], rel=5e-3)
    assert scg.encode(X).shape == (30, 5)
    # MATLAB's ScaleData: inputs rescaled to [0, 1] per feature, constant features to 0
    Y = np.column_stack([X[:, 0] * 4 - 2, np.full(30, 3.0)])
    layer = train_sparse_autoencoder(Y, 2, max_epochs=3, random_state=0)
    scaled = (Y - layer.x_min) * layer.x_scale
    np.testing.assert_allclose(scaled[:, 0], X[:, 0])
    np.testing.assert_array_equal(scaled[:, 1], 0.0)


def test_stacked_autoencoder_is_layer_wise_and_deterministic():
    from catembed.embed._sparse_autoencoder import (
        stacked_reconstruction,
        train_sparse_autoencoder,
        train_stacked_autoencoder,
    )

    X = _structured(40)
    kw = {"l2_weight": 1e-5, "sparsity_proportion": 0.3, "max_epochs": 200}
    codes, layers = train_stacked_autoencoder(X, (16, 3), random_state=7, **kw)
    again, _ = train_stacked_autoencoder(X, (16, 3), random_state=7, **kw)
    other, _ = train_stacked_autoencoder(X, (16, 3), random_state=8, **kw)
    np.testing.assert_array_equal(codes, again)
    assert not np.array_equal(codes, other)
    assert codes.shape == (40, 3) and [la.W_enc.shape for la in layers] == [(20, 16), (16, 3)]
    # the second autoencoder is trained on the first one's codes, nothing else (each
    # distinct row once, weighted by its count)
    seeds = np.random.RandomState(7).randint(np.iinfo(np.int32).max, size=2)
    U, inverse, counts = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    assert len(U) < len(X)
    first = train_sparse_autoencoder(U, 16, random_state=seeds[0], sample_weight=counts,
                                     **kw)
    np.testing.assert_array_equal(first.W_enc, layers[0].W_enc)
    second = train_sparse_autoencoder(first.encode(U), 3, random_state=seeds[1],
                                      sample_weight=counts, **kw)
    np.testing.assert_array_equal(second.encode(first.encode(U))[inverse.ravel()], codes)
    # the stacked network reconstructs better than the column means
    rec = stacked_reconstruction(layers, X)
    assert ((rec - X) ** 2).mean() < 0.5 * X.var(axis=0).mean()


def test_cdepp_default_training_is_stacked_scg():
    ds = load_dataset("lenses")
    X = ds.frame[ds.categorical_columns]
    est = CDEPlusPlus(random_state=0).fit(X)
    assert (est.training, est.optimizer, est.l2_weight, est.sparsity_proportion,
            est.mse_normalization, est.encoder_used_) == (
        "stacked", "scg", 1e-5, 0.3, "matlab", "autoencoder")
    # the codes keep most of C: reconstruction well below the column means' error
    assert est.reconstruction_error_[1] < 0.3 * est.reconstruction_error_[0]
    assert est.value_embedding_.to_numpy().std(axis=0).max() > 0.1
    with pytest.raises(CatEmbedError, match="training='joint'"):
        CDEPlusPlus(device="cuda").fit(X)
    with pytest.raises(CatEmbedError, match="optimizer"):
        CDEPlusPlus(optimizer="adam").fit(X)
    with pytest.raises(CatEmbedError, match="training"):
        CDEPlusPlus(training="greedy").fit(X)


def test_collapsed_codes_fall_back_to_the_cluster_indicators(tmp_path):
    # MATLAB's default regulariser weights with MATLAB's scaling: the second autoencoder,
    # trained on the first one's sparse codes, reconstructs no better than the column means
    # (Lenses, 9 values); CDE++ then uses the rows of C (the encoder='none' ablation), warns,
    # and so is never the collapsed embedding
    ds = load_dataset("lenses")
    X = ds.frame[ds.categorical_columns]
    with pytest.warns(CatEmbedWarning, match="rows of the cluster indicator matrix"):
        est = CDEPlusPlus(random_state=0, l2_weight=0.001, sparsity_proportion=0.05).fit(X)
    C = est.value_clusters_.to_numpy()
    assert est.reconstruction_error_[0] == pytest.approx(C.var(axis=0).mean())
    assert est.reconstruction_error_[1] >= 0.9 * est.reconstruction_error_[0]
    assert est.encoder_used_ == "none" and est.n_components_ == C.shape[1]
    ablation = CDEPlusPlus(encoder="none").fit(X)
    np.testing.assert_array_equal(est.transform(X), ablation.transform(X))
    save(est, tmp_path / "fallback.npz")
    back = load(tmp_path / "fallback.npz")
    assert back.encoder_used_ == "none"
    np.testing.assert_array_equal(back.transform(X), est.transform(X))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CatEmbedWarning)
        ok = CDEPlusPlus(random_state=0).fit(X)
    assert ok.encoder_used_ == "autoencoder"
    assert ok.reconstruction_error_[1] < 0.5 * ok.reconstruction_error_[0]
    # CDE-AE has no indicator ablation to fall back to: it keeps the codes and warns
    with pytest.warns(CatEmbedWarning, match="no better than the column means"):
        CDEAutoencoder(random_state=0, l2_weight=0.001, sparsity_proportion=0.05).fit(X)
