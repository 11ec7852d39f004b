"""OCL's fast assignment passes (issue 39, speed): each shortcut gives the same numbers as
the plain computation it replaces, so the partitions stay those of the reference."""

from __future__ import annotations

import numpy as np
import pytest

from catembed.cluster._ocl_passes import (
    _blocks,
    _counts,
    _Distances,
    _first_min,
    _move_counts,
    _prefix_plan,
    _rows_matrix,
    _Tally,
)
from catembed.cluster.ocl import _distance_table, _size_groups


def _table(rng, n, sizes, correlated=True):
    """Codes whose first columns repeat (shared prefixes), the rest independent."""
    first = rng.integers(0, sizes[0], n)
    cols = [first]
    for j, size in enumerate(sizes[1:], start=1):
        same = correlated and j < 3
        cols.append((first + rng.integers(0, 2, n)) % size if same else rng.integers(0, size, n))
    return np.column_stack(cols)


def test_first_min_is_argmin_with_ties():
    rng = np.random.default_rng(0)
    dist = rng.integers(0, 3, (6, 500)).astype(np.float64) / 7  # many ties
    dist[:, :5] = 0.5  # all equal: the first
    got = _first_min(dist)
    assert got.tolist() == np.argmin(dist, axis=0).tolist()
    assert got[:5].tolist() == [0] * 5
    assert _first_min(np.ones((1, 4))).tolist() == [0, 0, 0, 0]


def test_prefix_plan_groups_rows_with_the_same_first_values():
    rng = np.random.default_rng(1)
    codes = _table(rng, 4000, [3, 3, 3, 5, 5, 5])
    g, group = _prefix_plan(codes, np.array([3, 3, 3, 5, 5, 5]))
    assert 1 < g < codes.shape[1]
    keys = [tuple(r) for r in codes[:, :g]]
    # one group per distinct prefix, numbered in the order of the prefixes
    assert len(set(keys)) == group.max() + 1
    assert all(keys[i] < keys[j] for i, j in zip(np.argsort(group, kind="stable")[:-1],
                                                 np.argsort(group, kind="stable")[1:],
                                                 strict=True) if group[i] != group[j])
    # every row distinct: no groups
    assert _prefix_plan(np.arange(40)[:, None], np.array([40]))[0] == 1


@pytest.mark.parametrize("sizes", [[3, 3, 3, 5, 5, 5], [2, 7, 1, 4], [6]])
def test_distances_with_prefix_groups_are_the_plain_products(sizes):
    """The same floating-point numbers, to the last bit: the group's partial sum is the
    same additions in the same order."""
    rng = np.random.default_rng(2)
    sizes = np.array(sizes)
    codes = _table(rng, 3000, sizes)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    k = 5
    dist = _Distances(codes, sizes, k)
    cur = codes[dist.order] + offsets[:-1]
    dist.recode(cur)
    freq = rng.dirichlet(np.ones(int(offsets[-1])), size=k)
    table = _distance_table(freq, _size_groups(offsets))
    dist.update(table, np.arange(k))
    plain = np.asarray(_rows_matrix(cur, int(offsets[-1])) @ table.T) / len(sizes)
    np.testing.assert_array_equal(dist.values, plain.T)
    before = dist.values.copy()
    dist.update(table[[1, 3]] * 2, np.array([1, 3]))  # some clusters only
    np.testing.assert_array_equal(dist.values[[0, 2, 4]], before[[0, 2, 4]])
    np.testing.assert_array_equal(dist.values[[1, 3]], (np.asarray(
        _rows_matrix(cur, int(offsets[-1])) @ (2 * table[[1, 3]]).T) / len(sizes)).T)


def test_moved_counts_equal_a_recount():
    rng = np.random.default_rng(3)
    sizes = np.array([3, 5, 2, 4])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    cur = np.column_stack([rng.integers(0, s, 500) + o for s, o in zip(sizes, offsets[:-1],
                                                                       strict=True)])
    before = rng.integers(0, 4, 500)
    after = before.copy()
    after[rng.choice(500, 40, replace=False)] = rng.integers(0, 4, 40)
    counts = _counts(cur, before, int(offsets[-1]), 4)
    changed = _move_counts(counts, cur, before, after)
    np.testing.assert_array_equal(counts, _counts(cur, after, int(offsets[-1]), 4))
    moved = before != after
    assert changed.tolist() == sorted(set(before[moved]) | set(after[moved]))
    assert counts.sum() == 500 * len(sizes)


@pytest.mark.parametrize("n_moved", [0, 40, 300])  # 300 of 500: counted anew by runs
def test_tally_counts_equal_a_recount(n_moved):
    rng = np.random.default_rng(4)
    sizes = np.array([2, 3, 4, 1, 5, 2, 2, 3])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    cur = _table(rng, 500, sizes) + offsets[:-1]
    assert len(_blocks(sizes, 500)) > 1
    tally = _Tally(sizes, 4, 500)
    tally.recode(cur)
    before = rng.integers(0, 4, 500)
    counts, changed = tally.update(None, before)
    np.testing.assert_array_equal(counts, _counts(cur, before, int(offsets[-1]), 4))
    assert changed.tolist() == [0, 1, 2, 3]
    after = before.copy()
    rows = rng.choice(500, n_moved, replace=False)
    after[rows] = (before[rows] + 1) % 4
    counts, changed = tally.update(before, after)
    np.testing.assert_array_equal(counts, _counts(cur, after, int(offsets[-1]), 4))
    assert changed.tolist() == sorted(set(before[rows]) | set(after[rows]))
    assert counts.flags.c_contiguous  # updated in place on the next move


def test_blocks_cover_the_attributes_in_order():
    sizes = np.array([10, 10, 10, 10, 3, 300, 2])
    blocks = _blocks(sizes, 100_000)
    assert [j for a, z in blocks for j in range(a, z)] == list(range(len(sizes)))
    assert all(np.prod(sizes[a:z]) <= 4096 or z - a == 1 for a, z in blocks)
    assert _blocks(sizes, 100) == [(j, j + 1) for j in range(len(sizes))]  # few rows
