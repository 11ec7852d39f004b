"""The k-modes protocol of the benches: Cao et al.'s (2009) initialisation as published."""

from __future__ import annotations

import numpy as np
import pandas as pd

from catembed.cluster import KModes, init_cao, kmodes_labels
from catembed.cluster._kmodes_core import _padded_tables
from catembed.similarity import CategoricalDistance

# rows (first-occurrence order of the distinct ones: 0, 2, 3, 4):
# column a counts x:3, y:2; column b counts u:2, v:2, w:1
SMALL = pd.DataFrame({"a": list("xxxyy"), "b": list("uuvvw")})


def _codes_tables(metric: str) -> tuple[np.ndarray, list[np.ndarray]]:
    cd = CategoricalDistance(metric=metric).fit(SMALL)
    return cd.encode(SMALL).astype(np.int64), _padded_tables(cd.tables_)


def test_cao_init_by_hand_with_simple_matching_for_every_metric():
    # Dens (Eq. 3) = sum of the row's value counts / (n m): rows 0, 2: 5/10, row 3: 4/10,
    # row 4: 3/10. First the densest (row 0); then argmax min_z d(x, z) Dens(x) with the
    # simple-matching d: row 2 1 * .5, row 3 2 * .4 = .8, row 4 2 * .3 -> row 3; then
    # row 2 min(1, 1) * .5 = .5 against row 4 min(2, 1) * .3 -> row 2.
    for metric in ("hamming", "rough", "dilca", "ahmad", "cos"):
        codes, ptabs = _codes_tables(metric)
        assert init_cao(codes, 3, ptabs).tolist() == [0, 3, 2], metric


def test_rough_tables_would_not_separate_the_initial_modes():
    # why the published simple-matching d matters: with the "rough" table a match costs
    # 1 - 1/cnt(v), so rows 2 and 3 (one shared value with row 0 or none) are almost equally
    # far from row 0 and the density alone would decide
    codes, ptabs = _codes_tables("rough")
    d = [sum(ptabs[j][codes[0, j], codes[i, j]] for j in range(2)) for i in (2, 3)]
    np.testing.assert_allclose(d, [1 + (1 - 1 / 3), 2.0])


def test_kmodes_labels_protocol_is_deterministic_and_equals_kmodes():
    X = pd.DataFrame({"a": list("aaabbbccc" * 3), "b": list("xxyyyzzzx" * 3),
                      "c": list("pqpqrsrsp" * 3)})
    for metric in ("hamming", "rough"):
        a = kmodes_labels(X, 3, random_state=0, metric=metric)
        b = kmodes_labels(X, 3, random_state=7, metric=metric)
        ref = KModes(n_clusters=3, metric=metric, init="cao",
                     categorical_features="all").fit(X).labels_
        assert a.tolist() == b.tolist() == ref.tolist()
