"""The ``catembed`` command line.

This module is the entry: the parser, the run of one subcommand and the one-line report of
its errors. ``catembed embed`` (:mod:`catembed.cli._embed`) turns a categorical CSV or Parquet
file (or a data-set folder, or the name of a bundled data set) into a numeric table; what the
subcommands read and write is checked in :mod:`catembed.cli._input`. Other subcommands
(``transform``, ``evaluate``, ``bench``...) come from plugin modules that define
``register(subparsers)``.

Errors in the input end the command with a one-line message and exit status 2; warnings
are printed as one line each on stderr; Ctrl-C prints one line and exits 130, SIGTERM and
SIGHUP likewise with 143 and 129 (no partial output is left). Exit status 1
("internal error") means a bug in catembed. Every message is listed in ``docs/cli-errors.md``.

Start-up is kept light: this module and the plugin modules import no NumPy, pandas,
scikit-learn or PyTorch at their top, so ``catembed --version`` and ``--help`` answer at once.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import threading
import warnings
from typing import Any

from .._utils._errors import CatEmbedError
from .._utils._pathtext import path_text
from .._utils._progress import echo
from .._version import __version__

__all__ = ["main", "build_parser"]

#: modules that add subcommands: each defines ``register(subparsers)``
PLUGINS = ("catembed.cli._evaluation", "catembed.report", "catembed.cli._transform",
           "catembed.cli._cluster")

# A plugin module must not import NumPy, pandas, scikit-learn or PyTorch at its top (import
# them inside the command's function), so that building the parser stays fast.

#: subcommands defined here: running one of them does not import the plugin modules
BUILTIN_COMMANDS = ("embed",)

TOP_EXAMPLES = """\
examples:
  catembed embed data.csv --target class -o embedded.csv
  catembed embed lenses --method idf            (a bundled data set, CSV on stdout)
  catembed COMMAND --help                       (options and examples of a command)

