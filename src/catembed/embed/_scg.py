"""Scaled conjugate gradient (Moller 1993), a port of MATLAB's ``trainscg``.

The optimiser of MATLAB ``trainAutoencoder``, which the CDE++ paper used; both the stacked
sparse autoencoder (:mod:`catembed.embed._sparse_autoencoder`) and the joint network
(:mod:`catembed.embed._autoencoder`, ``optimizer="scg"``) minimise with it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["scaled_conjugate_gradient"]


def scaled_conjugate_gradient(
    fun: Any,
    x0: np.ndarray,
    *,
    max_iter: int = 1000,
    min_grad: float = 1e-6,
    sigma: float = 5e-5,
    lambda_: float = 5e-7,
) -> tuple[np.ndarray, list[float], int]:
    """Minimise ``fun`` by Moller's scaled conjugate gradient, as MATLAB ``trainscg`` runs it.

    M. F. Moller, "A scaled conjugate gradient algorithm for fast supervised learning",
    Neural Networks 6(4), 1993: a conjugate-gradient method that replaces the line search by a
    Levenberg-Marquardt-scaled finite-difference estimate of the curvature along the search
    direction. The steps and the constants ``sigma = 5e-5`` and ``lambda = 5e-7`` are those of
    MATLAB's ``trainscg`` (its defaults); the direction is restarted at steepest descent every
    ``len(x0)`` successful steps; training stops after ``max_iter`` epochs or when the gradient
    norm falls below ``min_grad`` (``trainscg``'s ``min_grad = 1e-6``).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, gradient)``.
    x0 : ndarray of shape (p,)
    max_iter, min_grad, sigma, lambda_ : see above.

    Returns
    -------
    x : ndarray of shape (p,)
    history : list of float
        The objective after every epoch.
    n_iter : int
        Epochs run.
    """
    x = np.array(x0, dtype=np.float64)
    n_params = x.size
    perf, g = fun(x)
    history = [float(perf)]
    d = -g
    nrmsqr = float(d @ d)
    success = True
    lambda_b, lambda_k = 0.0, float(lambda_)
    delta = 0.0
    epoch = 0
    for epoch in range(1, int(max_iter) + 1):
        if not nrmsqr > 0 or math.sqrt(float(g @ g)) < min_grad:
            epoch -= 1
            break
        if success:  # second-order information along d by a finite difference
            sigma_k = sigma / math.sqrt(nrmsqr)
            _, g_temp = fun(x + sigma_k * d)
            delta = float(d @ (g_temp - g)) / sigma_k
        delta += (lambda_k - lambda_b) * nrmsqr
        if delta <= 0:  # make the scaled Hessian positive definite
            lambda_b = 2.0 * (lambda_k - delta / nrmsqr)
            delta = -delta + lambda_k * nrmsqr
            lambda_k = lambda_b
        mu = -float(d @ g)
        alpha = mu / delta
        x_temp = x + alpha * d
        perf_temp, g_temp = fun(x_temp)
        dif = 2.0 * delta * (perf - perf_temp) / (mu * mu) if mu != 0 else -1.0
        if dif >= 0:  # a successful reduction
            g_old = g
            x, perf, g = x_temp, perf_temp, g_temp
            lambda_b = 0.0
            success = True
            if epoch % n_params == 0:
                d = -g
            else:
                beta = float(g @ g - g @ g_old) / mu
                d = -g + beta * d
            nrmsqr = float(d @ d)
            if dif >= 0.75:
                lambda_k *= 0.25
        else:
            lambda_b = lambda_k
            success = False
        if dif < 0.25:
            lambda_k += delta * (1.0 - dif) / nrmsqr
        history.append(float(perf))
        if not math.isfinite(lambda_k) or lambda_k > 1e100:
            break
    return x, history, epoch
