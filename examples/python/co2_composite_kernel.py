"""A composite kernel from Python (docs/python.md, "Kernels"): Rasmussen & Williams' Mauna Loa
CO2 model (GPML Sec. 5.4.3), its 12 hyperparameters learned by the evidence on all 468 months
(1959-1997), and the monthly concentration predicted 20 years beyond the data with a +-2 sd
band, plotted with matplotlib.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/co2_composite_kernel.py [out.png]

(default out.png: docs/co2_extrapolation.png).
"""
import os
import sys

import numpy as np

import quench
from quench import Gaussian, Periodic, RationalQuadratic, White

HERE = os.path.dirname(os.path.abspath(__file__))
CO2 = os.path.join(HERE, "..", "data", "co2.csv")
PLOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "docs",
                                                          "co2_extrapolation.png")

# --- The data: decimal years (as given: the kernel's length scales and period are in years)
# and ppm, centred by the estimator (standardize_target="center": the GP has zero mean and its
# amplitudes are in ppm^2; predictions come back in ppm).
table = np.loadtxt(CO2, delimiter=",", skiprows=1)
years, ppm = table[:, :1], table[:, 1]

# --- R&W's kernel, from their values: a smooth trend, a yearly cycle whose shape drifts
# slowly (the product's amplitude is the Gaussian's, so the periodic part's is fixed at 1),
# medium-term irregularities, and correlated plus white noise. The white kernel carries the
# noise, so the likelihood's is fixed and negligible.
kernel = (Gaussian(67.0, amplitude=66.0**2)
          + Gaussian(90.0, amplitude=2.4**2) * Periodic(1.3, period=1.0, fixed=("amplitude",))
          + RationalQuadratic(1.2, alpha=0.78, amplitude=0.66**2)
          + Gaussian(0.134, amplitude=0.18**2) + White(0.19**2))
gp = quench.GaussianProcessRegressor(kernel=kernel, noise=1e-10, learn_noise=False,
                                     standardize_target="center")
gp.fit(years, ppm)

trend, (seasonal, cycle), irregular, correlated, white = (
    gp.kernel_.parts[0], gp.kernel_.parts[1].parts, *gp.kernel_.parts[2:])
print(f"learned kernel: {gp.kernel_}")
print(f"log marginal likelihood {gp.log_marginal_likelihood_:.3f} "
      f"({gp.learning_['evaluations']} evaluations)")
print(f"trend: amplitude {np.sqrt(trend.amplitude):.1f} ppm, length scale "
      f"{trend.length_scales[0]:.1f} years; yearly cycle: amplitude "
      f"{np.sqrt(seasonal.amplitude):.2f} ppm, period {cycle.period:.4f} years, decay "
      f"{seasonal.length_scales[0]:.1f} years; noise sd {np.sqrt(white.noise):.3f} ppm")

# --- Monthly predictions from 1959 to 2018, 20 years beyond the data, +-2 sd (the latent
# function's; the white noise is not in it).
future = np.arange(years[0, 0], 2018.0, 1.0 / 12.0)[:, None]
mean, sd = gp.predict(future, return_std=True)
print(f"predicted for {future[-1, 0]:.2f}: {mean[-1]:.1f} +- {2 * sd[-1]:.1f} ppm")

# --- The plot.
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(8, 4.5))
ax.plot(years[:, 0], ppm, ".", color="k", markersize=2, label="observed (monthly)")
ax.plot(future[:, 0], mean, color="tab:blue", linewidth=1, label="GP mean")
ax.fill_between(future[:, 0], mean - 2 * sd, mean + 2 * sd, color="tab:blue", alpha=0.25,
                label="$\\pm$2 sd")
ax.axvline(years[-1, 0], color="grey", linestyle=":", linewidth=1)
ax.set_xlabel("year")
ax.set_ylabel("CO$_2$ (ppm)")
ax.set_title("Mauna Loa CO$_2$: R&W's kernel learned by quench's evidence")
ax.legend(loc="upper left")
fig.tight_layout()
fig.savefig(PLOT, dpi=110)
print(f"plot: {os.path.abspath(PLOT)}")
