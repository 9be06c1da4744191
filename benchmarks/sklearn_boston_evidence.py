#!/usr/bin/env python3
"""scikit-learn's marginal-likelihood optimum for the model of
examples/pipelines/boston_learned_hyperparameters.yaml, side by side with quench's.

Model: y = f(x) + noise, f ~ GP(0, v0 exp(-1/2 sum_l (x_l - x'_l)^2 / l_l^2)), noise variance
s2; all 506 rows, inputs and target standardized with the sample standard deviation (n - 1),
as quench's `standardize_inputs` / `standardize_target` do.

    /usr/bin/python3 benchmarks/sklearn_boston_evidence.py [RESULTS_JSON]

(Debian's python3-sklearn.) With RESULTS_JSON (a quench results.json of that pipeline), the
log marginal likelihood of quench's learned hyperparameters is also evaluated by
scikit-learn: an independent computation of the same number.
"""
import json
import sys
import time

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

ROOT = __file__.rsplit("/benchmarks/", 1)[0]


def load(ddof):
    data = np.genfromtxt(f"{ROOT}/examples/data/boston.csv", delimiter=",", names=True)
    names = data.dtype.names
    X = np.column_stack([data[n] for n in names if n != "y"]).astype(float)
    y = data["y"].astype(float)
    X = (X - X.mean(0)) / X.std(0, ddof=ddof)
    y = (y - y.mean()) / y.std(ddof=ddof)
    return X, y


def model(d):
    kernel = ConstantKernel(1.0, (1e-6, 1e6)) * RBF(np.ones(d), (1e-5, 1e5)) + WhiteKernel(
        0.1, (1e-10, 1e6))
    return kernel


def fit(X, y, restarts, seed):
    gp = GaussianProcessRegressor(model(X.shape[1]), alpha=1e-10, n_restarts_optimizer=restarts,
                                  random_state=seed)
    start = time.perf_counter()
    gp.fit(X, y)
    return gp, time.perf_counter() - start


def main():
    for ddof, label in ((1, "n - 1 (as quench)"), (0, "n (StandardScaler)")):
        X, y = load(ddof)
        gp0 = GaussianProcessRegressor(model(X.shape[1]), alpha=1e-10, optimizer=None).fit(X, y)
        print(f"standardized with {label}: log evidence at the start (l = 1, v0 = 1, s2 = 0.1)"
              f" {gp0.log_marginal_likelihood_value_:.4f}")
        for restarts in (0, 10):
            gp, seconds = fit(X, y, restarts, 0)
            k = gp.kernel_
            print(f"  scikit-learn, {restarts:2d} restarts: log evidence "
                  f"{gp.log_marginal_likelihood_value_:.4f} in {seconds:.2f} s; v0 = "
                  f"{k.k1.k1.constant_value:.4g}, s2 = {k.k2.noise_level:.4g}, l = "
                  + " ".join(f"{v:.3g}" for v in k.k1.k2.length_scale))
    if len(sys.argv) > 1:
        X, y = load(1)
        with open(sys.argv[1]) as f:
            run = json.load(f)["runs"][0]
        h = run["hyperparameters"]
        theta = np.log(np.concatenate(([h["kernel.amplitude"]], h["kernel.length_scales"],
                                       [h["likelihood.noise"]])))
        gp = GaussianProcessRegressor(model(X.shape[1]), alpha=0.0, optimizer=None).fit(X, y)
        sk = gp.log_marginal_likelihood(theta)
        q = run["learning"]["log_evidence"]
        print(f"quench's learned hyperparameters: log evidence {q:.10f} (quench), {sk:.10f} "
              f"(scikit-learn), relative difference {abs(sk - q) / abs(q):.2e}")


if __name__ == "__main__":
    main()
