"""Training of :class:`~catembed.deep.thesis.ThesisClusterer`: the pretraining, k-means on
the latent vectors and the DEC / IDEC / DCN stages, in the thesis' protocol (its code's
ClustPy stages, run as its notebook runs them) and in catembed's earlier one.

Each function takes the estimator ``est`` for its parameters (and records the stages'
losses and labels on it) and torch from the caller; torch is imported only when a model is
fitted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.cluster import KMeans
from sklearn.utils.random import sample_without_replacement

from ._batches import label_dtype
from ._objectives import KMEANS_SAMPLE

CLUSTER_PROTOCOLS = ("thesis", "thesis-single", "catembed")
#: the thesis' clustering-stage settings (ClustPy's DEC / IDEC / DCN defaults as its code uses them)
THESIS_CLUSTER_EPOCHS, THESIS_CLUSTER_LR, THESIS_DCN_LAMBDA, THESIS_DCN_COUNT = 150, 1e-4, 0.05, 100
#: the stages the thesis' notebook runs, on one network, for each cell
THESIS_CHAIN = {"dcn": ("dcn",), "dec": ("dcn", "dec"), "idec": ("dcn", "dec", "idec")}


def take(codes: Any, nums: Any, idx: Any) -> tuple[Any, Any]:
    """The rows ``idx`` of the compact table, value ids widened to ``int64``."""
    return codes[idx].long(), nums[idx]

def adam(torch: Any, params: Any, lr: float) -> Any:
    """Adam (lr as given, PyTorch's defaults otherwise), the fused kernel where this
    PyTorch has it: the same update in one kernel per step instead of a loop over the
    parameters (batch 32 makes the optimiser's per-parameter overhead a large part of
    a step on a CPU)."""
    params = list(params)
    try:
        return torch.optim.Adam(params, lr=lr, fused=True)
    except (RuntimeError, TypeError, ValueError):  # pragma: no cover - old torch
        return torch.optim.Adam(params, lr=lr)

def loss_sum(torch: Any, device: Any) -> Any:
    """A float64 zero on ``device`` that an epoch's batch losses are added to: the sum stays
    on the device (no host synchronisation per step on a GPU) and equals, bit for bit, the
    Python float sum of the float32 losses it replaces."""
    return torch.zeros((), dtype=torch.float64, device=device)

def steps_per_epoch(est: Any, n: int) -> int:
    return -(-n // min(int(est.batch_size), n))

def pretrain(est: Any, torch: Any, model: Any, codes: Any, nums: Any, batches: Any
              ) -> list[float]:
    opt = adam(torch, model.parameters(), float(est.learning_rate))
    history = []
    model.train()
    for _ in range(int(est.epochs)):
        total = loss_sum(torch, codes.device)
        steps = steps_per_epoch(est, len(codes))
        for _ in range(steps):
            idx = torch.as_tensor(batches.next(), device=codes.device)
            _, rec, target = model(*take(codes, nums, idx))
            loss = torch.nn.functional.mse_loss(rec, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.detach().double()
        history.append(float(total) / steps)
    return history

def latent(est: Any, torch: Any, model: Any, codes: Any, nums: Any) -> Any:
    model.eval()
    with torch.no_grad():
        return torch.cat([model.embed(codes[s:s + 4096].long(), nums[s:s + 4096])
                          for s in range(0, len(codes), 4096)])

def kmeans(est: Any, torch: Any, model: Any, codes: Any, nums: Any, seed: int) -> np.ndarray:
    """k-means (``n_init=10``) on the latent vectors of every row, or of a uniform
    sample of :data:`~catembed.deep._objectives.KMEANS_SAMPLE` rows on larger tables
    (then every row goes to its nearest centre): the latent vectors are never held for
    more than that many rows."""
    from ._thesis_nets import nearest_centre

    n = len(codes)
    rows = None
    if n > KMEANS_SAMPLE:
        rows = torch.as_tensor(np.sort(sample_without_replacement(
            n, KMEANS_SAMPLE, random_state=seed)), device=codes.device)
    sub = (codes, nums) if rows is None else (codes[rows], nums[rows])
    z = latent(est, torch, model, *sub).cpu().numpy().astype(np.float64)
    km = KMeans(int(est.n_clusters), n_init=10, random_state=seed).fit(z)
    del z, sub
    with torch.no_grad():
        model.centers.copy_(torch.as_tensor(km.cluster_centers_, dtype=torch.float32))
    return (km.labels_.astype(label_dtype(int(est.n_clusters))) if rows is None
            else nearest_centre(model, codes, nums))

def stage_epochs(est: Any) -> int:
    if est.cluster_epochs is not None:
        return int(est.cluster_epochs)
    return 100 if est.cluster_protocol == "catembed" else THESIS_CLUSTER_EPOCHS

def stage_lr(est: Any) -> float:
    if est.cluster_learning_rate is not None:
        return float(est.cluster_learning_rate)
    return float(est.learning_rate) if est.cluster_protocol == "catembed" \
        else THESIS_CLUSTER_LR

def dcn_lambda(est: Any) -> float:
    if est.dcn_lambda is not None:
        return float(est.dcn_lambda)
    return 1.0 if est.cluster_protocol == "catembed" else THESIS_DCN_LAMBDA

def cluster_thesis(est: Any, torch: Any, model: Any, codes: Any, nums: Any, batches: Any,
                    seed: int) -> np.ndarray:
    """The DEC / IDEC / DCN stages as the thesis' code runs them (``cluster_protocol``
    ``"thesis"`` / ``"thesis-single"``): each stage starts from k-means on the current
    latent vectors (the centres; the pretrained one was run by :meth:`_kmeans`) and
    the result is k-means on the latent vectors after the last stage. DEC / IDEC: Xie
    et al. (2016) Eq. 1-3 with ``f`` over the batch; DCN: Yang et al. (2017) Eq. 5 with
    the nearest centre and Algorithm 1's centroid step (counts starting at 100)."""
    from ._thesis_nets import dcn_centroid_step, dec_batch_loss

    F = torch.nn.functional  # noqa: N806
    stages = THESIS_CHAIN[est.clustering] if est.cluster_protocol == "thesis" \
        else (est.clustering,)
    est.cluster_loss_ = []
    n, bs = len(codes), min(int(est.batch_size), len(codes))
    for i, kind in enumerate(stages):
        if i:  # the next stage's centres: k-means on the latent vectors as they are now
            # (its labels are the previous stage's result, as in the thesis' notebook)
            est._stage_labels[stages[i - 1]] = kmeans(est, torch, model, codes, nums,
                                                             seed)
        if kind == "dcn":  # DCN's centroids follow their own rule, not Adam
            params = [p for name, p in model.named_parameters() if name != "centers"]
            counts = torch.full((int(est.n_clusters),), float(THESIS_DCN_COUNT),
                                device=codes.device)
        else:
            params = list(model.parameters())
        opt = adam(torch, params, stage_lr(est))
        for _ in range(stage_epochs(est)):
            model.train()
            total, steps = loss_sum(torch, codes.device), steps_per_epoch(est, n)
            for _ in range(steps):
                idx = torch.as_tensor(batches.next(), device=codes.device)
                z, rec, target = model(*take(codes, nums, idx))
                if kind == "dcn":
                    dist = torch.cdist(z, model.centers.detach()).pow(2)
                    loss = F.mse_loss(rec, target) + dcn_lambda(est) / 2 * (
                        dist.min(dim=1).values.mean())
                else:
                    loss = dec_batch_loss(model.soft_assign(z))
                    if kind == "idec":
                        loss = F.mse_loss(rec, target) + float(est.gamma) * loss
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += loss.detach().double()
            est.cluster_loss_.append(float(total) / steps)
            if kind == "dcn":  # assignments and centroids, batch by batch in row order
                model.eval()
                with torch.no_grad():
                    for s in range(0, n, bs):
                        zb = model.embed(*take(codes, nums, slice(s, s + bs)))
                        near = torch.cdist(zb, model.centers).argmin(dim=1)
                        counts = dcn_centroid_step(model.centers, counts, zb, near)
    est._stage_labels[stages[-1]] = labels = kmeans(est, torch, model, codes, nums, seed)
    return labels

