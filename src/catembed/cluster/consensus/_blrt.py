"""The bootstrap likelihood-ratio test of the latent class model, k classes against k + 1
(Nylund, Asparouhov and Muthen 2007; McLachlan 1987): issue 53's optional check beside the
BIC, ``catembed cluster --blrt``.

The likelihood ratio ``LR = 2 (log L_{k+1} - log L_k)`` of the data is compared with its
distribution on tables drawn from the fitted k-class model: each bootstrap table has the
same number of rows, each row a class drawn from the model's class weights and each value
from the class's value probabilities; k and k + 1 classes are fitted to it as to the data.
``p = (1 + #{LR_b >= LR}) / (1 + B)``; a small p says the (k + 1)-th class fits better than
the k-class model's own sampling noise explains. The cost is bounded: at most
``sample_size`` rows (a fixed random sample), ``n_boot`` tables, each fit ``n_init``
starts of at most 300 EM steps (the BIC table's settings), ``2 (n_boot + 1)`` fits in all.
k = 1 is the independence model (closed form; its tables draw every column on its own).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["lca_blrt", "consensus_blrt"]


def _fit(codes: np.ndarray, k: int, rs: np.random.RandomState, n_init: int
         ) -> tuple[float, Any]:
    """``(log-likelihood, model)`` of k classes (k = 1: independence, model None)."""
    from ..lca import LCA
    from ._auto_k import _independence_loglik

    if k == 1:
        return _independence_loglik(codes), None
    frame = pd.DataFrame(codes, columns=[f"c{j}" for j in range(codes.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = LCA(k, n_init=n_init, max_iter=300, tol=1e-6,
                random_state=rs.randint(2**31 - 1)).fit(frame)
    return float(m.log_likelihood_), m


def _draw(codes: np.ndarray, model: Any, rs: np.random.RandomState) -> np.ndarray:
    """A table of ``len(codes)`` rows from the fitted model (``None``: independence)."""
    n, m = codes.shape
    out = np.empty((n, m), dtype=np.int64)
    if model is None:
        for j in range(m):
            out[:, j] = codes[rs.randint(n, size=n), j]  # the column's value shares
        return out
    z = rs.choice(len(model.weights_), size=n, p=model.weights_ / model.weights_.sum())
    for j, (p, cats) in enumerate(zip(model.probabilities_, model.categories_, strict=True)):
        cum = np.cumsum(p[z], axis=1)
        idx = (rs.random_sample(n)[:, None] > cum).sum(axis=1)
        out[:, j] = np.asarray(cats, dtype=np.int64)[np.minimum(idx, len(cats) - 1)]
    return out


def lca_blrt(codes: np.ndarray, k: int, rs: np.random.RandomState, *, n_boot: int = 19,
             sample_size: int = 2000, n_init: int = 2) -> dict[str, Any]:
    """The bootstrap LRT of k against k + 1 latent classes on the coded table ``codes``
    (integer codes, one column per attribute). Returns ``k``, ``lr`` (the data's),
    ``p_value``, ``n_boot``, ``n_rows`` (rows used) and ``null_lr`` (the bootstrap LRs)."""
    codes = np.asarray(codes, dtype=np.int64)
    n = len(codes)
    if n > sample_size:
        codes = codes[np.sort(rs.choice(n, size=sample_size, replace=False))]
    ll_k, model = _fit(codes, k, rs, n_init)
    ll_k1, _ = _fit(codes, k + 1, rs, n_init)
    lr = 2.0 * (ll_k1 - ll_k)
    null = []
    for _ in range(int(n_boot)):
        table = _draw(codes, model, rs)
        null.append(2.0 * (_fit(table, k + 1, rs, n_init)[0] - _fit(table, k, rs, n_init)[0]))
    null = np.asarray(null)
    p = (1.0 + float((null >= lr).sum())) / (1.0 + len(null))
    return {"k": int(k), "lr": float(lr), "p_value": p, "n_boot": int(n_boot),
            "n_rows": int(len(codes)), "null_lr": null}


def consensus_blrt(model: Any, X: Any, *, n_boot: int = 19, random_state: Any = 0
                   ) -> dict[str, Any]:
    """:func:`lca_blrt` at a fitted :class:`~catembed.cluster.Consensus`' k, on the table
    as it clustered it (numbers in its bins)."""
    from sklearn.utils import check_random_state

    from ...stats._encoding import factorize_frame
    from ...stats._numeric import apply_numeric

    df = apply_numeric(pd.DataFrame(X), getattr(model, "numeric_bins_", {}))
    df.columns = [str(c) for c in df.columns]
    codes, _ = factorize_frame(df, list(model.feature_names_), "category")
    return lca_blrt(np.asarray(codes), int(model.n_clusters_), check_random_state(random_state),
                    n_boot=n_boot)
