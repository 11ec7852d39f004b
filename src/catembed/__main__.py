"""``python -m catembed`` and the ``catembed`` console script.

This module imports nothing but :mod:`sys` before it is inside a ``try``, so that Ctrl-C at
any moment of start-up (while the rest of the command line is imported) prints one line and
exits with status 130 instead of a traceback.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command line (:func:`catembed.cli.main`); returns the exit status."""
    try:
        from .cli import main as cli_main
    except KeyboardInterrupt:
        print("catembed: interrupted", file=sys.stderr)
        return 130
    return cli_main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
