#!/usr/bin/env python3
"""A kernel per class against one shared kernel in the joint multi-class GP classifier (issue
37's target: test log loss with a kernel per class <= the shared kernel's), in one process on
the same split from the same start: examples/pipelines/<data>_kernel_per_class.yaml (six
isotropic Gaussian kernels, 12 widths and amplitudes learned by log Z_EP) beside
<data>_multiclass.yaml (one kernel, width and amplitude learned the same way; its exact_loo and
mc_bootstrap engines left out). Prints test accuracy, mean test log loss (-mean log p(true
class)), log Z_EP, the learned values, seconds of learning + fit, and the log-loss ratio.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/kernel_per_class_vs_shared.py [data ...]

data: glass (default with satellite), satellite (the seeded 1000-row subset), satellite_full
(all 4435 rows on 200 inducing inputs: satellite_inducing_*.yaml; ~15 min).
"""
import os
import sys
import time

import numpy as np

import quench

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEMS = {"glass": ("glass_multiclass", "glass_kernel_per_class"),
         "satellite": ("satellite_subset_multiclass", "satellite_subset_kernel_per_class"),
         "satellite_full": ("satellite_inducing_multiclass",
                            "satellite_inducing_kernel_per_class")}


def pipeline_text(stem):
    path = os.path.join(ROOT, "examples", "pipelines", f"{stem}.yaml")
    with open(path) as f:
        lines = [line for line in f if "exact_loo" not in line and "mc_bootstrap" not in line
                 and not line.startswith("outputs:")]
    return "".join(lines).replace("../data/", os.path.join(ROOT, "examples", "data", ""))


def run(stem):
    start = time.perf_counter()
    (r,) = quench.run(pipeline_text(stem))
    seconds = time.perf_counter() - start
    if r["status"]["code"] != "ok":
        print(f"  {stem}: {r['status']['code']}: {r['status']['message']}")
    s = r["scalars"]
    return 1.0 - s["test_error"], -s["test_log_predictive"], s["log_evidence"], seconds, r


def main():
    names = sys.argv[1:] or ["glass", "satellite"]
    print(f"{'data':14s} {'kernel':10s} {'accuracy':>9s} {'log loss':>9s} {'log Z_EP':>10s} "
          f"{'seconds':>8s}")
    for name in names:
        shared, per_class = (run(stem) for stem in STEMS[name])
        for label, (accuracy, log_loss, log_z, seconds, r) in (("shared", shared),
                                                               ("per class", per_class)):
            print(f"{name:14s} {label:10s} {accuracy:9.4f} {log_loss:9.4f} {log_z:10.3f} "
                  f"{seconds:8.1f}")
            learned = r["learning"]["learned"] if r["learning"] else {}
            print(f"{'':14s} learned: " + ", ".join(
                f"{k[len('kernel.'):]} = {float(np.ravel(v)[0]):.4g}" for k, v in learned.items()))
        ratio = per_class[1] / shared[1]
        print(f"{name:14s} target: log loss per class / shared = {ratio:.4f} <= 1: "
              f"{'met' if ratio <= 1.0 else 'NOT met'}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
