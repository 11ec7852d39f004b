"""Latent class analysis (LCA): a mixture of independent categorical distributions, by EM.

The latent class model (Lazarsfeld & Henry 1968; Goodman 1974; the model ``stepmix`` and
``poLCA`` fit) says each object belongs to one of ``K`` hidden classes with probability
``pi_c``, and within a class the attributes are independent:

    ``P(x) = sum_c pi_c prod_j theta_{c j}(x_j)``.

EM (Dempster, Laird, Rubin 1977) alternates

* E-step: ``r_ic = pi_c prod_j theta_{cj}(x_ij) / P(x_i)`` (in logs, ``logsumexp``);
* M-step: ``pi_c = sum_i r_ic / n`` and ``theta_{cj}(v) = sum_i r_ic [x_ij = v] / sum_i r_ic``.

The steps are accelerated by squared extrapolation (SQUAREM, Varadhan & Roland 2008;
:func:`catembed.cluster._lca_em.squarem`, issue 55): where the likelihood is flat EM creeps
(Nursery, whose columns are independent: about 400 steps a start), the extrapolation takes
about a tenth as many and ends at least as high.

Both steps only see the value-indicator matrix ``O`` (``n x J``): the M-step's counts are
``R^T O``. Identical rows have identical responsibilities, so the rows are first reduced to
the distinct rows with their multiplicities (weights), and the E/M passes run over chunks
of ``chunk_size`` distinct rows, accumulating ``R^T O`` and the log-likelihood chunk by
chunk: memory is ``O(chunk_size K + K J)`` beyond the distinct rows themselves.

Missing values are a value of their own (``handle_missing="category"``), as everywhere in
catembed; ``stepmix`` (the test oracle) and ``poLCA`` can instead skip them (full-information
ML), which is not implemented here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._utils._errors import named
from .._utils._params import check_int, check_option, check_random_state_param
from .._utils._spelling import k_asked
from .._utils._validation import (
    CatEmbedError,
    as_frame,
    categorical_input_tags,
    check_table,
    is_dask_collection,
    is_frame,
    select_categorical,
)
from ..stats._encoding import encode, factorize_frame
from ..stats._profile_tests import relative_entropy
from ._lca_core import (  # noqa: F401  (re-exported: the tests read them here)
    _FLOOR,
    _PW_BLOCK,
    _add_columns,
    _log_joint_classes,
    _logsumexp_classes,
    _sum_over_rows,
)
from ._lca_em import DENSE_CELLS, dense_step, squarem

__all__ = ["LCA", "describe_classes", "lca_labels"]


class LCA(ClusterMixin, BaseEstimator):
    """Latent class analysis of a categorical table, by EM over chunks of distinct rows.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of latent classes ``K``.
    max_iter : int, default=1000
        EM steps per start (evaluations of the EM map: the extrapolated EM takes three a
        cycle).
    tol : float, default=1e-8
        Stop when a cycle improves the mean log-likelihood per row by less than this.
    n_init : int, default=20
        Starts; the one with the highest log-likelihood is kept. EM finds local optima: on
        Mushroom (K=2) single starts reach the best log-likelihood (-150986.3) rarely (none
        of 30 seeded single starts), 10 starts from seeds 0-2 reached it once in three, 20
        starts in all three (as stepmix's ``n_init=10`` did in two of three seeds, at about
        three times the time). Each start costs one EM run over the distinct rows.
    chunk_size : int, default=65536
        Distinct rows per E/M pass.
    random_state : int, RandomState or None
        Decides the starts: each start takes ``K`` distinct rows drawn with probability
        proportional to their multiplicity and sets ``theta_{cj} = (p_j + [v = x_j]) / 2``
        (the value frequencies pulled towards the drawn row), ``pi`` uniform.
    handle_missing : {"category", "error"}, default="category"
    categorical_features : "auto", "all", list or mask, default="all"
        The columns modelled (every column by default, numbers read as categories).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        The most probable class of each row (modal assignment). A lazy Dask Series (int64,
        the input's partitions and index) when ``X`` is a Dask DataFrame: the fit then runs
        partition by partition without gathering the rows (``docs/distributed.md``).
    weights_ : ndarray of shape (K,)
        Class probabilities ``pi``.
    probabilities_ : list of ndarray of shape (K, l_j)
        ``theta_{cj}(v)`` per attribute.
    log_likelihood_ : float
        Of the fitted model on the training table.
    n_iter_ : int
    converged_ : bool
    entropy_ : float
        The relative entropy of the classification on the training rows: 1 when each row's
        class is certain, 0 when every posterior is uniform
        (:func:`catembed.stats._profile_tests.relative_entropy`). The class-conditional
        probabilities and class shares as a tidy frame: :func:`~catembed.cluster.describe_classes`.
    categories_ : list of ndarray
    feature_names_ : list of str
    """

    def __init__(self, n_clusters: int = 2, *, max_iter: int = 1000, tol: float = 1e-8,
                 n_init: int = 20, chunk_size: int = 65536, random_state: Any = None,
                 handle_missing: str = "category", categorical_features: Any = "all") -> None:
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.chunk_size = chunk_size
        self.random_state = random_state
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features

    # ------------------------------------------------------------------ helpers
    def _check(self) -> None:
        check_option("handle_missing", self.handle_missing, ("category", "error"))
        for name in ("n_clusters", "max_iter", "n_init", "chunk_size"):
            check_int(name, getattr(self, name))
        check_random_state_param(self.random_state)
        if not (isinstance(self.tol, (int, float)) and self.tol >= 0):
            raise CatEmbedError(f"tol must be a non-negative number; got {self.tol!r}.")

    def _indicator(self, codes: np.ndarray) -> sp.csr_array:
        u, m = codes.shape
        cols = (codes + self._offsets[:-1][None, :]).ravel()
        rows = np.repeat(np.arange(u), m)
        return sp.csr_array((np.ones(u * m), (rows, cols)), shape=(u, int(self._offsets[-1])))

    def _log_joint(self, codes: np.ndarray, log_theta: np.ndarray, log_pi: np.ndarray
                   ) -> np.ndarray:
        """``log pi_c + sum_j log theta_{cj}(x_ij)`` for a chunk: shape (rows, K)."""
        return _add_columns(np.tile(log_pi, (len(codes), 1)), log_theta,
                            codes + self._offsets[:-1][None, :])

    def _stepper(self, codes: np.ndarray, weights: np.ndarray
                 ) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, float]]:
        """One EM step on the distinct rows ``codes`` of multiplicities ``weights``: a
        function of the probabilities ``(theta, pi)`` giving the new ones and the
        log-likelihood of the old. Dense indicators when they take at most
        :data:`DENSE_CELLS` cells (and ``chunk_size`` covers the rows), else chunks of
        ``chunk_size`` distinct rows (the same sums up to rounding)."""
        n = float(weights.sum())
        u = len(codes)
        step = int(self.chunk_size)
        offsets = self._offsets
        if u <= step and u * offsets[-1] <= DENSE_CELLS:
            OT = np.zeros((int(offsets[-1]), u))
            OT[codes + offsets[:-1][None, :], np.arange(u)[:, None]] = 1.0
            return lambda theta, pi: dense_step(OT, weights, n, theta, pi)
        chunks = [(s, min(s + step, u)) for s in range(0, u, step)]
        ind = [self._indicator(codes[a:b]).T for a, b in chunks]  # value x row, made once
        # the value indices, column by column (each row of gT one attribute), made once
        gts = [np.ascontiguousarray((codes[a:b] + offsets[:-1][None, :]).T)
               for a, b in chunks]

        def chunked(theta: np.ndarray, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
            log_theta = np.log(np.maximum(theta, _FLOOR))
            log_pi = np.log(np.maximum(pi, _FLOOR))
            counts = np.zeros_like(log_theta)
            ll = 0.0
            for (a, b), O, gT in zip(chunks, ind, gts, strict=True):
                lj = _log_joint_classes(gT, log_theta, log_pi)  # K x rows
                lse = _logsumexp_classes(lj)
                ll += float(weights[a:b] @ lse)
                R = np.exp(lj - lse) * weights[a:b]
                counts += np.asarray(O @ np.ascontiguousarray(R.T)).T
            nk = counts.sum(axis=1) / len(gts[0])  # every column's counts sum to nk
            return counts / np.maximum(nk, _FLOOR)[:, None], nk / n, ll

        return chunked

    def _init(self, codes: np.ndarray, weights: np.ndarray, rs: np.random.RandomState
              ) -> tuple[np.ndarray, np.ndarray]:
        K = int(self.n_clusters)
        if len(codes) < K:
            raise CatEmbedError(
                f"the table has only {len(codes)} distinct row(s), fewer than "
                f"{k_asked(K)}; use fewer classes."
            )
        rows = rs.choice(len(codes), size=K, replace=False, p=weights / weights.sum())
        J = int(self._offsets[-1])
        p = np.zeros(J)
        g = codes + self._offsets[:-1][None, :]
        for j, (a, b) in enumerate(zip(self._offsets[:-1], self._offsets[1:], strict=True)):
            p[a:b] += np.bincount(codes[:, j], weights=weights, minlength=int(b - a))  # own
        p /= weights.sum()  # values only: m x J work was 22 of 37 s on 30 x 20,000
        theta = np.tile(p, (K, 1))
        for c, r in enumerate(rows):
            theta[c, g[r]] += 1.0
        theta /= 2.0
        return np.log(np.maximum(theta, _FLOOR)), np.full(K, -np.log(K))

    def _categorical_columns(self, df: Any) -> list:
        """The columns modelled (``categorical_features`` of ``df``, a pandas frame or a Dask
        frame's meta); the library's error where that leaves a column out. Shared by
        :meth:`fit` and the Dask fit."""
        cat, other = select_categorical(df, self.categorical_features)
        if other:
            raise CatEmbedError(
                f"LCA models categorical columns only; {named(other)} "
                "are not; discretise them or pass categorical_features='all'."
            )
        return cat

    # ------------------------------------------------------------------ API
    def fit(self, X: Any, y: Any = None) -> LCA:
        """Fit the latent class model to the rows of ``X``."""
        self._check()
        if is_dask_collection(X):  # partition by partition (docs/distributed.md)
            from ._dask_fit import fit_lca_dask

            return fit_lca_dask(self, X)
        df = as_frame(X)
        check_table(self, df, reset=True)
        cat = self._categorical_columns(df)
        self.n_features_in_ = df.shape[1]
        if is_frame(X):
            self.feature_names_in_ = np.asarray(df.columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_  # a refit on an array: no stale names
        self.feature_names_ = [str(c) for c in cat]
        codes, self.categories_ = factorize_frame(df, cat, self.handle_missing)
        codes = codes.astype(np.int64, order="C")
        self._offsets = np.concatenate([[0], np.cumsum([len(c) for c in self.categories_])]
                                       ).astype(np.int64)
        uniq, inverse, counts = np.unique(codes, axis=0, return_inverse=True,
                                          return_counts=True)
        weights = counts.astype(np.float64)
        rs = check_random_state(self.random_state)
        starts = [self._init(uniq, weights, rs) for _ in range(int(self.n_init))]
        step = self._stepper(uniq, weights)  # EM with squared extrapolation (SQUAREM)
        runs = [squarem(step, self._offsets, lt, lp, int(self.max_iter), float(self.tol),
                        float(weights.sum())) for lt, lp in starts]
        self._keep_best(runs)
        resp_u = self._posterior(uniq)
        self.labels_ = np.argmax(resp_u, axis=1)[inverse.ravel()]
        self.entropy_ = relative_entropy(resp_u, weights)
        return self

    def _keep_best(self, runs: Any) -> None:
        """Keep the EM run of highest log-likelihood (the first of equals) among ``runs``
        (:func:`squarem` results, a list or lazily computed): its parameters and the fitted
        attributes they give. Shared by :meth:`fit` and the Dask fit."""
        best = None
        for res in runs:
            if best is None or res[2] > best[2]:
                best = res
        log_theta, log_pi, ll, n_iter, converged = best
        self._log_theta, self._log_pi = log_theta, log_pi
        self.weights_ = np.exp(log_pi)
        self.probabilities_ = [np.exp(log_theta[:, self._offsets[j]:self._offsets[j + 1]])
                               for j in range(len(self._offsets) - 1)]
        self.log_likelihood_ = ll
        self.n_iter_ = n_iter
        self.converged_ = converged

    def _posterior(self, codes: np.ndarray) -> np.ndarray:
        out = np.empty((len(codes), int(self.n_clusters)))
        step = int(self.chunk_size)
        for a in range(0, len(codes), step):
            lj = self._log_joint(codes[a:a + step], self._log_theta, self._log_pi)
            out[a:a + step] = np.exp(lj - logsumexp(lj, axis=1)[:, None])
        return out

    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior class probabilities of each row (an unseen value leaves its attribute
        out of the product)."""
        check_is_fitted(self, "weights_")
        df = as_frame(X, columns=list(getattr(self, "feature_names_in_", [])) or None)
        check_table(self, df, reset=False)
        codes = encode(df, self.feature_names_, self.categories_, self.handle_missing)
        unknown = codes < 0
        J = int(self._offsets[-1])
        log_theta = np.hstack([self._log_theta, np.zeros((len(self._log_pi), 1))])
        g = np.where(unknown, J, codes + self._offsets[:-1][None, :])
        lj = _add_columns(np.tile(self._log_pi, (len(codes), 1)), log_theta, g)
        return np.exp(lj - logsumexp(lj, axis=1)[:, None])

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class of each row (of a Dask DataFrame: a lazy Dask Series,
        partition by partition)."""
        if is_dask_collection(X):
            from ._dask_fit import predict_dask

            check_is_fitted(self, "weights_")
            return predict_dask(self, X)
        return np.argmax(self.predict_proba(X), axis=1)

    def __sklearn_tags__(self):  # noqa: D105
        return categorical_input_tags(super().__sklearn_tags__())


def lca_labels(X: Any, n_clusters: int, *, random_state: Any = None, n_bins: int = 5,
               **params: Any) -> np.ndarray:
    """Labels of one :class:`LCA` fit (the evaluation protocol's ``labels`` hook).

    One start seeded by ``random_state`` (``n_init=1``, unless given: the protocol's runs
    are the starts). Categorical (text) columns as they are; numeric
    columns of a mixed table cut into ``n_bins`` quantile bins first, as the embedders'
    ``numeric="discretize"`` does.
    """
    from ..stats._numeric import bin_numbers

    df = as_frame(X)
    num = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c].dtype)
           and not pd.api.types.is_bool_dtype(df[c].dtype)]
    if num:
        df = df.copy()
        for c in num:
            df[c] = bin_numbers(df[c].to_numpy(dtype=np.float64), n_bins)
    params.setdefault("n_init", 1)
    return LCA(n_clusters=n_clusters, random_state=random_state, **params).fit(df).labels_


def describe_classes(model: Any) -> pd.DataFrame:
    """A fitted :class:`~catembed.cluster.LCA`'s classes as latent class users read them.

    One row per class and value: ``cluster``, ``share`` (the class share ``pi_c``,
    ``weights_``), ``column``, ``value``, ``probability`` (the class-conditional probability
    ``theta_cj(v)``, ``probabilities_``), ``overall`` (the model's ``P(v) = sum_c pi_c
    theta_cj(v)``) and ``lift`` (their ratio); classes in order, each column's values in
    the model's order. The model's ``entropy_`` (relative entropy of the classification)
    is in the frame's ``attrs["entropy"]``.
    """
    check_is_fitted(model, ["weights_", "probabilities_"])
    pi = np.asarray(model.weights_, dtype=np.float64)
    frames = []
    for name, cats, theta in zip(model.feature_names_, model.categories_,
                                 model.probabilities_, strict=True):
        theta = np.asarray(theta, dtype=np.float64)
        overall = pi @ theta
        k, l = theta.shape
        frames.append(pd.DataFrame({
            "cluster": np.repeat(np.arange(k), l), "share": np.repeat(pi, l),
            "column": str(name), "value": np.tile(np.asarray(cats, dtype=object).astype(str), k),
            "probability": theta.ravel(), "overall": np.tile(overall, k),
            "lift": (theta / np.where(overall > 0, overall, np.nan)).ravel()}))
    out = pd.concat(frames, ignore_index=True).sort_values("cluster", kind="stable")
    out = out.reset_index(drop=True)
    out.attrs["entropy"] = float(getattr(model, "entropy_", np.nan))
    return out
