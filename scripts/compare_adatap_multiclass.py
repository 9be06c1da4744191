#!/usr/bin/env python3
"""Multi-class ADATAP vs its Monte-Carlo reference, per resampling ratio, from the output
folder of examples/pipelines/*_adatap_multiclass.yaml (docs/adatap_multiclass.md):

    scripts/compare_adatap_multiclass.py OUT

Prints per S/N: bootstrap_error (0/1) of both with their standard errors (ADATAP's is that of
its own u-draws), |difference| against the issue's band 2 % + 2 MC standard errors; the
bootstrap log loss of both; the largest |E[p(c | x)] (ADATAP) - E[p(c | x)] (MC)| over the test
inputs and classes, absolute and in MC standard errors; iterations and seconds of both."""
import csv
import json
import os
import sys

out = sys.argv[1]
runs = json.load(open(os.path.join(out, "results.json")))["runs"]
by_ratio = {}
for r in runs:
    # One ratio: no sweep (the pipeline's resampler.ratio).
    ratio = r["sweep"].get("resampler.ratio", r["scalars"].get("expected_sample_size", 0.0) /
                           max(len(r["vectors"].get("left_out_error", [])), 1))
    by_ratio.setdefault(ratio, {})[r["engine"]] = r


def matrix(run, name):
    with open(os.path.join(out, run["matrices"][name]["file"])) as f:
        rows = list(csv.reader(f))[1:]
    return [[float(x) for x in row] for row in rows]


print("S/N   eps_A +- se       eps_MC +- se      |d|     band    in   logloss_A  logloss_MC +- se  "
      "max|dp|  /se   iters  t_A[s]  t_MC[s]  MC/A")
for ratio in sorted(by_ratio):
    a, m = by_ratio[ratio].get("adatap"), by_ratio[ratio].get("monte_carlo")
    if not a or not m or a["status"]["code"] != "ok":
        print(f"{ratio:<5} adatap: {a and a['status']}")
        continue
    ea, sa = a["scalars"]["bootstrap_error"], a["scalars"]["bootstrap_error_stderr"]
    em, sm = m["scalars"]["bootstrap_error"], m["scalars"]["bootstrap_error_stderr"]
    band = 0.02 * em + 2 * sm
    la, lm = a["scalars"]["bootstrap_log_loss"], m["scalars"]["bootstrap_log_loss"]
    lse = m["scalars"]["bootstrap_log_loss_stderr"]
    pa, pm = matrix(a, "prediction_probability"), matrix(m, "prediction_probability")
    ps = matrix(m, "prediction_probability_stderr")
    dp, z = 0.0, 0.0
    for ra, rm, rs in zip(pa, pm, ps):
        for x, y, s in zip(ra, rm, rs):
            dp = max(dp, abs(x - y))
            z = max(z, abs(x - y) / s if s > 0 else 0.0)
    ta, tm = a["timings"]["total"], m["timings"]["total"]
    print(f"{ratio:<5} {ea:.4f} +- {sa:.4f}  {em:.4f} +- {sm:.4f}  {abs(ea - em):.4f}  {band:.4f}  "
          f"{'yes' if abs(ea - em) <= band else 'no ':<4} {la:.4f}     {lm:.4f} +- {lse:.4f}   "
          f"{dp:.4f}  {z:4.1f}  {a['scalars']['iterations']:5.0f}  {ta:6.2f}  {tm:6.2f}  "
          f"{tm / ta:4.2f}")
