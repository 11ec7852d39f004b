"""The training loop of the deep clusterers: value-embedding start, pretraining, the
clustering phase and the ``n_init`` restarts.

One restart (:func:`fit_one`): the network from the restart's seed, ``pretrain_steps`` Adam
steps on the (denoising) reconstruction loss, k-means on the latent vectors
(:func:`~catembed.deep._objectives.kmeans_centres`), then for IDEC ``cluster_steps`` joint
steps with the target renewed every ``update_interval`` steps until fewer than ``tol`` of the
rows change cluster, and the final objective. :func:`fit_restarts` runs the restarts one
after the other; :mod:`catembed.deep._guard` chooses among them. The estimator ``est``
supplies the parameters, the network (``_build_encoder``) and the final objective
(``_final_objective``).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .._utils._params import check_option
from .._utils._torch import _deterministic
from ._batches import _Batches, _Rows
from ._data import MixedEncoding
from ._objectives import assign, idec_loss, kmeans_centres

__all__ = ["VALUE_INITS", "fit_one", "fit_restarts", "initial_value_vectors", "stage_steps"]

VALUE_INITS = ("random", "cde", "untie")


def initial_value_vectors(enc: MixedEncoding, method: Any, dim: int,
                          random_state: Any = None) -> np.ndarray:
    """Value-embedding rows ``(enc.n_embeddings, dim)`` from CDE or UNTIE value vectors.

    ``method`` is ``"cde"`` (:class:`catembed.CDE`), ``"untie"`` (:class:`catembed.UNTIE`)
    or an unfitted :class:`catembed.ValueEmbedder`; it is fitted on the categorical
    statistics ``enc.stats`` (the same value order as the embedding rows). The value table is
    reduced by PCA to ``dim`` columns (zero-padded when narrower) and scaled to unit standard
    deviation, the scale of ``torch.nn.Embedding``'s default initialisation; the unseen-value
    row of every column is zero.
    """
    from sklearn.decomposition import PCA

    from ..embed import CDE, UNTIE

    if enc.stats is None:
        return np.zeros((0, dim))
    if isinstance(method, str):
        check_option("value_init", method, VALUE_INITS)
        est = CDE(random_state=random_state) if method == "cde" else UNTIE()
    else:
        est = method
    est.fit_statistics(enc.stats)
    table = np.asarray(est.value_embedding_, dtype=np.float64)
    table = table - table.mean(axis=0)
    if table.shape[1] > dim:
        n_comp = min(dim, table.shape[0])
        table = PCA(n_comp, random_state=0).fit_transform(table)
    if table.shape[1] < dim:
        table = np.hstack([table, np.zeros((table.shape[0], dim - table.shape[1]))])
    sd = table.std()
    table = table / sd if sd > 0 else table
    rows = np.zeros((enc.n_embeddings, dim))
    start = 0
    for off, size in zip(enc.offsets, enc.sizes, strict=True):
        rows[off:off + size] = table[start:start + size]
        start += size
    return rows


def fit_restarts(est: Any, seeds: list[int], enc: MixedEncoding, data: _Rows,
                 init_rows: Any, objective: str, dev: Any, torch: Any) -> list[dict[str, Any]]:
    """Run one restart per seed (``est._fit_one``), one after the other, and return them all
    (each with its network, labels and final objective); the choice among them is
    :func:`catembed.deep._guard.choose_restart`'s."""
    runs: list[dict[str, Any]] = []
    with _deterministic(torch, est.n_threads, dev.type == "cuda"), \
            torch.random.fork_rng(devices=[]):
        for seed in seeds:
            run = est._fit_one(seed, enc, data, init_rows, objective, dev, torch)
            run["labels"] = np.asarray(run["labels"], dtype=np.int64)
            runs.append(run)
    return runs


def _floats(torch: Any, losses: list[Any]) -> list[float]:
    """The float32 loss tensors of a stage as Python floats, copied to the host at once."""
    return [float(v) for v in torch.stack(losses).cpu().tolist()] if losses else []


