"""Likelihoods other than the Gaussian in the GP estimators (docs/python.md, "Other
likelihoods"): the regressor, both bootstraps and the classifier against the pipelines they stand
for, run by the quench CLI on the same data; the built-in leave-one-out against refits without
each row; the Gaussian default unchanged; bad values."""
import json
import os
import pickle
import subprocess

import numpy as np
import pytest

import quench
from quench import estimators

SOURCE = os.environ["QUENCH_SOURCE"]
CLI = os.environ["QUENCH_CLI"]
DATA = os.path.join(SOURCE, "examples", "data")
QUINE = os.path.join(DATA, "quine_split.csv")  # 146 children: 110 train, 36 test rows


def table(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    return header, np.loadtxt(path, delimiter=",", skiprows=1)


def split(path, inputs):
    """The training and test rows of a file with a `train` column: X, y, X_test, y_test."""
    header, d = table(path)
    train = d[:, header.index("train")] == 1
    X, y = d[:, [header.index(c) for c in inputs]], d[:, header.index("y")]
    return X[train], y[train], X[~train], y[~train]


def cli_runs(tmp_path, pipeline):
    """The runs of results.json of `quench run` on the pipeline text (17 significant digits:
    equal text is equal doubles)."""
    path = tmp_path / "pipeline.yaml"
    path.write_text(pipeline)
    out = tmp_path / "out"
    subprocess.run([CLI, "run", str(path), "--out", str(out), "--no-progress"], check=True,
                   capture_output=True)
    with open(out / "results.json") as f:
        return json.load(f)["runs"]


def quine_pipeline(likelihood, learn, engines, resampler=""):
    return f"""name: same
seed: 0
data: {{file: {QUINE}, target: y, split: {{rule: column, column: train}},
       standardize_inputs: true, standardize_target: false}}
components:
  kernel: {{plugin: gaussian}}
  likelihood: {likelihood}
{resampler}{learn}engines:
{engines}"""


@pytest.fixture(scope="module")
def quine():
    return split(QUINE, ["Eth", "Sex", "Age", "Lrn"])


@pytest.fixture(scope="module")
def negative_binomial(quine):
    X, y, _, _ = quine
    return quench.GaussianProcessRegressor(likelihood="negative_binomial").fit(X, y)


def test_negative_binomial_regressor_is_the_cli_pipeline(quine, negative_binomial, tmp_path):
    # The estimator stands for this pipeline on the file's own split: the learned kernel and
    # dispersion, the EP evidence, the built-in LOO and the test predictions are the same bits.
    X, y, Xt, yt = quine
    (run,) = cli_runs(tmp_path, quine_pipeline(
        "{plugin: negative_binomial}",
        "learn: {objective: evidence, engine: ep, parameters: [kernel.length_scales, "
        "kernel.amplitude, likelihood.dispersion], restarts: 0}\n",
        "  - {name: gp, plugin: ep}\n"))
    r, learned = negative_binomial, run["hyperparameters"]
    assert learned["likelihood.dispersion"] == r.likelihood_params_["dispersion"]
    assert learned["kernel.length_scales"] == list(r.learned_["kernel.length_scales"])
    assert r.log_evidence_ == run["scalars"]["log_evidence"] == r.log_marginal_likelihood_
    v = {k: np.array(a) for k, a in run["vectors"].items()}
    assert np.array_equal(r.loo_log_predictive_, v["loo_log_predictive_density"])
    assert np.array_equal(r.loo_mean_, v["loo_mean"])
    assert r.loo_log_predictive_.shape == (X.shape[0],)
    mean, sd = r.predict(Xt, return_std=True)
    assert np.array_equal(mean, v["test_target_mean"])
    assert np.array_equal(sd, np.sqrt(v["test_target_variance"]))
    assert np.array_equal(r.log_predictive_density(Xt, yt), v["test_log_predictive_density"])
    assert r.score(Xt, yt) == 1 - np.sum((yt - mean) ** 2) / np.sum((yt - yt.mean()) ** 2)


def test_loo_log_predictive_agrees_with_refits_without_each_row(quine, negative_binomial):
    # The built-in LOO is EP's cavity at each row (001 eqs 26-28): the left-out latent without
    # refitting the other sites. The reference refits the estimator on the N - 1 other rows at
    # the learned hyperparameters (learn=False) and predicts the row left out. Inputs are
    # standardized once, as the fit did (mean and sample sd over all N rows), so that every refit
    # has the same kernel.
    X, y, _, _ = quine
    full = negative_binomial
    Xs = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)

    def at_learned_values():
        return quench.GaussianProcessRegressor(
            likelihood="negative_binomial", likelihood_params=full.likelihood_params_,
            kernel=full.kernel_, learn=False)

    # kernel_ and likelihood_params_ are the fitted model (measured: 6.5e-12).
    same = at_learned_values().fit(Xs, y)
    assert np.allclose(same.loo_log_predictive_, full.loo_log_predictive_, rtol=0, atol=1e-9)
    # Rows 55, 77, 44: the three largest counts (67, 69, 81 days), the most influential rows,
    # where the other sites move most when one leaves; rows 0-2 typical ones. Measured over all
    # 110 rows: |gap| mean 0.0021, median 0.00066, max 0.056 (row 55); the LOO mean within 3.8 %.
    for i, bound in ((55, 0.1), (77, 0.03), (44, 0.015), (0, 0.003), (1, 0.003), (2, 0.003)):
        keep = np.arange(y.size) != i
        refit = at_learned_values().fit(Xs[keep], y[keep])
        gap = refit.log_predictive_density(Xs[i:i + 1], y[i:i + 1])[0] - full.loo_log_predictive_[i]
        assert abs(gap) < bound, (i, gap)
        assert abs(refit.predict(Xs[i:i + 1])[0] / full.loo_mean_[i] - 1) < 0.06, i


