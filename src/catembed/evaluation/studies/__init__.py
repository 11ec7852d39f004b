"""The papers' studies: ``catembed bench --study NAME`` writes a figure and a table.

=====================  ==================================================================
``cde-sensitivity``    CDE (IJCAI 2017) Figs. 2-3: F-score and dimension against ``alpha``
                       and ``beta``.
``cdepp-sensitivity``  CDE++ (Entropy 2020) Figs. 2-5: dimension and F-score against
                       ``epsilon`` (``lambda = 10``) and ``lambda`` (``epsilon = 8``).
``scalability``        CDE++ Figs. 6-7, CDE's and UNTIE's (Fig. 9) scalability figures:
                       fit + transform time against rows and against attributes for every
                       embedder, with prince's MCA and scikit-learn one-hot + PCA as peers.
``untie-heterogeneity``  UNTIE Eqs. 23-25 (intra/inter-coupling heterogeneity indicators,
                       Figs. 2-3) and the (epsilon, gamma)-curves of Fig. 6.
``untie-tsne``         UNTIE Fig. 7: t-SNE maps of UNTIE, CDE and one-hot vectors.
``untie-retrieval``    UNTIE Fig. 11: precision@k, every object a query.
=====================  ==================================================================

Default sizes are small (each study runs in a few minutes on one core); the paper's data
sets that are not found are listed in the study's notes, never silently replaced. No
parameter is chosen from the labels: the labels only score what each setting gives.

Where each study lives: :mod:`.sensitivity`, :mod:`.scalability`, :mod:`.heterogeneity`
(with UNTIE's indicators), :mod:`.untie_maps` (t-SNE maps and retrieval); what they share
(result, registry entry, run context) in :mod:`._common`. This module holds the registry
:data:`STUDIES` and :func:`run_study`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..._utils._validation import CatEmbedError
from ...io import atomic_output
from ._common import Study, StudyResult, _Ctx
from .heterogeneity import (
    epsilon_gamma_curve,
    inter_heterogeneity,
    intra_heterogeneity,
    untie_heterogeneity,
)
from .scalability import scalability
from .sensitivity import cde_sensitivity, cdepp_sensitivity
from .untie_maps import untie_retrieval, untie_tsne

__all__ = ["STUDIES", "Study", "StudyResult", "epsilon_gamma_curve",
           "inter_heterogeneity", "intra_heterogeneity", "run_study"]


STUDIES: dict[str, Study] = {s.name: s for s in [
    Study("cde-sensitivity", "CDE Figs. 2-3: F-score and dimension vs alpha and beta",
          cde_sensitivity),
    Study("cdepp-sensitivity", "CDE++ Figs. 2-5: dimension and F-score vs epsilon and lambda",
          cdepp_sensitivity),
    Study("scalability", "time vs rows and vs attributes, every embedder + MCA, one-hot+PCA",
          scalability),
    Study("untie-heterogeneity", "UNTIE Eqs. 23-25 indicators and Fig. 6 (eps, gamma)-curves",
          untie_heterogeneity),
    Study("untie-tsne", "UNTIE Fig. 7: t-SNE maps of UNTIE, CDE and one-hot", untie_tsne),
    Study("untie-retrieval", "UNTIE Fig. 11: precision@k curves", untie_retrieval),
]}


def run_study(name: str, out_dir: str | os.PathLike, *, data_dir: str | None = None,
              seed: int = 0, runs: int | None = None, fmt: str = "png",
              quiet: bool = False, datasets: list[str] | None = None) -> StudyResult:
    """Run a study and write ``NAME.png`` (or ``.svg``) and ``NAME.csv`` into ``out_dir``.

    Parameters
    ----------
    name : str
        A key of :data:`STUDIES`.
    out_dir : path
        Created when missing; files are written through temporary names.
    data_dir : str, optional
        Folder of data sets (default: :func:`catembed.evaluation.inputs.data_roots`).
    seed : int, default=0
    runs : int, optional
        k-means runs per setting (sensitivity studies); default the study's.
    fmt : {"png", "svg"}
    quiet : bool
    datasets : list of str, optional
        Data sets to use instead of the study's defaults (the paper's).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if name not in STUDIES:
        raise CatEmbedError(f"unknown study {name!r}; choose from {', '.join(STUDIES)}.")
    if fmt not in ("png", "svg"):
        raise CatEmbedError(f"--format must be png or svg; got {fmt!r}.")
    if runs is not None and runs < 1:
        raise CatEmbedError(f"--runs must be at least 1; got {runs}.")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise CatEmbedError(f"-o {out} is a file; a study writes into a folder.")
    out.mkdir(parents=True, exist_ok=True)
    ctx = _Ctx(data_dir, seed, runs, quiet, datasets)
    t0 = time.perf_counter()
    table, fig, notes = STUDIES[name].run(ctx)
    seconds = time.perf_counter() - t0
    fig.suptitle(f"{STUDIES[name].title}  [{seconds:.0f} s]", fontsize=10)
    fig.tight_layout()
    figure = out / f"{name}.{fmt}"
    try:
        with atomic_output(figure) as tmp:
            fig.savefig(tmp, dpi=110, format=fmt)
    finally:
        plt.close(fig)
    table_path = out / f"{name}.csv"
    with atomic_output(table_path) as tmp:
        table.to_csv(tmp, index=False)
    return StudyResult(name, table, figure, table_path, seconds, notes)
