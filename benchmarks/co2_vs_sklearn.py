#!/usr/bin/env python3
"""Mauna Loa CO2 (examples/data/co2.csv, all 468 months 1959-1997), quench beside scikit-learn
with Rasmussen & Williams' four-part kernel (GPML Sec. 5.4.3; scikit-learn's Mauna Loa
example):

    k1 = 66^2 RBF(67)                            long-term trend
    k2 = 2.4^2 RBF(90) * ExpSineSquared(1.3, 1)  seasonal cycle, slowly changing shape
    k3 = 0.66^2 RQ(1.2, alpha 0.78)              medium-term irregularities
    k4 = 0.18^2 RBF(0.134) + White(0.19^2)       correlated and white noise

Both libraries get the inputs as raw decimal years and the targets centred (the mean
subtracted, not scaled), start from these values and learn all 12 hyperparameters (the period
too) by their own optimizer on the exact log marginal likelihood, no restarts: scikit-learn's
GaussianProcessRegressor (L-BFGS-B, alpha = 1e-10, normalize_y=False), quench's
GaussianProcessRegressor (the evidence by L-BFGS, the likelihood noise fixed at 1e-10; the
periodic part's amplitude fixed, the product's being the Gaussian's, as scikit-learn's product
has one constant). Prints both learned kernels, log marginal likelihoods and times, and
scikit-learn's value of the likelihood at quench's learned hyperparameters (a check by an
independent computation). Target: quench's learned log marginal likelihood >= scikit-learn's.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/co2_vs_sklearn.py
"""
import os
import time
import warnings

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor as SkRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, ExpSineSquared
from sklearn.gaussian_process.kernels import RationalQuadratic as SkRationalQuadratic
from sklearn.gaussian_process.kernels import WhiteKernel

import quench
from quench import Gaussian, Periodic, RationalQuadratic, White

HERE = os.path.dirname(os.path.abspath(__file__))
CO2 = os.path.join(HERE, "..", "examples", "data", "co2.csv")
NOISE = 1e-10  # scikit-learn's alpha, quench's likelihood noise: fixed, negligible


def quench_kernel(k1, k2, k3, k4):
    """R&W's kernel in quench's terms, from the four parts' values: k1 = (amplitude, length
    scale), k2 = (amplitude, length scale, periodic length scale, period), k3 = (amplitude,
    length scale, alpha), k4 = (amplitude, length scale, white noise)."""
    return (Gaussian(k1[1], amplitude=k1[0])
            + Gaussian(k2[1], amplitude=k2[0]) * Periodic(k2[2], period=k2[3],
                                                          fixed=("amplitude",))
            + RationalQuadratic(k3[1], alpha=k3[2], amplitude=k3[0])
            + Gaussian(k4[1], amplitude=k4[0]) + White(k4[2]))


def sklearn_kernel(k1, k2, k3, k4):
    """The same kernel in scikit-learn's terms (a constant times each part)."""
    return (ConstantKernel(k1[0]) * RBF(k1[1])
            + ConstantKernel(k2[0]) * RBF(k2[1]) * ExpSineSquared(k2[2], k2[3])
            + ConstantKernel(k3[0]) * SkRationalQuadratic(k3[1], k3[2])
            + ConstantKernel(k4[0]) * RBF(k4[1]) + WhiteKernel(k4[2]))


def parts_of(kernel):
    """The four parts' values of a quench kernel built by quench_kernel."""
    g1, (g2, p2), rq, g4, white = (kernel.parts[0], kernel.parts[1].parts, kernel.parts[2],
                                   kernel.parts[3], kernel.parts[4])
    scale = lambda k: float(np.ravel(k.length_scales)[0])  # noqa: E731
    return ((g1.amplitude, scale(g1)), (g2.amplitude, scale(g2), scale(p2), p2.period),
            (rq.amplitude, scale(rq), rq.alpha), (g4.amplitude, scale(g4), white.noise))


def main():
    data = np.loadtxt(CO2, delimiter=",", skiprows=1)
    X, y = data[:, :1], data[:, 1] - data[:, 1].mean()
    start = ((66.0**2, 67.0), (2.4**2, 90.0, 1.3, 1.0), (0.66**2, 1.2, 0.78),
             (0.18**2, 0.134, 0.19**2))
    print(f"Mauna Loa CO2: {len(y)} months, {X[0, 0]:.3f} to {X[-1, 0]:.3f}, targets centred "
          f"(mean {data[:, 1].mean():.3f} ppm)")

    at_start = SkRegressor(sklearn_kernel(*start), alpha=NOISE, optimizer=None).fit(X, y)
    fixed = quench.GaussianProcessRegressor(kernel=quench_kernel(*start), noise=NOISE,
                                            learn=False).fit(X, y)
    print(f"log marginal likelihood at R&W's values: quench {fixed.log_marginal_likelihood_:.6f}, "
          f"scikit-learn {at_start.log_marginal_likelihood_value_:.6f}")

    print("learning, scikit-learn ...", flush=True)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sk = SkRegressor(sklearn_kernel(*start), alpha=NOISE, normalize_y=False,
                         n_restarts_optimizer=0).fit(X, y)
    sk_seconds = time.perf_counter() - t0
    print("learning, quench ...", flush=True)
    t0 = time.perf_counter()
    q = quench.GaussianProcessRegressor(kernel=quench_kernel(*start), noise=NOISE,
                                        learn_noise=False).fit(X, y)
    q_seconds = time.perf_counter() - t0

    sk_lml, q_lml = sk.log_marginal_likelihood_value_, q.log_marginal_likelihood_
    check = SkRegressor(sklearn_kernel(*parts_of(q.kernel_)), alpha=NOISE, optimizer=None).fit(X, y)
    learning = q.learning_
    print(f"\nscikit-learn: {sk.kernel_}")
    for w in caught:
        print(f"  warning: {w.message}")
    print(f"quench:       {q.kernel_}")
    print(f"  ({learning['iterations']} iterations, {learning['evaluations']} evaluations, "
          f"status {learning['status']}, at a bound: {learning['at_bound'] or 'none'})")
    print(f"\n{'':14}{'log marginal likelihood':>26}{'time s':>10}")
    print(f"{'scikit-learn':14}{sk_lml:26.6f}{sk_seconds:10.2f}")
    print(f"{'quench':14}{q_lml:26.6f}{q_seconds:10.2f}")
    print(f"quench - scikit-learn: {q_lml - sk_lml:+.6f} nats; time ratio scikit-learn / quench "
          f"{sk_seconds / q_seconds:.2f}")
    print(f"scikit-learn's value at quench's learned hyperparameters: "
          f"{check.log_marginal_likelihood_value_:.6f} (relative difference "
          f"{abs(check.log_marginal_likelihood_value_ - q_lml) / abs(q_lml):.1e})")
    print("target (quench >= scikit-learn): " + ("met" if q_lml >= sk_lml else "NOT met"))


if __name__ == "__main__":
    main()