def test_student_t_with_standardized_targets_maps_back_to_y(tmp_path):
    # Student-t noise on standardized targets (asked for by standardize_target=True, the default
    # for real targets with the default kernel): the engine's outputs are in standardized units;
    # the estimator's means are mapped back (x scale + mean) and its log densities carry the
    # Jacobian -log(scale).
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 10, 80)
    y = 20 + 5 * np.sin(x) + rng.normal(0, 1.5, 80)
    y[::9] += 15  # outliers
    train = np.arange(80) < 60
    path = tmp_path / "t.csv"
    path.write_text("x0,train,y\n" + "".join(f"{a!r},{int(t)},{b!r}\n"
                                             for a, t, b in zip(x, train, y)))
    (run,) = cli_runs(tmp_path, f"""name: same
seed: 0
data: {{file: {path}, target: y, split: {{rule: column, column: train}},
       standardize_inputs: true, standardize_target: true}}
components:
  kernel: {{plugin: gaussian}}
  likelihood: {{plugin: student_t, dof: 4.0, scale: 0.3}}
engines:
  - {{name: gp, plugin: ep}}
""")
    r = quench.GaussianProcessRegressor(likelihood="student_t", learn=False,
                                        likelihood_params={"dof": 4.0, "scale": 0.3})
    r.fit(x[train, None], y[train])
    shift, scale = r.model_.target_mean, r.model_.target_scale
    assert shift == pytest.approx(y[train].mean(), rel=1e-14)
    assert scale == pytest.approx(y[train].std(ddof=1), rel=1e-14)
    v = {k: np.array(a) for k, a in run["vectors"].items()}
    mean, sd = r.predict(x[~train, None], return_std=True)
    np.testing.assert_allclose(mean, v["test_target_mean"] * scale + shift, rtol=1e-14)
    np.testing.assert_allclose(sd, np.sqrt(v["test_target_variance"]) * scale, rtol=1e-14)
    np.testing.assert_allclose(r.log_predictive_density(x[~train, None], y[~train]),
                               v["test_log_predictive_density"] - np.log(scale), rtol=1e-13)
    np.testing.assert_allclose(r.loo_log_predictive_,
                               v["loo_log_predictive_density"] - np.log(scale), rtol=1e-14)
    np.testing.assert_allclose(r.loo_mean_, v["loo_mean"] * scale + shift, rtol=1e-14)
    assert r.log_evidence_ == run["scalars"]["log_evidence"]
    assert r.likelihood_params_ == {"dof": 4.0, "scale": 0.3}  # nothing learned
    # Robust: the outliers pull the Gaussian likelihood's fit away, not the Student-t's
    # (measured RMSE to the noise-free curve 1.08 against 2.41).
    truth = 20 + 5 * np.sin(x[~train])
    gaussian = quench.GaussianProcessRegressor().fit(x[train, None], y[train])
    assert (np.sqrt(np.mean((mean - truth) ** 2))
            < 0.5 * np.sqrt(np.mean((gaussian.predict(x[~train, None]) - truth) ** 2)))


