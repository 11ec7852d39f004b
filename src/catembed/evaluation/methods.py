"""The method registry of the evaluation protocol: a name -> how to run it.

Three kinds of method (``src/catembed/evaluation/tables/README.md`` has the same text):

* ``embedding``: a transformer class or factory called as ``factory(random_state=seed,
  **params)``; the protocol fits it on the table, transforms the table and clusters the
  embedding with the column's clusterer (k-means by default, or spectral: CDE-G).
* ``affinity``: ``func(frame, random_state=seed, **params)`` returns an ``n x n`` object
  similarity (dense or sparse), clustered by spectral clustering.
* ``labels``: ``func(frame, n_clusters, random_state=seed, **params)`` returns the cluster
  labels (k-modes and the like).

``random=True`` refits the method in every run with the run's seed (CDE: its value k-means
is random); ``random=False`` fits once and reuses the result in every run (one-hot, IDF).

Adding a method is one line at the end of this file, naming the target as a
``"module:attribute"`` string so that nothing is imported until the method runs::

    register_method("cdepp", embedding="catembed.embed.cdepp:CDEPlusPlus", random=True)

A registered method whose module does not exist yet reports "not yet available".
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._utils._method_names import resolve_name
from .._utils._validation import CatEmbedError

__all__ = ["EvalMethod", "MethodUnavailable", "get_method", "method_names", "register_method"]

KINDS = ("embedding", "affinity", "labels")


class MethodUnavailable(CatEmbedError):
    """The method is named but its implementation cannot be imported (not built yet)."""


@dataclass
class EvalMethod:
    """How the protocol runs one method.

    Attributes
    ----------
    name : str
    kind : {"embedding", "affinity", "labels"}
    target : callable or str
        The factory / function, or ``"module:attribute"`` imported on first use.
    random : bool
        Refit in every run with the run's seed.
    clusterer : str or None
        The clusterer used when the caller names none (``"kmeans"``, ``"spectral"``).
    params : dict
        Keyword arguments always passed to the target.
    description : str
    takes_init : bool
        A ``labels`` method that runs k-means itself and takes the protocol's k-means
        seeding as ``init=`` (UNTIE's Table IV protocol); other ``labels`` methods (k-modes,
        whose ``init`` means something else) do not get it.
    numeric : bool
        Takes numeric columns as numbers (FAMD, LCA, k-prototypes, the deep clusterers,
        Consensus, ...). ``catembed evaluate --numeric passthrough`` gives the other methods
        the categorical columns only.
    """

    name: str
    kind: str
    target: Callable[..., Any] | str
    random: bool = False
    clusterer: str | None = None
    params: dict = field(default_factory=dict)
    description: str = ""
    takes_init: bool = False
    numeric: bool = False

    def resolve(self) -> Callable[..., Any]:
        """The callable, importing it if given as a string."""
        if callable(self.target):
            return self.target
        module, _, attr = str(self.target).partition(":")
        try:
            obj: Any = importlib.import_module(module)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as exc:
            raise MethodUnavailable(
                f"method {self.name!r} is not available yet ({self.target}: {exc})."
            ) from None
        return obj

    @property
    def available(self) -> bool:
        """Whether the implementation can be imported."""
        try:
            self.resolve()
        except MethodUnavailable:
            return False
        return True


_REGISTRY: dict[str, EvalMethod] = {}


def register_method(
    name: str,
    *,
    embedding: Callable[..., Any] | str | None = None,
    affinity: Callable[..., Any] | str | None = None,
    labels: Callable[..., Any] | str | None = None,
    random: bool = False,
    clusterer: str | None = None,
    params: dict | None = None,
    description: str = "",
    replace: bool = True,
    takes_init: bool = False,
    numeric: bool = False,
) -> EvalMethod:
    """Register (or replace) an evaluation method under ``name``; give exactly one of
    ``embedding``, ``affinity``, ``labels``. Returns the entry."""
    given = {k: v for k, v in (("embedding", embedding), ("affinity", affinity),
                               ("labels", labels)) if v is not None}
    if len(given) != 1:
        raise CatEmbedError(
            f"register_method({name!r}): give exactly one of embedding=, affinity=, labels=."
        )
    if not replace and name in _REGISTRY:
        raise CatEmbedError(f"method {name!r} is already registered.")
    (kind, target), = given.items()
    entry = EvalMethod(name, kind, target, bool(random), clusterer, dict(params or {}),
                       description, bool(takes_init), bool(numeric))
    _REGISTRY[name] = entry
    return entry


def get_method(name: str) -> EvalMethod:
    """The registry entry for ``name``, matched case-insensitively (a :class:`CatEmbedError`
    naming the known ones, and the nearest for a near miss, if none)."""
    if name in _REGISTRY:
        return _REGISTRY[name]
    return _REGISTRY[resolve_name(name, method_names())]


def method_names(*, available_only: bool = False) -> list[str]:
    """Registered method names (optionally only those whose implementation imports)."""
    return sorted(n for n, m in _REGISTRY.items() if not available_only or m.available)


# ---------------------------------------------------------------------- the registry
register_method("cde", embedding="catembed.embed.cde:CDE", random=True,
                description="CDE (Jian et al. 2017), refit per run")
register_method("cde-g", embedding="catembed.embed.cde:CDE", random=True,
                clusterer="spectral",
                description="CDE-G: Gaussian similarity on CDE + spectral clustering")
register_method("onehot", embedding="catembed.embed.baselines:OneHotEmbedder",
                description="0-1: one-hot")
register_method("onehot-pca", embedding="catembed.embed.baselines:OneHotPCA",
                description="0-1P: one-hot + PCA")
register_method("idf", embedding="catembed.embed.baselines:IDFEmbedder",
                description="IDF: log(n / cnt(v)) per attribute")

# similarity baselines (issue 6): spectral clustering on a value-distance similarity (CDE
# Table 2) and k-modes with a value distance (UNTIE Table IV)
for _name, _metric in (("cos", "cos"), ("dilca", "dilca"), ("algo", "ahmad")):
    register_method(_name, labels="catembed.cluster.spectral:similarity_spectral_labels",
                    random=True, params={"metric": _metric},
                    description=f"{_name.upper()} similarity + spectral clustering")
for _metric in ("hamming", "ahmad", "dilca", "cos", "dm", "rough"):
    register_method(f"kmodes-{_metric}", labels="catembed.cluster.kmodes:kmodes_labels",
                    random=True, params={"metric": _metric},
                    description=f"k-modes (Cao 2009 init, one start) with the {_metric} "
                    "value distance")
# the mixed-type baselines of the Fehling thesis (issue 6)
for _name, _fn in (("naive-kmeans", "naive_kmeans_labels"),
                   ("onehot-kmeans", "onehot_kmeans_labels"),
                   ("kprototypes", "kprototypes_labels"),
                   ("gower-agglomerative", "gower_agglomerative_labels")):
    register_method(_name, labels=f"catembed.cluster.mixed:{_fn}", random=True,
                    numeric=True, description=f"thesis baseline: {_name}")
for _name in ("cde", "cdepp", "untie", "mca"):
    register_method(f"{_name}-mixed", embedding="catembed.cluster.mixed:mixed_embedder",
                    random=True, params={"method": _name}, numeric=True,
                    description=f"{_name} on mixed data (numeric columns discretised)")

# CDE++ (issue 4): the method, the paper's AE variants and the Table 6 ablations (i)-(iii)
register_method("cdepp", embedding="catembed.embed.cdepp:CDEPlusPlus", random=True,
                description="CDE++ (Dong et al. 2020): hybrid value clusters + autoencoder")
register_method("cde-ae", embedding="catembed.embed.autoencoders:CDEAutoencoder", random=True,
                description="CDE-AE: CDE value clusters + the CDE++ autoencoder")
register_method("onehot-ae", embedding="catembed.embed.autoencoders:OneHotAutoencoder", random=True,
                description="1-HOT-AE: the CDE++ autoencoder on one-hot value codes")
for _name, _clus in (("dbscan", "dbscan"), ("hc", "hc"), ("hybrid", "hybrid")):
    register_method(f"cdepp-{_name}", embedding="catembed.embed.cdepp:CDEPlusPlus",
                    params={"value_clustering": _clus, "encoder": "none"},
                    description=f"CDE++ ablation: {_clus} value clusters, no autoencoder")

# UNTIE (issue 5): Table IV's protocol passes c = number of classes through a labels method;
# the vectors (Eq. 21; c by the eigengap rule) serve classification and retrieval
register_method("untie", labels="catembed.evaluation.untie_protocol:untie_cluster_labels",
                random=True, takes_init=True,
                description="UNTIE (Zhu et al.), c = number of classes, k-means on its vectors")
register_method("untie-vectors", embedding="catembed.embed.untie:UNTIE",
                description="UNTIE vector representation (Eq. 21); c by the eigengap rule "
                "unless the task passes labels to fit")
register_method("couplings", embedding="catembed.embed.couplings:Couplings",
                description="Couplings: UNTIE's concatenated coupling spaces, no kernels")

# what users pick instead (issue 12): MCA and FAMD fitted from the shared statistics, latent
# class analysis as a clusterer; deterministic embedders are fitted once per table
register_method("mca", embedding="catembed.embed.mca:MCA", params={"n_components": 10},
                description="MCA: 10 axes of the Burt matrix (prince's coordinates)")
register_method("famd", embedding="catembed.embed.mca:famd_embedder",
                params={"n_components": 10}, numeric=True,
                description="FAMD: 10 axes; numeric columns standardised (MCA on categorical "
                "tables, up to scale)")
register_method("lca", labels="catembed.cluster.lca:lca_labels", random=True, numeric=True,
                description="latent class analysis (EM, one start per seed; numeric columns "
                "in 5 quantile bins)")

# the survey's strongest categorical clusterers (issue 39): deterministic, so one fit serves
# every run (the seed does not change them)
register_method("mgr", labels="catembed.cluster.mgr:mgr_labels",
                description="MGR (Qin et al. 2014): divisive, by the mean gain ratio")
register_method("lsh-kreps", labels="catembed.cluster.lshkreps:lsh_kreps_labels",
                description="LSH-k-representatives (Mau & Huynh 2021)")
register_method("ocl", labels="catembed.cluster.ocl:ocl_labels", random=True,
                description="OCL (Zhang et al. 2024): k-modes type, learned value orders")

# our own method (issue 12 item 5): MCA axes + pairwise-composite latent classes, refit per
# run (the latent-class EM starts follow the seed)
register_method("lcme", embedding="catembed.embed.lcme:LCME", random=True,
                params={"n_components": 10},
                description="LCME (ours): 10 MCA axes + 10 latent-class log-likelihoods")

# deep methods (issue 13; PyTorch, optional): nothing is imported until a method runs, so
# without torch they report an error when run. deep/ itself does not import this layer.
_DEEP = "catembed.deep.clustering"
register_method("deep-ae-kmeans", labels=f"{_DEEP}:autoencoder_kmeans_labels", random=True,
                numeric=True,
                description="mixed-type autoencoder (value embeddings) + k-means on its codes")
register_method("deep-idec", labels=f"{_DEEP}:idec_labels", random=True,
                numeric=True,
                description="IDEC (Guo et al. 2017) on the mixed-type autoencoder")
register_method("deep-attention", labels=f"{_DEEP}:attention_labels", random=True,
                numeric=True,
                description="column tokens + transformer encoder + attention pooling, IDEC loss")
register_method("deep-attention-cde", labels=f"{_DEEP}:attention_labels", random=True,
                params={"value_init": "cde"}, numeric=True,
                description="deep-attention with value embeddings started from CDE vectors")
register_method("deep-idec-cde", labels=f"{_DEEP}:idec_labels", random=True,
                params={"value_init": "cde"}, numeric=True,
                description="deep-idec with value embeddings started from CDE vectors")
# UNTIE Table IV's deep baselines: fitted once (seed of the first run), k-means repeated
register_method("vae-wd", embedding="catembed.deep.wide_deep:VAEWD",
                description="VAE_WD: VAE on a wide-and-deep encoder (UNTIE Table IV)")
register_method("bigan-wd", embedding="catembed.deep.wide_deep:BiGANWD",
                description="BiGAN_WD: BiGAN on a wide-and-deep encoder (UNTIE Table IV)")

# the finished Fehling thesis (issue 20): its four networks x four clustering stages, as
# ThesisClusterer options (thesis-<network>-<clustering>)
for _net in ("ae", "attention", "transformer", "ft-transformer"):
    for _clus in ("kmeans", "dec", "idec", "dcn"):
        register_method(f"thesis-{_net}-{_clus}", labels="catembed.deep.thesis:thesis_labels",
                        random=True, params={"network": _net, "clustering": _clus},
                        numeric=True,
                        description=f"the finished thesis' {_net} network + {_clus} "
                        "(ThesisClusterer)")

# label-free consensus of several embeddings (issue 26), refit per run
register_method("consensus", labels="catembed.cluster.consensus:consensus_labels", random=True,
                numeric=True,
                description="Consensus: k-means on the CDE, MCA, LCME, IDF and one-hot "
                "embeddings side by side, weighted by the members' agreement")
# its consensus coordinates as an embedding (the classification tables): 10 clusters, the
# width of the 10-axis columns, chosen without the classes
register_method("consensus-embedding", embedding="catembed.cluster.consensus:consensus_embedder",
                random=True, params={"n_clusters": 10}, numeric=True,
                description="Consensus coordinates (10 clusters: 10 unit-length spectral axes "
                "of the members' co-association)")
