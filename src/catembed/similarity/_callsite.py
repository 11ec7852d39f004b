"""Warnings attributed to the user's line, however deep inside catembed they are raised.

A fixed ``stacklevel`` is right for one call path only: the same warning raised in
``CategoricalDistance.fit`` is one frame deeper when :class:`~catembed.cluster.KModes` calls
it, and names a catembed line (or ``sys:1`` when the level runs past the top of the stack).
:func:`user_stacklevel` counts the frames instead, up to the first one outside catembed and
scikit-learn (whose ``fit_predict``, ``Pipeline`` and ``set_output`` wrappers call ours).
:func:`warnings_at_caller` re-emits, at that line, the warnings that code it cannot change
raises with a fixed level.
"""

from __future__ import annotations

import os
import sys
import warnings

import sklearn

__all__ = ["user_stacklevel", "warn_at_caller", "warnings_at_caller"]

_INTERNAL = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,  # catembed/
    os.path.dirname(os.path.abspath(sklearn.__file__)) + os.sep,  # sklearn/
)


def _internal(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_INTERNAL)


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` called by the caller of this
    function name the first frame outside catembed and scikit-learn (the outermost frame
    when every frame is inside, as under the ``catembed`` command)."""
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and _internal(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    return level


def warn_at_caller(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` naming the user's line."""
    warnings.warn(message, category, stacklevel=user_stacklevel())


class warnings_at_caller:  # noqa: N801 (used as a context manager, like warnings.catch_warnings)
    """Re-emit the warnings raised inside the ``with`` block at the user's line, in order.

    For warnings raised with a fixed ``stacklevel`` by code called along several paths. The
    user's filters apply at re-emission (``"error"`` raises then, ``"once"`` dedupes against
    the user's registry). ``owner``: a message that starts with ``"CategoricalDistance "``
    (the helper estimator's name) is attributed to ``owner`` instead.
    """

    def __init__(self, owner: str | None = None) -> None:
        self.owner = owner

    def __enter__(self) -> None:
        self._catch = warnings.catch_warnings(record=True)
        self._caught = self._catch.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc: object) -> None:
        self._catch.__exit__(*exc)
        for w in self._caught:
            message = w.message
            text = str(message)
            if self.owner and text.startswith("CategoricalDistance "):
                message = self.owner + text[len("CategoricalDistance"):]
            warnings.warn(message, w.category, stacklevel=user_stacklevel())