def test_bootstraps_of_a_count_model_are_the_cli_pipeline(quine, tmp_path):
    # ADATAP and the Monte-Carlo bootstrap of the negative binomial EP fit at fixed
    # hyperparameters: test errors (square and log loss), the bootstrap mean and variance of
    # the latent predictor at the test inputs, bitwise.
    X, y, Xt, _ = quine
    (adatap, monte_carlo) = cli_runs(tmp_path, quine_pipeline(
        "{plugin: negative_binomial, dispersion: 1.2}", "",
        "  - {name: adatap, plugin: adatap_bootstrap, density: false}\n"
        "  - {name: monte_carlo, plugin: mc_bootstrap, samples: 40, inner: ep, "
        "keep_samples: false}\n",
        "  resampler: {plugin: poisson_bootstrap, ratio: [1.0]}\n"))
    kw = dict(likelihood="negative_binomial", likelihood_params={"dispersion": 1.2}, learn=False)
    a = quench.AdatapBootstrap(**kw).fit(X, y)
    mc = quench.MonteCarloBootstrap(samples=40, **kw).fit(X, y)
    for fitted, run in ((a, adatap), (mc, monte_carlo)):
        s, v = run["scalars"], run["vectors"]
        assert fitted.test_error_[0] == s["test_error_square"]
        assert fitted.test_error_log_predictive_[0] == s["test_error_log_predictive"]
        mean, var = fitted.predict(Xt, return_var=True)
        assert np.array_equal(mean, v["prediction_mean"])
        assert np.array_equal(var, v["prediction_variance"])
        assert fitted.likelihood_params_ == {"dispersion": 1.2}
    # The standard errors to 1e-13 (measured: the log loss's 1 ulp apart).
    for loss in ("square", "log_predictive"):
        stderr = getattr(mc, "test_error_stderr_" if loss == "square" else
                         "test_error_log_predictive_stderr_")[0]
        assert stderr == pytest.approx(monte_carlo["scalars"][f"test_error_{loss}_stderr"],
                                       rel=1e-13)


def test_logit_classifier_is_the_cli_pipeline(tmp_path):
    X, y, Xt, _ = split(os.path.join(DATA, "sonar.csv"), [f"V{j}" for j in range(1, 61)])
    (run,) = cli_runs(tmp_path, f"""name: same
seed: 0
data: {{file: {DATA}/sonar.csv, target: y, split: {{rule: column, column: train}},
       standardize_inputs: true}}
components:
  kernel: {{plugin: gaussian, width: 1.0, noise: 0.01}}
  likelihood: {{plugin: logit}}
learn: {{objective: evidence, engine: tap, parameters: [kernel.width, kernel.noise]}}
engines:
  - {{name: gp, plugin: tap}}
""")
    c = quench.GaussianProcessClassifier(likelihood="logit").fit(X, y)
    assert c.width_ == run["hyperparameters"]["kernel.width"]
    assert c.log_evidence_ == run["scalars"]["log_evidence"]
    assert c.loo_error_ == run["scalars"]["loo_error"]
    assert np.array_equal(c.predict_proba(Xt)[:, 1], run["vectors"]["test_probability"])
    assert np.array_equal(c.loo_proba_[:, 1], run["vectors"]["loo_probability"])
    probit = quench.GaussianProcessClassifier().fit(X, y)
    assert not np.allclose(probit.predict_proba(Xt), c.predict_proba(Xt))
    # One-vs-rest over the logit on three classes.
    X3, y3, Xt3, yt3 = split(os.path.join(DATA, "iris_split.csv"),
                             ["sepal_length_cm", "sepal_width_cm", "petal_length_cm",
                              "petal_width_cm"])
    ovr = quench.GaussianProcessClassifier(likelihood="logit", multi_class="one_vs_rest")
    ovr.fit(X3, y3)
    assert np.allclose(ovr.predict_proba(Xt3).sum(axis=1), 1.0)
    assert ovr.score(Xt3, yt3) > 0.85


