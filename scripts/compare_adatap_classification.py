#!/usr/bin/env python3
"""ADATAP classifier vs its Monte-Carlo reference, per resampling ratio, from a results.json of
examples/pipelines/*_adatap_classification.yaml (docs/adatap_classification.md):

    scripts/compare_adatap_classification.py OUT/results.json

Prints per S/N: bootstrap_error of both (MC with its standard error), their difference in
absolute terms and in MC standard errors; the median and max |E f^_i (ADATAP) - E f^_i (MC)| in
MC standard errors at the training inputs; the ratio of mean bootstrap variances; the test
bootstrap errors; the largest |E[p(+1 | x)] (ADATAP, eq 21) - E[p(+1 | x)] (MC)| over the test
inputs (where both report it); iterations and seconds of both."""
import json
import statistics
import sys

runs = json.load(open(sys.argv[1]))["runs"]
by_ratio = {}
for r in runs:
    by_ratio.setdefault(r["sweep"]["resampler.ratio"], {})[r["engine"]] = r
# Engine "adatap<suffix>" is compared with "monte_carlo<suffix>" (the examples' names).
pairs = sorted({(e, "monte_carlo" + e[len("adatap"):]) for runs_at in by_ratio.values()
                for e in runs_at if e.startswith("adatap")})

print("pair                  S/N  eps_ADATAP  eps_MC +- se      |d|     d/se  med|dm|/se  max  var_ratio  "
      "test_A  test_MC  max|dp|  iters  t_A[s]  t_MC[s]")
for analytical, reference in pairs:
    for ratio in sorted(by_ratio):
        if analytical not in by_ratio[ratio] or reference not in by_ratio[ratio]:
            continue
        a, m = by_ratio[ratio][analytical], by_ratio[ratio][reference]
        ea, em = a["scalars"]["bootstrap_error"], m["scalars"]["bootstrap_error"]
        se = m["scalars"]["bootstrap_error_stderr"]
        am, mm = a["vectors"]["train_prediction_mean"], m["vectors"]["train_prediction_mean"]
        mse = m["vectors"]["train_prediction_mean_stderr"]
        z = [abs(x - y) / s for x, y, s in zip(am, mm, mse)]
        av, mv = a["vectors"]["train_prediction_variance"], m["vectors"]["train_prediction_variance"]
        pa, pm = (a["vectors"].get("prediction_probability"),
                  m["vectors"].get("prediction_probability"))
        dp = max(abs(x - y) for x, y in zip(pa, pm)) if pa and pm else float("nan")
        print(f"{analytical:<21} {ratio:<4} {ea:10.4f}  {em:.4f} +- {se:.4f}  {abs(ea - em):.4f}"
          f"  {abs(ea - em) / se:5.1f}"
              f"  {statistics.median(z):10.2f}  {max(z):4.1f}  {sum(av) / sum(mv):9.3f}"
              f"  {a['scalars'].get('test_bootstrap_error', float('nan')):6.4f}"
              f"  {m['scalars'].get('test_bootstrap_error', float('nan')):7.4f}  {dp:7.4f}"
              f"  {a['scalars']['iterations']:5.0f}  {a['timings']['total']:6.2f}"
              f"  {m['timings']['total']:7.2f}")
