"""CDE before/after issue 22 item 3 on the bundled sets: same embedding? same F-scores?

Answer used in: docs/benchmarks.md, "CDE's fit as values grow (issue 22)" (the new path is CDE's
fit).

For seeds 0-9 on soybean_small, zoo and lenses: CDE fitted with the old path
(``CDE._legacy_fit``) and the new one; whether the value-cluster indicator matrices are equal
and the embeddings equal up to the sign of each component; and the CDE paper's protocol,
the F-score of one MATLAB-style k-means run (seed s, as many clusters as classes) on the
embedding, mean over the ten seeds, before and after.

Usage: ``python studies/cde_values_equality.py``
"""

from __future__ import annotations

import warnings

import numpy as np

from catembed import CDE, CatEmbedWarning
from catembed.datasets import load_dataset
from catembed.embed.cde import matlab_kmeans
from catembed.metrics import f_score


def main() -> None:
    warnings.simplefilter("ignore", CatEmbedWarning)
    for name in ("soybean_small", "zoo", "lenses"):
        ds = load_dataset(name)
        X, y = ds.frame[ds.categorical_columns], ds.frame[ds.target].to_numpy()
        n_classes = len(np.unique(y))
        same_clusters = same_embedding = 0
        f_old, f_new = [], []
        for seed in range(10):
            new = CDE(random_state=seed).fit(X)
            old = CDE(random_state=seed)
            old._legacy_fit = True
            old.fit(X)
            z_new, z_old = new.transform(X), old.transform(X)
            if np.array_equal(new._indicator, old._indicator):
                same_clusters += 1
                err = np.minimum(abs(z_new - z_old).max(0), abs(z_new + z_old).max(0)).max()
                same_embedding += bool(err <= 1e-8)
            f_old.append(f_score(y, matlab_kmeans(z_old, n_classes, random_state=seed)))
            f_new.append(f_score(y, matlab_kmeans(z_new, n_classes, random_state=seed)))
        print(f"{name}: l = {new.stats_.n_values}; same value clusters {same_clusters}/10, "
              f"same embedding (up to sign) {same_embedding}/10; F-score mean (sd) over 10 "
              f"seeds: old {np.mean(f_old):.3f} ({np.std(f_old):.3f}), "
              f"new {np.mean(f_new):.3f} ({np.std(f_new):.3f})")


if __name__ == "__main__":
    main()