def test_the_gaussian_default_is_unchanged(quine, negative_binomial):
    # The pipeline of the default regressor, to the character, as before `likelihood` existed.
    X, y, Xt, yt = quine
    gp = quench.GaussianProcessRegressor()
    assert estimators._regression_yaml(gp, "", "{name: gp, plugin: exact_gp_regression}", X) == (
        "name: estimator\nseed: 0\n"
        "data: {file: fit data, target: y, standardize_inputs: true, standardize_target: true}\n"
        "components:\n  kernel: {plugin: gaussian}\n  likelihood: {plugin: gaussian, noise: 0.1}\n"
        "learn: {objective: evidence, parameters: [kernel.length_scales, kernel.amplitude, "
        "likelihood.noise], restarts: 0}\n"
        "engines:\n  - {name: gp, plugin: exact_gp_regression}\noutputs: {models: true}\n")
    assert "likelihood: {plugin: probit}" in quench.GaussianProcessClassifier()._yaml(X, 2)
    # "gaussian" named is the default; a refit after another likelihood drops its attributes.
    named = pickle.loads(pickle.dumps(negative_binomial)).set_params(likelihood="gaussian")
    named.fit(X, y)
    default = quench.GaussianProcessRegressor().fit(X, y)
    assert np.array_equal(named.predict(Xt), default.predict(Xt))
    assert named.log_marginal_likelihood_ == default.log_marginal_likelihood_
    for attribute in ("log_evidence_", "loo_log_predictive_", "loo_mean_", "likelihood_params_"):
        assert not hasattr(named, attribute) and not hasattr(default, attribute)
    # Its log predictive density: the normal density of y at the predictive mean and variance.
    mean, sd = default.predict(Xt, return_std=True)
    normal = -0.5 * np.log(2 * np.pi * sd ** 2) - (yt - mean) ** 2 / (2 * sd ** 2)
    np.testing.assert_allclose(default.log_predictive_density(Xt, yt), normal, rtol=1e-12)


def test_fitted_count_model_pickles_and_checks_its_targets(quine, negative_binomial):
    _, _, Xt, yt = quine
    same = pickle.loads(pickle.dumps(negative_binomial))
    assert np.array_equal(same.predict(Xt), negative_binomial.predict(Xt))
    assert np.array_equal(same.log_predictive_density(Xt, yt),
                          negative_binomial.log_predictive_density(Xt, yt))
    with pytest.raises(ValueError, match=r"the target of row 1 is -1.0, not a count \(a "
                       r"non-negative integer\) as likelihood 'negative_binomial' reads"):
        same.log_predictive_density(Xt[:2], [3, -1])
    with pytest.raises(ValueError, match="2 inputs but 1 targets"):
        same.model_.log_predictive_density(Xt[:2], [3.0])


