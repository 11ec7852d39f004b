"""The clustering objectives of the deep clusterers (DEC, Xie et al. 2016; IDEC, Guo et al.
2017): k-means initialisation of the centres, the Student-t soft assignment's streaming
pass, the IDEC loss of a batch and the final objective over all rows.

Every full pass streams over chunks of rows (no ``n x k`` array is held). The Student-t
assignment ``q`` (DEC Eq. 1) is the network's ``soft_assign``, the sharpened target ``p``
(DEC Eq. 3) :func:`catembed.deep._nets.target_distribution`. Torch is passed in by the caller
(imported only when a model is fitted).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.cluster import KMeans
from sklearn.utils.random import sample_without_replacement

from ._batches import _Rows, forward_chunks, label_dtype

__all__ = ["KMEANS_SAMPLE", "assign", "final_objective", "idec_loss", "kmeans_centres",
           "latent"]

#: k-means after pretraining runs on the latent vectors of at most this many rows (a uniform
#: sample of larger tables; every row then goes to its nearest centre)
KMEANS_SAMPLE = 50_000


def latent(model: Any, pairs: Any, torch: Any) -> np.ndarray:
    """The latent vectors of every ``(codes, nums)`` chunk of ``pairs``, as float64."""
    parts = forward_chunks(model, pairs, torch,
                           lambda m, c, x: m.encoder(c, x)[0].cpu().numpy())
    return np.concatenate(list(parts)).astype(np.float64)


def kmeans_centres(model: Any, data: _Rows, n_clusters: int, rng: np.random.RandomState,
                   torch: Any) -> np.ndarray | None:
    """Set the model's centres by k-means (``n_init=10``) on the latent vectors of (at most
    :data:`KMEANS_SAMPLE`) rows; the labels of every row when all rows were clustered, else
    None (the final objective's first pass gives them)."""
    n = data.n
    # the sample is drawn without a permutation of all n rows (O(KMEANS_SAMPLE) memory)
    if n <= KMEANS_SAMPLE:
        sample = None
    else:
        sample = np.sort(sample_without_replacement(n, KMEANS_SAMPLE, random_state=rng))
    Z = latent(model, data.chunks(sample), torch)
    km = KMeans(int(n_clusters), n_init=10,
                random_state=int(rng.randint(np.iinfo(np.int32).max))).fit(Z)
    del Z
    with torch.no_grad():
        model.centers.copy_(torch.as_tensor(km.cluster_centers_, dtype=torch.float32))
    # the nearest centre of every row (argmax of the Student-t q)
    return km.labels_.astype(label_dtype(n_clusters)) if sample is None else None


def assign(model: Any, data: _Rows, n_clusters: int, torch: Any) -> tuple[np.ndarray, Any]:
    """One streaming pass: the most probable cluster of every row and the column sums
    ``f_j = sum_i q_ij`` of the soft assignment (as a tensor on the model's device)."""
    labels = np.empty(data.n, dtype=label_dtype(n_clusters))
    colsum = np.zeros(int(n_clusters))
    start = 0
    for q in forward_chunks(model, data.chunks(), torch,
                            lambda m, c, x: m.soft_assign(m.encoder(c, x)[0])):
        labels[start:start + len(q)] = q.argmax(dim=1).cpu().numpy()
        colsum += q.sum(dim=0).cpu().numpy()
        start += len(q)
    return labels, torch.as_tensor(colsum, dtype=torch.float32, device=data.device)


def idec_loss(model: Any, frozen: Any, colsum: Any, codes: Any, nums: Any,
              corruption: float, gen: Any, gamma: float, torch: Any) -> Any:
    """``L_rec + gamma * KL(P || Q)`` of one batch: the target ``P`` from the network
    ``frozen`` at the last target update and the column sums ``colsum`` of its ``q`` over
    all rows (exactly DEC's ``P`` without storing it for all rows)."""
    from ._nets import target_distribution

    with torch.no_grad():
        p = target_distribution(frozen.soft_assign(frozen.encoder(codes, nums)[0]), colsum)
    z, rec = model.recon_loss(codes, nums, corruption, gen)
    qb = model.soft_assign(z)
    kl = torch.nn.functional.kl_div(qb.log(), p, reduction="batchmean")
    return rec + float(gamma) * kl


def final_objective(model: Any, data: _Rows, n_clusters: int, gamma: float,
                    torch: Any) -> tuple[float, np.ndarray]:
    """The restart criterion and the most probable cluster of every row.

    ``L = L_rec + gamma * KL(P || Q)`` over all rows: the IDEC loss (Guo et al. 2017;
    DEC Eqs. 1-3) of the trained network and its centres, evaluated
    without masking noise (the training loss' expectation over the noise is not
    computable; the clean loss is deterministic). ``P`` is DEC's target built from the
    final ``Q``. Two streaming passes: the column sums of ``q``, then the loss.
    """
    labels, colsum = assign(model, data, n_clusters, torch)
    from ._nets import target_distribution

    rec_sum = kl_sum = 0.0
    for c, x in data.chunks():
        with torch.no_grad():
            z, rec = model.recon_loss(c, x)
            q = model.soft_assign(z)
            p = target_distribution(q, colsum)
            kl = torch.nn.functional.kl_div(q.log(), p, reduction="sum")
        rec_sum += float(rec) * len(c)
        kl_sum += float(kl)
    return (rec_sum + float(gamma) * kl_sum) / data.n, labels
