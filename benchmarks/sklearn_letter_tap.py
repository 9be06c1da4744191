#!/usr/bin/env python3
"""Whole-run comparison on the binary letter task: `quench run` with the `tap` and `ep` engines
(one run each) against scikit-learn's GaussianProcessClassifier (Laplace), same kernel, fixed
hyperparameters.

Data: the first N rows of examples/data/letter.csv for training and the next 2000 rows for
testing, classes 0-12 (t = +1) against 13-25; inputs standardized with the mean and sample
standard deviation (n - 1) of the training rows (quench's `standardize_inputs`). Kernel:
v0 exp(-1/2 |x - x'|^2 / l^2), v0 = 1, l^2 = sigma^2 d = 16 (quench: gaussian, width 1;
scikit-learn: ConstantKernel(1, fixed) * RBF(4, fixed), optimizer=None). Likelihoods differ:
quench's TAP uses the step likelihood of 001 (probit, noise 0), scikit-learn only offers the
logistic one (Laplace approximation); both predict sign(<h(x)>). The step likelihood makes
quench's predicted classes independent of v0; the logistic likelihood does not (at v0 = 1 it is
a weak likelihood and the Laplace fit underfits), so scikit-learn is also run at v0 = 100,
where sigma(h) with h ~ 10 x N(0, 1) is close to the step: the fairer accuracy comparison
(not the same hyperparameters).

    /usr/bin/python3 benchmarks/sklearn_letter_tap.py [--quench build/bin/quench] [--n 1000 2000]
        [--engines tap ep]

Wall times: quench = the whole `quench run` process (CSV parsing, Gram matrix, the fit, test
predictions, writing results), with the engine's own `fit` timing beside it; scikit-learn =
fit + predict in this process (data already in memory); ratio = quench time / scikit-learn
(v0 = 1) time (< 1: quench is faster), and ep/tap = the two engines' fit timings. Each is the
best of --repeats runs.
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

import numpy as np
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N_TEST = 2000

PIPELINE = """name: letter_tap_n{n}
seed: 1
data:
  file: {csv}
  target: y
  split: {{rule: column, column: train}}
  standardize_inputs: true
components:
  kernel: {{plugin: gaussian, width: 1.0, amplitude: 1.0, noise: 0.0}}
  likelihood: {{plugin: probit}}
engines:
  - {{name: {engine}, plugin: {engine}}}
"""


def load(n):
    data = np.genfromtxt(f"{ROOT}/examples/data/letter.csv", delimiter=",", skip_header=1)
    header = open(f"{ROOT}/examples/data/letter.csv").readline().strip().split(",")
    inputs = [j for j, name in enumerate(header) if name not in ("y", "train")]
    rows = data[: n + N_TEST]
    X = rows[:, inputs]
    y = (rows[:, header.index("y")] <= 12).astype(int)  # 1: classes 0-12
    return header, inputs, X, y


def run_quench(quench, engine, n, header, inputs, X, y, repeats):
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, f"letter_{n}.csv")
        names = [header[j] for j in inputs] + ["train", "y"]
        train = (np.arange(len(y)) < n).astype(int)
        table = np.column_stack([X, train, y])
        np.savetxt(csv, table, delimiter=",", header=",".join(names), comments="", fmt="%.10g")
        yaml = os.path.join(tmp, f"letter_{engine}.yaml")
        with open(yaml, "w") as f:
            f.write(PIPELINE.format(n=n, csv=csv, engine=engine))
        best, fit = float("inf"), None
        for r in range(repeats):
            out = os.path.join(tmp, f"out{r}")
            start = time.perf_counter()
            subprocess.run([quench, "run", yaml, "--out", out], check=True,
                           stdout=subprocess.DEVNULL)
            seconds = time.perf_counter() - start
            with open(os.path.join(out, "results.json")) as f:
                result = json.load(f)["runs"][0]
            if seconds < best:
                best, fit = seconds, result
        return best, fit


def run_sklearn(n, X, y, repeats, amplitude):
    Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
    mean, sd = Xtr.mean(0), Xtr.std(0, ddof=1)
    Xtr, Xte = (Xtr - mean) / sd, (Xte - mean) / sd
    kernel = ConstantKernel(amplitude, "fixed") * RBF(np.sqrt(X.shape[1]), "fixed")
    best, error = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        gpc = GaussianProcessClassifier(kernel, optimizer=None).fit(Xtr, ytr)
        predicted = gpc.predict(Xte)
        seconds = time.perf_counter() - start
        if seconds < best:
            best, error = seconds, float(np.mean(predicted != yte))
    return best, error


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quench", default=f"{ROOT}/build/bin/quench")
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--engines", nargs="+", default=["tap", "ep"], choices=["tap", "ep"])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print("quench: `quench run` (one engine), whole process; sklearn: GaussianProcessClassifier "
          "fit + predict; times in s (best of %d), err = test error on the next %d rows"
          % (args.repeats, N_TEST))
    print(f"{'N':>5} {'engine':>6} | {'quench run':>10} {'fit':>8} {'err':>7} | "
          f"{'sklearn v0=1':>12} {'err':>7} {'ratio':>6} | {'sklearn v0=100':>14} {'err':>7}")
    for n in args.n:
        header, inputs, X, y = load(n)
        s_seconds, s_error = run_sklearn(n, X, y, args.repeats, 1.0)
        h_seconds, h_error = run_sklearn(n, X, y, args.repeats, 100.0)
        fits = {}
        for engine in args.engines:
            q_seconds, q = run_quench(args.quench, engine, n, header, inputs, X, y, args.repeats)
            fits[engine] = q["timings"]["fit"]
            print(f"{n:5d} {engine:>6} | {q_seconds:10.2f} {fits[engine]:8.3f} "
                  f"{q['scalars']['test_error']:7.4f} | {s_seconds:12.2f} {s_error:7.4f} "
                  f"{q_seconds / s_seconds:6.2f} | {h_seconds:14.2f} {h_error:7.4f}", flush=True)
        if "tap" in fits and "ep" in fits:
            print(f"{n:5d} ep/tap fit time: {fits['ep'] / fits['tap']:.2f}", flush=True)


if __name__ == "__main__":
    main()
