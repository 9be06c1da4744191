#!/usr/bin/env python3
"""The cost of calling predict from Python (issue target: <= 5 % over the C++ call) on 10^4 new
rows, measured in one run against quench's own C++ call on the same model and inputs.

Models: GP regressions (Gaussian kernel, the length scales and noise fixed; columns mean,
variance, predictive variance) with N = 2000 and N = 200 training rows (the small one makes the
C++ call short, so that a fixed Python cost shows), and a TAP classifier (width 1, N = 1000;
latent mean and variance, probability, label), all on the letter data's first rows
(examples/data/letter.csv, the class index as the regression target); new inputs: the next
10^4 rows.

C++: _quench.native_predict_seconds, the call Model.predict wraps (FittedModel::predict on
inputs already in an Eigen matrix). Python, interleaved with the C++ timing so that drifts hit
both:
  Model.predict(X), X Fortran-ordered (read in place);
  Model.predict(X), X C-ordered (NumPy's default: pybind11 copies it to column-major);
  the estimator's predict / predict_proba (input checks, the column split and class mapping).
Each is timed --repeats times; the overhead compares medians (the minimum is printed too), as
run-to-run noise on a shared machine is a few percent.

    /usr/bin/python3 benchmarks/python_predict_overhead.py   (PYTHONPATH=build/python)
"""
import argparse
import os
import time

import numpy as np

import quench
from quench import _quench

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def letter(rows):
    path = f"{ROOT}/examples/data/letter.csv"
    header = open(path).readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, max_rows=rows)
    inputs = [j for j, name in enumerate(header) if name not in ("y", "train")]
    return data[:, inputs], data[:, header.index("y")]


def seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=31)
    args = parser.parse_args()
    X, y = letter(2000 + args.rows)
    new_c = np.ascontiguousarray(X[2000:])
    new_f = np.asfortranarray(new_c)

    regressor = quench.GaussianProcessRegressor(noise=0.1, learn=False).fit(X[:2000], y[:2000])
    small = quench.GaussianProcessRegressor(noise=0.1, learn=False).fit(X[:200], y[:200])
    classifier = quench.GaussianProcessClassifier(learn=False, noise=0.0).fit(
        X[:1000], (y[:1000] <= 12).astype(int))
    cases = [("GP regression, N = 2000", regressor, regressor.predict),
             ("GP regression, N = 200", small, small.predict),
             ("TAP classifier, N = 1000", classifier, classifier.predict_proba)]
    print(f"predict on {args.rows} rows, {args.repeats} times each; overhead = median Python / "
          "median C++ - 1 (target <= 5 %)")
    for title, estimator, estimator_predict in cases:
        model = estimator.model_
        times = {"C++": [], "Model.predict (F order)": [], "Model.predict (C order)": [],
                 "estimator": []}
        for _ in range(args.repeats):
            times["C++"].append(_quench.native_predict_seconds(model, new_f))
            times["Model.predict (F order)"].append(seconds(lambda: model.predict(new_f)))
            times["Model.predict (C order)"].append(seconds(lambda: model.predict(new_c)))
            times["estimator"].append(seconds(lambda: estimator_predict(new_c)))
        native = np.median(times["C++"])
        print(f"{title}: C++ median {native * 1e3:.2f} ms (min {min(times['C++']) * 1e3:.2f})")
        for name, values in times.items():
            if name != "C++":
                median = np.median(values)
                print(f"  {name:<24} median {median * 1e3:8.2f} ms (min {min(values) * 1e3:8.2f})"
                      f"  overhead {100 * (median / native - 1):+5.1f} %")


if __name__ == "__main__":
    main()
