"""A label-free consensus of several catembed representations (issue 26).

Which representation clusters a categorical table best changes from table to table.
:class:`Consensus` fits a small portfolio of them from one pass of value statistics and
combines their k-means partitions without labels and without an ``n x n`` matrix:

1. Count the table once (:func:`catembed.stats.compute_statistics`) and encode its rows once.
2. Fit every member from those statistics (``fit_statistics``) with a compact output of
   ``member_components`` axes; embed the rows (a table lookup, no second counting pass).
3. Per member, ``n_init`` k-means runs, each on its own resample of the rows (at most
   ``sample_size`` rows), each then labelling every row by its nearest centre.
4. A member's weight is its *agreement* with the other members: the mean adjusted Rand
   index between its runs and theirs (label-free: the runs are only compared with each
   other), raised to ``weight_power`` (``0``: equal weights). Its *stability* (the mean ARI
   between its own runs) is reported; ``weights="stability"`` weights by it, the rule of
   issue 26, which gave a perfectly stable one-column split half the weight (issue 38).
5. Combination (``combine``). ``"concat"`` (issue 38's combination study): the members'
   embeddings, each scaled to unit mean squared row norm and by the square root of its
   weight, side by side, clustered by k-means (10 starts; at most 2,000 distinct rows: on
   those, weighted, with more starts); new rows take the nearest stored centre.
   ``"select"`` (the default, issue 38): the ``"concat"`` partition, or the best-agreeing
   member's own k-means partition if it agrees more. ``"coassoc"`` (issue 26): evidence
   accumulation, with ``H`` the ``n x L`` one-hot matrix of all the partitions (a column per
   cluster of each run), the co-association matrix is ``H W H^T / sum(w)``. Its normalised
   form's leading eigenvectors are the left singular vectors of the small bipartite matrix
   ``B = D_r^-1/2 H W^1/2 D_c^-1/2`` (``D_c`` the weighted cluster sizes), computed from the
   ``L x L`` Gram matrix ``B^T B``. The rows' coordinates on the top ``n_clusters`` of them,
   normalised to unit length, are clustered by k-means (Ng-Jordan-Weiss spectral clustering
   on the co-association graph; Fred & Jain's evidence accumulation; Fern & Brodley's
   bipartite formulation). Memory is ``O(n L)`` in sparse indicators and ``O(n k)`` in
   coordinates, never ``n x n`` (:mod:`catembed.cluster.consensus._combine`).

``n_clusters="auto"``: k by the latent class BIC (``_auto_k``; k = 1: "no clear groups");
fits end with trust figures, warnings (``consensus._trust``, ``consensus._degenerate``: no
outlier group returned as a cluster unsaid) and profiles. The rules were chosen on planted,
shared and package tables (``studies/consensus_*_design.py``; ``docs/consensus-design.md``).
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..._utils._errors import CatEmbedWarning, named
from ..._utils._method_names import resolve_name
from ..._utils._params import check_int, check_nonnegative, check_option, check_random_state_param
from ..._utils._progress import step
from ..._utils._spelling import k_asked
from ..._utils._threads import one_thread
from ..._utils._validation import (
    CatEmbedError,
    as_frame,
    categorical_input_tags,
    check_table,
    has_string_names,
    select_categorical,
)
from ...metrics import ari_codes
from ...stats._encoding import encode_frame, factorize_frame
from ...stats._numeric import apply_numeric, fit_numeric, is_numeric
from ...stats._value_statistics import ValueStatistics
from . import _state
from ._auto_k import choose_k, dependence_z, lca_bic_table, parse_k_range
from ._clusterwise import stability_columns
from ._combine import (
    block_scales,
    check_combine,
    coassoc_coordinates,
    distinct_rows,
    fit_centres,
    fit_coassoc,
    mean_square_norm,
    nearest_labels,
    side_by_side,
)
from ._dask import _gather, fit_routed, predict_routed, transform_routed
from ._degenerate import guard_report, guarded_select
from ._describe import attach_profiles
from ._members import (
    ALL_MEMBERS,
    EMBEDDER_MEMBERS,
    fit_member,
    make_member,
    member_class,
    member_embed,
)
from ._runs import (
    MAX_WEIGHT_POWER,
    WEIGHT_RULES,
    _kmeans_runs,
    _nearest,
    _stability,
    member_weights,
    wide_table_members,
)
from ._trust import diagnose

__all__ = ["Consensus", "DEFAULT_MEMBERS", "consensus_embedder", "consensus_labels"]

#: the default portfolio: a coupling-based value clustering (CDE), two linear factor methods
#: (MCA, LCME = MCA axes + latent classes), two frequency codings (IDF, one-hot), each
#: fitted from the same statistics in well under a second on Adult. UNTIE is left out: its
#: compact transform holds an ``n x D`` block (2.7 GB at 100k rows), and on the synthetic
#: study it never beat the others by more than 0.01 ARI while failing two tables.
DEFAULT_MEMBERS = ("cde", "mca", "lcme", "idf", "onehot")

_MEMBER_CLASSES = EMBEDDER_MEMBERS  # and PARTITION_MEMBERS (mgr, lsh-kreps, ocl; issue 39)


def _member_class(name: str) -> type:  # names case-insensitive, "did you mean" for a near miss
    return member_class(name)


class Consensus(ClusterMixin, TransformerMixin, BaseEstimator):
    """Label-free consensus clustering over several catembed representations.

    Parameters
    ----------
    n_clusters : int, "auto", "lo:hi" or (lo, hi), default="auto"
        The number of clusters, or the range it is chosen from without labels by the latent
        class BIC, k tried in turn until it rises twice in a row (``"auto"``: 1 to 10, as in
        the CLI; k = 1 means "no clear groups": every row in cluster 0, with a warning).
    members : sequence of str or None, default=None
        Method names (as in :data:`catembed.METHOD_CLASSES`); ``None``: :data:`DEFAULT_MEMBERS`.
        ``"mgr"``, ``"lsh-kreps"``, ``"ocl"``: a partition-only clusterer, its block the
        one-hot of its labels (:mod:`catembed.cluster.consensus._members`; not saved).
    n_init : int, default=5
        k-means runs per member, each on its own resample of the rows.
    member_components : int, default=10
        Compact embedding width of every member (``n_components``; capped by the number of
        non-trivial axes of the table).
    weights : {"agreement", "stability", "equal"}, default="agreement"
        What a member's weight is: its mean ARI with the other members' runs, the mean ARI
        between its own runs (issue 26's rule), or 1.
    weight_power : float, default=1.0
        Member weight = (agreement or stability) ** weight_power (0: every member counts
        the same), 0 to 100 (at 100 a member at agreement .8 weighs 8e-6 of one at .9).
    combine : {"select", "concat", "coassoc"}, default="select"
        How the members make one partition: ``"concat"``, k-means (10 starts) on the
        members' embeddings side by side, each scaled to unit mean squared row norm and by
        the square root of its weight; ``"select"``, the ``"concat"`` partition or the
        member with the largest weight's own ``KMeans(n_init=10)`` partition, whichever has
        the larger mean ARI with the other candidates (``concat`` and every member's own
        partition; ``selected_`` says which); ``"coassoc"``, spectral clustering of the weighted
        co-association graph of the members' runs (the rule before issue 38's combination
        study, ``docs/consensus-design.md``).
    sample_size : int, default=20000
        Rows each k-means run is fitted on (every row is then labelled by its nearest centre).
    random_state : int, RandomState or None
    handle_missing : {"category", "error"}, default="category"
    handle_unknown : {"ignore", "error"}, default="ignore"
        At ``predict``/``transform``: an unseen value adds nothing to a member's embedding.
    categorical_features : "auto", "all", list or mask, default="auto"
        The categorical columns; every other column must be numeric. ``"auto"``: object,
        string, category and bool columns; with none of those, integer columns are codes
        (categorical) and real-valued (float) columns are numbers.
    n_bins : int, default=5
        Numeric columns are cut into ``n_bins`` quantile bins (learned in ``fit``, no
        labels) and clustered as categorical values by every member (the rule chosen on
        planted mixed tables, ``docs/consensus-design.md``).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    members_ : list of str
        The members that were fitted (a member whose fit is refused on this table is left out
        with a warning, listed in ``failed_members_``).
    member_stability_ : ndarray of shape (n_members,)
        Mean pairwise ARI of each member's runs.
    member_weights_ : ndarray of shape (n_members,)
        Normalised weights (sum 1).
    member_agreement_ : ndarray of shape (n_members,)
        Mean ARI of each member's runs with the consensus labels (a diagnostic; not used).
    n_clusters_ : int
        The number of clusters fitted (``n_clusters``, or the one chosen).
    k_scores_ : DataFrame
        If k was chosen: ``log_likelihood``, ``n_parameters``, ``bic`` per k (skipped: ``attrs``)
    dependence_z_ : float
        The columns' dependence test, at any k (below 4: k = 1 if chosen, else a warning).
    diagnostics_ : dict
        ``stability`` (mean ARI of the members' runs with ``labels_``), ``member_agreement``,
        ``split_column``, ``split_nmi`` (the single column followed most closely), per cluster
        ``cluster_jaccard`` (resample Jaccard, fpc clusterboot's), ``cluster_dissolved`` and
        ``cluster_status`` (>= .75 stable, <= .5 dissolved, doubtful between; a warning for the
        last two; :mod:`catembed.cluster.consensus._trust`); ``guard``, ``outlier_rows``,
        ``small_clusters`` (issue 53's outlier groups, ``consensus._degenerate``). Not saved.
    profiles_ : DataFrame
        What each cluster is and is not (FactoMineR's catdes statistics), its paragons and
        its ``jaccard`` and ``stability`` (:func:`catembed.cluster.describe_clusters`). Not saved.
    cluster_centers_ : ndarray of shape (n_clusters_, n_coordinates)
        Centres in the consensus coordinates (see :meth:`transform`): the scaled members'
        embeddings side by side (``"concat"``, their widths added), the chosen member's
        own embedding (``"select"`` choosing a member) or the co-association coordinates
        (``"coassoc"``, at most ``n_clusters_`` columns).
    selected_ : str
        The partition returned: ``"concat"``, a member's name (``"select"``), ``"coassoc"``.
    estimators_ : list of fitted embedders
    """

    def __init__(self, n_clusters: Any = "auto", *, members: Any = None, n_init: int = 5,
                 member_components: int = 10, weights: str = "agreement",
                 weight_power: float = 1.0, combine: str = "select",
                 sample_size: int = 20000, random_state: Any = None,
                 handle_missing: str = "category", handle_unknown: str = "ignore",
                 categorical_features: Any = "auto", n_bins: int = 5) -> None:
        self.n_clusters = n_clusters
        self.members = members
        self.n_init = n_init
        self.member_components = member_components
        self.weights = weights
        self.weight_power = weight_power
        self.combine = combine
        self.sample_size = sample_size
        self.random_state = random_state
        self.handle_missing = handle_missing
        self.handle_unknown = handle_unknown
        self.categorical_features = categorical_features
        self.n_bins = n_bins

    # ------------------------------------------------------------------ checks
    def _check(self) -> list[str]:
        check_option("handle_missing", self.handle_missing, ("category", "error"))
        check_option("handle_unknown", self.handle_unknown, ("ignore", "error"))
        if parse_k_range(self.n_clusters, 2) is None:
            check_int("n_clusters", self.n_clusters)
        for name in ("n_init", "member_components", "sample_size", "n_bins"):
            check_int(name, getattr(self, name))
        check_option("weights", self.weights, WEIGHT_RULES)
        check_combine(self.combine)
        check_random_state_param(self.random_state)
        check_nonnegative("weight_power", self.weight_power, maximum=MAX_WEIGHT_POWER,
                          why=" (larger powers weigh the top member alone)")
        members = DEFAULT_MEMBERS if self.members is None else (
            [self.members] if isinstance(self.members, str) else self.members)
        if not isinstance(members, (Sequence, np.ndarray, pd.Index, pd.Series)) or not all(
                isinstance(m, str) for m in members):
            raise CatEmbedError("members must be a method name or a list of method names; "
                                f"got {self.members!r}.")
        names = [resolve_name(n, ALL_MEMBERS, what="consensus member") for n in members]
        if not names:
            raise CatEmbedError("members is empty; name at least one method.")
        for n in names:
            _member_class(n)
        if len(set(names)) != len(names):
            raise CatEmbedError(f"members lists a method twice: {names}.")
        return names

    def _table(self, X: Any, reset: bool) -> pd.DataFrame:
        df = as_frame(X, columns=None if reset else
                      (list(getattr(self, "feature_names_in_", [])) or None))
        check_table(self, df, reset=reset)
        return df

    def _split_columns(self, df: pd.DataFrame) -> tuple[list[Any], list[Any]]:
        """``(categorical, numeric)`` columns of ``df``.

        ``"auto"`` on a table with no column of a categorical kind (a NumPy array, an
        all-number frame): integer columns are codes, real-valued columns numbers."""
        cat, other = select_categorical(df, self.categorical_features)
        if (isinstance(self.categorical_features, str) and self.categorical_features == "auto"
                and not other):
            other = [c for c in cat if pd.api.types.is_float_dtype(df[c].dtype)]
            cat = [c for c in cat if c not in other]
        bad = [c for c in other if not is_numeric(df[c])]
        if bad:
            names = named(bad)
            raise CatEmbedError(f"Consensus clusters categorical and numeric columns; {names} "
                                "are neither; cast them to str or list them in "
                                "categorical_features.")
        return cat, other

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any = None) -> Consensus:
        """Fit every member from one count of ``X`` and cluster the consensus of their runs
        (with one BLAS/OpenMP thread: many small problems, which threads slow down)."""
        names = self._check()
        with one_thread():  # issue 53: again without an outlier group's rows, if any
            return fit_routed(self, X, names)  # a Dask frame: docs/distributed.md

    def _fit(self, X: Any, names: list[str], df: pd.DataFrame | None = None) -> Consensus:
        X = _gather(X)  # df: X as the frame fit_guarded checked (issue 57: converted once)
        df = self._table(X, reset=True) if df is None else df
        cat, numeric = self._split_columns(df)
        self.n_features_in_ = df.shape[1]
        if has_string_names(X):
            self.feature_names_in_ = np.asarray(df.columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        # numeric columns: n_bins quantile bins, then values (all-categorical: as before)
        self.numeric_features_ = [str(c) for c in numeric]
        self.numeric_bins_ = fit_numeric(df, numeric, "discretize", int(self.n_bins)).bins
        used = set(cat) | set(numeric)
        cat = [c for c in df.columns if c in used]
        df_in, df = df, apply_numeric(df, self.numeric_bins_)
        self.feature_names_ = [str(c) for c in cat]
        ks = parse_k_range(self.n_clusters, len(df))
        k = 1 if ks is not None else int(self.n_clusters)
        step("counting the values")  # one pass: factorise, count
        codes, cats = factorize_frame(df, cat, self.handle_missing)
        codes = self._codes = np.ascontiguousarray(codes)  # row-major, as before
        n_distinct, self._distinct = distinct_rows(codes)
        if n_distinct < k:
            raise CatEmbedError(f"the table has only {n_distinct} distinct row(s), fewer "
                                f"than {k_asked(k)}; use fewer clusters.")
        check_int("sample_size", self.sample_size, minimum=k, extra=" (n_clusters)")  # a run's rows
        self.categories_ = cats
        names, full, factor = wide_table_members(names, self.members is None, cats, len(df))
        stats = ValueStatistics.from_codes(codes, cats, self.feature_names_, factor=factor)
        l_free = int(stats.n_values) - len(cat)
        rs = check_random_state(self.random_state)
        if ks is not None:  # k chosen without labels: the latent class model's BIC per k
            ks = [c for c in ks if c <= n_distinct]
            # the search draws from a copy of the stream: the members then draw what a fit
            # with n_clusters=<the chosen k> draws, so both give the same labels
            search = copy.deepcopy(rs)
            self.k_scores_ = lca_bic_table(codes, ks, search)
            self.dependence_z_ = dependence_z(codes, search)
            k = choose_k(self.k_scores_, self.dependence_z_)
            check_int("sample_size", self.sample_size, minimum=k, extra=" (n_clusters)")
        else:  # k given: the dependence test still runs (a warning below 4; issue 53)
            self.__dict__.pop("k_scores_", None)
            self.dependence_z_ = dependence_z(codes, copy.deepcopy(rs)) if len(cat) > 1 \
                else float("nan")
        self.n_clusters_ = k
        width = None if full else max(1, min(int(self.member_components), l_free))
        self.estimators_, self.members_, self.failed_members_ = [], [], []
        runs_all, stab, spaces = [], [], []
        self._centres = []
        for i, name in enumerate(names, 1):
            step(f"member {i} of {len(names)} ({name}): fit, {self.n_init} k-means runs")
            est = make_member(name, width, rs, self.handle_missing, k)
            try:
                fit_member(est, stats, codes, self.categories_, self.feature_names_)
                Z = self._member_embed(est, codes)
            except (CatEmbedError, ValueError, np.linalg.LinAlgError) as exc:
                self.failed_members_.append(name)
                warnings.warn(f"consensus member {name!r} left out: {exc}", CatEmbedWarning,
                              stacklevel=2)
                continue
            runs, centres = _kmeans_runs(Z, k, int(self.n_init), int(self.sample_size), rs)
            if self.combine != "coassoc":
                spaces.append(Z)
            del Z
            self._centres.append(centres)
            self.estimators_.append(est)
            self.members_.append(name)
            runs_all.append(runs)
            stab.append(_stability(runs, 20000, rs))
        if not self.members_:
            raise CatEmbedError("no consensus member could be fitted on this table.")
        self.member_stability_ = np.asarray(stab)
        self._combine(runs_all, rs, spaces=spaces)
        del spaces, self._distinct, self._codes  # fit-time only (n long)
        diagnose(self, codes, runs_all, rs)  # and its warnings (no clear groups at k = 1)
        guard_report(self)
        stability_columns(attach_profiles(self, df_in, self.labels_, codes=codes, checked=True))
        return self

    def _combine(self, runs_all: list[list[np.ndarray]], rs: np.random.RandomState,
                 weights: np.ndarray | None = None,
                 spaces: list[np.ndarray] | None = None) -> None:
        """Weights from the runs (or given), the consensus coordinates (``spaces``: the
        members' embeddings, for ``combine="concat"``), their k-means labels."""
        if weights is None:
            w = member_weights(self.weights, self.member_stability_, runs_all, rs,
                               float(self.weight_power))
        else:
            w = np.asarray(weights, dtype=np.float64)
        self.member_weights_ = w / w.sum()
        self._run_k = [[len(c) for c in cs] for cs in self._centres]
        k = int(self.n_clusters_)
        if self.combine != "coassoc":
            self._cluster_table, self._scales = None, block_scales(
                [mean_square_norm(Z) for Z in spaces], self.member_weights_)
            U = side_by_side(spaces, self._scales)
        else:
            self._scales = None
            self._cluster_table = fit_coassoc(runs_all, self._run_k, self.member_weights_, k)
            U = coassoc_coordinates(self._cluster_table, runs_all, self._run_k)
        self.cluster_centers_ = fit_centres(U, k, int(self.sample_size), rs,
                                            getattr(self, "_distinct", None)).astype(np.float64)
        self.labels_ = nearest_labels(U, self.cluster_centers_)
        self._selected, self.selected_ = -1, self.combine
        if self.combine == "select":  # concat or a member's own partition (issue 53: guarded)
            self._selected, self.cluster_centers_, self.labels_, self._guard = guarded_select(
                self.labels_, self.cluster_centers_, U, spaces, self.member_weights_, k,
                int(self.sample_size), rs, getattr(self, "_distinct", None),
                getattr(self, "_codes", None))
            self.selected_ = self.members_[self._selected] if self._selected >= 0 else "concat"
        self._fit_coordinates = spaces[self._selected] if self._selected >= 0 else U  # paragons
        self.member_agreement_ = np.array([np.mean([ari_codes(self.labels_, r) for r in runs])
                                           for runs in runs_all])

    def _member_embed(self, est: Any, codes: np.ndarray) -> np.ndarray:
        """The member's embedding of rows given as codes in ``categories_``."""
        return member_embed(est, codes, self.feature_names_, self.categories_)

    # ------------------------------------------------------------------ predict
    def _codes_of(self, X: Any, checked: bool = False) -> np.ndarray:
        check_is_fitted(self, "labels_")  # checked: X is the frame that fit checked
        df = X if checked else self._table(_gather(X), reset=False)
        if getattr(self, "feature_names_in_", None) is None and (
                set(map(str, df.columns)) != set(self.feature_names_)):  # else: by name
            df = df.set_axis(self.feature_names_[: df.shape[1]] if df.shape[1] == len(
                self.feature_names_) else list(df.columns), axis=1)
        df = apply_numeric(df, getattr(self, "numeric_bins_", {}))
        codes = encode_frame(df, self.feature_names_, self.categories_, self.handle_missing)
        if self.handle_unknown == "error" and (codes < 0).any():
            raise CatEmbedError(f"{int((codes < 0).sum())} value(s) not seen during fit; use "
                                "handle_unknown='ignore'.")
        return codes

    def transform(self, X: Any) -> np.ndarray:
        """The consensus coordinates of each row: the members' scaled embeddings side by
        side (``"concat"``; ``"select"``: the chosen member's own embedding, if a member),
        or the co-association spectral coordinates (unit rows, ``"coassoc"``)."""
        return transform_routed(self, X)  # a Dask frame: mapped over its partitions

    def _coordinates_of(self, X: Any, codes: np.ndarray | None = None) -> np.ndarray:
        """:meth:`transform` as NumPy whatever ``set_output`` says (``predict`` reads it)."""
        with one_thread():
            codes = self._codes_of(X) if codes is None else codes  # fit: its own codes
            if getattr(self, "_selected", -1) >= 0:  # "select" chose a member's partition
                return self._member_embed(self.estimators_[self._selected], codes)
            if getattr(self, "_cluster_table", None) is None:  # combine="concat"
                return side_by_side([self._member_embed(est, codes)
                                     for est in self.estimators_], self._scales)
            runs = [[_nearest(Z, c) for c in centres] for Z, centres in zip(
                (self._member_embed(est, codes) for est in self.estimators_), self._centres,
                strict=True)]
            return coassoc_coordinates(self._cluster_table, runs, self._run_k)

    def predict(self, X: Any) -> np.ndarray:
        """The nearest consensus centre of the rows' consensus coordinates (``"coassoc"``:
        from its runs' labels); on the training rows exactly ``labels_``."""
        return predict_routed(self, X)  # a Dask frame: mapped over its partitions

    def fit_predict(self, X: Any, y: Any = None, **kwargs: Any) -> np.ndarray:
        """Fit and return ``labels_``."""
        return self.fit(X).labels_

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """``consensus0 ...``, one name per consensus coordinate."""
        check_is_fitted(self, "labels_")
        return np.asarray([f"consensus{i}" for i in range(self.cluster_centers_.shape[1])],
                          dtype=object)

    # ------------------------------------------------------------------ saving
    def save(self, path: Any) -> None:
        """Save the fitted model (a ``.npz`` file that cannot execute code; the members are
        saved as catembed models of their own). See :func:`catembed.persist.save`."""
        check_is_fitted(self, "labels_")
        from ...persist import save

        save(self, path)

    @classmethod
    def load(cls, path: Any) -> Consensus:
        """Load a model saved with :meth:`save`; ``predict`` and ``transform`` give what the
        saved model gave."""
        from ...persist import load

        est = load(path)
        if not isinstance(est, cls):
            raise CatEmbedError(f"{path} holds a {type(est).__name__}, not a {cls.__name__}.")
        return est

    def _composite_state(self) -> tuple[list[Any], dict[str, np.ndarray], dict[str, Any]]:
        return _state.consensus_state(self)  # catembed.persist's hook for composite models

    def _restore_composite(self, path: str, parts: list[Any], arrays: dict[str, np.ndarray],
                           meta: dict[str, Any]) -> None:
        _state.restore_consensus_state(self, path, parts, arrays, meta, _MEMBER_CLASSES)

    def __sklearn_tags__(self):  # noqa: D105
        return categorical_input_tags(super().__sklearn_tags__())


def consensus_labels(X: Any, n_clusters: int, *, random_state: Any = None,
                     **params: Any) -> np.ndarray:
    """Labels of one :class:`Consensus` fit (the evaluation protocol's ``labels`` hook)."""
    return Consensus(n_clusters, random_state=random_state, **params).fit(X).labels_


def consensus_embedder(random_state: Any = None, **params: Any) -> Consensus:
    """A :class:`Consensus` as an embedding for the classification protocol: its
    ``transform`` (the unit-length consensus coordinates, ``n_clusters`` columns). The
    registry fixes ``n_clusters=10``, the width of the other 10-axis columns (MCA, FAMD),
    without looking at the classes, and the co-association coordinates (``combine``
    ``"coassoc"``: ``n_clusters`` unit-length columns, as designed for these tables)."""
    params.setdefault("combine", "coassoc")
    return Consensus(random_state=random_state, **params)
