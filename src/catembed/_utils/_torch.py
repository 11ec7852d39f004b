"""The PyTorch session helpers the autoencoders and the deep methods share.

:func:`require_torch` imports the optional dependency (``pip install -e ".[deep]"`` in a
source checkout; catembed is not on PyPI) or
says which extra to install; :func:`_device` checks a ``device`` parameter against what
PyTorch sees; :func:`_deterministic` runs a block with deterministic algorithms and a fixed
thread count, restoring both afterwards; :func:`float64_copy` is the float64 twin of a trained
network that the public outputs (``transform``, ``predict_proba``) are computed with. PyTorch is
imported only inside the functions.
"""

from __future__ import annotations

import copy
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
            'extra from your catembed checkout with: pip install -e ".[deep]" '
            '(or install PyTorch itself: pip install torch)'
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


def float64_copy(module: Any) -> Any:
    """A float64 copy of a trained network, in evaluation mode, on the CPU.

    Training runs in float32; the public outputs are computed with this copy. In float32 a
    row's output can change in its last bits with the number of rows it is computed with
    (a BLAS picks another kernel and summation order for one row than for a block, and
    another on another CPU), so ``transform(X)[i]`` differed from ``transform(X[i:i+1])`` by
    1.5e-7 on one machine (scikit-learn's ``check_methods_subset_invariance``). In float64
    the same reorderings move the result by about 1e-16: the outputs no longer depend on
    the batch, the thread count or the CPU beyond that. The weights are the trained float32
    weights, widened exactly."""
    return copy.deepcopy(module).cpu().double().eval()