@pytest.mark.parametrize("estimator, y, message", [
    (quench.GaussianProcessRegressor(likelihood="no_such"), None,
     "unknown likelihood 'no_such': the likelihood plugins found are .*negative_binomial"),
    (quench.GaussianProcessRegressor(likelihood="poisson"), [1, 2, -1, 0] * 5,
     r"likelihood 'poisson' needs counts \(non-negative integers\) as targets, got -1.0 at "
     r"sample 2 \(5 such samples\)"),
    (quench.MonteCarloBootstrap(likelihood="negative_binomial"), [1, 2.5, 1, 0] * 5,
     "needs counts .* got 2.5 at sample 1"),
    (quench.GaussianProcessRegressor(likelihood="binomial"), [0, 1, 2, 0] * 5,
     r"successes out of one trial \(0 or 1\) as targets, got 2.0 at sample 2"),
    (quench.GaussianProcessRegressor(likelihood="probit"), None,
     "reads binary targets; .* use GaussianProcessClassifier"),
    (quench.GaussianProcessRegressor(likelihood="dirichlet"), None, "reads classes targets"),
    (quench.GaussianProcessClassifier(likelihood="poisson"), [0, 1] * 10,
     "use GaussianProcessRegressor"),
    (quench.GaussianProcessClassifier(likelihood="logit"), [0, 1, 2, 0] * 5,
     "likelihood 'logit' has no joint model of 3 classes.*one_vs_rest"),
    (quench.GaussianProcessRegressor(likelihood="student_t", likelihood_params={"dof": -1.0}),
     None, "'dof' must be > 0, got -1"),
    (quench.AdatapBootstrap(likelihood="student_t", likelihood_params={"nu": 3}), None,
     "likelihood 'student_t': unknown parameter 'nu'"),
    (quench.GaussianProcessRegressor(likelihood_params={"noise": 0.5}), None,
     r"likelihood_params are for a likelihood other than 'gaussian'.*\(the noise is noise=\)"),
    (quench.GaussianProcessRegressor(likelihood="poisson", likelihood_params={"exposure": "t"}),
     None, "reads each row's size from the column 't'"),
    (quench.GaussianProcessRegressor(likelihood="negative_binomial", learn_noise=["scale"]),
     None, "learn_noise names 'scale', which likelihood 'negative_binomial' does not learn; it "
     "learns 'dispersion'"),
    (quench.GaussianProcessRegressor(likelihood="poisson", standardize_target=True), None,
     "standardize_target=True applies to real targets; likelihood 'poisson' reads count"),
    (quench.GaussianProcessRegressor(likelihood=None), None, "likelihood must be the name"),
])
def test_bad_values_raise_value_errors(estimator, y, message):
    X = np.linspace(0, 1, 20)[:, None]
    with pytest.raises(ValueError, match=message):
        estimator.fit(X, np.arange(20.0) % 4 if y is None else np.array(y, dtype=float))


def test_a_model_with_an_exposure_predicts_with_the_sizes_given(tmp_path):
    """A Poisson model with `exposure: days` (quench.run, models kept): Model.predict needs each
    row's exposure and then gives the run's own test predictions; twice the exposure, twice
    the mean; no sizes, or sizes a model without a size column cannot take, are ValueErrors."""
    header, d = table(QUINE)
    days = 1.0 + 0.5 * (np.arange(len(d)) % 4)
    data = tmp_path / "quine_days.csv"
    np.savetxt(data, np.column_stack([d, days]), delimiter=",", fmt="%.17g",
               header=",".join(header + ["days"]), comments="")
    (run,) = quench.run(f"""name: days
data:
  file: {data}
  target: y
  split: {{rule: column, column: train}}
  standardize_inputs: true
components:
  kernel: {{plugin: gaussian, width: 4.0, amplitude: 1.0}}
  likelihood: {{plugin: poisson, exposure: days}}
engines:
  - {{name: ep, plugin: ep}}
outputs: {{models: true, plots: false}}
""")
    test = d[:, header.index("train")] == 0
    X = d[test][:, [header.index(c) for c in ("Eth", "Sex", "Age", "Lrn")]]
    model = run["model"]
    p = model.predict(X, sizes=days[test])
    for column in ("target_mean", "target_variance", "target_p0"):
        np.testing.assert_allclose(p[column], run["vectors"]["test_" + column], rtol=1e-12)
    twice = model.predict(X, sizes=2 * days[test])
    np.testing.assert_allclose(twice["target_mean"], 2 * p["target_mean"], rtol=1e-12)
    with pytest.raises(ValueError, match="reads each row's exposure .*'days'.*pass sizes="):
        model.predict(X)
    with pytest.raises(ValueError, match="the size of row 1 is 0.0, not a positive exposure"):
        model.predict(X, sizes=np.r_[1.0, 0.0, np.ones(len(X) - 2)])
    (gaussian,) = quench.run(os.path.join(SOURCE, "examples", "pipelines", "boston_model.yaml"))
    with pytest.raises(ValueError, match="takes no sizes"):
        gaussian["model"].predict(np.zeros((1, 13)), sizes=np.ones(1))
