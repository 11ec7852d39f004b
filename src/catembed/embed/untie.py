r"""UNTIE: unsupervised heterogeneous coupling learning (Zhu, Cao, Yin), the estimator.

Paper: Zhu, Cao, Yin, *Unsupervised Heterogeneous Coupling Learning for Categorical
Representation* (UNTIE), Sections 4-5; method spec ``docs/methods.md`` section 3.

Coupling spaces (Eqs. 1-5), from the statistics alone: for attribute ``j``, the intra space maps
a value ``v`` to ``[p(v)]`` and the inter space to ``[p(v | u)]`` for every value ``u`` of every
other attribute. Each of the ``2m`` spaces goes through a bank of kernels (Eq. 7; default 11
Gaussian ``exp(-g ||a - b||^2)``, ``g = 2^-5 .. 2^5``, and ``(a . b)^d``, ``d = 1, 2, 3``,
each cosine-normalised), giving ``l_j x l_j`` matrices ``K_p``. With diagonal weights
``omega_p >= 0`` the object vector is (Eq. 21)
``x_i = concat_p sqrt(omega_p) * K_p[v_i^{j(p)}, :]`` and the similarity (Eqs. 13, 18) is
``S = X X^T``. UNTIE minimises Eq. 20, ``Tr(S (I - H H^T))`` over ``H`` (``n x c``,
``H^T H = I``) and ``omega``.

The steps of ``fit``, each in its own module:

1. the coupling spaces and the kernel bank (:mod:`catembed.embed._untie_spaces`);
2. the Eq. 20 objective in value-level form, exact at any number of rows
   (:mod:`catembed.embed._untie_objective`, with the derivation);
3. the weight learning, the omega step and its exact and sgd solvers
   (:mod:`catembed.embed._untie_solvers`);
4. the choice of ``c`` and of the temperature without labels, and the refusal of degenerate
   weights (:mod:`catembed.embed._untie_selection`);
5. the weighted value tables (Eq. 21) and their principal components
   (:mod:`catembed.transform._projection`).

The "Couplings" ablation (coupling spaces, no kernels) is :mod:`catembed.embed.couplings`;
the Table IV protocol (UNTIE, then k-means) is :mod:`catembed.evaluation.untie_protocol`.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .._utils._params import check_int, check_option, check_positive
from .._utils._validation import CatEmbedError, CatEmbedWarning
from ..base import ValueEmbedder
from ..stats._encoding import encode
from ..stats._value_statistics import ValueStatistics
from ..transform._projection import object_pca_dense
from ._untie_objective import ValueLevelProblem, fit_cost, small_problem_threads
from ._untie_selection import choose_weights
from ._untie_solvers import energy_ratio, energy_rescaled, regularised_objective
from ._untie_spaces import DEFAULT_KERNELS, kernel_spaces, parse_kernels, tied_attributes
from .couplings import _SHARED_DOC

__all__ = ["DEFAULT_KERNELS", "UNTIE"]

class UNTIE(ValueEmbedder):
    """UNTIE heterogeneous coupling learning (Zhu, Cao, Yin; Eqs. 1-22), exact at any size.

    See the module docstring for the derivation of the value-level solver and the choice of
    the omega step.

    Parameters
    ----------
    n_clusters : int or None, default=None
        ``c``, the number of eigenvectors in ``H`` (the paper uses the number of classes).
        ``None``: the number of distinct labels when ``fit`` gets ``y``, otherwise the largest
        eigengap ``lambda_k - lambda_{k+1}`` (``2 <= k <= 20``) of the value-level spectrum
        of ``S`` at ``omega = 1``.
    kernels : list of str or None, default=None
        The kernel bank (UNTIE Table VI varies it): ``"gaussian:<g>"`` and ``"poly:<d>"``.
        ``None``: 11 Gaussian kernels ``g = 2^-5 .. 2^5`` and polynomial orders 1-3.
    solver : {"exact", "sgd"}, default="exact"
        ``"exact"``: entropy-regularised omega step, solved by block-coordinate descent to
        convergence on value-level matrices. ``"sgd"``: the paper's Adam recipe on row
        batches (needs ``fit(X)``, not ``fit_statistics``).
    temperature : float or "auto", default="auto"
        Entropy weight ``tau`` of the exact omega step: weights are proportional to
        ``exp(-r_d / temperature)``, ``r_d`` the share (0..1) of coordinate ``d``'s energy
        outside the cluster subspace. Large (above 3 or so): weights stay near 1; small:
        weight concentrates on the coordinates the clusters explain best. ``"auto"``: the
        one of 0.01, 0.03, 0.1, 0.3, 1, 3 and ``inf`` (``omega = 1``) with the largest gap
        statistic against shuffled columns (see the module docstring); no labels are used.
        (Before this version the temperature was in units of the mean residual, and
        ``"auto"`` tried 0.3 to 100.)
    centered : bool, default=True
        ``True``: every cluster-indicator ``H = Z L^{1/2}`` spans the constant vector, so
        ``H`` is the constant vector plus the top ``c - 1`` eigenvectors of the centred
        kernel ``J S J`` (``J = I - 1 1^T / n``; value-level through ``C - n p p^T``): the
        objective ignores the mean of the vectors, as k-means does. ``False``: Eq. 20 as
        printed, ``H`` = the top ``c`` eigenvectors of ``S``.
    tied_values : {"identity", "keep"}, default="identity"
        Values of one attribute that the coupling spaces cannot tell apart (same frequency,
        same co-occurrences): give the attribute one more kernel space, the identity
        kernel, so that they differ, or keep the paper's spaces. Both warn.
    scale : {"none", "attribute"}, default="none"
        ``"none"``: the spaces as the paper and spec build them, where an attribute's share
        of the energy grows with its number of values. ``"attribute"``: equal energy per
        attribute (:func:`~catembed.embed._untie_spaces.scale_spaces`, from the counts):
        it mends the near-collapse on tables whose many-valued attributes hide the groups,
        but lowers Table IV's count within 0.03 from 12 to 10 of 20 (``docs/reproducing.md``,
        "UNTIE's scale"), so it is an option, not the default.
    max_iter : int or None, default=None
        Alternations for ``"exact"`` (default 100) or Adam steps for ``"sgd"`` (default 1000).
    tol : float, default=1e-8
        Relative change of the objective that stops the exact solver.
    learning_rate : float, default=1e-3
        Adam step size (``"sgd"``).
    batch_size : int, default=20
        Rows per Adam step (``"sgd"``).
    n_components : int, "all" or None, default=None
        ``None``: ``transform`` returns the Eq. 21 vectors (``D = 2 |F| l`` columns, e.g.
        28 per value with the default bank: 2,856 on Adult, 22 GiB at a million rows).
        An int: the top principal components of those vectors, computed from the
        statistics, a width independent of ``|V|`` (``n_components=16``: 1M rows of Adult
        give 122 MiB of float64). ``"all"``: every component with non-zero
        variance (at most ``l``), which keeps all Euclidean distances, so k-means or nearest
        neighbours give the same results as on the full vectors.
    random_state : int, RandomState or None, default=None
        Only the ``"sgd"`` solver draws random numbers.
    min_frequency : int, float or None, default=None
        Values seen fewer than ``min_frequency`` times (a float: a fraction of the rows)
        are pooled into one ``infrequent`` value per column (scikit-learn's
        ``OneHotEncoder`` meaning), in the statistics, with a warning; at transform the
        pooled values get the infrequent value's vector.
    max_categories : int or None, default=100
        At most this many values per column (the infrequent value included); the least
        frequent are pooled.
        Default 100 (cost quadratic in the number of values: ``l x l`` matrices or per
        column tables); every data set of the papers has at most 41 values per column, so
        their results are unchanged.
    {shared}
    Attributes
    ----------
    omega_ : ndarray of shape (D,)
        The learned diagonal weights, space by space (attribute-major: intra kernels, then
        inter kernels).
    kernel_weights_ : pandas.Series
        Mean ``omega`` per kernel space, indexed by (attribute, coupling, kernel).
    n_clusters_ : int
    objective_ : float
        ``F`` at the learned weights (see the module docstring).
    kmeans_objective_ : float
        ``Tr(S (I - H H^T))`` at the learned weights (rescaled so that ``Tr(S)`` equals
        that of ``omega = 1``) and optimal ``H``.
    energy_ratio_ : float
        ``kmeans_objective_ / Tr(S)``: share of the kernel energy outside the top-c
        subspace (scale-free).
    objective_path_ : list of float
        ``F`` after each alternation (exact) or the batch loss per step (sgd).
    n_iter_ : int
    tau_ : float
        Entropy weight used (``inf`` when ``"auto"`` chose ``omega = 1``); for ``"sgd"`` the
        entropy weight its ``objective_`` is reported with (temperature 1 when ``"auto"``).
    temperature_ : float
        The temperature used (``inf``: ``omega = 1``).
    temperature_scores_ : list of (float, float)
        ``(temperature, gap statistic)`` of every candidate tried by ``"auto"``.
    gap_, uniform_gap_ : float
        Gap statistic of the final weights and of ``omega = 1``.
    fallback_ : bool
        ``True`` when the learned weights scored below ``omega = 1`` and were replaced.
    components_ : ndarray of shape (D, n_components), only when ``n_components`` is set.
    explained_variance_ : ndarray, only when ``n_components`` is set.
    """

    _feature_prefix = "untie"
    _combine = "concat"
    _own_n_components = True
    _compact_dtype = np.float64  # n_components="all" promises the exact Eq. 21 distances

    def __init__(
        self,
        *,
        n_clusters: int | None = None,
        kernels: Any = None,
        solver: str = "exact",
        temperature: Any = "auto",
        centered: bool = True,
        tied_values: str = "identity",
        scale: str = "none",
        max_iter: int | None = None,
        tol: float = 1e-8,
        learning_rate: float = 1e-3,
        batch_size: int = 20,
        n_components: Any = None,
        random_state: Any = None,
        min_frequency: int | float | None = None,
        max_categories: int | None = 100,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        numeric: str = "drop",
        n_bins: int = 5,
        dtype: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.kernels = kernels
        self.solver = solver
        self.temperature = temperature
        self.centered = centered
        self.tied_values = tied_values
        self.scale = scale
        self.max_iter = max_iter
        self.tol = tol
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.n_components = n_components
        self.random_state = random_state
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.numeric = numeric
        self.n_bins = n_bins
        self.dtype = dtype

    # ------------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any = None) -> UNTIE:
        """Count the statistics of ``X`` and learn the UNTIE embedding.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Labels; only their number of distinct values is used, as ``n_clusters`` when
            that is ``None`` (the paper's setting).

        Returns
        -------
        self
        """
        self._fit_rows = X if self.solver == "sgd" else None
        self._fit_n_classes = None
        if y is not None:
            labels = pd.Series(np.asarray(y).ravel())
            self._fit_n_classes = int(labels.nunique(dropna=True))
        try:
            return super().fit(X, y)
        finally:
            del self._fit_rows, self._fit_n_classes

    def _check_params(self) -> None:
        super()._check_params()
        check_option("solver", self.solver, ("exact", "sgd"))
        check_option("tied_values", self.tied_values, ("identity", "keep"))
        check_option("scale", self.scale, ("none", "attribute"))
        parse_kernels(self.kernels)
        check_int("n_clusters", self.n_clusters, allow_none=True)
        check_int("max_iter", self.max_iter, allow_none=True)
        check_int("batch_size", self.batch_size, minimum=2)
        names = ("tol", "learning_rate")
        if not (isinstance(self.temperature, str) and self.temperature == "auto"):
            names = ("temperature",) + names
        for name in names:
            val = getattr(self, name)
            if name == "temperature":  # the message names the other choice
                if not isinstance(val, numbers.Real) or isinstance(val, bool) or not val > 0:
                    raise CatEmbedError(f"{name} must be a positive number or 'auto'; got {val!r}.")
            else:
                check_positive(name, val)
        if self.n_components is not None and self.n_components != "all":
            check_int("n_components", self.n_components, extra=" or 'all' or None")

    def _cost_cells(self, sizes: np.ndarray) -> float:  # measured: see fit_cost
        return fit_cost(sizes)[0]

    def _cost_seconds(self, sizes: np.ndarray) -> float:
        return fit_cost(sizes)[1]

    def _fit_values(self, stats: ValueStatistics) -> list[np.ndarray]:
        kernels = parse_kernels(self.kernels)
        tied = tied_attributes(stats, warn=self.tied_values)
        spaces = kernel_spaces(
            stats, kernels, identity_for=tied if self.tied_values == "identity" else (),
            scale=self.scale,
        )
        problem = ValueLevelProblem(stats, spaces, centered=bool(self.centered))
        null = ValueLevelProblem(stats, spaces, centered=bool(self.centered), null=True)
        with small_problem_threads(max(problem.rank, null.rank)):
            return self._solve(stats, spaces, problem, null)

    def _solve(self, stats: ValueStatistics, spaces: list, problem: ValueLevelProblem,
               null: ValueLevelProblem) -> list[np.ndarray]:
        """Choose ``c`` and the weights, then the weighted value tables (Eq. 21)."""
        rows = getattr(self, "_fit_rows", None)
        sgd_rows = None
        if rows is not None and self.solver == "sgd":
            def sgd_rows():
                codes = self._fit_codes(rows, stats)
                blocks = [np.hstack([s.K for s in spaces if s.attribute == j])
                          for j in range(stats.n_features)]

                def row_vectors(idx: np.ndarray) -> np.ndarray:
                    return np.hstack([blocks[j][codes[idx, j]] for j in range(len(blocks))])

                return row_vectors, codes.shape[0]

        choice = choose_weights(
            problem, null, n_clusters=self.n_clusters or getattr(self, "_fit_n_classes", None),
            centered=bool(self.centered), solver=self.solver, temperature=self.temperature,
            max_iter=self.max_iter, tol=self.tol, n_spaces=len(spaces), sgd_rows=sgd_rows,
            learning_rate=self.learning_rate, batch_size=self.batch_size,
            random_state=self.random_state,
        )
        c = self.n_clusters_ = choice.n_clusters
        self.temperature_ = choice.temperature
        self.temperature_scores_ = choice.temperature_scores
        tau = self.tau_ = choice.tau
        self.objective_path_ = choice.path
        self.sgd_objective_ = choice.sgd_objective
        self.n_iter_ = choice.n_iter
        self.gap_, self.uniform_gap_ = choice.gap, choice.uniform_gap
        self.fallback_ = choice.fallback
        w = self.omega_ = choice.w
        w_unit = energy_rescaled(problem, w)
        self.objective_ = (regularised_objective(problem, w, c, tau) if np.isfinite(tau)
                           else problem.objective(w_unit, c))
        self.kmeans_objective_ = problem.objective(w_unit, c)
        self.energy_ratio_ = energy_ratio(problem, w_unit, c)
        self._space_of = problem.space_of
        self._space_names = [
            (str(stats.feature_names[s.attribute]), s.coupling, s.kernel) for s in spaces
        ]
        sqrt_w = np.sqrt(w)
        tables = []
        start = 0
        for j in range(stats.n_features):
            mats = [s.K for s in spaces if s.attribute == j]
            T = np.hstack(mats)
            tables.append(T * sqrt_w[start:start + T.shape[1]])
            start += T.shape[1]
        self._fit_projection(stats, tables)
        return tables

    def _fit_codes(self, rows: Any, stats: ValueStatistics) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = self._validate_input(rows, reset=False)
        df = self._apply_numeric(df)
        return encode(df, list(stats.feature_names), stats.categories, self.handle_missing)

    def _fit_projection(self, stats: ValueStatistics, tables: list[np.ndarray]) -> None:
        """Principal axes of the Eq. 21 vectors from the statistics (no rows needed)."""
        self._proj_tables = None
        if self.n_components is None:
            return
        k = None if self.n_components == "all" else int(self.n_components)
        comps, mean, var, rank = object_pca_dense(stats, tables, k)
        if k is not None and k > rank:
            warnings.warn(
                f"n_components={k} exceeds the number of components with non-zero "
                f"variance ({rank}); the extra components are 0.",
                CatEmbedWarning, stacklevel=5,
            )
        self.components_ = comps
        self.explained_variance_ = var
        self.mean_ = mean
        self._set_proj_tables(tables)

    def _set_proj_tables(self, tables: list[np.ndarray]) -> None:
        widths = np.cumsum([0] + [T.shape[1] for T in tables])
        self._proj_tables = [T @ self.components_[widths[j]:widths[j + 1]]
                             for j, T in enumerate(tables)]
        self._proj_offset = self.mean_ @ self.components_

    # ------------------------------------------------------------------ outputs
    def _transform_codes(self, codes: np.ndarray, df: pd.DataFrame) -> np.ndarray:
        if getattr(self, "_proj_tables", None) is None:
            return self._lookup(codes)
        out = np.tile(-self._proj_offset, (codes.shape[0], 1))
        for j, P in enumerate(self._proj_tables):
            padded = np.vstack([P, np.zeros((1, P.shape[1]))])
            c = codes[:, j]
            out += padded[np.where(c < 0, len(P), c)]
        return out

    def _embedding_names(self) -> list[str]:
        if getattr(self, "_proj_tables", None) is not None:
            return [f"{self._feature_prefix}{k}" for k in range(self.components_.shape[1])]
        return super()._embedding_names()

    @property
    def kernel_weights_(self) -> pd.Series:
        """Mean learned ``omega`` of each kernel space, by (attribute, coupling, kernel)."""
        check_is_fitted(self, "omega_")
        n_spaces = len(self._space_names)
        sums = np.bincount(self._space_of, weights=self.omega_, minlength=n_spaces)
        sizes = np.bincount(self._space_of, minlength=n_spaces)
        index = pd.MultiIndex.from_tuples(self._space_names,
                                          names=["attribute", "coupling", "kernel"])
        return pd.Series(sums / np.maximum(sizes, 1), index=index, name="omega")

    def similarity(
        self, X: Any, Y: Any = None, *, max_entries: int = 100_000_000
    ) -> np.ndarray:
        """The UNTIE similarity (Eqs. 13, 18) between the rows of ``X`` and ``Y``.

        ``s(o_i, o_k) = sum_p K_p[v_i, :] omega_p K_p[v_k, :]^T = x_i . x_k``, computed as a
        sum over attributes of ``l_j x l_j`` value similarity tables
        ``G_j = T_j T_j^T`` (``T_j`` the weighted value table), block by block: the Eq. 21
        vectors are never formed. Unseen values contribute 0.

        Parameters
        ----------
        X : table of shape (n_x, n_features)
        Y : table of shape (n_y, n_features), optional
            Default ``X`` (the full ``n_x x n_x`` kernel matrix, if you ask for it).
        max_entries : int, default=10**8
            Refuse outputs with more entries than this (800 MB of float64).

        Returns
        -------
        ndarray of shape (n_x, n_y)
        """
        check_is_fitted(self, "_tables")
        cx = self._codes_of(X)
        cy = cx if Y is None else self._codes_of(Y)
        if cx.shape[0] * cy.shape[0] > max_entries:
            raise CatEmbedError(
                f"the similarity matrix would have {cx.shape[0]} x {cy.shape[0]} entries, "
                f"more than max_entries={max_entries}; pass a smaller X or Y (blocks), or "
                "raise max_entries."
            )
        out = np.zeros((cx.shape[0], cy.shape[0]))
        step = max(1, 4_000_000 // max(cy.shape[0], 1))
        for j, T in enumerate(self._tables):
            G = np.zeros((T.shape[0] + 1, T.shape[0] + 1))
            G[:-1, :-1] = T @ T.T
            ix = np.where(cx[:, j] < 0, T.shape[0], cx[:, j])
            iy = np.where(cy[:, j] < 0, T.shape[0], cy[:, j])
            for s in range(0, cx.shape[0], step):
                out[s:s + step] += G[np.ix_(ix[s:s + step], iy)]
        return out

    def _codes_of(self, X: Any) -> np.ndarray:
        df = self._validate_input(X, reset=False)
        df = self._apply_numeric(df)
        return self._encode(df)

    # ------------------------------------------------------------------ persistence
    def _extra_state(self):
        arrays = {"omega": self.omega_, "space_of": self._space_of}
        if getattr(self, "_proj_tables", None) is not None:
            arrays.update(components=self.components_, mean=self.mean_,
                          explained_variance=self.explained_variance_)
        meta = {
            "space_names": [list(t) for t in self._space_names],
            "n_clusters": self.n_clusters_,
            "objective": self.objective_,
            "kmeans_objective": self.kmeans_objective_,
            "energy_ratio": self.energy_ratio_,
            "objective_path": [_json_float(v) for v in self.objective_path_],
            "n_iter": self.n_iter_,
            "tau": _json_float(self.tau_),
            "sgd_objective": self.sgd_objective_,
            "gap": _json_float(self.gap_),
            "uniform_gap": _json_float(self.uniform_gap_),
            "fallback": bool(self.fallback_),
            "temperature": _json_float(self.temperature_),
            "temperature_scores": [[_json_float(t), _json_float(r)]
                                   for t, r in self.temperature_scores_],
        }
        return arrays, meta

    def _restore_extra_state(self, arrays, meta):
        self.omega_ = np.asarray(arrays["omega"], dtype=float)
        self._space_of = np.asarray(arrays["space_of"], dtype=np.int64)
        self._space_names = [tuple(t) for t in meta["space_names"]]
        self.n_clusters_ = int(meta["n_clusters"])
        self.objective_ = float(meta["objective"])
        self.kmeans_objective_ = float(meta["kmeans_objective"])
        self.energy_ratio_ = float(meta["energy_ratio"])
        self.objective_path_ = [float(v) for v in meta["objective_path"]]
        self.n_iter_ = int(meta["n_iter"])
        self.tau_ = float(meta["tau"])
        self.sgd_objective_ = meta["sgd_objective"]
        self.gap_ = float(meta.get("gap", float("nan")))
        self.uniform_gap_ = float(meta.get("uniform_gap", float("nan")))
        self.fallback_ = bool(meta.get("fallback", False))
        self.temperature_ = float(meta.get("temperature", float("nan")))
        self.temperature_scores_ = [tuple(float(v) for v in x)
                                    for x in meta.get("temperature_scores", [])]
        self._proj_tables = None
        if "components" in arrays:
            self.components_ = np.asarray(arrays["components"], dtype=float)
            self.mean_ = np.asarray(arrays["mean"], dtype=float)
            self.explained_variance_ = np.asarray(arrays["explained_variance"], dtype=float)
            self._set_proj_tables(self._tables)


def _json_float(v: float) -> float | str:
    """A float for a model file's JSON header: ``inf`` (uniform weights' temperature) and
    ``nan`` as the strings ``float()`` reads back."""
    v = float(v)
    return v if np.isfinite(v) else str(v)


UNTIE.__doc__ = UNTIE.__doc__.replace("{shared}", _SHARED_DOC.strip("\n").lstrip() + "\n")
