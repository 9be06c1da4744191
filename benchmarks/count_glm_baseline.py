#!/usr/bin/env python3
"""Count-regression baselines for the GP count likelihoods: a Poisson GLM and a negative binomial
(NB2) GLM, fitted by maximum likelihood on the training rows of a split file and scored on its
test rows. The GP with a Poisson / negative binomial likelihood should be compared with these
numbers on the same rows.

Data: examples/data/<name>_split.csv (doctorvisits, recreation, quine; made by
examples/data/make_count_splits.py): header row, inputs, a 0/1 `train` column, count target `y`
last. Inputs are every column but `train` and `y`, used as given (no scaling, no dummy coding:
the factors are the files' 0..levels-1 codes, so quine's 4-level Age enters as one linear term,
as the GP sees it), plus an intercept. Both models use the log link, mu_i = exp(b0 + x_i' b).

Models:
  poisson   statsmodels GLM, family Poisson (IRLS), y_i ~ Poisson(mu_i).
  negbin    statsmodels.discrete.discrete_model.NegativeBinomial, loglike_method 'nb2': joint MLE of
            the coefficients and alpha (Newton; BFGS if Newton does not converge),
            y_i ~ NB(mean mu_i, Var = mu_i + alpha mu_i^2), i.e. size r = 1/alpha:
            p(y) = Gamma(y + r) / (Gamma(r) y!) (r / (r + mu))^r (mu / (r + mu))^y.

Test-row scores (point estimates plugged in; no parameter uncertainty):
  mlpd      mean log predictive density, (1/n_test) sum_i log p(y_i | x_i), natural log;
            computed here from the formulas above with math.lgamma.
  deviance  mean Poisson deviance of the predicted mean, for both models:
            (1/n_test) sum_i 2 [y_i log(y_i / mu_i) - (y_i - mu_i)], with 0 log 0 = 0
            (sklearn's mean_poisson_deviance). It scores only the mean, so it is comparable
            across models and with a GP's predictive mean; mlpd scores the whole distribution.
  rmse      sqrt of the mean of (y_i - mu_i)^2, mu_i the predicted mean.
  fit_s     wall time of the fit (statsmodels' own start values included), one run.

Self-check (run by __main__ before the table, or self_check()): on the test rows the per-row log
densities from math.lgamma equal statsmodels' (the discrete Poisson model's loglikeobs on the
test rows; the GLM family NegativeBinomial(alpha).loglike_obs) and scipy.stats' logpmf to 1e-9; the
predicted means equal statsmodels' predict; the fitted parameters are at a stationary point of the
training log-likelihood (max |score| / n_train < 1e-5); the NB2 alpha maximizes the profile
likelihood computed by statsmodels' GLM (IRLS at fixed alpha, at alpha and alpha * exp(+-0.05)).

    /usr/bin/python3 benchmarks/count_glm_baseline.py [split.csv ...] [--quench REPORT ...]

--quench REPORT: also scores the `ep` run of each quench report folder (results.json of a count
pipeline, e.g. examples/pipelines/doctorvisits_negative_binomial.yaml) with the same formulas:
its per-row test_log_predictive_density (mlpd) and test_target_mean (deviance, RMSE) against the
test rows of the pipeline's data file, so the GP and the GLMs share one table.

(Debian's python3 with python3-numpy, python3-pandas, python3-statsmodels, python3-scipy; default:
the three split files, a few seconds.)
"""
import hashlib
import json
import math
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd
import statsmodels.api as sm
from statsmodels.discrete.discrete_model import NegativeBinomial
from statsmodels.discrete.discrete_model import Poisson as DiscretePoisson

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "examples", "data")
DEFAULT_FILES = ("doctorvisits_split.csv", "recreation_split.csv", "quine_split.csv")


def load_split(path):
    """(X_train, y_train, X_test, y_test, input_names) from a split file; X with an intercept
    column `const` first."""
    d = pd.read_csv(path)
    if "train" not in d.columns or d.columns[-1] != "y":
        raise ValueError(f"{path}: needs a `train` column and the target `y` last")
    names = [c for c in d.columns if c not in ("train", "y")]
    X = sm.add_constant(d[names].astype(float), has_constant="add").to_numpy()
    y = d["y"].to_numpy(dtype=float)
    if np.any(y < 0) or np.any(y != np.round(y)):
        raise ValueError(f"{path}: y must be non-negative integers")
    tr = d["train"].to_numpy() == 1
    return X[tr], y[tr], X[~tr], y[~tr], names


# ---- log densities, from the formulas (math.lgamma), independent of statsmodels and scipy ----

def poisson_logpmf(y, mu):
    return np.array([yi * math.log(m) - m - math.lgamma(yi + 1.0) for yi, m in zip(y, mu)])


