"""Every Consensus member on awkward but valid small tables (issue 52 item 1).

The standing guard: on valid input a member either fits or refuses with the library's own
:class:`~catembed.CatEmbedError` (which Consensus turns into "member left out" with a
note); any other exception (an ``IndexError`` from an empty eigen-decomposition, NumPy's or
scikit-learn's errors) is a bug this sweep catches. Each member is fitted by the route
Consensus takes (one count, ``make_member``, ``fit_member``, ``member_embed``), under a
30-second limit (``CATEMBED_MAX_SECONDS``): a member estimated above it is refused, which
keeps the sweep fast and exercises the cost guard as well.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed.cluster import Consensus
from catembed.cluster.consensus._members import (
    ALL_MEMBERS,
    fit_member,
    make_member,
    member_embed,
)
from catembed.stats import ValueStatistics
from catembed.stats._encoding import factorize_frame


def _id_table(n: int, rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame({"id": [f"r{i}" for i in range(n)], "a": rng.choice(list("xyz"), n),
                         "b": rng.choice(list("pq"), n)})


def _tables() -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(0)

    def pick(values: str, n: int) -> np.ndarray:
        return rng.choice(list(values), n)

    many = 60
    return {
        # issue 52: a forgotten identifier column beside two small columns (on main MCA and
        # LCME raised IndexError on it: no axis from LAPACK's subset eigensolver)
        "id column": _id_table(500, rng),
        "constant columns": pd.DataFrame({"c": ["k"] * 40, "d": ["z"] * 40,
                                          "a": pick("xyz", 40), "b": pick("pq", 40)}),
        "every column constant": pd.DataFrame({"c": ["k"] * 20, "d": ["z"] * 20}),
        "one row per value": pd.DataFrame({"u": [f"u{i}" for i in range(30)],
                                           "v": [f"v{i}" for i in range(30)],
                                           "w": [f"w{(i * 7) % 30}" for i in range(30)]}),
        "two rows": pd.DataFrame({"a": ["x", "y"], "b": ["p", "q"], "c": ["s", "s"]}),
        "missing values": pd.DataFrame({
            "a": pd.Series(pick("xyz", 40), dtype=object).where(rng.random(40) > 0.3, None),
            "b": pd.Series(pick("pq", 40), dtype=object).where(rng.random(40) > 0.3, np.nan),
            "c": [None] * 39 + ["only"]}),
        "many values": pd.DataFrame({f"c{j}": rng.integers(0, 40, many).astype(str)
                                     for j in range(3)}),
        "one column": pd.DataFrame({"a": pick("xyzw", 30)}),
        "duplicated rows": pd.DataFrame({"a": ["x", "y", "z"] * 10, "b": ["p", "q", "r"] * 10}),
    }


TABLES = _tables()


def _fit(name: str, df: pd.DataFrame, k: int) -> np.ndarray:
    """Member ``name`` fitted and embedding the rows as inside ``Consensus.fit``."""
    names = [str(c) for c in df.columns]
    codes, cats = factorize_frame(df, names, "category")
    codes = np.ascontiguousarray(codes)
    stats = ValueStatistics.from_codes(codes, cats, names, factor=False)
    width = max(1, min(10, int(stats.n_values) - len(names)))
    est = make_member(name, width, np.random.RandomState(0), "category", k)
    fit_member(est, stats, codes, cats, names)
    return member_embed(est, codes, names, cats)


@pytest.mark.parametrize("table", sorted(TABLES))
@pytest.mark.parametrize("member", sorted(ALL_MEMBERS))
def test_member_fits_or_refuses(monkeypatch: pytest.MonkeyPatch, member: str,
                                table: str) -> None:
    # a member estimated above 30 s is refused (UNTIE on the id column: about 2 minutes)
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "30")
    df = TABLES[table]
    k = 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            Z = _fit(member, df, k)
        except CatEmbedError:
            return  # the library's refusal: Consensus leaves the member out with a note
    assert Z.shape[0] == len(df) and Z.shape[1] >= 1
    assert np.isfinite(Z).all()


def test_mca_member_on_identifier_column() -> None:
    """Issue 52 item 1: ``IndexError`` in MCA (an empty eigen-decomposition) on main."""
    df = _id_table(500, np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = Consensus(3, members=["mca"], random_state=0).fit(df)
    assert fitted.members_ == ["mca"] and fitted.failed_members_ == []
    assert len(np.unique(fitted.labels_)) == 3


def test_mca_keeps_the_leading_axes_of_a_tied_spectrum() -> None:
    """Issue 52 item 1 at its cause: LAPACK's subset eigensolver returned 8 of the 10 axes
    asked for on this table (none on 500 rows); MCA now gets the leading axes of the full
    decomposition, as many as asked."""
    from scipy.linalg import eigh

    from catembed import MCA
    from catembed._utils._eigh import top_eigh

    df = _id_table(150, np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mca = MCA(n_components=10, max_categories=None).fit(df)
    assert mca.n_components_ == 10
    full = eigh(np.diag(np.arange(30.0)) + np.kron(np.eye(3), np.ones((10, 10))))[0]
    got = top_eigh(np.diag(np.arange(30.0)) + np.kron(np.eye(3), np.ones((10, 10))), 5)[0]
    np.testing.assert_allclose(got, full[-5:], rtol=1e-12)
    assert np.all(np.diff(mca.eigenvalues_) <= 1e-12)  # largest first