def cluster_catembed(est: Any, torch: Any, model: Any, codes: Any, nums: Any, batches: Any,
             labels: np.ndarray) -> np.ndarray:
    """The DEC / IDEC / DCN stage with ``cluster_protocol="catembed"``; returns the final
    labels."""
    from ._nets import target_distribution
    from ._thesis_nets import dcn_centroid_step, nearest_centre

    F = torch.nn.functional  # noqa: N806
    kind = est.clustering
    dev = codes.device
    if kind == "dec":  # DEC fine-tunes the encoder (and the centres) only
        params = [p for name, p in model.named_parameters()
                  if not name.startswith("decoder.")]
    elif kind == "idec":
        params = list(model.parameters())
    else:  # DCN: the centroids are updated by its own rule, not by Adam
        params = [p for name, p in model.named_parameters() if name != "centers"]
    opt = adam(torch, params, stage_lr(est))
    assign = torch.as_tensor(labels, dtype=torch.int64, device=dev)
    counts = torch.bincount(assign, minlength=int(est.n_clusters)).to(torch.float32)
    for _ in range(stage_epochs(est)):
        if kind in ("dec", "idec"):  # the target P, renewed every epoch
            with torch.no_grad():
                p_all = target_distribution(
                    model.soft_assign(latent(est, torch, model, codes, nums)))
        model.train()
        total, steps = loss_sum(torch, dev), steps_per_epoch(est, len(codes))
        for _ in range(steps):
            idx = torch.as_tensor(batches.next(), device=dev)
            batch = take(codes, nums, idx)
            z, rec, target = model(*batch)
            if kind in ("dec", "idec"):
                q = model.soft_assign(z)
                loss = F.kl_div(q.log(), p_all[idx], reduction="batchmean")
                if kind == "idec":
                    loss = F.mse_loss(rec, target) + float(est.gamma) * loss
            else:
                # (1) network step with the assignments and centroids fixed
                mu = model.centers.detach()[assign[idx]]
                loss = F.mse_loss(rec, target) + dcn_lambda(est) / 2 * (
                    (z - mu).pow(2).sum(dim=1).mean())
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.detach().double()
            if kind == "dcn":
                with torch.no_grad():
                    # (2) assignments of the batch to the nearest centroid, (3) DCN
                    # Algorithm 1's centroid steps 1 / count (dcn_centroid_step)
                    zb = model.embed(*batch)
                    near = torch.cdist(zb, model.centers).argmin(dim=1)
                    assign[idx] = near
                    counts = dcn_centroid_step(model.centers, counts, zb, near)
        est.cluster_loss_.append(float(total) / steps)
    return nearest_centre(model, codes, nums)
