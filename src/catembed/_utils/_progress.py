"""Progress on standard error for long work: one status line, redrawn in place.

A :class:`Progress` shows what the work is doing (``reading big.csv``, ``counting values:
1,200,000 of 2,000,000 rows (60%)``, ``fitting cde``), with the seconds the step has taken,
on one line of a terminal that it redraws with a carriage return, and erases when the work
ends. Nothing is drawn during the first ``delay`` seconds (short work shows nothing), then at
most once every ``interval`` seconds; a thread of its own redraws the line while a step that
counts nothing (one long call) runs, so that the line appears on time whatever the work does.
On a stream that is not a terminal it draws nothing unless asked to (``enabled=True``: then
whole lines, at most one every :data:`LOG_INTERVAL` seconds or per step).

The reporter in use is held in a context variable (:func:`active`), so that code deep in a fit
reports its steps (:func:`step`, :func:`counted`) without a parameter passed down to it;
without one, these do nothing. The command line makes one unless ``--quiet`` or stderr is not
a terminal; the Python API makes one only when asked (``verbose=True``). Messages printed while
a line is drawn go through :func:`echo`, which erases the line first.

Imports nothing heavy: the command line imports it at start-up.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

__all__ = ["Progress", "active", "counted", "echo", "is_terminal", "reporting", "step"]

#: seconds of work before the first line is drawn
DELAY = 1.0
#: least seconds between two draws of the line on a terminal
INTERVAL = 0.5
#: least seconds between two lines on a stream that is not a terminal (``enabled=True``)
LOG_INTERVAL = 10.0

_current: contextvars.ContextVar[Progress | None] = contextvars.ContextVar(
    "catembed_progress", default=None)


def is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal (``isatty()``; False when it cannot say)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _columns(stream: Any) -> int:
    """The terminal's width, 80 when unknown (a line longer than it would wrap, and the
    carriage return would then redraw only its last part)."""
    try:
        width = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        width = 0
    return width if width > 0 else 80


class Progress:
    """A status line for long work on ``stream`` (default: standard error).

    Parameters
    ----------
    label : str
        What starts every line, e.g. ``"catembed embed"``.
    stream : file, optional
        Default ``sys.stderr`` at creation.
    enabled : bool, optional
        Default: whether ``stream`` is a terminal. Disabled, the reporter writes nothing and
        starts no thread.
    delay, interval : float, optional
        Seconds before the first draw and least seconds between draws (default
        :data:`DELAY`, :data:`INTERVAL`; :data:`LOG_INTERVAL` when not a terminal).
    clock : callable
        Seconds, monotonic (a fake one in tests).
    ticker : bool
        Redraw from a thread while a step counts nothing (on ``__enter__``).
    """

    def __init__(self, label: str, *, stream: IO[str] | None = None,
                 enabled: bool | None = None, delay: float | None = None,
                 interval: float | None = None, clock: Callable[[], float] = time.monotonic,
                 ticker: bool = True) -> None:
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.live = is_terminal(self.stream)
        self.enabled = self.live if enabled is None else bool(enabled)
        self.delay = DELAY if delay is None else float(delay)
        self.interval = (INTERVAL if self.live else LOG_INTERVAL) if interval is None else float(
            interval)
        self.clock = clock
        self.ticker = ticker
        #: rows of the table, when known: the total of a step counting rows that gives none
        self.rows: int | None = None
        self._lock = threading.RLock()
        self._start = self._step_start = clock()
        self._what, self._done, self._total, self._unit = "", 0, None, None
        self._drawn_at: float | None = None
        self._shown = 0  # characters of the line on the terminal now
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._token: contextvars.Token | None = None

    # ------------------------------------------------------------------ reporting
    def step(self, what: str, total: int | None = None, unit: str | None = None) -> None:
        """A new step: ``what`` it does and, when it counts (a ``unit``), the ``total``
        (default for rows: :attr:`rows`; None: unknown)."""
        with self._lock:
            self._what, self._done, self._unit = what, 0, unit
            self._total = self.rows if total is None and unit == "rows" else total
            self._step_start = self.clock()
            if not self.live:
                self._drawn_at = None  # a line per step in a log
            self.tick()

    def update(self, n: int) -> None:
        """``n`` more rows (or units) done in this step."""
        with self._lock:
            self._done += int(n)
            self.tick()

    def tick(self) -> None:
        """Draw the line if the delay has passed and the last draw is ``interval`` old."""
        if not self.enabled or not self._what:
            return
        with self._lock:
            now = self.clock()
            if now - self._start < self.delay or (
                    self._drawn_at is not None and now - self._drawn_at < self.interval):
                return
            self._drawn_at = now
            self._write(self.text(now))

    def text(self, now: float | None = None) -> str:
        """The line: label, step, count (of total, percent), seconds of the step."""
        now = self.clock() if now is None else now
        line = f"{self.label}: {self._what}"
        if self._unit:
            line += f": {self._done:,}"
            if self._total:
                line += f" of {self._total:,} {self._unit} ({100 * self._done // self._total}%)"
            else:
                line += f" {self._unit}"
        return f"{line} ({now - self._step_start:.0f} s)"

    # ------------------------------------------------------------------ the terminal
    def _write(self, text: str) -> None:
        try:
            if self.live:
                text = text[: _columns(self.stream) - 1]
                pad = " " * max(self._shown - len(text), 0)
                self.stream.write(f"\r{text}{pad}")
                self._shown = len(text)
            else:
                self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: no more progress
            self.enabled = False

    def erase(self) -> None:
        """Take the line off the terminal (it is drawn again at the next draw)."""
        with self._lock:
            if self._shown:
                self._shown, width = 0, self._shown
                try:
                    self.stream.write("\r" + " " * width + "\r")
                    self.stream.flush()
                except (OSError, ValueError):
                    self.enabled = False
            self._drawn_at = None if self.live else self._drawn_at

    # ------------------------------------------------------------------ life
    def _run(self) -> None:
        while not self._stop.wait(max(self.interval / 2, 0.05)):
            self.tick()

    def __enter__(self) -> Progress:
        self._token = _current.set(self)
        if self.enabled and self.ticker:
            self._thread = threading.Thread(target=self._run, name="catembed-progress",
                                            daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Stop the thread, erase the line, and stop being the reporter in use."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.erase()
        if self._token is not None:
            _current.reset(self._token)
            self._token = None


def active() -> Progress | None:
    """The reporter in use in this context, if any."""
    return _current.get()


def step(what: str, total: int | None = None, unit: str | None = None) -> None:
    """A new step of the reporter in use (nothing without one)."""
    progress = _current.get()
    if progress is not None:
        progress.step(what, total, unit)


def counted(chunks: Iterable[Any], what: str) -> Iterator[Any]:
    """``chunks``, with their rows counted by the reporter in use under the step ``what``
    (started at the first chunk drawn); the chunks themselves untouched."""
    progress = _current.get()
    if progress is None:
        yield from chunks
        return
    progress.step(what, unit="rows")
    for chunk in chunks:
        yield chunk
        progress.update(len(chunk))


@contextlib.contextmanager
def reporting(verbose: bool, label: str = "catembed") -> Iterator[Progress | None]:
    """The Python API's ``verbose``: a reporter on standard error while the block runs when
    ``verbose`` is true and none is in use already; nothing otherwise."""
    if not verbose or _current.get() is not None:
        yield _current.get()
        return
    with Progress(label, enabled=True) as progress:
        yield progress


def echo(text: str, stream: IO[str] | None = None) -> None:
    """Print a line to ``stream`` (default: standard error) without mixing it into the
    progress line: the line is erased first and drawn again at the next draw."""
    stream = sys.stderr if stream is None else stream
    progress = _current.get()
    if progress is None or not progress.enabled or progress.stream is not stream:
        print(text, file=stream)
        return
    with progress._lock:
        progress.erase()
        print(text, file=stream)
