"""Significance tests across data sets (method spec section 5).

* :func:`paired_t_test`: the paired two-tailed t-test of CDE (IJCAI 2017) Tables 1-2, one
  method against another over the data sets (scipy's ``ttest_rel``).
* :func:`friedman_test`: the Friedman test over several methods with their average ranks and
  the Nemenyi and Bonferroni-Dunn critical differences (Demšar, JMLR 2006), as in UNTIE
  Table IV.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._utils._params import check_fraction, check_int
from .._utils._validation import CatEmbedError

__all__ = ["FriedmanResult", "critical_difference", "friedman_test", "paired_t_test"]


def paired_t_test(a: Any, b: Any) -> float:
    """Two-tailed p-value of the paired t-test of ``a`` against ``b``.

    ``a`` and ``b`` are one score per data set (pairs with a NaN are left out). NaN when
    fewer than two pairs remain or every difference is equal.
    """
    x, y = _scores(a, "a"), _scores(b, "b")
    if x.shape != y.shape or x.ndim != 1:
        raise CatEmbedError(f"paired samples must be 1-D and of one length; got {x.shape} and "
                            f"{y.shape}.")
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    d = x - y
    if len(d) < 2 or np.allclose(d, d[0]):
        return float("nan")
    return float(stats.ttest_rel(x, y).pvalue)


def _scores(values: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise CatEmbedError(f"{name} must hold one score (a number) per data set; {exc}."
                            ) from None


def critical_difference(n_methods: int, n_datasets: int, alpha: float = 0.05,
                        test: str = "nemenyi") -> float:
    """Critical difference of average ranks (Demšar 2006, section 3.2.2).

    ``CD = q_alpha * sqrt(k (k + 1) / (6 N))`` with ``q_alpha`` the studentized range
    quantile over ``sqrt(2)`` (Nemenyi, all pairs) or the two-tailed normal quantile at
    ``alpha / (k - 1)`` (Bonferroni-Dunn, each method against one control).
    """
    k, n = check_int("n_methods", n_methods), check_int("n_datasets", n_datasets)
    if k < 2:
        raise CatEmbedError("a critical difference needs at least 2 methods and 1 data set.")
    check_fraction("alpha", alpha)  # 0 gave an infinite difference, 1.5 or NaN a NaN one
    if test == "nemenyi":
        q = stats.studentized_range.ppf(1.0 - alpha, k, 1e6) / np.sqrt(2.0)
    elif test == "bonferroni-dunn":
        q = stats.norm.ppf(1.0 - alpha / (2.0 * (k - 1)))
    else:
        raise CatEmbedError(f"test must be 'nemenyi' or 'bonferroni-dunn'; got {test!r}.")
    return float(q * np.sqrt(k * (k + 1) / (6.0 * n)))


@dataclass
class FriedmanResult:
    """Friedman test over methods (columns) and data sets (rows)."""

    average_ranks: pd.Series
    statistic: float
    p_value: float
    iman_davenport: float
    iman_davenport_p: float
    cd_nemenyi: float
    cd_bonferroni_dunn: float
    n_datasets: int
    alpha: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "average_ranks": {str(k): float(v) for k, v in self.average_ranks.items()},
            "chi2": self.statistic, "p_value": self.p_value,
            "iman_davenport_F": self.iman_davenport, "iman_davenport_p": self.iman_davenport_p,
            "cd_nemenyi": self.cd_nemenyi, "cd_bonferroni_dunn": self.cd_bonferroni_dunn,
            "n_datasets": self.n_datasets, "alpha": self.alpha,
        }


def friedman_test(scores: pd.DataFrame | Any, alpha: float = 0.05) -> FriedmanResult:
    """Friedman test on a data sets x methods score table (higher is better).

    Rows with a missing (or infinite) score are left out. Ranks are 1 for the best method of
    a data set, ties share the average rank. Reports Friedman's chi-square and p-value, the
    Iman-Davenport F and its p-value, and the Nemenyi and Bonferroni-Dunn critical
    differences at ``alpha``.
    """
    try:
        df = pd.DataFrame(scores).astype(float)
    except (TypeError, ValueError) as exc:
        raise CatEmbedError(f"scores must be a data sets x methods table of numbers; {exc}."
                            ) from None
    if df.columns.duplicated().any():  # their ranks merged into one in to_dict
        dup = ", ".join(map(str, df.columns[df.columns.duplicated()].unique()))
        raise CatEmbedError(f"scores name a method more than once: {dup}; rename them.")
    df = df[np.isfinite(df.to_numpy()).all(axis=1)]  # as paired_t_test: inf is no score
    critical_difference(max(df.shape[1], 2), 1, alpha)  # refuses alpha before any work
    n, k = df.shape
    if k < 2 or n < 2:
        raise CatEmbedError("the Friedman test needs at least 2 methods and 2 data sets with "
                            "every score present.")
    ranks = df.rank(axis=1, ascending=False, method="average")
    avg = ranks.mean(axis=0)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(avg.to_numpy() ** 2) - k * (k + 1) ** 2 / 4.0)
    # tie correction as in scipy's friedmanchisquare
    ties = 0.0
    for row in ranks.to_numpy():
        _, t = np.unique(row, return_counts=True)
        ties += float(np.sum(t ** 3 - t))
    c = 1.0 - ties / (n * (k ** 3 - k))
    chi2 = chi2 / c if c > 0 else float("nan")
    p = float(stats.chi2.sf(chi2, k - 1))
    denom = n * (k - 1) - chi2
    f = (n - 1) * chi2 / denom if denom > 0 else float("inf")
    fp = float(stats.f.sf(f, k - 1, (k - 1) * (n - 1))) if np.isfinite(f) else 0.0
    return FriedmanResult(
        average_ranks=avg, statistic=float(chi2), p_value=p, iman_davenport=float(f),
        iman_davenport_p=fp,
        cd_nemenyi=critical_difference(k, n, alpha, "nemenyi"),
        cd_bonferroni_dunn=critical_difference(k, n, alpha, "bonferroni-dunn"),
        n_datasets=n, alpha=alpha,
    )
