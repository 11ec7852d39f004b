"""The members of :class:`catembed.cluster.Consensus`: their names, how each is made,
fitted and how it embeds rows.

Two kinds of member:

* **embedders** (:data:`EMBEDDER_MEMBERS`: CDE, MCA, LCME, IDF, one-hot, ...), fitted from
  the consensus' one count of the table (``fit_statistics``); their embedding is a table
  lookup of the rows' values;
* **partition members** (:data:`PARTITION_MEMBERS`, issue 39: ``mgr``, ``lsh-kreps``,
  ``ocl``): clusterers that give a partition and no embedding
  (:class:`~catembed.cluster.MGR`, :class:`~catembed.cluster.LSHKRepresentatives`,
  :class:`~catembed.cluster.OCL`). Such a member is fitted with ``n_clusters`` = the
  consensus' k on the table the consensus clusters (the numeric columns binned), every
  column categorical; its embedding is the one-hot of its labels (``k`` columns: row ``i``
  has a 1 in the column of its cluster), the training rows' labels being the clusterer's
  ``predict`` of them (so ``Consensus.predict`` reproduces ``labels_``), new rows' its
  ``predict`` of them (an unseen value is unseen to the clusterer too). That block enters the
  consensus like any other: its k-means runs (on the one-hot rows they find the member's
  partition again, up to sampling), its agreement weight, its share of the side-by-side
  coordinates. Partition members are not saved (:func:`check_savable`).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..._utils._limits import CostWarning, check_environment
from ..._utils._method_names import resolve_name
from ..._utils._validation import CatEmbedError, user_stacklevel

__all__ = ["ALL_MEMBERS", "EMBEDDER_MEMBERS", "OWN_POOLING", "PARTITION_MEMBERS",
           "PartitionMember", "check_member_cost", "check_savable", "fit_member", "make_member",
           "member_class", "member_embed"]

#: method name -> catembed class of the embedding members
EMBEDDER_MEMBERS = {
    "cde": "CDE", "onehot": "OneHotEmbedder", "onehot-pca": "OneHotPCA",
    "idf": "IDFEmbedder", "untie": "UNTIE", "couplings": "Couplings", "mca": "MCA",
    "lcme": "LCME", "cdepp": "CDEPlusPlus",
}
#: members fitted with their own pooling of rare values (``max_categories``); the others see
#: every value. LCME's EM works on the ``l x l`` counts, ``O(k l^2)`` a step for up to 300
#: steps and 3 starts: unpooled, 98 s on 1,000 rows x 4 columns of 500 values, where LCME
#: alone pools to 100 values a column and takes 2.5 s (issue 52 item 2)
OWN_POOLING = frozenset({"lcme"})
#: method name -> catembed.cluster class of the partition-only members (issue 39)
PARTITION_MEMBERS = {"mgr": "MGR", "lsh-kreps": "LSHKRepresentatives", "ocl": "OCL"}
ALL_MEMBERS = {**EMBEDDER_MEMBERS, **PARTITION_MEMBERS}

#: a value no table holds: what a partition member sees for a value unseen in the fit
_UNSEEN = "\x00catembed-unseen\x00"


def member_class(name: str) -> type:
    """The class of member ``name`` (case-insensitive; "did you mean" for a near miss)."""
    name = resolve_name(name, ALL_MEMBERS, what="consensus member")
    if name in PARTITION_MEMBERS:
        return getattr(importlib.import_module("catembed.cluster"), PARTITION_MEMBERS[name])
    return getattr(importlib.import_module("catembed"), EMBEDDER_MEMBERS[name])


class PartitionMember:
    """A partition-only clusterer as a consensus member: its embedding is the one-hot of
    its labels (see the module's text).

    Parameters
    ----------
    name : str
        The member's name (``"mgr"``, ``"lsh-kreps"``, ``"ocl"``).
    clusterer : estimator
        The unfitted clusterer, ``n_clusters`` set to the consensus' k.
    """

    def __init__(self, name: str, clusterer: Any) -> None:
        self.name = name
        self.clusterer = clusterer

    def fit_codes(self, codes: np.ndarray, categories: list[np.ndarray],
                  feature_names: list[str]) -> PartitionMember:
        """Fit the clusterer on the rows given as codes into ``categories``."""
        self.feature_names_ = list(feature_names)
        self.categories_ = list(categories)
        self.clusterer.fit(self._frame(codes))
        self.n_clusters_ = int(self.clusterer.n_clusters)
        return self

    def _frame(self, codes: np.ndarray) -> pd.DataFrame:
        """The rows' values (``-1``, an unseen value: a value the clusterer has not seen)."""
        cols = {}
        for j, (f, cats) in enumerate(zip(self.feature_names_, self.categories_,
                                          strict=True)):
            values = np.append(np.asarray(cats, dtype=object), _UNSEEN)
            cols[f] = values[np.where(codes[:, j] >= 0, codes[:, j], len(cats))]
        return pd.DataFrame(cols)

    def embed(self, codes: np.ndarray) -> np.ndarray:
        """One-hot (float32, ``n x k``) of the clusterer's ``predict`` of the rows."""
        labels = np.asarray(self.clusterer.predict(self._frame(codes)), dtype=np.int64)
        Z = np.zeros((len(labels), self.n_clusters_), dtype=np.float32)
        Z[np.arange(len(labels)), labels] = 1.0
        return Z

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """``<name>0 ...``: one column per cluster."""
        return np.asarray([f"{self.name}{i}" for i in range(self.n_clusters_)], dtype=object)


def make_member(name: str, width: int | None, rs: np.random.RandomState,
                handle_missing: str, k: int) -> Any:
    """An unfitted member: an embedder with ``n_components=width`` (and a seed drawn from
    ``rs``), or a :class:`PartitionMember` with ``n_clusters=k``.

    The limits every member's fit reads (``CATEMBED_MAX_MEMORY``, ``CATEMBED_MAX_SECONDS``)
    are read here first, outside the fit whose refusals leave a member out: a setting that
    cannot be read is the user's error, raised once (issue 52 item 6), not every member's."""
    check_environment()
    cls = member_class(name)
    est = cls(k) if name in PARTITION_MEMBERS else cls()
    params = est.get_params()
    new: dict[str, Any] = {"handle_missing": handle_missing,
                           "handle_unknown": "ignore", "categorical_features": "all"}
    if "n_components" in params:
        new["n_components"] = width
    if "random_state" in params:
        new["random_state"] = rs.randint(2**31 - 1)
    if "max_categories" in params and name not in OWN_POOLING:
        new["max_categories"] = None
    est = est.set_params(**{p: v for p, v in new.items() if p in params})
    return PartitionMember(name, est) if name in PARTITION_MEMBERS else est


def fit_member(est: Any, stats: Any, codes: np.ndarray, categories: list[np.ndarray],
               feature_names: list[str]) -> None:
    """Fit a member: an embedder from the statistics, a partition member on the rows.

    The member's own warnings are not shown, but for its cost estimate's "may take N
    minutes" (:class:`~catembed._utils._limits.CostWarning`; issue 52 item 2: a 15-minute
    member fitted without a word): an embedder's estimate is made before its fit
    (:func:`check_member_cost`), a partition member's is passed on after."""
    if not isinstance(est, PartitionMember):
        check_member_cost(est, stats)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if isinstance(est, PartitionMember):
            est.fit_codes(codes, categories, feature_names)
        else:
            est.fit_statistics(stats, feature_names_in=feature_names)
    for w in caught:
        if isinstance(est, PartitionMember) and issubclass(w.category, CostWarning):
            warnings.warn(f"consensus member: {w.message}", CostWarning,
                          stacklevel=user_stacklevel())


def check_member_cost(est: Any, stats: Any) -> None:
    """An embedder member's cost check (:func:`catembed.stats._pooling.check_fit_cost`:
    refused over ``CATEMBED_MAX_MEMORY`` / ``CATEMBED_MAX_SECONDS``, a
    :class:`~catembed._utils._limits.CostWarning` above two minutes) before its fit, from
    the values it will see (each column capped at its ``max_categories``), the warning
    naming it as a consensus member."""
    from ...stats._pooling import check_fit_cost

    sizes = np.asarray(stats.sizes, dtype=np.int64)
    cap = getattr(est, "max_categories", None)
    if cap is not None:
        sizes = np.minimum(sizes, int(cap))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_fit_cost(est, sizes, n_output_rows=int(stats.n_rows))
    for w in caught:
        if issubclass(w.category, CostWarning):
            warnings.warn(f"consensus member: {w.message}", CostWarning,
                          stacklevel=user_stacklevel())


def member_embed(est: Any, codes: np.ndarray, feature_names: list[str],
                 categories: list[np.ndarray]) -> np.ndarray:
    """The member's embedding (float32, C order) of rows given as codes in ``categories``."""
    if isinstance(est, PartitionMember):
        return est.embed(codes)
    feats = list(est.feature_names_)
    position = {f: j for j, f in enumerate(feature_names)}  # not list.index: m^2 on 20,000
    index = [position[f] for f in feats]
    if _same_values(est, index, categories):  # its codes are the consensus's
        # one int32 copy, every negative code (missing, unknown) -1: 1M x 20 in 0.02 s,
        # where the column gather and np.where took 0.4-0.7 s a member
        whole = index == list(range(codes.shape[1]))
        sub = np.array(codes if whole else codes[:, index], dtype=np.int32, order="C")
        np.maximum(sub, -1, out=sub)
    else:  # the consensus's values encoded as the member encodes values
        longest = max(len(categories[j]) for j in index)
        small = pd.DataFrame({f: np.resize(np.asarray(categories[j], dtype=object), longest)
                              for f, j in zip(feats, index, strict=True)})
        mapped = est._encode_values(small)
        sub = np.empty((len(codes), len(feats)), dtype=np.int32)
        for jj, j in enumerate(index):
            m = mapped[: len(categories[j]), jj]
            sub[:, jj] = np.where(codes[:, j] >= 0, m[np.maximum(codes[:, j], 0)], -1)
    from ...base import ValueEmbedder

    # as the member's transform: an embedder with its own projection (UNTIE's n_components)
    # applies it; the others look their (projected) value tables up
    own = type(est)._transform_codes is not ValueEmbedder._transform_codes
    if own and getattr(est, "_projection", None) is None:
        Z = est._transform_codes(sub, None)
    else:  # the compiled gather only where it is loaded or pays for loading it (issue 55)
        from ...transform._lookup import empty_aligned

        plan = est._get_plan()
        Z = plan.in_memory(sub, empty_aligned((len(sub), plan.width), plan.dtype))
    return np.ascontiguousarray(Z, dtype=np.float32)


def _same_values(est: Any, index: list[int], categories: list[np.ndarray]) -> bool:
    """Whether every column of the member holds the consensus's own categories (the same
    arrays: fitted from the consensus's statistics) with none pooled, so that encoding them
    gives ``0 .. l - 1``. Issue 55: that encoding (a frame of every column's values) was
    about 0.04 CPU s of each of the three member embeddings of a 30 x 200 table."""
    own = getattr(est, "categories_", None)
    pooled = getattr(est, "infrequent_categories_", None) or []
    return (own is not None and len(own) == len(index)
            and all(a is categories[j] for a, j in zip(own, index, strict=True))
            and not any(p is not None and len(p) for p in pooled))


def check_savable(members: list[str]) -> None:
    """Refuse to save a consensus with a partition member (its clusterer has no saved
    form inside a consensus file)."""
    bad = [m for m in members if m in PARTITION_MEMBERS]
    if bad:
        raise CatEmbedError(
            f"a Consensus with the partition member(s) {', '.join(map(repr, bad))} cannot be "
            "saved; refit it, or save one without them (members=...).")
