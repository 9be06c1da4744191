#!/usr/bin/env python3
"""Sparse ADATAP against exact ADATAP where exact still runs (issue 25's accuracy target):
diamonds, the seeded 5 000 training rows of examples/data/diamonds_subset5000.csv, ARD length
scales, amplitude and noise learned by the exact evidence; then, with those values fixed, the
ADATAP bootstrap at S/N = 1 on the exact prior and on the inducing-point prior (FITC, greedy
variance) for each M. Prints eps(S) (000 eq 53) and its relative difference, the median relative
difference of the bootstrap variance at the training inputs, the relative L2 difference of the
bootstrap mean, and the times.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/sparse_adatap_accuracy.py [M ...]

(default M: 250 500 1000). Targets at M = 1000: eps(S) within 1 %, variance within 10 %
(median), mean within 1 % (relative L2).
"""
import sys
import time

import numpy as np

import quench

ROOT = __file__.rsplit("/benchmarks/", 1)[0]
DATA = (f"data: {{file: {ROOT}/examples/data/diamonds_subset5000.csv, target: y, "
        "split: {rule: column, column: train}, standardize_inputs: true, "
        "standardize_target: true}\n")


def run(extra, kernel, noise, engine):
    start = time.perf_counter()
    (r,) = quench.run(f"name: accuracy\nseed: 2025\n{DATA}{extra}components:\n"
                      f"  kernel: {kernel}\n  likelihood: {{plugin: gaussian, noise: {noise!r}}}\n"
                      "  resampler: {plugin: poisson_bootstrap, ratio: 1.0}\n"
                      f"engines:\n  - {engine}\n")
    return r, time.perf_counter() - start


def main():
    counts = [int(a) for a in sys.argv[1:]] or [250, 500, 1000]
    (learned,) = quench.run(
        f"name: learn\nseed: 2025\n{DATA}components:\n"
        "  kernel: {plugin: gaussian, length_scales: [2, 2, 2, 2, 2, 2, 2, 2, 2], amplitude: 1.0}\n"
        "  likelihood: {plugin: gaussian, noise: 0.05}\n"
        "learn: {objective: evidence, parameters: [kernel.length_scales, kernel.amplitude, "
        "likelihood.noise]}\nengines:\n  - exact_gp_regression\n")
    values = learned["learning"]["learned"]
    scales = ", ".join(repr(float(v)) for v in values["kernel.length_scales"])
    kernel = (f"{{plugin: gaussian, length_scales: [{scales}], "
              f"amplitude: {float(values['kernel.amplitude'][0])!r}}}")
    noise = float(values["likelihood.noise"][0])
    print(f"learned (exact evidence, N = 5000): length scales [{scales}], amplitude "
          f"{float(values['kernel.amplitude'][0]):.4g}, noise {noise:.4g}")
    engine = "{name: adatap, plugin: adatap_bootstrap, density: false}"
    exact, t_exact = run("", kernel, noise, engine)
    e0 = exact["scalars"]["test_error_square"]
    m0 = np.asarray(exact["vectors"]["train_prediction_mean"])
    v0 = np.asarray(exact["vectors"]["train_prediction_variance"])
    print(f"{'prior':>22} {'eps(S)':>10} {'rel diff':>9} {'var med':>8} {'mean L2':>8} "
          f"{'time s':>7}")
    print(f"{'exact':>22} {e0:10.6f} {'':>9} {'':>8} {'':>8} {t_exact:7.1f}")
    for m in counts:
        sparse, t = run(f"inducing: {{count: {m}, method: greedy_variance, form: fitc}}\n",
                        kernel, noise, engine)
        e = sparse["scalars"]["test_error_square"]
        mean = np.asarray(sparse["vectors"]["train_prediction_mean"])
        var = np.asarray(sparse["vectors"]["train_prediction_variance"])
        print(f"{'fitc M = ' + str(m):>22} {e:10.6f} {(e - e0) / e0:+9.2%} "
              f"{np.median(np.abs(var - v0) / v0):8.2%} "
              f"{np.linalg.norm(mean - m0) / np.linalg.norm(m0):8.2%} {t:7.1f}")


if __name__ == "__main__":
    main()
