"""The two limits every cost guard reads, ``CATEMBED_MAX_MEMORY`` and ``CATEMBED_MAX_SECONDS``,
parsed in one place, and the one estimate-and-refuse check (issue 52 item 6).

* ``CATEMBED_MAX_MEMORY``: bytes a fit may plan to use; a positive number, optionally
  followed by ``K``, ``M``, ``G`` or ``T`` (powers of 1024; ``B`` or ``iB`` may follow, any
  case): ``8G``, ``500M``, ``1.5T``, ``8GiB``, ``1000000``. Unset or empty: half the RAM.
* ``CATEMBED_MAX_SECONDS``: the time a fit may be estimated to take; a positive number of
  seconds (``600``, ``1e-9``, ``3600.5``). Unset or empty: the caller's default.

Anything else (``nan``, ``inf``, ``0``, a negative number, ``lots``, ``ten``) is refused with
one :class:`~catembed.CatEmbedError` that names the variable, echoes its text as given and
says the accepted forms: a limit that cannot be read is never taken as "no limit".

:func:`check_limits` is the check itself: an estimate of a step's memory (bytes) and time
(seconds), refused above the limits before anything is allocated, warned about above two
minutes. :func:`check_environment` reads both variables up front (a caller that catches
:class:`~catembed.CatEmbedError` per part, as :class:`~catembed.cluster.Consensus` does per
member, calls it first so that a bad setting is reported once, as what it is).
"""

from __future__ import annotations

import math
import os
import re
import warnings

from ._errors import CatEmbedError, CatEmbedWarning

__all__ = ["MEMORY_FORMS", "SECONDS_FORMS", "CostWarning", "check_environment", "check_limits",
           "duration", "memory_limit", "seconds_limit"]

#: the accepted forms, as the refusal states them
MEMORY_FORMS = ("a positive number of bytes, optionally followed by K, M, G or T "
                "(e.g. 8G, 500M, 1.5T, 1000000)")
SECONDS_FORMS = "a positive number of seconds (e.g. 600, 3600, 1e-3)"

#: above this estimate a step warns that it may take minutes
WARN_SECONDS = 120.0

_NUMBER = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_SIZE = re.compile(rf"\s*({_NUMBER})\s*(?:([KMGT])(?:I?B)?|B)?\s*", re.IGNORECASE)
_SECONDS = re.compile(rf"\s*({_NUMBER})\s*", re.IGNORECASE)
_SCALE = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


class CostWarning(CatEmbedWarning):
    """"... may take N minutes or more": a step estimated above two minutes. A
    :class:`~catembed.CatEmbedWarning`; its own class so that a caller that silences the
    warnings of the steps it runs (a Consensus member's fit) can pass this one on."""


def _refuse(name: str, text: str, what: str, forms: str) -> CatEmbedError:
    return CatEmbedError(
        f"{name}={text!r} is not {what}: set it to {forms}, or unset it "
        "(nan, inf, zero and negative values are not limits).")


def memory_limit() -> float:
    """Bytes a fit may plan to use: ``CATEMBED_MAX_MEMORY`` (e.g. ``8G``) or half the RAM.

    Raises
    ------
    CatEmbedError
        The variable is set to anything but a positive finite size (module docstring).
    """
    text = os.environ.get("CATEMBED_MAX_MEMORY", "")
    if text.strip():
        got = _SIZE.fullmatch(text)
        value = float(got.group(1)) * _SCALE.get((got.group(2) or "").upper(), 1) if got \
            else math.nan
        if not (math.isfinite(value) and value > 0):
            raise _refuse("CATEMBED_MAX_MEMORY", text, "a size such as 8G or 500M",
                          MEMORY_FORMS)
        return value
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 8.0 * 2**30


def seconds_limit(default: float) -> float | None:
    """``CATEMBED_MAX_SECONDS`` as seconds, or ``default`` when unset or empty (``None``
    default: ``None`` back, so a caller can tell its own default from the variable).

    Raises
    ------
    CatEmbedError
        The variable is set to anything but a positive finite number (module docstring).
    """
    text = os.environ.get("CATEMBED_MAX_SECONDS", "")
    if not text.strip():
        return default
    got = _SECONDS.fullmatch(text)
    value = float(got.group(1)) if got else math.nan
    if not (math.isfinite(value) and value > 0):
        raise _refuse("CATEMBED_MAX_SECONDS", text, "a number of seconds", SECONDS_FORMS)
    return value


def check_environment() -> None:
    """Read both limits now: a bad setting raises here, once, before any work."""
    memory_limit()
    seconds_limit(None)


def size(n_bytes: float) -> str:
    """``"4.1 GiB"`` from 0.1 GiB up, ``"12 MiB"`` from 1 MiB, else ``"640 KiB"`` (never
    ``"0.0 GiB"`` for a small limit or need)."""
    if n_bytes >= 0.1 * 2**30:
        return f"{n_bytes / 2**30:.1f} GiB"
    if n_bytes >= 2**20:
        return f"{n_bytes / 2**20:.0f} MiB"
    return f"{max(n_bytes, 0.0) / 2**10:.0f} KiB"


def duration(seconds: float) -> str:
    """``"3.2 hours"``, ``"14 minutes"`` or ``"40 s"``."""
    if seconds >= 7200:
        return f"{seconds / 3600:.1f} hours"
    if seconds >= 120:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds:.0f} s"


def check_limits(what: str, need: float, seconds: float, hint: str, *,
                 default_seconds: float = 12 * 3600, warn: bool = True) -> None:
    """Refuse a step whose memory estimate ``need`` (bytes) exceeds :func:`memory_limit` or
    whose time estimate ``seconds`` exceeds :func:`seconds_limit` (``default_seconds``
    when unset); warn (:class:`CostWarning`) above two minutes unless ``warn`` is false
    (a first, lower estimate that a second one follows). ``what`` names
    the step (``"LCME on 2000 distinct values in 4 columns"``), ``hint`` what to do.

    Raises
    ------
    CatEmbedError
        ``"<what> would need about 4.1 GiB (limit 2.0 GiB, CATEMBED_MAX_MEMORY); <hint>."``
        or ``"<what> would take about 14 minutes (limit 60 s, CATEMBED_MAX_SECONDS);
        <hint>."``
    """
    limit = memory_limit()
    max_seconds = seconds_limit(default_seconds)
    if need > limit:
        raise CatEmbedError(
            f"{what} would need about {size(need)} (limit {size(limit)}, "
            f"CATEMBED_MAX_MEMORY); {hint}.")
    if seconds > max_seconds:
        raise CatEmbedError(
            f"{what} would take about {duration(seconds)} (limit {duration(max_seconds)}, "
            f"CATEMBED_MAX_SECONDS); {hint}.")
    if warn and seconds > WARN_SECONDS:
        from ._validation import user_stacklevel  # NumPy and pandas: only when warning

        warnings.warn(f"{what} may take {seconds / 60:.0f} minutes or more; to be faster, "
                      f"{hint}.", CostWarning, stacklevel=user_stacklevel())
