"""The deep clusterers with library defaults on the whole Adult table (issue 40 item 4: "every
deep clusterer with default parameters fits Adult in < 60 s of CPU").

Adult here is the shared data set's 48,842 rows (train + test), its 14 columns (6 numeric, 8
categorical, missing values as they are), the class and the split column left out;
``n_clusters=2``, every other parameter the class's default (``ThesisClusterer``'s defaults
are the thesis' settings, exempt from the line: its time is reported). One method per process;
run each under ``/usr/bin/time -v`` for the whole process' CPU and peak memory. Prints one JSON
line: the fit's wall and CPU seconds, the process' CPU seconds, the peak RSS and the load.

    for m in ae idec attention thesis; do
        CATEMBED_SHARED=../shared PYTHONPATH=src /usr/bin/time -v \\
            python benchmarks/bench_deep_adult.py $m; done
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

METHODS = {"ae": "AutoencoderKMeans", "idec": "IDEC", "attention": "AttentionClusterer",
           "thesis": "ThesisClusterer"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("method", choices=sorted(METHODS))
    args = ap.parse_args()
    t0 = time.perf_counter()
    import catembed.deep as deep
    from catembed.datasets import load_dataset

    shared = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    frame = load_dataset(shared / "datasets" / "adult").frame
    X = frame.drop(columns=["income", "split"])
    load = os.getloadavg()[0]
    t1, c1 = time.perf_counter(), time.process_time()
    getattr(deep, METHODS[args.method])(n_clusters=2).fit(X)
    t2, c2 = time.perf_counter(), time.process_time()
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"method": args.method, "rows": len(X), "columns": X.shape[1],
                      "fit_wall_s": round(t2 - t1, 2), "fit_cpu_s": round(c2 - c1, 2),
                      "process_cpu_s": round(ru.ru_utime + ru.ru_stime, 2),
                      "process_wall_s": round(t2 - t0, 2), "peak_mib": ru.ru_maxrss // 1024,
                      "load_before": round(load, 2),
                      "load_after": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
