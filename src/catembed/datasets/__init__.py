"""Data sets in the shared format: a folder with ``data.csv`` and ``meta.json``.

:func:`load_dataset` reads a folder given by path, by name from the directory in the
``CATEMBED_DATA`` environment variable, or by name from the small copies bundled with the
package (``soybean_small``, ``zoo``, ``lenses``). Columns that are not numeric are read as
text, so integer-coded categorical attributes stay categorical.

Pre-processing presets (``presets.json`` beside this module) say how a paper prepared a set:
which columns, which rows, constant columns dropped or not. ``load_dataset(name,
preset="cde")`` applies one; :meth:`Dataset.summary` prints the one line to compare with the
paper (rows, attributes, values ``|V|``, classes), checked against ``meta.json``'s
``paper_figures`` where the preset names a paper. The format of a preset is documented in
``catembed/evaluation/tables/README.md``.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._utils._errors import CatEmbedError, named
from .._utils._files import check_input_file, read_text_file, refuse_dash
from .._utils._pathtext import path_text

if TYPE_CHECKING:  # pandas is imported where used: the command line starts without it
    import pandas as pd

__all__ = [
    "InputSpec",
    "resolve_input",
    "split_list",
    "Dataset",
    "apply_preset",
    "bundled_datasets",
    "check_meta_columns",
    "dataset_path",
    "load_dataset",
    "preset_names",
    "resolve_preset",
]

BUNDLED_DIR = Path(__file__).resolve().parent / "data"
PRESETS_FILE = Path(__file__).resolve().parent / "presets.json"

#: the column kinds of ``meta.json``'s ``columns``
KINDS = ("categorical", "binary", "numeric", "id", "target", "split")

#: a preset's keys and their defaults (see ``evaluation/tables/README.md``)
PRESET_DEFAULTS: dict[str, Any] = {
    "columns": "categorical",
    "drop": [],
    "rows": "complete",
    "split": None,
    "drop_constant": True,
    "sample": None,
}


@dataclass
class Dataset:
    """A table with its metadata.

    Attributes
    ----------
    name : str
    frame : DataFrame
        Every column of ``data.csv``, in file order; non-numeric columns as text.
    meta : dict
        The parsed ``meta.json``.
    path : Path
        The folder it was read from.
    """

    name: str
    frame: pd.DataFrame
    meta: dict = field(repr=False)
    path: Path

    @property
    def target(self) -> str | None:
        """The class column, or None."""
        return self.meta.get("target")

    @property
    def id_columns(self) -> list[str]:
        """Identifier columns (not features, not the target)."""
        return list(self.meta.get("id_columns") or [])

    @property
    def column_kinds(self) -> dict[str, str]:
        """Column -> ``categorical``, ``binary``, ``numeric``, ``id``, ``target`` or ``split``."""
        return dict(self.meta.get("columns") or {})

    def _of_kind(self, *wanted: str) -> list[str]:
        """Columns of these kinds, in file order; never the target or an id column (also
        where ``columns`` types them otherwise: they were features too, the target twice)."""
        kinds = self.column_kinds
        roles = {self.target, *self.id_columns}
        return [c for c in self.frame.columns if kinds.get(c) in wanted and c not in roles]

    @property
    def feature_columns(self) -> list[str]:
        """Columns whose kind is categorical, binary or numeric."""
        return self._of_kind("categorical", "binary", "numeric")

    @property
    def categorical_columns(self) -> list[str]:
        """Feature columns whose kind is categorical or binary."""
        return self._of_kind("categorical", "binary")

    @property
    def numeric_columns(self) -> list[str]:
        """Feature columns whose kind is numeric."""
        return self._of_kind("numeric")

    @property
    def features(self) -> pd.DataFrame:
        """The feature columns (categorical, binary and numeric), in file order."""
        return self.frame[self.feature_columns]

    @property
    def labels(self) -> pd.Series | None:
        """The target column, or None."""
        t = self.target
        return self.frame[t] if t is not None and t in self.frame.columns else None

    @property
    def preset(self) -> dict | None:
        """The pre-processing applied (the resolved preset, with its ``name``), or None."""
        return self.meta.get("preset")

    def describe(self) -> dict[str, Any]:
        """Size figures of the table as it is: ``n_rows``, ``n_features``, ``n_values``
        (``|V|``: distinct values of the categorical and binary features, missing counted as a
        value), ``n_numeric`` and ``n_classes``."""
        from ..stats._value_statistics import ValueStatistics

        cats = self.categorical_columns
        n_values = ValueStatistics.from_frame(self.frame, columns=cats).n_values if cats else 0
        y = self.labels
        return {
            "n_rows": int(len(self.frame)),
            "n_features": len(cats),
            "n_values": int(n_values),
            "n_numeric": len(self.numeric_columns),
            "n_classes": int(y.nunique(dropna=True)) if y is not None else 0,
        }

    def paper_figures(self, paper: str | None = None) -> dict[str, int | float]:
        """The figures a paper reports for this set (``meta.json`` ``paper_figures``), keyed
        ``n_rows``, ``n_values``, ``n_classes``, ``n_features`` where they map onto those."""
        paper = paper or (self.preset or {}).get("paper")
        if not paper:
            return {}
        names = {"|O|": "n_rows", "n": "n_rows", "n_o": "n_rows", "|V|": "n_values",
                 "q": "n_values", "|C|": "n_classes", "n_c": "n_classes", "n_a": "n_features",
                 "d": "n_features"}
        out: dict[str, int | float] = {}
        for entry in self.meta.get("paper_figures") or []:
            if entry.get("paper") == paper and entry.get("figure") in names:
                out.setdefault(names[entry["figure"]], entry.get("reported"))
        return out

    def summary(self) -> str:
        """One line to compare with the paper: rows, attributes, values, classes.

        With a paper preset, the paper's figures from ``meta.json`` follow, marked ``ok`` when
        they agree and ``paper: x`` when not.
        """
        d = self.describe()
        preset = self.preset or {}
        paper = self.paper_figures()

        def fig(key: str, label: str) -> str:
            text = f"{d[key]} {label}"
            if key in paper and paper[key] is not None:
                text += " (ok)" if paper[key] == d[key] else f" (paper: {paper[key]})"
            return text

        head = self.name + (f" [preset {preset['name']}]" if preset.get("name") else "")
        parts = [fig("n_rows", "rows"), fig("n_features", "attributes"),
                 fig("n_values", "values")]
        if self.labels is not None and not self.meta.get("no_target"):
            parts.append(fig("n_classes", "class" if d["n_classes"] == 1 else "classes"))
        if d["n_numeric"]:
            parts.insert(2, f"{d['n_numeric']} numeric")
        tail = f" [(ok): as {preset['paper']} reports in meta.json]" if paper else ""
        return f"{head}: " + ", ".join(parts) + tail


def bundled_datasets() -> list[str]:
    """Names of the data sets shipped inside the package."""
    return sorted(p.name for p in BUNDLED_DIR.iterdir() if (p / "data.csv").exists())


def dataset_path(name_or_path: str | os.PathLike, data_dir: str | os.PathLike | None = None
                 ) -> Path:
    """Resolve a data set folder: a path, a name in ``data_dir`` or ``$CATEMBED_DATA``, or a
    bundled name (searched in that order)."""
    p = Path(name_or_path)
    if (p / "data.csv").exists():
        return p
    roots = [Path(d) for d in (data_dir, os.environ.get("CATEMBED_DATA")) if d]
    roots.append(BUNDLED_DIR)
    for root in roots:
        if (root / str(name_or_path) / "data.csv").exists():
            return root / str(name_or_path)
    raise CatEmbedError(
        f"no data set {str(name_or_path)!r}: not a folder with data.csv, and not found in "
        f"{', '.join(str(r) for r in roots)}. Bundled: {', '.join(bundled_datasets())}."
    )


def read_meta(folder: str | os.PathLike) -> dict[str, Any]:
    """The parsed ``meta.json`` of a data set folder ({} when it has none).

    The keys catembed reads are checked: ``target`` a column name or null, ``id_columns`` a
    list of names, ``columns`` an object of name -> kind.
    """
    f = Path(folder) / "meta.json"
    if not f.exists():
        return {}
    try:
        # a byte-order mark is fine; a FIFO or a huge file is refused before it is read
        meta = json.loads(read_text_file(f, kind="meta.json file", encoding="utf-8-sig"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CatEmbedError(f"{f} is not valid JSON ({exc}); fix it (or move it away to "
                            "read data.csv as a plain table).") from None
    problem = None
    if not isinstance(meta, dict):
        problem = "it must hold a JSON object"
    elif not isinstance(meta.get("target"), str | None):
        problem = '"target" must be a column name or null'
    elif not (isinstance(meta.get("id_columns") or [], list)
              and all(isinstance(c, str) for c in meta.get("id_columns") or [])):
        problem = '"id_columns" must be a list of column names'
    elif not (isinstance(meta.get("columns") or {}, dict)
              and all(isinstance(k, str) for k in (meta.get("columns") or {}).values())):
        problem = '"columns" must map column names to kinds'
    else:
        odd = {c: k for c, k in (meta.get("columns") or {}).items() if k not in KINDS}
        if odd:  # a misspelt kind left the column out silently
            c, k = next(iter(odd.items()))
            problem = (f'"columns" gives {c!r} the kind {k!r}; kinds are '
                       f'{", ".join(KINDS)}')
    if problem:
        raise CatEmbedError(f"{f}: {problem}; fix it (or move it away to read data.csv as a "
                            "plain table).")
    return meta


def check_meta_columns(data_csv: str | os.PathLike, meta: dict[str, Any]) -> list[str]:
    """The columns of ``data_csv``; refuses a ``meta.json`` whose ``target``, ``id_columns``
    or ``columns`` name a column that ``data_csv`` does not have."""
    from .. import io

    columns = io.read_columns(data_csv)
    have = set(columns)
    given = [meta.get("target")] + list(meta.get("id_columns") or []) + list(
        meta.get("columns") or {})
    absent = list(dict.fromkeys(c for c in given if c is not None and c not in have))
    if absent:
        f = Path(data_csv).parent / "meta.json"
        raise CatEmbedError(
            f"{f} names column(s) that {Path(data_csv).name} does not have: "
            f"{named(map(repr, absent))} (its columns: {named(columns, 20)}); "
            "fix meta.json (or move it away to read data.csv as a plain table).")
    return columns


def load_dataset(name_or_path: str | os.PathLike, *, data_dir: str | os.PathLike | None = None,
                 preset: str | dict | None = None) -> Dataset:
    """Read a data set folder in the shared format.

    Empty fields, and only those, are missing; every column that ``meta.json`` does not type
    ``numeric`` is read as text. With ``preset`` (a name from :func:`preset_names`, e.g.
    ``"cde"``, or a dict) the table is prepared by :func:`apply_preset`.
    """
    from .. import io

    folder = dataset_path(name_or_path, data_dir)
    meta = read_meta(folder)
    columns = check_meta_columns(folder / "data.csv", meta)
    kinds = meta.get("columns") or {}
    # read by catembed.io: a damaged, ragged, non-UTF-8 or header-only data.csv and
    # duplicate header names are refused as for any input table
    text = [c for c, k in kinds.items() if k != "numeric"] if kinds else columns
    frame = io.read_table(folder / "data.csv", text_columns=text)
    data = Dataset(meta.get("name", path_text(folder.name)), frame, meta, folder)
    return data if preset is None else apply_preset(data, preset)


@lru_cache(maxsize=1)
def _presets() -> dict[str, Any]:
    if not PRESETS_FILE.exists():  # pragma: no cover - a broken install
        return {}
    return json.loads(read_text_file(PRESETS_FILE, kind="presets file"))


def preset_names() -> list[str]:
    """Names of the pre-processing presets (``presets.json``)."""
    return sorted(_presets())


def resolve_preset(preset: str | dict | None, dataset: str | None = None) -> dict[str, Any]:
    """The full preset for one data set: defaults, then the named preset's ``default``, then
    its entry for ``dataset``; an inline dict is merged on the defaults. Adds ``name`` (and
    ``paper`` when the preset names one)."""
    spec = copy.deepcopy(PRESET_DEFAULTS)
    if preset is None:
        preset = "complete"
    if isinstance(preset, str):
        table = _presets()
        if preset not in table:
            raise CatEmbedError(
                f"unknown preset {preset!r}; choose from {', '.join(preset_names())}."
            )
        entry = table[preset]
        spec.update(copy.deepcopy(entry.get("default") or {}))
        spec.update(copy.deepcopy((entry.get("datasets") or {}).get(dataset or "", {})))
        spec["name"] = preset
        if entry.get("paper"):
            spec["paper"] = entry["paper"]
    elif isinstance(preset, dict):
        unknown = set(preset) - set(PRESET_DEFAULTS) - {"name", "paper"}
        if unknown:
            raise CatEmbedError(
                f"unknown preset key(s) {', '.join(sorted(unknown))}; known: "
                f"{', '.join(PRESET_DEFAULTS)}."
            )
        spec.update(copy.deepcopy(preset))
        spec.setdefault("name", "custom")
    else:
        raise CatEmbedError(f"a preset is a name or a dict; got {type(preset).__name__}.")
    from .._utils._params import check_int, check_option

    check_option("preset columns", spec["columns"], ("categorical", "features", "mixed"))
    check_option("preset rows", spec["rows"], ("all", "complete", "complete_features"))
    # a dict preset (Python, a bench table's JSON): pandas' or Python's errors otherwise
    check_int("preset sample", spec["sample"], allow_none=True)
    if not (isinstance(spec["drop"], list) and all(isinstance(c, str) for c in spec["drop"])):
        raise CatEmbedError(f"preset drop must be a list of column names; got "
                            f"{spec['drop']!r}.")
    if not isinstance(spec["drop_constant"], bool):
        raise CatEmbedError(f"preset drop_constant must be true or false; got "
                            f"{spec['drop_constant']!r}.")
    return spec


def apply_preset(dataset: Dataset, preset: str | dict | None = "complete") -> Dataset:
    """A new :class:`Dataset` prepared the way a preset says (see :func:`resolve_preset`).

    The result holds only the kept feature columns and the target, in file order; id and
    split columns are gone, and with ``columns="features"`` numeric columns become text
    categories (``columns="mixed"`` keeps them numeric, for mixed-type methods). Rows with a
    missing target are always dropped. ``sample=n`` keeps a fixed random subset of ``n`` rows
    (seed 0) after the row filter. ``meta["preset"]`` records the resolved preset.
    """
    import pandas as pd

    spec = resolve_preset(preset, dataset.name)
    frame = dataset.frame
    kinds = dataset.column_kinds
    target = dataset.target
    if target is None or target not in frame.columns:
        raise CatEmbedError(f"data set {dataset.name!r} has no target column in meta.json.")
    missing = [c for c in spec["drop"] if c not in frame.columns]
    if missing:
        raise CatEmbedError(f"preset drops column(s) not in {dataset.name}: {missing}.")
    if spec["split"] is not None:
        split_cols = [c for c, k in kinds.items() if k == "split" and c in frame.columns]
        if not split_cols:
            raise CatEmbedError(f"preset keeps split {spec['split']!r} but {dataset.name} has "
                                "no split column.")
        frame = frame[frame[split_cols[0]].astype(str) == str(spec["split"])]
    if spec["rows"] == "complete_features":
        frame = frame.dropna(subset=dataset.feature_columns + [target])
    wanted = ("categorical", "binary") if spec["columns"] == "categorical" else (
        "categorical", "binary", "numeric")  # "features" and "mixed" keep numeric columns
    cols = [c for c in dataset.feature_columns
            if kinds.get(c) in wanted and c not in spec["drop"]]
    frame = frame.dropna(subset=[target])
    if frame.empty:  # else "leaves no attribute": every column is constant in no rows
        raise CatEmbedError(f"no row of {dataset.name} has a value in the target column "
                            f"{target!r}; check the column, or name another with --target.")
    if spec["rows"] == "complete":
        kept = frame.dropna(subset=cols)
        if kept.empty and cols:  # else "leaves no attribute": no row, every column constant
            empty = [c for c in cols if frame[c].isna().all()]
            worst = empty or [max(cols, key=lambda c: int(frame[c].isna().sum()))]
            raise CatEmbedError(
                f"every row of {dataset.name} misses a value of some attribute, and preset "
                f"{spec['name']!r} keeps complete rows only ("
                + (f"{', '.join(map(repr, empty[:5]))} missing in every row" if empty
                   else f"{worst[0]!r} is missing most often")
                + f"); use --preset categorical to keep missing as a value, or --drop "
                f"{','.join(worst[:5])}.")
        frame = kept
    if spec.get("sample") is not None and len(frame) > int(spec["sample"]):
        # a fixed random subset of the rows (seed 0), kept in file order
        frame = frame.sample(n=int(spec["sample"]), random_state=0).sort_index()
    frame = frame[cols + [target]].copy()
    new_kinds = {c: kinds[c] for c in cols}
    for c in cols:
        if new_kinds[c] == "numeric" and spec["columns"] != "mixed":
            frame[c] = frame[c].map(lambda v: v if pd.isna(v) else _number_text(v))
            new_kinds[c] = "categorical"
    if spec["drop_constant"]:
        const = [c for c in cols if frame[c].nunique(dropna=False) <= 1]
        frame = frame.drop(columns=const)
        cols = [c for c in cols if c not in const]
        for c in const:
            del new_kinds[c]
        spec["dropped_constant"] = const
    if not cols:
        raise CatEmbedError(f"preset {spec['name']!r} leaves no attribute in {dataset.name}.")
    new_kinds[target] = "target"
    meta = dict(dataset.meta)
    meta["columns"] = new_kinds
    meta["id_columns"] = []
    meta["preset"] = spec
    meta["rows_kept"] = frame.index.to_numpy()  # the kept rows' labels in the input's index
    return Dataset(dataset.name, frame.reset_index(drop=True), meta, dataset.path)


def _number_text(v: Any) -> str:
    f = float(v)
    return str(int(f)) if f.is_integer() else repr(f)


@dataclass
class InputSpec:
    """Where the table is and what its metadata says."""

    path: Path
    name: str
    meta: dict = field(default_factory=dict)

    def kind(self, column: str) -> str | None:
        """The column kind from ``meta.json`` (None without metadata)."""
        return (self.meta.get("columns") or {}).get(column)


def resolve_input(text: str) -> InputSpec:
    """A table file, a data-set folder (``data.csv`` + ``meta.json``) or a bundled name."""
    p = Path(text)
    refuse_dash(text)
    if p.is_file():
        meta = read_meta(p.parent) if (p.parent / "meta.json").exists() and \
            p.name == "data.csv" else {}
        if meta:
            check_meta_columns(p, meta)
        # the name shown and written (report title, JSON, summary lines): a file name that
        # is not UTF-8 as text (_pathtext)
        return InputSpec(p, path_text(p.stem if p.name != "data.csv" else p.parent.name),
                         meta)
    if p.is_dir() and not (p / "data.csv").exists():
        raise CatEmbedError(f"{p} is a directory without a data.csv; give a table file.")
    if p.exists() and not p.is_dir():  # a FIFO, socket or device (a pipe, /dev/stdin,
        check_input_file(p)            # <(...)): "not a regular file", not "not found"
    try:
        folder = dataset_path(text)
    except CatEmbedError:
        raise CatEmbedError(
            f"input not found: {text} (not a file, a data-set folder or a bundled data set)."
        ) from None
    meta = read_meta(folder)
    if meta:
        check_meta_columns(folder / "data.csv", meta)
    return InputSpec(folder / "data.csv", path_text(folder.name), meta)


def split_list(text: str | None) -> list[str]:
    """The names of a comma-separated command-line list, blanks dropped (``"a, b,"`` ->
    ``["a", "b"]``)."""
    if not text:
        return []
    return [t.strip() for t in text.split(",") if t.strip()]
