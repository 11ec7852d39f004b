"""Reading the table to evaluate: a file, a data-set folder or a data-set name, prepared
by a preset into features and labels.

Shared by the ``evaluate`` command (:mod:`catembed.cli._evaluation`), the studies and
``catembed report``. The rule for columns is the one of ``catembed embed``: every column
of a plain CSV/Parquet file is categorical (read as text, so categories coded 1, 2, 3 stay
categories) unless ``numeric`` says what to do with the columns that hold numbers; a
data-set folder's ``meta.json`` types its columns.

Data sets named by name are looked up in ``data_dir``, then ``$CATEMBED_DATA``, then
``$CATEMBED_SHARED/datasets``, then the copies bundled with the package; every "not found"
names the folders searched. The top level imports no NumPy, pandas or scikit-learn (the
command line imports this module to build its parser).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._utils._errors import named
from .._utils._params import MAX_SEED
from .._utils._pathtext import path_text
from ..datasets import split_list

__all__ = ["BUNDLED_DIR", "MANY_VALUES", "data_roots", "find_input", "input_files", "load_features",
           "load_input", "number_counts", "numeric_hint", "numeric_looking", "numeric_note",
           "numeric_roles", "split_list", "summary_line"]

#: a plain file's column whose values all parse as numbers and that has at least this many
#: distinct values "looks numeric": read as categories it gives one value per number, and the
#: commands say so once, naming ``--numeric discretize``
MANY_VALUES = 20

BUNDLED_DIR = Path(__file__).resolve().parents[1] / "datasets" / "data"


def data_roots(data_dir: str | os.PathLike | None = None) -> list[Path]:
    """The folders a data set named by name is searched in, in order.

    ``data_dir`` alone when given; else ``$CATEMBED_DATA``, then
    ``$CATEMBED_SHARED/datasets`` (the project's shared-data layout), then the bundled copies.
    """
    if data_dir:
        return [Path(data_dir)]
    roots: list[Path] = []
    if os.environ.get("CATEMBED_DATA"):
        roots.append(Path(os.environ["CATEMBED_DATA"]))
    if os.environ.get("CATEMBED_SHARED"):
        roots.append(Path(os.environ["CATEMBED_SHARED"]) / "datasets")
    roots.append(BUNDLED_DIR)
    return roots


def numeric_looking(frame: Any, columns: Any = None, *,
                    min_distinct: int = MANY_VALUES) -> dict[str, int]:
    """The columns of ``frame`` whose non-missing values all parse as numbers and that have
    at least ``min_distinct`` distinct values, with their number of distinct values."""
    import pandas as pd

    out: dict[str, int] = {}
    for c in (frame.columns if columns is None else columns):
        col = frame[c].dropna()
        n = int(col.nunique())
        if n < min_distinct:
            continue
        if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col):
            out[str(c)] = n
        elif pd.to_numeric(col.astype(str).str.strip(), errors="coerce").notna().all():
            out[str(c)] = n
    return out


def number_counts(path: Any, columns: list[str], cap: int = MANY_VALUES
                  ) -> dict[str, tuple[int, int]]:
    """``(distinct numbers, numbers)`` of each column of a table file: the number of
    distinct numbers counted up to ``cap`` (the file is read in chunks, only these columns,
    until every count reaches ``cap``; a value that is not a number is not counted, nor a
    missing one), and how many of its cells hold a number, over the whole file for a column
    whose distinct count stays below ``cap`` (else over the chunks read)."""
    import pandas as pd

    from .. import io

    seen: dict[str, set] = {c: set() for c in columns}
    present = dict.fromkeys(columns, 0)
    open_ = list(columns)
    if open_:
        for chunk in io.iter_chunks(path, 100_000, columns=open_):
            for c in open_:
                v = pd.to_numeric(chunk[c], errors="coerce").dropna()
                present[c] += len(v)
                seen[c].update(v.unique().tolist())
            open_ = [c for c in open_ if len(seen[c]) < cap]
            if not open_:
                break
    return {c: (len(seen[c]), present[c]) for c in columns}


def numeric_roles(spec: Any, columns: list[str], policy: str | None) -> tuple[list[str],
                                                                             list[str]]:
    """The one column rule of ``catembed cluster``, ``report`` and ``embed``: which of
    ``columns`` (the features) hold numbers, as ``(numbers, codes)``.

    A data-set folder's ``meta.json`` types its columns: its numeric ones are ``numbers``.
    In a plain CSV/Parquet file a column holds numbers when its values parse as numbers
    (:func:`catembed.io.numeric_columns`); under ``policy="auto"`` one with fewer than
    :data:`MANY_VALUES` distinct numbers whose numbers repeat (each held by two cells or
    more on average: a code such as 1, 2, 3; a count) is a ``code``, read as categories, and
    the others are ``numbers`` (on a table of a few dozen rows, a measurement with a number
    in almost every row is a number, not a code of one value per row); under any other
    policy every such
    column is a ``number``; with ``policy=None`` (no policy: every column of a plain file a
    category) none is. What the policy does with ``numbers``: ``auto`` and ``discretize``
    cut them into quantile bins (a method that needs categories) or give them to a method
    that bins them (:class:`catembed.cluster.Consensus`), ``drop`` leaves them out,
    ``passthrough`` keeps them standardised. Identifier columns are decided before (they
    are not in ``columns``)."""
    from .. import io

    if spec.meta:
        return [c for c in columns if spec.kind(c) == "numeric"], []
    if policy is None:
        return [], []
    wanted = set(columns)
    found = [c for c in io.numeric_columns(spec.path) if c in wanted]
    if policy != "auto":
        return found, []
    counts = number_counts(spec.path, found)
    codes = [c for c in found if counts[c][0] < MANY_VALUES and 2 * counts[c][0] <= counts[c][1]]
    return [c for c in found if c not in set(codes)], codes


def numeric_note(numbers: list[str], action: str, n_bins: int = 5,
                 drop: str = "leaves them out") -> str:
    """The one note of the commands on what they do with the columns that hold numbers
    (:func:`numeric_roles`): ``action`` is ``"binned"``, ``"left out"`` or ``"kept"``;
    ``drop`` says what ``--numeric drop`` would do instead (``catembed embed`` reads a plain
    file's numbers as categories under it)."""
    names = f"{', '.join(numbers[:10])}{' ...' if len(numbers) > 10 else ''}"
    if action == "left out":
        return f"leaving out {len(numbers)} numeric column(s) (--numeric drop): {names}"
    if action == "kept":
        return (f"{len(numbers)} numeric column(s) kept as numbers (standardised): {names} "
                f"(--numeric drop {drop})")
    return (f"{len(numbers)} numeric column(s) cut into {n_bins} quantile bins: {names} "
            f"(--numeric drop {drop})")


def numeric_hint(found: dict[str, int], n_rows: int | None = None,
                 id_flag: str = "--drop") -> str:
    """The one message for numeric-looking columns read as categories.

    With ``n_rows`` (the rows the counts were taken on), a column with a distinct number in
    almost every row (:func:`catembed.stats._pooling.identifier_columns`: a row number, an ``ID``)
    gets the identifier advice (leave it out with ``id_flag``) rather than binning."""
    from ..stats._pooling import identifier_columns

    ids = identifier_columns(list(found), list(found.values()), n_rows) if n_rows else []
    numbers = {c: n for c, n in found.items() if c not in set(ids)}
    parts = []
    if numbers:
        names = ", ".join(f"{c} ({n} distinct)" for c, n in list(numbers.items())[:8])
        more = f" and {len(numbers) - 8} more" if len(numbers) > 8 else ""
        parts.append(
            f"{len(numbers)} column(s) hold numbers with many distinct values and are read as "
            f"categories, one value per distinct number: {names}{more}. Use --numeric "
            "discretize to cut them into quantile bins (or --numeric passthrough to keep them "
            "as numbers for the mixed-type methods, --numeric drop to leave them out).")
    if ids:
        names = ", ".join(f"{c} ({found[c]} distinct in {n_rows} rows)" for c in ids[:8])
        more = f" and {len(ids) - 8} more" if len(ids) > 8 else ""
        parts.append(
            f"{len(ids)} column(s) hold a distinct number in almost every row and look like "
            f"identifiers, not measurements: {names}{more}. Leave them out with {id_flag} "
            "(binned or as values they carry no coupling).")
    return " ".join(parts)


def _error(message: str) -> Exception:
    from .._utils._validation import CatEmbedError

    return CatEmbedError(message)


def check_jobs(jobs: int | None) -> None:
    """``--jobs``: a number of processes (``-1``: every core, joblib's meaning); 0 is refused
    here, before any work (joblib refuses it inside every method's runs)."""
    if jobs is not None and jobs == 0:
        raise _error("--jobs must be a number of processes (1 or more, or -1 for every "
                     "core); got 0.")


def check_seed(seed: int, runs: int | None = None) -> None:
    """``--seed``: the runs use the seeds ``seed .. seed + runs - 1``, each a NumPy seed
    (0 to 2**32 - 1); refused here, naming the flag, before any work (else every method's
    runs failed on "Seed must be between 0 and 2**32 - 1")."""
    runs = max(int(runs or 1), 1)
    high = MAX_SEED - (runs - 1)
    if high < 0:
        raise _error(f"--runs must be at most {MAX_SEED + 1} (one seed per run); got {runs}.")
    if not 0 <= seed <= high:
        seeds = f" (the {runs} runs use the seeds --seed to --seed + {runs - 1})" \
            if runs > 1 else ""
        raise _error(f"--seed must be an integer from 0 to {high}{seeds}; got {seed}.")


def find_input(text: str, data_dir: str | None = None) -> str:
    """A path as given, else the folder named ``text`` in the first root that has it."""
    from .._utils._files import refuse_dash

    refuse_dash(text)
    if Path(text).exists():
        return text
    roots = data_roots(data_dir)
    for root in roots:
        if (root / text / "data.csv").exists():
            return str(root / text)
    raise _error(
        f"no file or data set '{path_text(text)}': searched "
        f"{', '.join(path_text(r) for r in roots)}. "
        "Give a path, --data-dir DIR, or set CATEMBED_DATA=DIR."
    )


NO_TARGET = "__catembed_no_target__"


def load_features(text: str, target: str | None, preset: str | None,
                  drop: list[str] | None = None, data_dir: str | None = None,
                  numeric: str | None = None, use_meta_target: bool = True
                  ) -> tuple[str, Any, Any]:
    """``(name, features, labels)`` of a table, as :func:`load_input` prepares it; the
    labels are None when no target is given (nor, with ``use_meta_target``, named by a
    folder's ``meta.json``)."""
    data = load_input(text, target, preset, drop, data_dir, numeric=numeric,
                      require_target=False, use_meta_target=use_meta_target)
    if data.target == NO_TARGET:
        return data.name, data.features, None
    return data.name, data.features, data.labels.to_numpy()


def load_input(text: str, target: str | None, preset: str | None,
               drop: list[str] | None = None, data_dir: str | None = None,
               numeric: str | None = None, n_bins: int = 5, *,
               require_target: bool = True, use_meta_target: bool = True) -> Any:
    """The table to evaluate (a :class:`~catembed.datasets.Dataset`), prepared by ``preset``.

    ``text`` is a CSV/Parquet file, a data-set folder or a data-set name (searched in
    :func:`data_roots`). A folder's ``meta.json`` gives the column kinds and the target. A
    plain file needs ``--target``; all its columns are categorical (read as text) unless
    ``numeric`` is given: ``"drop"`` leaves out the columns whose values all parse as
    numbers, ``"discretize"`` cuts them into ``n_bins`` quantile bins used as categories,
    ``"auto"`` (``catembed report``'s default, the rule of ``catembed cluster`` and
    ``embed``: :func:`numeric_roles`) cuts those with at least :data:`MANY_VALUES` distinct
    numbers and reads the others as categories (a folder's numeric columns are cut),
    ``"passthrough"`` keeps them (and a folder's numeric columns) as numbers, standardised to
    z-scores (population standard deviation, after the preset's row filter), for the
    mixed-type methods (FAMD, k-prototypes, the deep clusterers); the preset's column rule
    then keeps numeric columns (``columns="mixed"``). Default preset: ``complete`` (rows
    with a missing feature dropped, the papers' protocol), for ``catembed evaluate`` and
    ``catembed report`` alike; ``--preset categorical`` keeps every row, missing as a value.
    ``meta["rows_read"]`` is the number of rows before the preset. A plain file's column
    that looks numeric (:func:`numeric_looking`) read as categories gives one
    :class:`~catembed.CatEmbedWarning` naming ``--numeric discretize``.
    """
    from .. import io
    from ..datasets import Dataset, apply_preset, load_dataset, resolve_input

    spec = resolve_input(find_input(text, data_dir))
    io.check_ragged_rows(spec.path)  # a warning naming the lines, as embed gives
    left_out: list[str] = []  # a plain file's --drop columns, not read
    binned: list[str] = []  # the numeric columns cut into bins (auto, discretize)
    if spec.meta:
        data = load_dataset(spec.path.parent)
        if not use_meta_target and data.target and not target:
            data.meta = {**data.meta, "target": None, "columns": {
                **data.column_kinds, data.target: "id"}}
        if numeric in ("discretize", "auto"):
            binned = [c for c in data.feature_columns if data.column_kinds.get(c) == "numeric"]
            data.frame = _discretize(data.frame, data.feature_columns, data.column_kinds,
                                     n_bins)
            data.meta = {**data.meta, "columns": {
                c: "categorical" if k == "numeric" else k for c, k in data.column_kinds.items()
            }}
    else:
        if not target and require_target:
            raise _error(f"{spec.path.name} has no meta.json: name the class column "
                         "with --target COL.")
        columns = io.read_columns(spec.path)
        # --drop columns are not read (a nested Parquet column is refused when read)
        left_out = [c for c in columns if c in set(drop or []) and c != target]
        columns = [c for c in columns if c not in left_out]
        if numeric == "auto":  # the one rule of cluster and embed (numeric_roles)
            found = numeric_roles(spec, [c for c in columns if c != target], "auto")[0]
        else:
            found = [c for c in io.numeric_columns(spec.path) if c != target and c in columns
                     ] if numeric else []
        text_cols = [c for c in columns if c not in found]
        frame = io.read_table(spec.path, columns=columns if left_out else None,
                              text_columns=text_cols)
        if numeric is None:
            found = numeric_looking(frame, [c for c in columns if c != target
                                            and c not in (drop or [])])
            if found:
                import warnings

                from .._utils._errors import CatEmbedWarning

                warnings.warn(numeric_hint(found, len(frame)), CatEmbedWarning, stacklevel=2)
        kinds = {c: "target" if c == target else "categorical" for c in columns}
        if numeric == "drop":
            kinds.update({c: "id" for c in found})
        elif numeric == "passthrough":
            kinds.update({c: "numeric" for c in found})
        elif numeric in ("discretize", "auto"):
            frame = _discretize(frame, found, {c: "numeric" for c in found}, n_bins)
            binned = list(found)
        data = Dataset(spec.name, frame, {"name": spec.name, "target": target,
                                          "columns": kinds}, spec.path)
    if target:
        if target not in data.frame.columns:
            raise _error(
                f"--target {target!r} is not a column of {spec.name}; columns: "
                f"{named(data.frame.columns, 20)}."
            )
        kinds = dict(data.column_kinds)
        old = data.target
        if old and old != target and old in kinds:
            kinds[old] = "id"  # the file's own target is not a feature
        kinds[target] = "target"
        data.meta = {**data.meta, "target": target, "columns": kinds}
    if data.target and data.frame[data.target].dtype == object:  # bytes: the one rule's text
        import pandas as pd

        from .._utils._text import value_texts

        y = data.frame[data.target]
        if pd.api.types.infer_dtype(y, skipna=True) == "bytes":  # scored by their text
            data.frame = data.frame.assign(**{data.target: pd.Series(
                value_texts(y), index=y.index, dtype=object).where(y.notna(), None)})
    if not data.target:
        if require_target:
            raise _error(f"{spec.name}: meta.json names no target; give --target COL.")
        data.frame = data.frame.assign(**{NO_TARGET: "all"})
        data.meta = {**data.meta, "target": NO_TARGET, "no_target": True,
                     "columns": {**data.column_kinds, NO_TARGET: "target"}}
    if drop:
        missing = [c for c in drop if c not in data.frame.columns and c not in left_out]
        if missing:
            raise _error(f"--drop names column(s) not in {spec.name}: {', '.join(missing)}.")
        kinds = dict(data.column_kinds)
        for c in drop:
            if c not in left_out:
                kinds[c] = "id"
        data.meta = {**data.meta, "columns": kinds}
    name = preset or "complete"
    try:
        if numeric == "passthrough":
            out = _standardise(apply_preset(data, _mixed_preset(name, data.name)))
        else:
            out = apply_preset(data, name)
        out.meta = {**out.meta, "rows_read": int(len(data.frame)), "plain_file": not spec.meta,
                    "binned": [c for c in binned if c in out.feature_columns],
                    "rows_no_target": int(data.frame[data.target].isna().sum())}
        return out
    except Exception as exc:
        if "leaves no attribute" not in str(exc):
            raise
        numeric_cols = [c for c, k in data.column_kinds.items() if k == "numeric"]
        hint = (" --numeric drop left out every column holding numbers: leave out --numeric "
                "to read them as categories, or use --numeric discretize." if numeric == "drop"
                else f" Its numeric column(s) ({', '.join(numeric_cols[:8])}) are left out by "
                f"preset {name!r}: use --numeric discretize to bin them, or --preset raw to "
                "read every column as categories." if numeric_cols else
                " Use --preset raw to keep constant columns and every row, or --drop fewer "
                "columns.")
        raise _error(f"{exc}{hint}") from None


def _mixed_preset(name: str, dataset: str) -> dict:
    """The preset ``name`` for ``dataset``, keeping numeric columns as numbers."""
    from ..datasets import resolve_preset

    spec = resolve_preset(name, dataset)
    spec["columns"] = "mixed"
    return spec


def _standardise(data: Any) -> Any:
    """The numeric feature columns of ``data`` as z-scores (population standard deviation,
    as scikit-learn's ``StandardScaler``; a constant column becomes 0). Infinite numbers,
    and numbers whose square overflows, are refused with the column's name: their mean
    and deviation would turn every number of the column into NaN."""
    import numpy as np

    from ..stats._numeric import check_finite_numbers

    frame = data.frame.copy()
    for c in data.feature_columns:
        if data.column_kinds.get(c) != "numeric":
            continue
        x = _numbers(frame, c)
        check_finite_numbers(x, [c], "fit", remedy="replace them with empty cells (missing "
                             "numbers), clip them, or use --numeric discretize.")
        mean, sd = np.nanmean(x), np.nanstd(x)
        frame[c] = (x - mean) / (sd if np.isfinite(sd) and sd > 0 else 1.0)
    data.frame = frame
    return data


def _numbers(frame: Any, column: str) -> Any:
    """A numeric column as floats; a value that is not a number is refused, naming the
    column (NumPy's "could not convert string to float" otherwise)."""
    import numpy as np
    import pandas as pd

    try:
        return frame[column].to_numpy(dtype=float, na_value=np.nan)
    except (ValueError, TypeError):
        col = frame[column]
        bad = col[pd.to_numeric(col, errors="coerce").isna() & col.notna()]
        value = bad.iloc[0] if len(bad) else col.iloc[0]
        raise _error(
            f"column {column!r} is used as numbers (typed numeric in meta.json, or numeric "
            f"in the first rows read by --numeric) but holds {value!r}; type it categorical "
            "in meta.json, fix the value, or leave out --numeric.") from None


def _discretize(frame: Any, columns: list[str], kinds: dict[str, str], n_bins: int) -> Any:
    """Numeric columns -> quantile-bin labels (text), as ``numeric="discretize"`` does."""
    from ..stats._numeric import bin_numbers

    frame = frame.copy()
    for c in columns:
        if kinds.get(c) != "numeric":
            continue
        frame[c] = bin_numbers(_numbers(frame, c), n_bins)
    return frame


def input_files(text: str, data_dir: str | None = None) -> list[Path]:
    """The files an input argument reads (a table file; a data-set folder's ``data.csv`` and
    ``meta.json``, the folder found by name as the evaluation commands find it), for the
    check that no output is written over them; [] when it names nothing found."""
    p = Path(text)
    if not p.exists():
        p = next((r / text for r in data_roots(data_dir) if (r / text / "data.csv").exists()),
                 p)
    if p.is_dir():
        return [p / "data.csv", p / "meta.json"]
    if p.is_file():
        return [p] + ([p.parent / "meta.json"] if p.name == "data.csv" else [])
    return []


def summary_line(data: Any) -> str:
    """The table's one-line summary; a plain file has no preset label (its columns are
    typed by the command's flags), and rows the preset dropped are counted."""
    line = data.summary()
    preset = (data.preset or {}).get("name")
    if data.meta.get("plain_file") and preset:
        line = line.replace(f" [preset {preset}]", "", 1)
    dropped = int(data.meta.get("rows_read", len(data.frame))) - len(data.frame)
    # rows without a class are dropped by every preset: said apart, as no flag keeps them
    no_target = min(int(data.meta.get("rows_no_target", 0)), max(dropped, 0))
    if no_target:
        line += f"; {no_target} row(s) without a target value dropped"
    if dropped - no_target > 0:
        line += (f"; {dropped - no_target} row(s) with a missing value dropped by preset "
                 f"{preset} (--preset categorical keeps them, missing as a value)")
    return line