exit status: 0 done, 2 refused input or usage (one-line message saying what to change),
130 interrupted (143 SIGTERM, 129 SIGHUP), 1 internal error (a bug: please report it with
--debug's traceback).
"""


def build_parser(plugins: bool = True) -> argparse.ArgumentParser:
    """The argument parser: ``embed`` and, with ``plugins``, every plugin's subcommands."""
    parser = argparse.ArgumentParser(
        prog="catembed",
        description="Embed categorical tables from value couplings (CDE, CDE++, UNTIE, ...).",
        epilog=TOP_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"catembed {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the Python traceback of unexpected errors (anywhere on the "
                        "command line)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    importlib.import_module("catembed.cli._embed").register(sub)
    for name in PLUGINS if plugins else ():
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue
            raise
        module.register(sub)
    return parser


def _showwarning(message: Any, category: Any, filename: Any, lineno: Any, file: Any = None,
                 line: Any = None) -> None:
    text = path_text(str(message).strip().replace("\n", " "))
    echo(f"catembed: warning: {text}")


def _command_of(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first argument not an option)."""
    return next((a for a in argv if not a.startswith("-")), None)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is so that it ends as Ctrl-C does: every
    temporary output removed, one line on stderr, exit status 128 + the signal number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated(signum)


def _catch_signals() -> dict[int, Any]:
    """Turn SIGTERM and SIGHUP into :class:`Terminated`; returns the old handlers."""
    import signal

    old: dict[int, Any] = {}
    if threading.current_thread() is not threading.main_thread():
        return old
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
            old[signum] = signal.signal(signum, _terminate)
    return old


class _QuietFailures:
    """Standard error for the command's run: a message that cannot be written (a full disk,
    a closed pipe, ``2>/dev/full``) is dropped, and so are the ones after it, so that a
    failing stderr never ends the command or loses its result (the labels were never
    written when a warning's write raised ``OSError``). Everything else is the stream's."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.failed = False

    def write(self, text: str) -> int:
        if not self.failed:
            try:
                return int(self._stream.write(text) or 0)
            except (OSError, ValueError):  # ValueError: a closed stream
                self.failed = True
        return len(text)

    def flush(self) -> None:
        if not self.failed:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self.failed = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _text_errors(stream: Any, errors: str | None) -> str | None:
    """Set a text stream's encoding error handler; returns the old one (None: not a
    ``TextIOWrapper``, left as it is)."""
    old = getattr(stream, "errors", None)
    try:
        if errors is not None and old is not None and old != errors:
            stream.reconfigure(errors=errors)
    except (AttributeError, ValueError, OSError):
        return None
    return old


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    While it runs, text that the terminal's (or ``PYTHONIOENCODING``'s) encoding cannot
    hold is written ``\\xNN`` on both text streams (a column name in the summary ended the
    command with exit 1 after its output was written), and standard error drops what it
    cannot write (:class:`_QuietFailures`). Tables on standard output are UTF-8 whatever
    the stream's encoding (:class:`catembed.io.TableWriter`)."""
    import signal

    old = _catch_signals()
    stdout, stderr = sys.stdout, sys.stderr
    errors = (_text_errors(stdout, "backslashreplace"), _text_errors(stderr, "backslashreplace"))
    sys.stderr = _QuietFailures(stderr)
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except Terminated as exc:
        print(f"catembed: terminated ({signal.Signals(exc.signum).name})", file=sys.stderr)
        return 128 + exc.signum
    except KeyboardInterrupt:
        print("catembed: interrupted", file=sys.stderr)
        return 130
    finally:
        sys.stderr = stderr
        _text_errors(stdout, errors[0])
        _text_errors(stderr, errors[1])
        for signum, handler in old.items():
            signal.signal(signum, handler)


def _main(argv: list[str]) -> int:
    debug = "--debug" in argv  # accepted anywhere on the line
    argv = [a for a in argv if a != "--debug"]
    if argv[:1] == ["--version"]:
        print(f"catembed {__version__}")
        return 0
    old_show = warnings.showwarning
    warnings.showwarning = _showwarning
    try:
        parser = build_parser(plugins=_command_of(argv) not in BUILTIN_COMMANDS)
        args = parser.parse_args(argv)
        args.debug = debug
        return int(args.func(args) or 0)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return int(exc.code or 0) if isinstance(exc.code, int) else 2
    except KeyboardInterrupt:
        raise
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - never a bare traceback from the CLI
        return _report(exc, debug)
    finally:
        warnings.showwarning = old_show
        commands = sys.modules.get("catembed.cli._input")  # loaded if a command ran
        if commands is not None:
            commands.thaw_imports()  # what the command froze (freeze_imports)


def _report(exc: Exception, debug: bool) -> int:
    """The one line for an exception, and the exit status: 2 for input, 1 for a bug. A file
    name that is not UTF-8 is shown as ``\\xNN`` (:func:`~catembed._utils._pathtext.path_text`)."""
    if isinstance(exc, CatEmbedError):
        print(f"catembed: error: {path_text(exc)}", file=sys.stderr)
        return 2
    if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
        print(f"catembed: error: {path_text(exc.strerror or exc)}: {path_text(exc.filename)}",
              file=sys.stderr)
        return 2
    if isinstance(exc, MemoryError):
        print("catembed: error: out of memory; embed fewer rows or columns, stream with "
              "--chunksize, or leave out many-valued columns with --drop.", file=sys.stderr)
        return 2
    if isinstance(exc, OSError) and exc.errno is not None:
        print(f"catembed: error: {path_text(exc.strerror or exc)}"
              + (f": {path_text(exc.filename)}" if exc.filename else ""), file=sys.stderr)
        return 2
    if debug:
        raise exc
    print(f"catembed: internal error: {type(exc).__name__}: {path_text(exc)} "
          "(rerun with --debug for the traceback)", file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