def nb2_logpmf(y, mu, alpha):
    """log p(y) for the NB with mean mu and Var = mu + alpha mu^2 (size r = 1/alpha)."""
    r = 1.0 / alpha
    return np.array([math.lgamma(yi + r) - math.lgamma(r) - math.lgamma(yi + 1.0)
                     + r * math.log(r / (r + m)) + yi * math.log(m / (r + m))
                     for yi, m in zip(y, mu)])


def mean_poisson_deviance(y, mu):
    ylogy = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / mu), 0.0)
    return float(np.mean(2.0 * (ylogy - (y - mu))))


def _scores(y, mu, logpmf, fit_s):
    return {"mlpd": float(np.mean(logpmf)), "deviance": mean_poisson_deviance(y, mu),
            "rmse": float(np.sqrt(np.mean((y - mu) ** 2))), "fit_s": fit_s}


# ---- the two models ----

def fit_poisson(X_train, y_train):
    t0 = time.perf_counter()
    res = sm.GLM(y_train, X_train, family=sm.families.Poisson()).fit()
    fit_s = time.perf_counter() - t0
    if not res.converged:
        raise RuntimeError("Poisson GLM: IRLS did not converge")
    return res, fit_s


def fit_negbin(X_train, y_train):
    """NB2 MLE of (coefficients, alpha); Newton from statsmodels' start values, BFGS if Newton
    fails to converge."""
    t0 = time.perf_counter()
    model = NegativeBinomial(y_train, X_train, loglike_method="nb2")
    res = None
    for method, maxiter in (("newton", 200), ("bfgs", 5000)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                res = model.fit(method=method, maxiter=maxiter, disp=0)
            except (np.linalg.LinAlgError, ValueError):
                continue
        if res.mle_retvals.get("converged", False) and np.all(np.isfinite(res.params)):
            break
    fit_s = time.perf_counter() - t0
    if res is None or not res.mle_retvals.get("converged", False):
        raise RuntimeError("NB2: maximum likelihood did not converge")
    res.fit_method = method
    return res, fit_s


def evaluate_poisson(path):
    """Poisson GLM fitted on the training rows of `path`, scored on its test rows: a dict with
    mlpd, deviance (mean Poisson deviance), rmse, fit_s and the fit itself (`result`)."""
    X, y, Xt, yt, _ = load_split(path)
    res, fit_s = fit_poisson(X, y)
    mu = np.exp(Xt @ res.params)
    out = _scores(yt, mu, poisson_logpmf(yt, mu), fit_s)
    out.update(model="poisson", alpha=float("nan"), n_train=len(y), n_test=len(yt), result=res)
    return out


def evaluate_negbin(path):
    """NB2 GLM (Var = mu + alpha mu^2, alpha by MLE) fitted on the training rows of `path`,
    scored on its test rows: as evaluate_poisson, plus alpha."""
    X, y, Xt, yt, _ = load_split(path)
    res, fit_s = fit_negbin(X, y)
    beta, alpha = res.params[:-1], float(res.params[-1])
    mu = np.exp(Xt @ beta)
    out = _scores(yt, mu, nb2_logpmf(yt, mu, alpha), fit_s)
    out.update(model="negbin", alpha=alpha, n_train=len(y), n_test=len(yt), result=res)
    return out


# ---- independent check of the log densities and of the fits ----

def self_check(path, tol=1e-9):
    """Raises AssertionError unless the reported test log densities and means agree with
    statsmodels and scipy and both fits are stationary points of the training likelihood."""
    from scipy import stats

    X, y, Xt, yt, _ = load_split(path)
    p = evaluate_poisson(path)
    rp = p["result"]
    mu = np.exp(Xt @ rp.params)
    mine = poisson_logpmf(yt, mu)
    sm_obs = DiscretePoisson(yt, Xt).loglikeobs(rp.params)
    sp_obs = stats.poisson.logpmf(yt, mu)
    assert np.max(np.abs(mine - sm_obs)) < tol, "Poisson: lgamma formula vs statsmodels"
    assert np.max(np.abs(mine - sp_obs)) < tol, "Poisson: lgamma formula vs scipy"
    assert np.max(np.abs(mu - rp.predict(Xt))) < tol * max(1.0, mu.max()), "Poisson: mean"
    score = DiscretePoisson(y, X).score(rp.params)
    assert np.max(np.abs(score)) / len(y) < 1e-5, f"Poisson: not stationary, score {score}"

    n = evaluate_negbin(path)
    rn = n["result"]
    beta, alpha = rn.params[:-1], float(rn.params[-1])
    mu = np.exp(Xt @ beta)
    mine = nb2_logpmf(yt, mu, alpha)
    # statsmodels' GLM family (a fresh discrete NegativeBinomial model would read the last
    # parameter as log alpha: its _transparams is set until a fit clears it)
    sm_obs = sm.families.NegativeBinomial(alpha=alpha).loglike_obs(yt, mu)
    r = 1.0 / alpha
    sp_obs = stats.nbinom.logpmf(yt, r, r / (r + mu))
    assert np.max(np.abs(mine - sm_obs)) < tol, "NB2: lgamma formula vs statsmodels"
    assert np.max(np.abs(mine - sp_obs)) < tol, "NB2: lgamma formula vs scipy"
    assert np.max(np.abs(mu - rn.predict(Xt))) < tol * max(1.0, mu.max()), "NB2: mean"
    score = rn.model.score(rn.params)  # the fitted model: params[-1] read as alpha
    assert np.max(np.abs(score)) / len(y) < 1e-5, f"NB2: not stationary, score {score}"
    assert alpha > 0, "NB2: alpha must be positive"
    # alpha is the MLE by another code path: statsmodels' GLM (IRLS, alpha held fixed) at the
    # fitted alpha reproduces the log-likelihood, and at alpha * exp(+-0.05) gives less
    llf = {f: sm.GLM(y, X, family=sm.families.NegativeBinomial(alpha=alpha * math.exp(f)))
           .fit().llf for f in (-0.05, 0.0, 0.05)}
    assert abs(llf[0.0] - rn.llf) < 1e-6 * abs(rn.llf), "NB2: GLM at alpha vs discrete fit"
    assert llf[-0.05] < rn.llf and llf[0.05] < rn.llf, "NB2: alpha not a maximum of the profile"
    return True


def quench_scores(report):
    """(data name, model label, n_train, n_test, scores) of the `ep` run of a quench report: the
    pipeline's split file re-read here, its test targets against the run's per-row outputs."""
    with open(os.path.join(report, "results.json")) as f:
        r = json.load(f)
    run = next(u for u in r["runs"] if u["engine"] == "ep")
    provenance = r["provenance"]
    # The run's data file, found by name among examples/data and checked by its SHA-256.
    used = provenance["data"]["files"][0]
    data_file = os.path.join(DATA, os.path.basename(used["path"]))
    with open(data_file, "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != used["sha256"]:
            raise ValueError(f"{report}: {data_file} is not the file the run read")
    _, y_train, _, y_test, _ = load_split(data_file)

    def vector(name):
        v = run["vectors"][name]
        return np.array(v if isinstance(v, list) else v["values"], dtype=float)

    mu = vector("test_target_mean")
    density = vector("test_log_predictive_density")
    if len(mu) != len(y_test):
        raise ValueError(f"{report}: {len(mu)} test predictions for {len(y_test)} test rows")
    name = os.path.basename(data_file).replace("_split.csv", "")
    likelihood = next(p for p in provenance["plugins"] if p["role"] == "likelihood")["plugin"]
    label = "GP " + {"negative_binomial": "negbin"}.get(likelihood, likelihood)
    return name, label, len(y_train), len(y_test), _scores(y_test, mu, density, float("nan"))


def main(argv):
    reports = []
    if "--quench" in argv:
        at = argv.index("--quench")
        reports, argv = argv[at + 1:], argv[:at]
    files = argv or [os.path.join(DATA, f) for f in DEFAULT_FILES]
    for path in files:
        self_check(path)
    print("self-check passed: test log densities (math.lgamma) = statsmodels loglikeobs = scipy "
          "logpmf to 1e-9, means = predict, fits stationary, NB2 alpha = profile maximum")
    print()
    head = (f"{'data':<13} {'model':<10} {'n_train':>7} {'n_test':>6} {'test mlpd':>10} "
            f"{'mean dev':>9} {'RMSE':>8} {'alpha':>8} {'fit s':>7}")
    print(head)
    print("-" * len(head))
    for path in files:
        name = os.path.basename(path).replace("_split.csv", "")
        for r in (evaluate_poisson(path), evaluate_negbin(path)):
            alpha = "" if math.isnan(r["alpha"]) else f"{r['alpha']:.4f}"
            print(f"{name:<13} {r['model']:<10} {r['n_train']:>7} {r['n_test']:>6} "
                  f"{r['mlpd']:>10.4f} {r['deviance']:>9.4f} {r['rmse']:>8.4f} {alpha:>8} "
                  f"{r['fit_s']:>7.3f}")
    for report in reports:
        name, label, n_train, n_test, r = quench_scores(report)
        print(f"{name:<13} {label:<10} {n_train:>7} {n_test:>6} {r['mlpd']:>10.4f} "
              f"{r['deviance']:>9.4f} {r['rmse']:>8.4f}")
    print()
    print("test mlpd: mean log p(y_i | x_i) over the test rows (nats, higher is better); mean dev:"
          " mean Poisson deviance of the predicted mean (lower is better); NB2: Var = mu + alpha "
          "mu^2.")


if __name__ == "__main__":
    main(sys.argv[1:])
