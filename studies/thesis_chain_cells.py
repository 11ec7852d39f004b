"""What are the thesis' k-means, DCN, DEC and IDEC cells of a network when, as in the thesis'
notebook, one chained fit per seed gives all four? (issue 20)

Answer used in: src/catembed/evaluation/tables/thesis-final-nmi.json, -acc.json; docs/deep.md,
issue 20 passes.

The thesis' k-means, DEC, IDEC and DCN cells of a network from one chain per seed (issue 20).

The thesis' notebook (``deep_clustering_comparison.ipynb`` of its public repository) fits
DCN, then DEC, then IDEC on the same pretrained network object, so its DEC cell is DCN then
DEC and its IDEC cell DCN, DEC then IDEC (``catembed.deep.thesis.THESIS_CHAIN``, the default
``cluster_protocol="thesis"``). One ``ThesisClusterer(clustering="idec")`` fit therefore
holds all four cells in ``stage_labels_`` (k-means after the pretraining, then each stage);
the separate ``thesis-<network>-kmeans`` / ``-dcn`` / ``-dec`` / ``-idec`` bench columns
refit the shared prefix (pretraining 4x, DCN 3x, DEC 2x). This
script runs ``catembed bench`` on those cells with every fit done once: it registers
``chain-<network>-<stage>`` methods whose labels come from one cached ``"idec"`` fit per
(table, k, seed, network), each stage's labels passed through the same guard as a fit of
that stage alone (``choose_restart`` with that stage's last-epoch loss). The numbers equal
the separate columns' (``test_one_idec_chain_gives_the_dcn_and_dec_cells`` in
``tests/test_thesis_deep.py`` checks the labels; a bench check is in docs/deep.md).

Each cell also comes as ``<cell> (guard off)``: the stage's own labels, before the guard.
The thesis ran no guard, and the guard only reads the fitted network (its reference
partition is computed after the restarts, from its own seed), so these are the labels of
the same fit with ``guard=False``.

Usage (the arguments after the networks go to ``catembed bench``, except ``--device``,
the fits' torch device, default ``cpu``)::

    python studies/thesis_chain_cells.py ae,attention --datasets heart_cleveland \
        --runs 5 --seed 0 --json [--device cuda]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

NETWORKS = {"ae": "AE+emb", "attention": "Attention", "transformer": "Transformer",
            "ft-transformer": "FT-Transformer"}
STAGES = ("kmeans", "dcn", "dec", "idec")
_CACHE: dict[tuple, object] = {}


def _chain(X: pd.DataFrame, k: int, seed: int, network: str, params: dict) -> object:
    from catembed.deep import ThesisClusterer

    key = (network, k, seed, len(X), int(pd.util.hash_pandas_object(X, index=False).sum()),
           tuple(sorted(params.items())))
    if key not in _CACHE:
        _CACHE[key] = ThesisClusterer(k, network=network, clustering="idec",
                                      random_state=seed, **params).fit(X)
    return _CACHE[key]


def chain_labels(X: pd.DataFrame, n_clusters: int, *, random_state: int, network: str,
                 stage: str, raw: bool = False, **params: object) -> np.ndarray:
    """The labels of ``stage`` (guarded as a fit of that stage alone would be, unless
    ``raw``: then the stage's own labels, as with ``guard=False``)."""
    from catembed.deep._guard import choose_restart
    from catembed.deep._thesis_stages import stage_epochs

    est = _chain(X, int(n_clusters), int(random_state), network, params)
    labels = est.stage_labels_[stage]
    if raw or est.reference_ is None:
        return labels
    epochs = stage_epochs(est)
    if stage == "kmeans":  # the objective of a k-means fit: its last pretraining epoch
        objective = est.pretrain_loss_[-1] if est.pretrain_loss_ else np.nan
    else:
        objective = est.cluster_loss_[STAGES.index(stage) * epochs - 1] if epochs else np.nan
    index, _, _ = choose_restart([labels], [objective], est.reference_.labels,
                                 est.restart_criterion, "ThesisClusterer", stacklevel=2)
    return est.reference_.labels if index is None else labels


def main(argv: list[str]) -> int:
    from catembed.__main__ import main as cli
    from catembed.evaluation.methods import register_method

    networks, rest = argv[0].split(","), argv[1:]
    device = "cpu"
    if "--device" in rest:  # ours, not catembed bench's: the fits' torch device
        i = rest.index("--device")
        device, rest = rest[i + 1], rest[:i] + rest[i + 2:]
    src = Path(__file__).resolve().parents[1] / "src/catembed/evaluation/tables"
    table = json.loads((src / "thesis-final-nmi.json").read_text(encoding="utf-8"))
    columns = []
    raw_of = {}
    for net in networks:
        for stage in STAGES:
            label = NETWORKS[net] if stage == "kmeans" else f"{stage.upper()} {NETWORKS[net]}"
            for raw in (False, True):
                name = f"chain-{net}-{stage}" + ("-raw" if raw else "")
                register_method(name, labels=chain_labels, random=True,
                                params={"network": net, "stage": stage, "raw": raw,
                                        **({} if device == "cpu" else {"device": device})},
                                description=f"the thesis' {stage} cell of {net}, from one chain"
                                + (", guard off" if raw else ""))
                columns.append({"label": f"{label} (guard off)" if raw else label,
                                "method": name})
            raw_of[label] = f"{label} (guard off)"
    table["id"] = "thesis-final-nmi-chain"
    table["columns"] = columns
    for d in table["datasets"]:
        kept = {c: v for c, v in d["scores"].items() if c in raw_of}
        d["scores"] = {**kept, **{raw_of[c]: v for c, v in kept.items()}}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "thesis-final-nmi-chain.json"
        path.write_text(json.dumps(table), encoding="utf-8")
        return cli(["bench", "--table", str(path), "--jobs", "1", *rest])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
