#!/usr/bin/env python3
"""quench.GaussianProcessClassifier() beside scikit-learn's GaussianProcessClassifier, both with
their defaults, from Python, on the project's multi-class splits (issue 37's speed and quality
target): fit time, test log loss (-mean log p(true class)) and accuracy, and the ratios.

quench's default: the joint multi-class model (nested EP, multinomial probit) with the Gaussian
kernel's width and amplitude learned by its evidence. scikit-learn's estimator is one-vs-rest
Laplace (logistic) and, with kernel=None, fixes 1.0 * RBF(1.0) (both bounds "fixed"): it
learns nothing. So two scikit-learn rows are printed: its default ("sklearn default") and the
same kernel made learnable, 1.0 * RBF(1.0) with its own L-BFGS-B on its evidence and no
restarts ("sklearn learned"). Ratios are quench's time over scikit-learn's (the target is
<= 1) and its log loss minus scikit-learn's (the target is <= 0).

Splits: the `train` column of examples/data/<name>.csv (iris_split, wine_split, glass_split:
seeded stratified 70/30; satellite_subset: 1001 Statlog training rows, 2000 test rows;
letter26_subset: 40 training rows per letter, 5000 test rows). Both libraries see the inputs
standardized by the training rows' mean and sample standard deviation. Times are one fit each
in this process (no repeats: the larger fits take minutes).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_multiclass_defaults_vs_sklearn.py \
        [iris_split wine_split glass_split satellite_subset letter26_subset]

(default: the first three, seconds each; satellite_subset takes ~4 min, letter26_subset much
longer.)
"""
import argparse
import csv
import os
import time
import warnings

import numpy as np
from sklearn.gaussian_process import GaussianProcessClassifier as SklearnGPC
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.metrics import accuracy_score, log_loss

import quench

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                    "data")


def load(name):
    """Standardized training and test inputs and the labels as text, by the `train` column."""
    with open(os.path.join(DATA, name + ".csv"), newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    inputs = [j for j, c in enumerate(header) if c not in ("y", "train")]
    X = np.array([[float(r[j]) for j in inputs] for r in body])
    y = np.array([r[header.index("y")] for r in body])
    train = np.array([r[header.index("train")] == "1" for r in body])
    mean, sd = X[train].mean(axis=0), X[train].std(axis=0, ddof=1)
    sd[sd == 0] = 1.0
    X = (X - mean) / sd
    return X[train], y[train], X[~train], y[~train]


def measure(make, X, y, X_test, y_test):
    """Fit time, test log loss and accuracy of one estimator."""
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's bound warnings; quench's are statuses
        clf = make().fit(X, y)
    seconds = time.perf_counter() - start
    p = clf.predict_proba(X_test)
    return (seconds, log_loss(y_test, p, labels=clf.classes_),
            accuracy_score(y_test, clf.classes_[p.argmax(axis=1)]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="*", default=["iris_split", "wine_split", "glass_split"])
    args = parser.parse_args()
    estimators = [
        ("quench", quench.GaussianProcessClassifier),
        ("sklearn default", SklearnGPC),
        ("sklearn learned", lambda: SklearnGPC(ConstantKernel(1.0) * RBF(1.0))),
    ]
    print(f"{'data':18} {'estimator':16} {'N':>5} {'C':>3} {'fit s':>9} {'log loss':>9} "
          f"{'accuracy':>8}  {'time ratio':>10} {'Δ log loss':>10} {'Δ accuracy':>10}")
    for name in args.data:
        X, y, X_test, y_test = load(name)
        results = {label: measure(make, X, y, X_test, y_test) for label, make in estimators}
        q = results["quench"]
        for label, (seconds, loss, accuracy) in results.items():
            ratio = "" if label == "quench" else (
                f"{q[0] / seconds:10.2f} {q[1] - loss:+10.4f} {q[2] - accuracy:+10.4f}")
            print(f"{name:18} {label:16} {len(y):5d} {len(set(y)):3d} {seconds:9.3f} "
                  f"{loss:9.4f} {accuracy:8.4f}  {ratio}", flush=True)


if __name__ == "__main__":
    main()
