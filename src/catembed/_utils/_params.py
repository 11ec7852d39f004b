"""Parameter checks shared by every estimator: one wording for every refusal.

Each check raises :class:`~catembed.CatEmbedError` naming the parameter, what it accepts and
what it got. The estimators call them from ``fit`` (never from ``__init__``, as scikit-learn
requires), and :mod:`catembed.persist` calls the same checks when a model file is loaded.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._errors import CatEmbedError

__all__ = [
    "MAX_SEED",
    "check_fraction",
    "check_int",
    "check_nonnegative",
    "check_option",
    "check_output_dtype",
    "check_param_types",
    "check_pooling",
    "check_positive",
    "is_real",
    "check_random_state_param",
]


def check_option(name: str, value: Any, allowed: Sequence[str]) -> None:
    """Raise a clear error when a string option is not one of ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise CatEmbedError(
            f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}."
        )


def check_int(name: str, value: Any, *, minimum: int = 1, allow_none: bool = False,
              extra: str = "") -> int | None:
    """Return ``value`` as an ``int`` when it is an integer (not a bool) of at least ``minimum``.

    ``None`` passes when ``allow_none``; ``extra`` is appended to the requirement in the
    message (e.g. ``" or None"``). The wording: "must be a positive integer" for
    ``minimum=1``, "must be an integer of at least N" otherwise.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or (
        value < minimum
    ):
        want = "a positive integer" if minimum == 1 else f"an integer of at least {minimum}"
        if allow_none and not extra:
            want = "None or " + want
        raise CatEmbedError(f"{name} must be {want}{extra}; got {value!r}.")
    return int(value)


def is_real(value: Any) -> bool:
    """A real number (Python or NumPy), not a bool; a string is never compared."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def check_nonnegative(name: str, value: Any, *, maximum: float | None = None,
                      why: str = "") -> float:
    """Return ``value`` as a ``float`` when it is a finite real number of at least 0 (not a
    bool), and at most ``maximum`` when given (``why``: the reason, appended)."""
    if not (is_real(value) and 0 <= value < np.inf) or (maximum is not None
                                                          and value > maximum):
        bound = f" of at most {maximum:g}{why}" if maximum is not None else ""
        raise CatEmbedError(f"{name} must be a non-negative number{bound}; got {value!r}.")
    return float(value)


def check_positive(name: str, value: Any) -> float:
    """Return ``value`` as a ``float`` when it is a real number greater than 0 (not a bool)."""
    if not (is_real(value) and value > 0):
        raise CatEmbedError(f"{name} must be a positive number; got {value!r}.")
    return float(value)


def check_fraction(name: str, value: Any) -> float:
    """Return ``value`` as a ``float`` when it is a real number strictly between 0 and 1
    (not a bool): a test size, a significance level, a sparsity target."""
    if not (is_real(value) and 0 < value < 1):
        raise CatEmbedError(f"{name} must lie strictly between 0 and 1; got {value!r}.")
    return float(value)


_KINDS = {
    "float": lambda v: isinstance(v, (int, float, np.integer, np.floating))
    and not isinstance(v, (bool, np.bool_)) and not (isinstance(v, float) and v != v),
    "int": lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)),
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, (bool, np.bool_)),
    "None": lambda v: v is None,
}


def check_param_types(estimator: Any) -> None:
    """Check every parameter against the type its ``__init__`` annotation names.

    ``alpha: float`` must be a real number (not a string, a bool or NaN), ``max_iter: int``
    an integer, ``int | None`` an integer or None... Parameters annotated ``Any`` are checked
    by the estimator itself. Runs in ``fit`` and when a model file is loaded, so both refuse
    ``alpha='x'`` with the same message.
    """
    import inspect

    sig = inspect.signature(type(estimator).__init__)
    for name, par in sig.parameters.items():
        ann = par.annotation
        if name == "self" or not isinstance(ann, str):
            continue
        kinds = [k.strip() for k in ann.split("|")]
        if not all(k in _KINDS for k in kinds):
            continue
        value = getattr(estimator, name, par.default)
        if not any(_KINDS[k](value) for k in kinds):
            want = " or ".join(
                {"float": "a number", "int": "an integer", "str": "a string",
                 "bool": "True or False", "None": "None"}[k] for k in kinds
            )
            raise CatEmbedError(
                f"{type(estimator).__name__} parameter {name} must be {want}; got {value!r}."
            )


#: the largest seed NumPy takes (``random_state``, the CLI's ``--seed``)
MAX_SEED = 2**32 - 1


def check_random_state_param(value: Any) -> None:
    """``random_state`` must be None, an integer in ``[0, 2**32 - 1]`` (NumPy's seeds) or a
    ``numpy.random.RandomState`` (issue 21 item 9: NumPy's own error named no parameter)."""
    if value is None or isinstance(value, np.random.RandomState):
        return
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)) and (
        0 <= value <= MAX_SEED
    ):
        return
    raise CatEmbedError(
        "random_state must be None, an integer between 0 and 2**32 - 1, or a "
        f"numpy.random.RandomState; got {value!r}."
    )


def check_pooling(min_frequency: Any, max_categories: Any) -> None:
    """Validate ``min_frequency`` / ``max_categories`` (scikit-learn's meaning)."""
    if min_frequency is not None:
        ok = (isinstance(min_frequency, (int, np.integer)) and not isinstance(min_frequency, bool)
              and min_frequency >= 1) or (
            isinstance(min_frequency, (float, np.floating)) and 0.0 < min_frequency < 1.0)
        if not ok:
            raise CatEmbedError(
                "min_frequency must be None, an integer count >= 1, or a fraction of the rows "
                f"strictly between 0 and 1; got {min_frequency!r}."
            )
    if max_categories is not None and (
        not isinstance(max_categories, (int, np.integer)) or isinstance(max_categories, bool)
        or max_categories < 1
    ):
        raise CatEmbedError(
            f"max_categories must be None or an integer >= 1; got {max_categories!r}."
        )


def check_output_dtype(dtype: Any, n_components: Any, compact: Any) -> np.dtype:
    """The output dtype an embedder's ``dtype`` parameter means: itself (float32 or float64),
    or for ``None`` the ``compact`` dtype when ``n_components`` is set and float64 otherwise."""
    if dtype is None:
        return np.dtype(compact if n_components is not None else np.float64)
    try:
        resolved = np.dtype(dtype)
    except TypeError:
        resolved = None
    # (None compares equal to float64: np.dtype(None) is float64)
    if resolved is None or resolved not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise CatEmbedError(
            f"dtype must be None, numpy.float32 or numpy.float64; got {dtype!r}."
        )
    return resolved
