"""OCL (issue 39): the order update by hand, scikit-learn's checks, predict, refusals, and
(opt-in) the authors' MATLAB code run in Octave from the same start.

The reference (``DAJ0612/OCL_Source_Code``) has no licence we can ship: set
``CATEMBED_OCL_SOURCE`` to its ``OCL_Source_Code/OCL_alg`` folder (and have ``octave`` with
the ``statistics`` package) to run the comparison; without them it skips.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from catembed import CatEmbedError
from catembed.cluster import OCL
from catembed.cluster.ocl import ocl_order
from catembed.datasets import load_dataset
from catembed.evaluation.methods import get_method
from catembed.stats import factorize


def _expected_failures(estimator):
    return {"check_clustering": (
        "OCL reads every column as categorical values; the check's continuous blobs give "
        "every row its own values, so no categorical method can group them")}


@parametrize_with_checks([OCL(random_state=0)], expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    """issue 39: scikit-learn's common checks (categorical input tags)."""
    check(estimator)


def test_order_odd_by_hand():
    """P = (.5, .3, .2): E = (.35, .35, .65), scores (1.43, .86, .31); laid out from the
    middle: value 1, value 0, value 2, so ranks (2, 1, 3) and value v -> argsort[v]."""
    assert ocl_order(np.array([[0.5, 0.3, 0.2]]), np.array([1.0])).tolist() == [1, 0, 2]


def test_order_even_by_hand():
    """P = (.1, .2, .3, .4): E = (2/3, .4, .8/3, 1/3), scores (.15, .5, 1.125, 1.2): sorted
    3, 2, 1, 0; the middle (position 2) gets 3, position 1 gets 2, position 3 gets 1, and the
    last keeps 0: ranks (4, 3, 1, 2)."""
    assert ocl_order(np.array([[0.1, 0.2, 0.3, 0.4]]), np.array([1.0])).tolist() == [2, 3, 1, 0]


def test_order_weights_clusters_by_size():
    freq = np.array([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]])
    # cluster 0 alone: [1, 0, 2]; cluster 1 (mirror) ranks (3, 1, 2) -> argsort (1, 2, 0)
    assert ocl_order(freq, np.array([1.0, 0.0])).tolist() == [1, 0, 2]
    assert ocl_order(freq, np.array([0.0, 1.0])).tolist() == [1, 2, 0]


TOY = pd.DataFrame({"a": list("xxxyyyy"), "b": list("pppqqrq"), "c": list("uuvwwww")})


def test_toy_two_groups_and_distance_by_hand():
    m = OCL(2, init=[["x", "p", "u"], ["y", "q", "w"]]).fit(TOY)
    assert adjusted_rand_score(m.labels_, [0, 0, 0, 1, 1, 1, 1]) == 1.0
    # D(x, c) = 1/m sum_j sum_v |pos(x_j) - v| / (l_j - 1) P_cj(v), by loops
    row = ["y", "r", "u"]
    d = np.zeros(2)
    for c in range(2):
        for j, val in enumerate(row):
            cats = list(m.categories_[j])
            pos = m.value_orders_[j][cats.index(val)]
            f = m.cluster_frequencies_[j][c]
            d[c] += sum(abs(pos - v) / max(len(cats) - 1, 1) * f[v] for v in range(len(f)))
    d /= 3
    assert m.predict(pd.DataFrame([row], columns=list("abc")))[0] == int(np.argmin(d))
    assert m.predict(TOY).tolist() == m.labels_.tolist()


def test_unseen_value_adds_nothing():
    m = OCL(2, init=[["x", "p", "u"], ["y", "q", "w"]]).fit(TOY)
    new = pd.DataFrame({"a": ["zz", "zz"], "b": ["p", "q"], "c": ["u", "w"]})
    assert m.predict(new).tolist() == [m.labels_[0], m.labels_[3]]


def test_random_state_repeats_and_seeds_differ_on_zoo():
    ds = load_dataset("zoo")
    X = ds.frame.drop(columns=[ds.target, *ds.id_columns])
    a, b = OCL(7, random_state=3).fit(X), OCL(7, random_state=3).fit(X)
    assert np.array_equal(a.labels_, b.labels_)
    assert np.array_equal(a.predict(X), a.labels_)
    starts = {OCL(7, random_state=s).fit(X).start_modes_.tobytes() for s in range(4)}
    assert len(starts) > 1
    # distinct start rows
    assert len({r.tobytes() for r in a.start_modes_}) == 7


def test_pickle_round_trip():
    m = OCL(2, random_state=0).fit(TOY)
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.predict(TOY).tolist() == m.labels_.tolist()
    assert clone(m).get_params() == m.get_params()


