r"""UNTIE's coupling spaces and kernel bank (Zhu, Cao, Yin, Eqs. 1-7), from the statistics.

Coupling spaces (Eqs. 1-5), from the statistics alone: for attribute ``j``, the intra space maps
a value ``v`` to ``[p(v)]`` and the inter space to ``[p(v | u)]`` for every value ``u`` of every
other attribute. Each of the ``2m`` spaces goes through a bank of kernels (Eq. 7; default 11
Gaussian ``exp(-g ||a - b||^2)``, ``g = 2^-5 .. 2^5``, and ``(a . b)^d``, ``d = 1, 2, 3``,
each cosine-normalised), giving ``l_j x l_j`` matrices ``K_p``. With diagonal weights
``omega_p >= 0`` the object vector is (Eq. 21)
``x_i = concat_p sqrt(omega_p) * K_p[v_i^{j(p)}, :]`` and the similarity (Eqs. 13, 18) is
``S = X X^T``. UNTIE minimises Eq. 20, ``Tr(S (I - H H^T))`` over ``H`` (``n x c``,
``H^T H = I``) and ``omega``.

The weights are learned in :mod:`catembed.embed._untie_solvers`, on the value-level objective
of :mod:`catembed.embed._untie_objective`.

Values the coupling spaces cannot tell apart
--------------------------------------------
Two values of one attribute with the same frequency and the same conditional probabilities
``p(v | u)`` for every other value have equal coupling vectors (Eqs. 1-5), hence equal kernel
rows and equal Eq. 21 vectors. In a full factorial design with uniform counts (Nursery,
ThreeOf9) this holds for every value of every attribute and all rows got the same vector.
``tied_values="identity"`` (default) adds to each such attribute one kernel space, the
identity kernel (the ``g -> inf`` limit of the Gaussian bank), and warns;
``tied_values="keep"`` keeps the paper's spaces (and warns too).

Scale
-----
Cosine normalisation gives every kernel a unit diagonal, so an attribute's share of the
Eq. 21 energy grows with its number of values. ``scale="attribute"`` (UNTIE's option, see
:func:`scale_spaces`) gives every attribute the same energy; the default ``"none"`` keeps the
paper's spaces.

Spec notes: the paper's Gaussian "width" is read as ``g`` in ``exp(-g ||a - b||^2)`` and every
kernel is cosine-normalised, as ``docs/methods.md`` section 3 states.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial.distance import cdist

from .._utils._validation import CatEmbedError, CatEmbedWarning
from ..stats._value_statistics import ValueStatistics

__all__ = [
    "DEFAULT_KERNELS",
    "KernelSpace",
    "coupling_spaces",
    "kernel_matrix",
    "kernel_name",
    "kernel_spaces",
    "parse_kernels",
    "scale_spaces",
    "space_energies",
    "tied_attributes",
]

#: UNTIE's default bank (paper Sec. 6.1): 11 Gaussian kernels, g = 2^-5 .. 2^5, and
#: polynomial kernels of order 1-3.
DEFAULT_KERNELS: tuple[str, ...] = tuple(
    [f"gaussian:{2.0 ** e:g}" for e in range(-5, 6)] + ["poly:1", "poly:2", "poly:3"]
)

_TINY = 1e-100

_KINDS = {"gaussian": "gaussian", "rbf": "gaussian", "gauss": "gaussian",
          "poly": "poly", "polynomial": "poly"}


def parse_kernels(kernels: Any) -> list[tuple[str, float]]:
    """Read a kernel bank: ``None`` (the default bank) or a list of specs.

    A spec is ``"gaussian:<g>"`` (``exp(-g ||a - b||^2)``), ``"poly:<d>"`` (``(a . b)^d``),
    or a tuple ``("gaussian", g)`` / ``("poly", d)``.

    Returns
    -------
    list of (kind, parameter)
    """
    if kernels is None:
        kernels = DEFAULT_KERNELS
    if isinstance(kernels, str) or not isinstance(kernels, Sequence) or len(kernels) == 0:
        raise CatEmbedError(
            f"kernels must be None or a non-empty list such as ['gaussian:0.5', 'poly:2']; "
            f"got {kernels!r}."
        )
    out = []
    for spec in kernels:
        if isinstance(spec, str):
            kind, _, param = spec.partition(":")
        elif isinstance(spec, Sequence) and len(spec) == 2:
            kind, param = spec
        else:
            raise CatEmbedError(f"cannot read kernel {spec!r}; use e.g. 'gaussian:0.5'.")
        kind = _KINDS.get(str(kind).strip().lower())
        try:
            value = float(param)
        except (TypeError, ValueError):
            value = float("nan")
        if kind is None or not math.isfinite(value) or value <= 0:
            raise CatEmbedError(
                f"cannot read kernel {spec!r}: use 'gaussian:<g>' with g > 0 or "
                "'poly:<d>' with an integer d >= 1."
            )
        if kind == "poly" and value != int(value):
            raise CatEmbedError(f"polynomial kernel order must be an integer; got {spec!r}.")
        out.append((kind, value))
    return out


def kernel_name(kind: str, param: float) -> str:
    """Readable name of a kernel, e.g. ``gaussian(g=0.25)`` or ``poly(d=2)``."""
    return f"gaussian(g={param:g})" if kind == "gaussian" else f"poly(d={int(param)})"


def kernel_matrix(F: np.ndarray, kind: str, param: float) -> np.ndarray:
    """Cosine-normalised kernel matrix of the rows of ``F`` (UNTIE Eq. 7, spec section 3).

    ``K_ab / sqrt(K_aa K_bb)``; a row whose self-similarity is 0 (the zero vector under a
    polynomial kernel) gets 1 on the diagonal and 0 elsewhere.
    """
    F = np.asarray(F, dtype=np.float64)
    if kind == "gaussian":
        K = np.exp(-param * cdist(F, F, "sqeuclidean"))  # K_aa = 1 already
        # entries below 1e-100 are flushed to 0: they change nothing, and their products
        # would be subnormal numbers, which slow BLAS down a hundredfold
        K[K < _TINY] = 0.0
        return K
    K = (F @ F.T) ** int(param)
    d = np.sqrt(np.clip(np.diag(K), 0.0, None))
    ok = d > 0
    inv = np.where(ok, 1.0 / np.where(ok, d, 1.0), 0.0)
    K = K * inv[:, None] * inv[None, :]
    K[np.diag_indices_from(K)] = 1.0
    K[np.abs(K) < _TINY] = 0.0
    return np.clip(K, -1.0, 1.0)


def coupling_spaces(stats: ValueStatistics) -> list[tuple[np.ndarray, np.ndarray]]:
    """Intra- and inter-attribute coupling vectors of every attribute (UNTIE Eqs. 1-5).

    For attribute ``j``: intra ``[p(v)]`` (``l_j x 1``); inter ``[p(v | u)]`` for every value
    ``u`` of every other attribute (``l_j x (l - l_j)``), from the co-occurrence counts.
    """
    p = stats.probabilities()
    P = stats.conditional()  # P[u, v] = p(v | u)
    offs = stats.offsets
    out = []
    for j in range(stats.n_features):
        block = np.arange(offs[j], offs[j + 1])
        others = np.setdiff1d(np.arange(stats.n_values), block)
        out.append((p[block][:, None], P[np.ix_(others, block)].T))
    return out


@dataclass(frozen=True)
class KernelSpace:
    """One kernel space ``p``: attribute, coupling ("intra"/"inter"), kernel, matrix."""

    attribute: int
    coupling: str
    kernel: str
    K: np.ndarray


def tied_attributes(stats: ValueStatistics, *, warn: str | None = None) -> list[int]:
    """Attributes with two or more values that the coupling spaces cannot tell apart.

    Two values of attribute ``j`` with the same frequency and the same conditional
    probabilities ``p(v | u)`` for every other value ``u`` (UNTIE Eqs. 1-5) have equal coupling
    vectors, so every kernel row and every Eq. 21 vector of the two is equal. A full factorial
    design with uniform counts (Nursery, ThreeOf9) ties all the values of every attribute, and
    every row then gets the same vector. ``warn`` (UNTIE's ``tied_values``, ``"identity"`` or
    ``"keep"``): warn, naming the attributes and what is done about them.
    """
    out = []
    for j, (intra, inter) in enumerate(coupling_spaces(stats)):
        F = np.hstack([intra, inter])
        if F.shape[0] > 1 and np.unique(np.round(F, 12), axis=0).shape[0] < F.shape[0]:
            out.append(j)
    if out and warn is not None:
        names = ", ".join(repr(str(stats.feature_names[j])) for j in out[:5])
        more = f" and {len(out) - 5} more" if len(out) > 5 else ""
        fix = ("each gets the identity kernel as one more space (tied_values='identity')"
               if warn == "identity" else
               "their rows get equal vectors; tied_values='identity' separates them")
        warnings.warn(
            f"columns {names}{more} have values with the same frequency and the same "
            "co-occurrences with every other value, which UNTIE's coupling spaces "
            f"cannot tell apart; {fix}.",
            CatEmbedWarning, stacklevel=5,
        )
    return out


def kernel_spaces(
    stats: ValueStatistics,
    kernels: list[tuple[str, float]],
    *,
    identity_for: Sequence[int] = (),
    scale: str = "none",
) -> list[KernelSpace]:
    """The ``2 m |F|`` kernel spaces, attribute-major: intra kernels, then inter kernels.

    Attributes listed in ``identity_for`` get one more space, the identity kernel
    ``K = I`` (coupling ``"identity"``, kernel ``"delta"``: the ``g -> inf`` limit of the
    Gaussian bank), which separates values whose coupling vectors are equal (see
    :func:`tied_attributes`). ``scale`` goes to :func:`scale_spaces`.
    """
    spaces = []
    ident = set(int(j) for j in identity_for)
    for j, (intra, inter) in enumerate(coupling_spaces(stats)):
        for coupling, F in (("intra", intra), ("inter", inter)):
            for kind, param in kernels:
                spaces.append(
                    KernelSpace(j, coupling, kernel_name(kind, param),
                                kernel_matrix(F, kind, param))
                )
        if j in ident:
            spaces.append(KernelSpace(j, "identity", "delta", np.eye(intra.shape[0])))
    return scale_spaces(stats, spaces, scale)


#: Choices of :func:`scale_spaces` (UNTIE's ``scale`` parameter).
SCALES: tuple[str, ...] = ("none", "attribute")


def space_energies(stats: ValueStatistics, spaces: Sequence[KernelSpace]) -> np.ndarray:
    """Centred energy of each kernel space over the rows: ``sum_i ||K_p[v_i] - mean||^2``.

    From the counts alone: ``sum_v n_v ||K_p[v]||^2 - ||sum_v n_v K_p[v]||^2 / n``, the
    ``n_v`` the counts of the values of the space's attribute. It is the space's share of
    ``Tr(J S J)`` at ``omega = 1`` (the total variance its Eq. 21 columns add).
    """
    offs = stats.offsets
    counts = stats.counts.astype(np.float64)
    n = max(float(stats.n_rows), 1.0)
    out = np.empty(len(spaces))
    for p, sp in enumerate(spaces):
        cnt = counts[offs[sp.attribute]:offs[sp.attribute + 1]]
        K = sp.K
        out[p] = max(float(cnt @ np.einsum("vd,vd->v", K, K)) - float(np.sum((cnt @ K) ** 2)) / n,
                     0.0)
    return out


def scale_spaces(stats: ValueStatistics, spaces: list[KernelSpace], scale: str
                 ) -> list[KernelSpace]:
    """Rescale the kernel matrices so that every attribute starts with the same energy at
    ``omega = 1`` (``scale="attribute"``; ``"none"`` returns ``spaces`` unchanged).

    Every kernel is cosine-normalised (unit diagonal), so a space of an attribute with
    ``l_j`` values adds ``l_j`` Eq. 21 columns, one per value however rare, each varying over
    all the rows: an attribute's share of the distances grows with its number of values.
    A column with many rare values (a number read as a category, a 14-valued code) then
    outweighs the two-valued columns that carry the groups, and k-means splits on it: the
    near-collapse of ``docs/reproducing.md`` ("UNTIE's scale"). ``"attribute"`` multiplies
    the spaces of attribute ``j`` by ``sqrt(E / E_j)``, ``E_j`` the summed
    :func:`space_energies` of its spaces and ``E`` their mean over the attributes, so every
    attribute has the same total variance and the total is kept (the kernel mix within an
    attribute stays the paper's). The factors are functions of the counts alone (no
    labels). Attributes of zero energy (below ``1e-12`` of the largest) are left unchanged.
    """
    if scale == "none" or not spaces:
        return spaces
    e = space_energies(stats, spaces)
    groups = np.array([sp.attribute for sp in spaces])
    total = np.bincount(groups, weights=e)
    # energies below 1e-12 of the largest are rounding (a cosine-normalised kernel of a
    # one-dimensional space can be constant): scaling them up would amplify rounding noise
    live = total > 1e-12 * max(float(total.max()), 0.0)
    if not live.any():
        return spaces
    target = float(total[live].mean())
    factor = np.where(live, np.sqrt(target / np.where(live, total, 1.0)), 1.0)
    return [KernelSpace(sp.attribute, sp.coupling, sp.kernel, sp.K * factor[g])
            for sp, g in zip(spaces, groups, strict=True)]
