"""Render the plot gallery (``docs/gallery.md``) when the documentation is built.

An MkDocs hook (``hooks:`` in ``mkdocs.yml``): before the pages are read, every figure of
:data:`FIGURES` is drawn with :mod:`catembed.plot` on a data set bundled with catembed and
written as a PNG to a temporary folder, which MkDocs then copies to ``site/gallery/``. No
image is written into ``docs/`` or committed. ``python docs/hooks/gallery.py OUT`` writes the
same PNGs to the folder ``OUT``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

#: file name -> (data set, what to draw); docs/gallery.md shows them in this order
FIGURES: dict[str, tuple[str, str]] = {
    "soybean_small_values.png": ("soybean_small", "values"),
    "soybean_small_objects.png": ("soybean_small", "objects"),
    "soybean_small_profiles.png": ("soybean_small", "profiles"),
    "zoo_values.png": ("zoo", "values"),
    "zoo_objects.png": ("zoo", "objects"),
    "zoo_profiles.png": ("zoo", "profiles"),
}


def render(out: Path) -> list[str]:
    """Draw every figure of :data:`FIGURES` into ``out``; return the file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.cluster import KMeans

    from catembed import CDE, plot
    from catembed.datasets import load_dataset

    out.mkdir(parents=True, exist_ok=True)
    fitted: dict[str, tuple] = {}
    for name, (dataset, kind) in FIGURES.items():
        if dataset not in fitted:
            data = load_dataset(dataset, preset="complete")
            X, y = data.features, data.labels
            model = CDE(random_state=0).fit(X)
            # the papers' protocol: k-means with k = the number of classes, on the embedding
            k = len(set(y))
            clusters = KMeans(k, n_init=10, random_state=0).fit_predict(model.transform(X))
            fitted[dataset] = (model, X, y, clusters)
        model, X, y, clusters = fitted[dataset]
        title = f"{dataset}: CDE"
        if kind == "values":
            ax = plot.values(model, title=f"{title} value map")
        elif kind == "objects":
            ax = plot.objects(model, X, labels=y, title=f"{title} objects by class")
        else:
            ax = plot.profiles(X, clusters, top=3)
        ax.figure.savefig(out / name, dpi=90, bbox_inches="tight")
        plt.close(ax.figure)
    return list(FIGURES)


def on_files(files, config):  # MkDocs hook
    import warnings

    from mkdocs.structure.files import File

    out = Path(tempfile.mkdtemp(prefix="catembed-gallery-"))
    with warnings.catch_warnings():  # data-set warnings (single-valued columns) are expected
        warnings.simplefilter("ignore")
        names = render(out / "gallery")
    for name in names:
        files.append(File(f"gallery/{name}", src_dir=str(out), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    return files


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python docs/hooks/gallery.py OUT_FOLDER")
    print("\n".join(render(Path(sys.argv[1]))))
