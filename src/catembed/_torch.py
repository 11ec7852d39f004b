"""The PyTorch session helpers the autoencoders and the deep methods share.

:func:`require_torch` imports the optional dependency (``pip install "catembed[deep]"``) or
says which extra to install; :func:`_device` checks a ``device`` parameter against what
PyTorch sees; :func:`_deterministic` runs a block with deterministic algorithms and a fixed
thread count, restoring both afterwards. PyTorch is imported only inside the functions.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any

from ._validation import CatEmbedError

__all__ = ["require_torch"]


def require_torch() -> Any:
    """Import and return :mod:`torch`, or raise a :class:`CatEmbedError` naming the extra."""
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise CatEmbedError(
            "the autoencoder needs PyTorch, which is not installed; install the optional "
            'extra with: pip install "catembed[deep]"'
        ) from exc
    return torch


def _device(torch: Any, device: Any) -> Any:
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError) as exc:
        raise CatEmbedError(
            f"device must be 'cpu' or 'cuda' (optionally 'cuda:N'); got {device!r}."
        ) from exc
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise CatEmbedError(
                f"device={device!r} was asked for, but PyTorch sees no CUDA GPU here "
                f"(torch {torch.__version__}); use device='cpu'."
            )
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise CatEmbedError(
                f"device={device!r}: only {torch.cuda.device_count()} CUDA device(s) present."
            )
    elif dev.type != "cpu":
        raise CatEmbedError(f"device must be 'cpu' or 'cuda'; got {device!r}.")
    return dev


@contextmanager
def _deterministic(torch: Any, n_threads: int | None, cuda: bool):
    """Deterministic algorithms and a fixed thread count, restored afterwards."""
    old_threads = torch.get_num_threads()
    old_det = torch.are_deterministic_algorithms_enabled()
    old_warn = torch.is_deterministic_algorithms_warn_only_enabled()
    if cuda:  # cuBLAS needs this for reproducible matrix products
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    try:
        if n_threads is not None:
            torch.set_num_threads(int(n_threads))
        torch.use_deterministic_algorithms(True, warn_only=True)
        yield
    finally:
        torch.set_num_threads(old_threads)
        torch.use_deterministic_algorithms(old_det, warn_only=old_warn)
