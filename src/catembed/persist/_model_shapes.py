"""The arrays a model file may hold and their shapes, declared once per class.

:func:`check_declared_shapes` compares what a file's ``.npy`` headers declare (dtype and
shape, read without decompressing anything) with what its metadata says they must be,
before any array is read: a 2 MB file that declared a 44,000,000 x 6 value table for a
column of 4 values was decompressed whole (4.3 GB) before anything compared its size with
the categories. The same declarations refuse an array a class does not save (a CDE file
relabelled ``IDFEmbedder`` keeps CDE's ``indicator``), a missing one, and widths that do
not fit the metadata (CDE's tables are ``n_components`` wide, its indicator one column per
indicator name).

A shape is a tuple of dimensions, each an ``int`` or a name:

* ``V`` the values of all columns, ``l`` the values of a value table's column, ``m`` the
  columns, ``N`` the training rows (the file's ``stats__n_rows``), ``k`` the
  ``n_components`` parameter, ``T`` the width of the embedding before any projection
  (the tables' widths added, or their common width for a class that sums them);
* ``extra.NAME``: the integer ``NAME`` of the metadata's ``extra`` object, ``#extra.NAME``
  the length of the list there;
* ``A+B``: the sum of two such dimensions; ``code:A`` the autoencoders' code size for ``A``
  inputs, ``max(2, ceil(A / hidden_factor))`` (:func:`catembed.embed._autoencoder.code_size`);
* any other name: a width the file itself gives, the same wherever the name occurs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._model_checks import bad

__all__ = ["EXTRA_ARRAYS", "SUMMED", "TABLE_SHAPES", "check_declared_shapes"]

Shape = tuple[Any, ...]
#: array -> (dtype kinds, shape, required)
Spec = dict[str, tuple[str, Shape, bool]]

_CLUSTER_STATE = {"indicator": ("f", ("V", "#extra.indicator_names"), True)}
_CLUSTER_WIDTH = ("l", "extra.n_components")

#: class name -> the shape of each value table (default: ``("l", "w<j>")``, any width)
TABLE_SHAPES: dict[str, Shape] = {
    "IDFEmbedder": ("l", 1),
    "OneHotEmbedder": ("l", "l"),
    "CategoricalDistance": ("l", "l"),
    "CDE": _CLUSTER_WIDTH,
    "CDEPlusPlus": _CLUSTER_WIDTH,
    "CDEAutoencoder": _CLUSTER_WIDTH,
    "OneHotAutoencoder": _CLUSTER_WIDTH,
    "OneHotPCA": ("l", "W"),
    "MCA": ("l", "W"),
    "LCME": ("l", "C+extra.n_mca"),
}

#: class name -> its own arrays (``extra__<name>``), for every value embedder of catembed
#: (a class registered by a user is not listed: its own arrays are not checked)
EXTRA_ARRAYS: dict[str, Spec] = {
    "IDFEmbedder": {}, "OneHotEmbedder": {}, "Couplings": {}, "OneHotAutoencoder": {},
    "CDE": _CLUSTER_STATE,
    "CDEPlusPlus": _CLUSTER_STATE,
    "CDEAutoencoder": _CLUSTER_STATE,
    "OneHotPCA": {"components": ("f", ("V", "W"), True),
                  "explained_variance": ("f", ("W",), True)},
    "MCA": {"components": ("f", ("V", "W"), True), "eigenvalues": ("f", ("W",), True)},
    "LCME": {"class_weights": ("f", ("C",), True),
             "class_probabilities": ("f", ("V", "C"), True),
             "view_scales": ("f", (2,), True),
             "mca_eigenvalues": ("f", ("extra.n_mca",), True)},
    "UNTIE": {"omega": ("f", ("T",), True), "space_of": ("iu", ("T",), True),
              "components": ("f", ("T", "K"), False), "mean": ("f", ("T",), False),
              "explained_variance": ("f", ("K",), False)},
    "CategoricalDistance": {"fit_codes": ("iu", ("N", "m"), False)},
}

#: the classes whose object vector is the sum of its values' vectors (``_combine = "sum"``)
SUMMED = frozenset({"OneHotPCA", "MCA", "LCME"})

#: class name -> sizes that must be equal (the autoencoders' width is their code size)
EQUAL_SIZES: dict[str, list[tuple[str, str]]] = {
    "CDEAutoencoder": [("extra.n_components", "code:#extra.indicator_names")],
    "OneHotAutoencoder": [("extra.n_components", "code:V")],
}

_STATS: Spec = {"counts": ("iu", ("V",), True), "n_rows": ("iu", (), True),
                "cooc": ("iu", ("V", "V"), False), "cooc_row": ("iu", ("P",), False),
                "cooc_col": ("iu", ("P",), False), "cooc_data": ("iu", ("P",), False),
                "cooc_ids": ("iu", ("N", "m"), False)}
_OUTPUT: Spec = {"components": ("f", ("T", "k"), False), "mean": ("f", ("T",), False),
                 "variance": ("f", ("k",), False)}


def check_declared_shapes(path: str, meta: dict[str, Any],
                          declared: dict[str, tuple[np.dtype, Shape]],
                          scalars: dict[str, np.ndarray]) -> None:
    """Refuse (a :class:`~catembed.CatEmbedError` naming the array) a file whose arrays, as
    their headers declare them, are not those its metadata gives; ``scalars``: the file's
    0-d arrays, already read."""
    parts = meta.get("parts")
    if parts is None:
        _check_part(path, meta, declared, scalars, "")
        return
    if not isinstance(parts, list):
        raise bad(path, "a composite model's parts are not a list")
    for i, part in enumerate(parts):
        prefix = f"part{i}__"
        if not isinstance(part, dict):
            raise bad(path, "a part's metadata is not a JSON object")
        _check_part(path, part, {k[len(prefix):]: v for k, v in declared.items()
                                 if k.startswith(prefix)},
                    {k[len(prefix):]: v for k, v in scalars.items() if k.startswith(prefix)},
                    prefix)
    own = {k[len("own__"):]: v for k, v in declared.items() if k.startswith("own__")}
    if meta.get("class") == "Consensus":
        env = {"N": _rows(scalars.get("part0__stats__n_rows"))}
        _check(path, _consensus_spec(path, meta), own, env, "own__", "Consensus")
    stray = sorted(k for k in declared if not k.startswith("own__") and not any(
        k.startswith(f"part{i}__") for i in range(len(parts))))
    if stray:
        raise bad(path, f"it holds an array {stray[0]} that belongs to no part")


def _rows(n_rows: Any) -> int | None:
    if n_rows is None or n_rows.dtype.kind not in "iu" or n_rows.shape != ():
        return None  # refused by the statistics' own check
    return int(n_rows)


def _check_part(path: str, meta: dict[str, Any], declared: dict[str, tuple[np.dtype, Shape]],
                scalars: dict[str, np.ndarray], prefix: str) -> None:
    cats = meta.get("categories")
    if not isinstance(cats, list) or not all(isinstance(c, list) for c in cats):
        raise bad(path, "metadata field 'categories' is missing or not a list")
    name = meta.get("class")
    env: dict[str, Any] = {"V": sum(len(c) for c in cats), "m": len(cats),
                           "N": _rows(scalars.get("stats__n_rows")), "_extra": meta.get("extra"),
                           "_names": meta.get("feature_names")}
    params = meta.get("params") if isinstance(meta.get("params"), dict) else {}
    env["_hidden_factor"] = params.get("hidden_factor")
    k = params.get("n_components")
    if isinstance(k, int) and not isinstance(k, bool) and k >= 1:
        env["k"] = k
    widths = [declared[f"table__{j}"][1][-1] for j in range(len(cats))
              if f"table__{j}" in declared and len(declared[f"table__{j}"][1]) == 2]
    summed = name in SUMMED
    if widths:
        env["T"] = widths[0] if summed else sum(widths)
    spec: Spec = {f"stats__{key}": s for key, s in _STATS.items()}
    known = name in EXTRA_ARRAYS
    for key, s in EXTRA_ARRAYS.get(name, {}).items():
        spec[f"extra__{key}"] = s
    table = TABLE_SHAPES.get(name)
    for j, c in enumerate(cats):
        shape = table or ("l", "W" if summed else f"w{j}")
        spec[f"table__{j}"] = ("f", (len(c), shape[1]), True)  # "l" in shape[1]: square
    spec.update({f"output__{key}": s for key, s in _OUTPUT.items()})
    if not known:  # a class registered by a user: its own arrays are its business
        declared = {key: v for key, v in declared.items() if not key.startswith("extra__")}
    forms = [key for key in ("cooc", "cooc_row", "cooc_ids") if f"stats__{key}" in declared]
    if len(forms) > 1:
        raise bad(path, f"it holds the co-occurrence counts in two forms ({prefix}stats__"
                         f"{forms[0]}, {prefix}stats__{forms[1]})")
    if not forms or forms == ["cooc_row"]:
        for key in ("cooc_row", "cooc_col", "cooc_data"):
            spec[f"stats__{key}"] = spec[f"stats__{key}"][:2] + (True,)
    _check(path, spec, declared, env, prefix, str(name))
    for a, b in EQUAL_SIZES.get(name, []):
        size_a, size_b = (_value(d, env, path, f"{prefix}table__0") for d in (a, b))
        if None not in (size_a, size_b) and size_a != size_b:
            raise bad(path, f"the metadata's {a.split('.', 1)[1]} is {size_a}, but a {name}'s "
                             f"code size is {size_b} (max(2, ceil(inputs / hidden_factor)))")
    if env.get("P") is not None and env["P"] > env["V"] ** 2:
        raise bad(path, f"the sparse co-occurrence counts ({prefix}stats__cooc_row) hold "
                         f"{env['P']} pairs, more than the {env['V']}^2 pairs of values")


def _consensus_spec(path: str, meta: dict[str, Any]) -> Spec:
    own = meta.get("composite")
    try:
        run_k = [[int(k) for k in ks] for ks in own["run_k"]]
        n_members = len(own["members"])
        n_clusters = int(own.get("n_clusters_", meta["params"]["n_clusters"]))
    except (KeyError, TypeError, ValueError):
        raise bad(path, "the consensus metadata cannot be read") from None
    vec = ("f", (n_members,), True)
    spec: Spec = {}
    for i, ks in enumerate(run_k):  # first: the members' widths D0, D1, ...
        for r, kk in enumerate(ks):
            spec[f"centres_{i}_{r}"] = ("f", (kk, f"D{i}"), True)
    spec.update({"stability": vec, "weights": vec, "agreement": vec,
                 "labels": ("iu", ("N",), True)})
    params = meta.get("params")
    combine = params.get("combine") if isinstance(params, dict) else None
    selected = own.get("selected", -1)  # combine="select": -1 concat, else a member
    if type(selected) is not int or not -1 <= selected < n_members or (
            selected >= 0 and combine != "select"):
        raise bad(path, f"the selected member {selected!r} is not one of its {n_members} "
                         f"members under combine={combine!r}")
    if combine in ("concat", "select"):
        # the members' embeddings side by side: the centres are as wide as all of them
        # (or as the one member "select" chose)
        width = "+".join(f"D{i}" for i in range(len(run_k))) or "D"
        width = f"D{selected}" if selected >= 0 else width
        spec.update({"scales": vec, "cluster_centers": ("f", (n_clusters, width), True)})
    else:
        spec.update({"cluster_centers": ("f", (n_clusters, "D"), True),
                     "cluster_table": ("f", (sum(sum(ks) for ks in run_k), "D"), True)})
    return spec


def _value(dim: Any, env: dict[str, Any], path: str, where: str) -> int | None:
    """The size ``dim`` stands for; None for a name no array has given yet."""
    if isinstance(dim, int):
        return dim
    if dim.startswith("code:"):
        n, factor = _value(dim[len("code:"):], env, path, where), env.get("_hidden_factor")
        if n is None or isinstance(factor, bool) or not isinstance(factor, (int, float)) or (
                not factor > 0 or factor == float("inf")):
            return None  # a bad hidden_factor is refused by the parameter checks
        return max(2, math.ceil(n / factor))
    if "+" in dim:
        terms = [_value(d, env, path, where) for d in dim.split("+")]
        return None if None in terms else sum(terms)
    if dim.startswith(("extra.", "#extra.")):
        extra = env.get("_extra")
        got = extra.get(dim.split(".", 1)[1]) if isinstance(extra, dict) else None
        if dim.startswith("#"):
            got = len(got) if isinstance(got, list) else None
        if not isinstance(got, int) or isinstance(got, bool) or got < 0:
            raise bad(path, f"metadata field {dim.lstrip('#')} (the shape of {where}) is "
                             "missing or not a count")
        return got
    return env.get(dim)


def _check(path: str, spec: Spec, declared: dict[str, tuple[np.dtype, Shape]],
           env: dict[str, Any], prefix: str, owner: str) -> None:
    """Each array of ``spec`` against its declaration (``env``: the sizes known; a name
    seen for the first time takes the declared size)."""
    stray = sorted(set(declared) - set(spec))
    if stray:
        raise bad(path, f"it holds an array {prefix}{stray[0]} that a {owner} model does "
                         "not save")
    for key, (kinds, shape, required) in spec.items():
        label = _label(key, prefix, env)
        if key not in declared:
            if required:
                raise bad(path, f"{label} is missing")
            continue
        dtype, got = declared[key]
        want = []
        for i, dim in enumerate(shape):
            size = want[0] if dim == "l" else _value(dim, env, path, label)
            if size is None and i < len(got) and isinstance(dim, str) and "+" not in dim:
                env[dim] = size = got[i]  # the first array to give this width
            want.append(size)
        if dtype.kind in kinds and len(got) == len(shape) and all(
                w is None or w == n for w, n in zip(want, got, strict=True)):
            continue
        verb = "have" if label.split(" (")[0].endswith(("counts", "labels", "centres")) else "has"
        text = f"{label} {verb} shape {tuple(got)} and dtype {dtype}"
        if not key.startswith("table__"):
            dims = ", ".join("any" if w is None else str(w) for w in want)
            raise bad(path, f"{text}; expected {_KIND_NAMES[kinds]} of shape "
                             f"({dims}{',' if len(want) == 1 else ''})")
        if dtype.kind not in kinds or len(got) != 2 or got[0] != want[0]:
            raise bad(path, f"{text}; expected {want[0]} rows of float64")
        if shape[1] == "l":
            raise bad(path, f"its value tables are not square (one column per value): {text}")
        source = (f"the metadata's {shape[1].split('.', 1)[1]}" if str(shape[1]).startswith(
            "extra.") else f"a {owner}'s" if isinstance(shape[1], int) else "the others'")
        raise bad(path, f"{text}; the value tables' widths must be {want[1]} ({source})")


def _label(key: str, prefix: str, env: dict[str, Any]) -> str:
    """How messages name the array ``key`` (as the checks after loading name it)."""
    if key.startswith("table__"):
        names = env.get("_names")
        j = int(key[len("table__"):])
        name = names[j] if isinstance(names, list) and j < len(names) else str(j)
        label = f"the value table of column {name!r}"
    elif key.startswith("output__"):
        label = f"the output projection {key}"
    elif key.startswith("extra__"):
        label = f"array {key[len('extra__'):]}"
    elif key.startswith("centres_"):
        i, r = key[len("centres_"):].split("_")
        label = f"the centres of run {r} of member {i}"
    else:
        label = _LABELS.get(key, f"array {key}")
    return f"{label} ({prefix}{key})" if prefix else label


_LABELS = {"stats__counts": "the value counts", "stats__n_rows": "the row count",
           "stats__cooc": "the co-occurrence counts",
           "stats__cooc_ids": "the co-occurrence counts' factor (one-hot rows)",
           "cluster_table": "the cluster table",
           "cluster_centers": "the cluster centres", "labels": "the training labels",
           "scales": "the members' scale factors",
           **{f"stats__cooc_{k}": f"the sparse co-occurrence counts' {k}"
              for k in ("row", "col", "data")}}
_KIND_NAMES = {"f": "floats", "iu": "integers"}
