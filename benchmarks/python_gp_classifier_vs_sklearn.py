#!/usr/bin/env python3
"""quench.GaussianProcessClassifier(method="tap").fit against scikit-learn's
GaussianProcessClassifier on the binary letter task, both from Python, with fixed and with
learned hyperparameters, printed side by side: time, test error, log evidence.

Data: as benchmarks/sklearn_letter_tap.py (the first N rows of examples/data/letter.csv train,
the next 2000 test; classes 0-12 against 13-25). quench standardizes the inputs itself (its
default); scikit-learn gets the same standardized arrays.

Fixed: the same kernel v0 exp(-|x - x'|^2 / (2 l^2)), v0 = 1, l^2 = 16 (quench: width 1, noise 0,
learn=False; scikit-learn: ConstantKernel(1, "fixed") * RBF(4, "fixed"), optimizer=None).
Learned: each library's default way, from the same start: quench learns the width and the
latent noise by its TAP evidence (learn=True, width 1, noise 0.01: "learned"), or the width
alone for 001's noise-free model (noise=0: "width"); scikit-learn learns v0 and l by its
Laplace evidence (L-BFGS-B, no restarts, from v0 = 1, l = 4) in both rows.

The likelihoods differ (quench: the step / probit of 001; scikit-learn: the logistic, Laplace
approximation), so the log evidences are of different models: each is its own library's
approximation of log p(y | X, hyperparameters). Times: fit + predict on the test rows, in this
process, best of --repeats; ratio = scikit-learn / quench; evals: quench's objective
evaluations while learning.

    /usr/bin/python3 benchmarks/python_gp_classifier_vs_sklearn.py [--n 1000 2000]
    (PYTHONPATH=build/python, or quench installed)
"""
import argparse
import time

import numpy as np
from sklearn.gaussian_process import GaussianProcessClassifier as SklearnGPC
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

import quench
from sklearn_letter_tap import N_TEST, load


def best_of(repeats, fit_and_predict):
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fit_and_predict()
        seconds = time.perf_counter() - start
        if seconds < best:
            best, result = seconds, out
    return best, result


QUENCH = {"fixed": dict(width=1.0, noise=0.0, learn=False), "learned": dict(width=1.0, noise=0.01),
          "width": dict(width=1.0, noise=0.0)}


def quench_tap(Xtr, ytr, Xte, yte, hyper):
    params = QUENCH[hyper]
    c = quench.GaussianProcessClassifier(method="tap", **params).fit(Xtr, ytr)
    error = float(np.mean(c.predict(Xte) != yte))
    evaluations = f" evals={c.learning_['evaluations']}" if c.learning_ else ""
    return error, c.log_evidence_, f"sigma^2={c.width_:.3g} noise={c.noise_:.2g}{evaluations}"


def sklearn_laplace(Xtr, ytr, Xte, yte, hyper):
    learn = hyper != "fixed"
    mean, sd = Xtr.mean(0), Xtr.std(0, ddof=1)  # quench's standardize_inputs
    Xtr, Xte = (Xtr - mean) / sd, (Xte - mean) / sd
    bounds = (1e-5, 1e5) if learn else "fixed"
    kernel = ConstantKernel(1.0, bounds) * RBF(4.0, bounds)
    g = SklearnGPC(kernel, optimizer="fmin_l_bfgs_b" if learn else None).fit(Xtr, ytr)
    error = float(np.mean(g.predict(Xte) != yte))
    k = g.kernel_
    return error, g.log_marginal_likelihood_value_, f"v0={k.k1.constant_value:.3g} l={k.k2.length_scale:.3g}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print(f"fit + predict on {N_TEST} test rows, times in s (best of {args.repeats}); "
          "log evidence: quench TAP (step likelihood), scikit-learn Laplace (logistic)")
    print(f"{'N':>5} {'hyper':>7} | {'quench s':>8} {'err':>6} {'log Z':>9} {'learned':>33} | "
          f"{'sklearn s':>9} {'err':>6} {'log Z':>9} {'learned':>18} | {'ratio':>6}")
    for n in args.n:
        _, _, X, y = load(n)
        Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
        sklearn_learned = None
        for hyper in ("fixed", "learned", "width"):
            q_s, (q_err, q_lz, q_h) = best_of(args.repeats, lambda: quench_tap(Xtr, ytr, Xte, yte, hyper))
            if hyper != "width" or sklearn_learned is None:
                sklearn_learned = best_of(args.repeats, lambda: sklearn_laplace(Xtr, ytr, Xte, yte, hyper))
            s_s, (s_err, s_lz, s_h) = sklearn_learned
            print(f"{n:5d} {hyper:>7} | {q_s:8.2f} {q_err:6.4f} {q_lz:9.2f} "
                  f"{q_h:>33} | {s_s:9.2f} {s_err:6.4f} {s_lz:9.2f} {s_h:>18} | {s_s / q_s:6.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