def test_refusals():
    with pytest.warns(ConvergenceWarning, match="2 distinct row"):
        m = OCL(3, random_state=0).fit(pd.DataFrame({"a": list("xxyy")}))
    assert adjusted_rand_score(m.labels_, [0, 0, 1, 1]) == 1.0
    with pytest.raises(CatEmbedError, match="init='kmeans'"):
        OCL(2, init="kmeans").fit(TOY)
    with pytest.raises(CatEmbedError, match="shape"):
        OCL(2, init=[["x", "p", "u"]]).fit(TOY)
    with pytest.raises(CatEmbedError, match="not a value"):
        OCL(2, init=[["x", "p", "u"], ["nope", "q", "w"]]).fit(TOY)


def test_registered_for_evaluate():
    entry = get_method("ocl")
    labels = entry.resolve()(TOY, 2, random_state=0)
    assert len(labels) == len(TOY) and entry.random


def test_cost_check_refuses_up_front(monkeypatch):
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "1e-9")
    with pytest.raises(CatEmbedError, match="OCL on 7 rows .* would take about"):
        OCL(2, random_state=0).fit(TOY)


# ------------------------------------------------------------------ the reference, opt-in
SOURCE = os.environ.get("CATEMBED_OCL_SOURCE", "")

# our driver: the steps of the authors' OCL_main.m with the start rows and labels written
# out (initialization.m draws the same rows from the same seed)
_DRIVER = r"""
pkg load statistics;
args = argv(); addpath(args{5});
X = csvread(args{1}); seedfix = str2double(args{2});
Pm.Xlth = size(X,1); Pm.Xwd = size(X,2); Pm.Owd = Pm.Xwd; Pm.k = str2double(args{4});
NumVal = zeros(1,Pm.Xwd); Val_list = cell(1,Pm.Xwd);
for i=1:Pm.Xwd
  NumVal(i) = length(unique(X(:,i))); Val_list{i} = transpose(unique(X(:,i)));
end
rand('seed', seedfix);
modes(1,:) = X(randperm(Pm.Xlth,1),:); no = 1;
while no ~= Pm.k
  no = no + 1; modes(no,:) = X(randperm(Pm.Xlth,1),:);
  if sum(sum(modes == modes(no,:),2) == Pm.Xwd) ~= 1, no = no - 1; end
end
csvwrite([args{3} '_start.csv'], modes);
rand('seed', seedfix);
[Modes, Old] = initialization(X, Pm, NumVal);
P = cell(Pm.k,Pm.Xwd);
for i=1:Pm.k, for j=1:Pm.Xwd, P{i,j} = zeros(1,NumVal(j)); P{i,j}(Modes(i,j)) = 1; end, end
L = zeros(Pm.Xlth,1); go = 1; loops = 0;
X = Order_reset(Order_initial(L,P,NumVal,Pm,Val_list),Val_list,X);
while go==1 && loops<=50
  loops = loops + 1;
  [L,P] = INOCL(X,P,Pm.k,NumVal,L);
  if sum(Old-L)==0, go = 0;
  else, Old = L; X = Order_reset(Order_choose(L,P,NumVal,Pm,Val_list),Val_list,X); end
end
csvwrite([args{3} '_labels.csv'], [L; loops]);
"""


@pytest.mark.skipif(not (SOURCE and (Path(SOURCE) / "INOCL.m").is_file()
                         and shutil.which("octave")),
                    reason="needs the authors' OCL_alg at $CATEMBED_OCL_SOURCE and octave")
@pytest.mark.parametrize(("name", "k", "seed"), [("zoo", 7, 1), ("zoo", 7, 2),
                                                 ("soybean_small", 4, 1)])
def test_same_labels_as_the_reference(name, k, seed, tmp_path):
    ds = load_dataset(name)
    X = ds.frame.drop(columns=[ds.target, *ds.id_columns])
    codes = np.column_stack([factorize(X[c], "category")[0] for c in X.columns])
    codes = codes[:, [j for j in range(codes.shape[1]) if len(np.unique(codes[:, j])) > 1]]
    np.savetxt(tmp_path / "x.csv", codes + 1, fmt="%d", delimiter=",")
    (tmp_path / "drive.m").write_text(_DRIVER)
    subprocess.run(["octave", "--no-gui", "--quiet", str(tmp_path / "drive.m"),
                    str(tmp_path / "x.csv"), str(seed), str(tmp_path / "r"), str(k), SOURCE],
                   check=True, capture_output=True, timeout=600)
    start = np.loadtxt(tmp_path / "r_start.csv", delimiter=",", dtype=int).reshape(k, -1) - 1
    out = np.loadtxt(tmp_path / "r_labels.csv", dtype=int)
    m = OCL(k, init=start).fit(pd.DataFrame(codes))
    assert m.labels_.tolist() == (out[:-1] - 1).tolist()
    assert m.n_iter_ == out[-1]
