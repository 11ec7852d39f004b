"""Classification on an embedding: repeated stratified splits, accuracy and macro-F1.

The supervised protocol of CDE++ (Dong, Jian, Zuo, Entropy 2020, Sec. 4.1.3 and Table 5:
SVM accuracy, 75% of the objects for training and 25% for testing, repeated) and of UNTIE
(Zhu, Cao, Yin, Table V: KNN, SVM, RF and LR, F-score, 90/10 splits repeated 20 times).
The embedding is unsupervised, so by default it is learned once from all objects without
their labels, as both papers did (``fit_on="all"``); ``fit_on="train"`` refits it on each
training split and embeds the test objects with it (unseen values embed as zeros).

Classifiers (scikit-learn, defaults unless said):

* ``"svm"``: ``SVC(kernel="linear")``, one-vs-one, as MATLAB's ``fitcecoc`` (the CDE++
  authors' environment) trains by default; ``"svm-rbf"``: ``SVC()`` (RBF kernel);
* ``"knn"``: ``KNeighborsClassifier()`` (5 neighbours);
* ``"rf"``: ``RandomForestClassifier()`` (100 trees, seeded per split);
* ``"lr"``: ``LogisticRegression(max_iter=1000)``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
from sklearn.utils import check_random_state

from .._utils._params import check_fraction, check_int, check_option, check_random_state_param
from .._utils._validation import CatEmbedError, CatEmbedWarning, user_stacklevel
from ..stats._numeric import finite_matrix

__all__ = [
    "CLASSIFIERS",
    "PROTOCOLS",
    "ClassificationResult",
    "classify",
    "classify_embedding",
    "format_results",
    "make_classifier",
    "results_table",
    "run_classification",
]

CLASSIFIERS = ("svm", "svm-rbf", "knn", "rf", "lr")

#: the papers' split protocols: test fraction and number of repeated splits
PROTOCOLS: dict[str, dict[str, Any]] = {
    "cdepp": {"test_size": 0.25, "n_repeats": 10},
    "untie": {"test_size": 0.10, "n_repeats": 20},
}


def make_classifier(name: str, random_state: Any = None, **params: Any) -> BaseEstimator:
    """A fresh classifier by name (see the module docstring); ``params`` override defaults."""
    if name == "svm":
        return SVC(**{"kernel": "linear", **params})
    if name == "svm-rbf":
        return SVC(**params)
    if name == "knn":
        return KNeighborsClassifier(**params)
    if name == "rf":
        return RandomForestClassifier(**{"random_state": random_state, **params})
    if name == "lr":
        return LogisticRegression(**{"max_iter": 1000, **params})
    raise CatEmbedError(f"unknown classifier {name!r}; choose from {', '.join(CLASSIFIERS)}.")


@dataclass
class ClassificationResult:
    """Scores of one classifier over the repeated splits.

    Attributes
    ----------
    classifier : str
    accuracy, f1_macro : ndarray of shape (n_repeats,)
        Test accuracy and macro-F1 (over the classes of each test split and its
        predictions) of every split.
    test_size : float
    stratified : bool
        False when some class was too small to stratify on.
    """

    classifier: str
    accuracy: np.ndarray
    f1_macro: np.ndarray
    test_size: float
    stratified: bool = True

    def summary(self) -> dict[str, Any]:
        """Means and standard deviations, as plain JSON-able numbers."""
        return {
            "classifier": self.classifier,
            "accuracy_mean": float(np.mean(self.accuracy)),
            "accuracy_std": float(np.std(self.accuracy)),
            "f1_macro_mean": float(np.mean(self.f1_macro)),
            "f1_macro_std": float(np.std(self.f1_macro)),
            "n_splits": len(self.accuracy),
            "test_size": self.test_size,
            "stratified": self.stratified,
        }


def _splitter(y: np.ndarray, test_size: float, n_repeats: int, seed: int):
    classes, counts = np.unique(y, return_counts=True)
    n_test = int(np.ceil(test_size * len(y))) if test_size < 1 else int(test_size)
    if counts.min() >= 2 and n_test >= len(classes) and len(y) - n_test >= len(classes):
        return StratifiedShuffleSplit(n_repeats, test_size=test_size, random_state=seed), True
    warnings.warn(
        f"cannot stratify the splits ({int((counts < 2).sum())} class(es) with a single "
        f"object, {len(classes)} classes, {n_test} test objects); using plain random splits.",
        CatEmbedWarning,
        stacklevel=user_stacklevel(),
    )
    return ShuffleSplit(n_repeats, test_size=test_size, random_state=seed), False


def _min_objects(n_classes: int, test_size: float) -> int:
    """The fewest objects whose stratified split has ``n_classes`` objects in each part."""
    n = max(2 * n_classes, int((n_classes - 1) / test_size))
    while min(int(np.ceil(test_size * n)), n - int(np.ceil(test_size * n))) < n_classes:
        n += 1
    return n


def _check_protocol(y: Any, n: int, test_size: float, n_repeats: int) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != n:
        raise CatEmbedError(f"y must hold one label per object ({n}); got shape {y.shape}.")
    if pd.isna(pd.Series(y)).any():
        raise CatEmbedError("y has missing labels; drop those objects first.")
    if len(np.unique(y.astype(str))) < 2:
        raise CatEmbedError("y has a single class; classification needs at least two.")
    check_fraction("test_size", test_size)
    check_int("n_repeats", n_repeats)
    ys = y.astype(str)
    classes, counts = np.unique(ys, return_counts=True)
    n_test = int(np.ceil(test_size * n))
    n_train = n - n_test
    stratifiable = counts.min() >= 2 and min(n_test, n_train) >= len(classes)
    if not stratifiable and (n_test < 1 or n_train <= counts.max()):
        # a random split could leave a single class to train on (issue 21 item 7)
        raise CatEmbedError(
            f"too few objects to classify: {n} objects in {len(classes)} classes (the "
            f"smallest with {int(counts.min())}); test_size={test_size!r} trains on {n_train} "
            f"and tests on {n_test}. A stratified split needs at least 2 objects per class "
            f"and at least {len(classes)} objects in each part (here at least "
            f"{_min_objects(len(classes), test_size)} objects); add objects or merge small "
            "classes."
        )
    return ys


def classify_embedding(
    Z: Any,
    y: Any,
    *,
    classifiers: Sequence[str] = ("svm",),
    test_size: float = 0.25,
    n_repeats: int = 10,
    random_state: Any = None,
    classifier_params: dict[str, dict[str, Any]] | None = None,
) -> dict[str, ClassificationResult]:
    """Train and test classifiers on a fixed embedding over repeated stratified splits.

    CDE++ Sec. 4.1.3 (75/25 splits, accuracy) and UNTIE Table V (90/10 x 20, F-score).
    Every classifier sees the same splits.

    Parameters
    ----------
    Z : array-like of shape (n_samples, n_components)
        The embedded objects.
    y : array-like of shape (n_samples,)
        Class labels.
    classifiers : sequence of str, default=("svm",)
        Names from :data:`CLASSIFIERS`.
    test_size : float, default=0.25
    n_repeats : int, default=10
    random_state : int, RandomState instance or None
        Decides the splits (and the random forests' seeds).
    classifier_params : dict, optional
        ``{name: {param: value}}`` overriding a classifier's defaults.

    Returns
    -------
    dict
        ``{classifier: ClassificationResult}``.
    """
    Z = finite_matrix(Z, "Z")
    if Z.ndim != 2:
        raise CatEmbedError(f"Z must be a 2-D embedding; got shape {Z.shape}.")
    ys = _check_protocol(y, Z.shape[0], test_size, n_repeats)
    return _run(
        lambda train, test: (Z[train], Z[test]), ys, classifiers, test_size, n_repeats,
        random_state, classifier_params,
    )


def classify(
    embedder: Any,
    X: Any,
    y: Any,
    *,
    classifiers: Sequence[str] = ("svm",),
    test_size: float = 0.25,
    n_repeats: int = 10,
    random_state: Any = None,
    fit_on: str = "all",
    classifier_params: dict[str, dict[str, Any]] | None = None,
) -> dict[str, ClassificationResult]:
    """Embed ``X`` with ``embedder`` and classify the embedding (see :func:`classify_embedding`).

    ``fit_on="all"`` (the papers' protocol) fits the embedder once on all of ``X``, without
    the labels; ``fit_on="train"`` clones and fits it on each training split and transforms
    the test split with ``handle_unknown="ignore"``.
    """
    check_option("fit_on", fit_on, ("all", "train"))
    if fit_on == "all":
        Z = clone(embedder).fit_transform(X)
        return classify_embedding(
            Z, y, classifiers=classifiers, test_size=test_size, n_repeats=n_repeats,
            random_state=random_state, classifier_params=classifier_params,
        )
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
    ys = _check_protocol(y, len(frame), test_size, n_repeats)

    def embed(train, test):
        est = clone(embedder)
        if "handle_unknown" in est.get_params():
            est.set_params(handle_unknown="ignore")
        Ztr = est.fit_transform(frame.iloc[train])
        return Ztr, est.transform(frame.iloc[test])

    return _run(embed, ys, classifiers, test_size, n_repeats, random_state, classifier_params)


def _run(embed, ys, classifiers, test_size, n_repeats, random_state, classifier_params):
    # one name is one classifier ("svm" was read letter by letter: "unknown classifier 's'")
    names = [classifiers] if isinstance(classifiers, str) else list(classifiers)
    if not names:
        raise CatEmbedError("classifiers is empty; name at least one of " + ", ".join(CLASSIFIERS))
    for name in names:
        make_classifier(name)  # validates the name
    params = classifier_params or {}
    for name in names:
        try:
            make_classifier(name, **params.get(name, {}))
        except TypeError as exc:  # a keyword the classifier does not take
            raise CatEmbedError(f"classifier_params[{name!r}]: {exc}.") from None
    check_random_state_param(random_state)  # NumPy's error named no parameter
    rs = check_random_state(random_state)
    split_seed = int(rs.randint(np.iinfo(np.int32).max))
    splitter, stratified = _splitter(ys, test_size, int(n_repeats), split_seed)
    acc = {n: [] for n in names}
    f1 = {n: [] for n in names}
    for train, test in splitter.split(np.zeros(len(ys)), ys):
        Ztr, Zte = embed(train, test)
        clf_seed = int(rs.randint(np.iinfo(np.int32).max))
        for name in names:
            clf = make_classifier(name, random_state=clf_seed, **params.get(name, {}))
            pred = clf.fit(Ztr, ys[train]).predict(Zte)
            acc[name].append(accuracy_score(ys[test], pred))
            f1[name].append(f1_score(ys[test], pred, average="macro", zero_division=0))
    return {
        n: ClassificationResult(n, np.asarray(acc[n]), np.asarray(f1[n]), float(test_size),
                                stratified)
        for n in names
    }


def results_table(results: dict[str, ClassificationResult]) -> pd.DataFrame:
    """One row per classifier: mean and standard deviation of accuracy and macro-F1."""
    return pd.DataFrame([r.summary() for r in results.values()]).set_index("classifier")


# --------------------------------------------------------------------------- protocol task
def run_classification(
    X: pd.DataFrame,
    y: Any,
    methods: Sequence[Any],
    *,
    runs: int = 1,
    seed: int = 0,
    classifier: str = "svm",
    test_size: float = 0.25,
    n_repeats: int = 10,
    fit_on: str = "all",
    refit: str = "auto",
    n_jobs: int | None = None,
    **_ignored: Any,
) -> list:
    """The ``"classify"`` task of :data:`catembed.evaluation.protocol.TASKS`.

    For each method (a registered embedding method, a name or a
    :class:`~catembed.evaluation.protocol.MethodSpec`) and each of ``runs`` seeds ``seed,
    seed + 1, ...``: the embedding (refit with that seed when the method is random, fitted
    once otherwise), then ``n_repeats`` stratified splits seeded by the run's seed, scored by
    :func:`classify_embedding`. Each split is one entry of the result's ``runs`` with keys
    ``acc`` (accuracy) and ``f_score`` (macro-F1; ``nmi``, ``ari`` are NaN), so the mean is
    over ``runs x n_repeats`` validations, as in CDE++ Sec. 4.1.3 (10 embeddings x 10
    splits). The classifier is the spec's ``classifier`` or, when it names one, its
    ``clusterer``, else ``classifier``.
    Options of the clustering task (``init``, ``n_clusters``) are accepted and ignored.
    """
    from .methods import MethodUnavailable, get_method
    from .protocol import MethodResult, MethodSpec, _embed

    check_option("fit_on", fit_on, ("all", "train"))
    if fit_on == "train":
        raise CatEmbedError("the classify task runs fit_on='all' (the papers' protocol); use "
                            "catembed.evaluation.classify.classify for per-split fitting.")
    ys = _check_protocol(y, len(X), test_size, n_repeats)
    seeds = [int(seed) + r for r in range(int(runs))]
    results = []
    for m in methods:
        spec = m if isinstance(m, MethodSpec) else MethodSpec(str(m))
        clf = getattr(spec, "classifier", None) or (
            spec.clusterer if spec.clusterer in CLASSIFIERS else classifier)
        res = MethodResult(spec.method, spec.name, clf)
        try:
            entry = get_method(spec.method)
            entry.resolve()
            make_classifier(clf)
            if entry.kind != "embedding":
                raise CatEmbedError(
                    f"method {spec.method!r} gives no embedding ({entry.kind}); the classify "
                    "task needs one.")
            refit_each = entry.random if refit == "auto" else refit == "always"
            fixed = None
            fit_s, tr_s = [], []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", CatEmbedWarning)
                for s in seeds:
                    if fixed is None or refit_each:
                        Z, f, t = _embed(entry, spec.params, X, s)
                        fit_s.append(f)
                        tr_s.append(t)
                        fixed = Z
                    out = classify_embedding(
                        fixed, ys, classifiers=(clf,), test_size=test_size,
                        n_repeats=n_repeats, random_state=s,
                    )[clf]
                    res.runs += [
                        {"seed": s, "split": i, "acc": float(a), "f_score": float(f1),
                         "nmi": float("nan"), "ari": float("nan")}
                        for i, (a, f1) in enumerate(zip(out.accuracy, out.f1_macro,
                                                        strict=True))
                    ]
            res.n_fits = len(fit_s)
            res.fit_seconds = float(np.mean(fit_s))
            res.transform_seconds = float(np.mean(tr_s))
            res.n_dims = int(fixed.shape[1])
        except MethodUnavailable as exc:
            res.status, res.message, res.refused = "unavailable", str(exc), True
        except (CatEmbedError, ValueError, MemoryError, np.linalg.LinAlgError) as exc:
            res.failed(exc)
        results.append(res)
    return results


def format_results(results: list) -> str:
    """Plain-text table of :func:`run_classification` results (accuracy and macro-F1)."""
    head = f"{'method':<14} {'classifier':<10} {'accuracy':>15} {'macro-F1':>15} {'fit s':>8}"
    lines = [head, "-" * len(head)]
    for r in results:
        if r.status != "ok":
            lines.append(f"{r.label:<14} {r.clusterer:<10} {r.status}")
            continue
        cells = [f"{r.mean(m):.3f} +- {r.std(m):.3f}" for m in ("acc", "f_score")]
        lines.append(f"{r.label:<14} {r.clusterer:<10} " + " ".join(f"{c:>15}" for c in cells)
                     + f" {r.fit_seconds:>8.3f}")
    return "\n".join(lines)


def _register_task() -> None:
    from .protocol import TASKS

    TASKS.setdefault("classify", run_classification)


_register_task()