def stage_steps(est: Any, n: int) -> tuple[int, int]:
    """Adam steps of the pretraining and of the clustering phase on ``n`` rows:
    ``pretrain_steps`` and ``cluster_steps``, each at most ``max_epochs`` passes over the rows
    (``ceil(max_epochs * n / batch)`` steps, ``batch = min(batch_size, n)``; no bound when
    ``max_epochs`` is None). On a small table a fixed step budget is hundreds of epochs
    (1000 steps of 256 rows are 394 passes over 650 rows) for no better partition
    (docs/deep.md, "Steps on small tables"); from ``ceil(1000 * batch_size / max_epochs)``
    rows on (1,280 with the defaults) the step budgets apply unchanged."""
    pre, clu = int(est.pretrain_steps), int(est.cluster_steps)
    if est.max_epochs is None:
        return pre, clu
    n = max(int(n), 1)
    cap = -(-int(est.max_epochs) * n // min(int(est.batch_size), n))
    return min(pre, cap), min(clu, cap)


def fit_one(est: Any, seed: int, enc: MixedEncoding, data: _Rows, init_rows: Any,
            objective: str, dev: Any, torch: Any) -> dict[str, Any]:
    """One initialisation: pretraining, k-means, (IDEC) joint training, then the final
    objective (``est._final_objective``); the random streams come from ``seed`` only."""
    from ._nets import ClusteringModel, MixedDecoder

    n = data.n
    rng = np.random.RandomState(seed)
    torch.manual_seed(seed)
    history: list[Any] = []
    encoder = est._build_encoder(enc)
    if init_rows is not None and len(init_rows):
        with torch.no_grad():
            encoder.values.weight.copy_(torch.as_tensor(init_rows, dtype=torch.float32))
    decoder = MixedDecoder(int(est.n_components),
                           [int(h) for h in reversed(est.hidden_sizes)],
                           len(enc.numeric), list(enc.sizes))
    model = ClusteringModel(encoder, decoder,
                            torch.as_tensor(enc.offsets, dtype=torch.int64),
                            torch.as_tensor(enc.sizes, dtype=torch.int64),
                            int(est.n_clusters), int(est.n_components),
                            float(est.alpha)).to(dev)
    gen = torch.Generator(device=dev).manual_seed(seed)
    corruption = float(est.corruption)
    batches = _Batches(n, min(int(est.batch_size), n), rng)
    opt = torch.optim.Adam(model.parameters(), lr=float(est.learning_rate))
    pretrain_steps, cluster_steps = stage_steps(est, n)

    # 1) pretraining: reconstruction only
    model.train()
    for _ in range(pretrain_steps):
        _, loss = model.recon_loss(*data.take(batches.next()), corruption, gen)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss.detach())  # read once after the loop: no sync per step

    history = _floats(torch, history)
    # 2) k-means on the latent vectors of (at most KMEANS_SAMPLE) rows
    labels = kmeans_centres(model, data, est.n_clusters, rng, torch)
    n_iter = 0
    delta_label: list[float] = []
    cluster_hist: list[Any] = []
    # 3) IDEC: joint reconstruction + KL(P || Q)
    if objective == "idec" and cluster_steps > 0:
        opt = torch.optim.Adam(model.parameters(), lr=float(est.learning_rate))
        frozen = colsum = None
        for step in range(cluster_steps):
            if step % int(est.update_interval) == 0:
                # the target P of DEC Eq. 3, fixed until the next update: the column
                # sums f_j of q over all rows (one streaming pass) and a frozen copy
                # of the network give p for any batch, so no n x k array is kept
                new, colsum = assign(model, data, est.n_clusters, torch)
                if labels is None:
                    labels = new
                delta = float(np.mean(new != labels))
                labels = new
                delta_label.append(delta)
                if step > 0 and delta < float(est.tol):
                    break
                frozen = copy.deepcopy(model).eval()
            model.train()
            codes_b, nums_b = data.take(batches.next())
            loss = idec_loss(model, frozen, colsum, codes_b, nums_b, corruption, gen,
                             est.gamma, torch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            cluster_hist.append(loss.detach())
            n_iter = step + 1
        del frozen
        cluster_hist = _floats(torch, cluster_hist)
        labels = None  # the final assignment comes with the objective's first pass
    model.eval()
    value, final = est._final_objective(model, data, torch)
    return {"model": model, "labels": final if labels is None else labels,
            "objective": value, "n_iter": n_iter, "delta_label": delta_label,
            "pretrain_loss": history, "cluster_loss": cluster_hist}
