"""quench from Python, notebook-style (docs/python.md): a GP classifier on Sonar with its kernel
width learned by the evidence, its built-in leave-one-out error, and the analytical (ADATAP)
bootstrap learning curve of the same model, plotted with matplotlib.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/gp_classifier_bootstrap.py [out.png]
"""
import os
import sys

import numpy as np

import quench

HERE = os.path.dirname(os.path.abspath(__file__))
SONAR = os.path.join(HERE, "..", "data", "sonar.csv")

# --- The data: 60 sonar features, the given train/test split, labels -1/+1.
with open(SONAR) as f:
    header = f.readline().strip().split(",")
table = np.loadtxt(SONAR, delimiter=",", skiprows=1)
features = [i for i, name in enumerate(header) if name.startswith("V")]
train = table[:, header.index("train")] == 1
X, y = table[:, features], table[:, header.index("y")]

# --- A TAP classifier (001), the kernel width learned by the evidence.
clf = quench.GaussianProcessClassifier(method="tap").fit(X[train], y[train])
print(f"learned kernel width sigma^2 = {clf.width_:.4f}, noise {clf.noise_:.1e} "
      f"(log evidence {clf.log_evidence_:.3f})")
print(f"built-in leave-one-out error   {clf.loo_error_:.4f}  (no retraining)")
# p(true class | the other examples) at each training input, from the same fit.
p_true = clf.loo_proba_[np.arange(len(y[train])), (y[train] == clf.classes_[1]).astype(int)]
print(f"leave-one-out log predictive   {np.mean(np.log(p_true)):.4f}")
print(f"test error                     {1 - clf.score(X[~train], y[~train]):.4f}")
print("p(+1 | x) at the first test inputs:", np.round(clf.predict_proba(X[~train][:4])[:, 1], 3))

# --- The ADATAP bootstrap of the same classifier over the resampling ratio S/N: the bootstrap
# error eps(S) from one set of equations per ratio (docs/adatap_classification.md), no retrains.
# The probit noise moves onto the likelihood there (k copies of a point are k observations).
ratios = [0.25, 0.5, 1, 1.5, 2, 3]
runs = quench.run(f"""name: sonar_adatap_python
seed: 2003
data: {{file: {SONAR}, target: y, split: {{rule: column, column: train}},
       standardize_inputs: true}}
components:
  kernel: {{plugin: gaussian, width: {clf.width_!r}, noise: 0.0}}
  likelihood: {{plugin: probit, noise: 0.1}}
  resampler: {{plugin: poisson_bootstrap, ratio: {ratios}}}
engines:
  - {{name: adatap, plugin: adatap_bootstrap}}
""")
eps = [r["scalars"]["bootstrap_error"] for r in runs]
for ratio, e in zip(ratios, eps):
    print(f"S/N = {ratio:<4}  bootstrap error eps(S) = {e:.4f}")

# --- The learning curve, as 000 Fig. 1.
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.plot(ratios, eps, "o-", label="ADATAP (analytical)")
ax.set_xlabel("S / N")
ax.set_ylabel("bootstrap error")
ax.set_title("Sonar, TAP width learned by evidence")
ax.legend()
fig.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else "sonar_adatap_learning_curve.png"
fig.savefig(out, dpi=100)
print("plot:", out)
