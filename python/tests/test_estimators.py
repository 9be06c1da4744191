"""The scikit-learn-style estimators against the pipelines they stand for (run on the same data
files), scikit-learn's model selection, and bad input (docs/python.md)."""
import os

import numpy as np
import pytest

import quench

SOURCE = os.environ["QUENCH_SOURCE"]
DATA = os.path.join(SOURCE, "examples", "data")


def table(name):
    path = os.path.join(DATA, name)
    with open(path) as f:
        header = f.readline().strip().split(",")
    return header, np.loadtxt(path, delimiter=",", skiprows=1)


@pytest.fixture(scope="module")
def sonar():
    header, d = table("sonar.csv")
    train = d[:, header.index("train")] == 1
    X = d[:, [i for i, h in enumerate(header) if h.startswith("V")]]
    return X[train], d[train, header.index("y")], X[~train], d[~train, header.index("y")]


def sonar_run(engine, kernel="width: 1.0, noise: 0.01", learn=True):
    """The pipeline a GaussianProcessClassifier stands for, on sonar.csv's own split: `engine`
    (a plugin entry's text), the Gaussian kernel `kernel`, and by default the width and noise
    learned by TAP's evidence."""
    learning = ("learn: {objective: evidence, engine: tap, parameters: [kernel.width, "
                "kernel.noise]}\n" if learn else "")
    (run,) = quench.run(f"""name: same
seed: 0
data: {{file: {DATA}/sonar.csv, target: y, split: {{rule: column, column: train}},
       standardize_inputs: true}}
components:
  kernel: {{plugin: gaussian, {kernel}}}
  likelihood: {{plugin: probit}}
{learning}engines:
  - {{name: gp, {engine}}}
""")
    return run


def test_classifier_is_the_pipeline_it_stands_for(sonar):
    # The same model as this pipeline on the file: the arrays pass through quench's loader as
    # the file's cells do, so the learned width, the built-in LOO and the test probabilities
    # are the same bits.
    X, y, Xt, yt = sonar
    run = sonar_run("plugin: tap")
    c = quench.GaussianProcessClassifier().fit(X, y)
    assert c.width_ == run["learning"]["learned"]["kernel.width"][0]
    assert c.noise_ == run["learning"]["learned"]["kernel.noise"][0]
    assert c.loo_error_ == run["scalars"]["loo_error"]
    assert c.log_evidence_ == run["scalars"]["log_evidence"]
    assert np.array_equal(c.predict_proba(Xt)[:, 1], run["vectors"]["test_probability"])
    assert c.score(Xt, yt) == 1.0 - run["scalars"]["test_error"]
    assert list(c.classes_) == [-1.0, 1.0]
    assert np.array_equal(c.loo_proba_[:, 1], run["vectors"]["loo_probability"])
    assert np.array_equal(c.loo_proba_[:, 0], 1.0 - run["vectors"]["loo_probability"])


def test_loo_proba_agrees_with_retraining_without_each_example(sonar):
    # loo_proba_ is linear response at the fitted model (no retraining); the reference is the
    # pipeline's exact_loo engine: 104 TAP retrains, each without one example, predicting it.
    X, y, _, _ = sonar
    c = quench.GaussianProcessClassifier().fit(X, y)
    run = sonar_run("plugin: exact_loo, inner: tap",
                    kernel=f"width: {c.width_!r}, noise: {c.noise_!r}", learn=False)
    gap = np.abs(c.loo_proba_[:, 1] - run["vectors"]["exact_loo_probability"])
    # Measured: max 0.047, mean 0.0025 over the 104 training rows (bounds: 1.7x and 4x).
    assert gap.max() < 0.08 and gap.mean() < 0.01, (gap.max(), gap.mean())
    # The retrains' error count (measured: 23 of 104, as the built-in one) within two of it.
    assert abs(run["scalars"]["exact_loo_errors"] - run["scalars"]["loo_errors"]) <= 2


def test_svm_method_is_the_svm_limit_pipeline(sonar):
    X, y, Xt, yt = sonar
    run = sonar_run("plugin: svm_limit")
    c = quench.GaussianProcessClassifier(method="svm").fit(X, y)
    tap = quench.GaussianProcessClassifier().fit(X, y)
    assert (c.width_, c.noise_) == (tap.width_, tap.noise_)  # TAP's evidence: the SVM has none
    assert c.loo_error_ == run["scalars"]["loo_error"]  # 001 eq 38
    assert np.array_equal(c.decision_function(Xt), run["vectors"]["test_mean_field"])
    assert c.score(Xt, yt) == 1.0 - run["scalars"]["test_error"]
    assert not hasattr(c, "predict_proba") and not hasattr(c, "loo_proba_")
    assert c.log_evidence_ is None
    assert hasattr(quench.GaussianProcessClassifier(method="ep"), "predict_proba")


def test_fitted_estimators_pickle_with_their_models(sonar):
    import pickle
    X, y, Xt, _ = sonar
    c = quench.GaussianProcessClassifier().fit(X, y)
    same = pickle.loads(pickle.dumps(c))
    assert np.array_equal(same.predict_proba(Xt), c.predict_proba(Xt))
    assert same.model_.kind == c.model_.kind and same.width_ == c.width_


def test_regressor_is_the_pipeline_it_stands_for():
    header, d = table("boston.csv")
    inputs = [i for i, h in enumerate(header) if h != "y"]
    X, y = d[:456][:, inputs], d[:456, header.index("y")]
    (run,) = quench.run(os.path.join(SOURCE, "examples", "pipelines", "boston_model.yaml"))
    r = quench.GaussianProcessRegressor().fit(X, y)
    mine, theirs = r.model_.predict(d[456:][:, inputs]), run["model"].predict(d[456:][:, inputs])
    for column in ("mean", "variance", "predictive_variance"):
        assert np.array_equal(mine[column], theirs[column]), column
    assert r.log_marginal_likelihood_ == run["scalars"]["log_marginal_likelihood"]
    mean, sd = r.predict(d[456:][:, inputs], return_std=True)
    assert np.array_equal(sd, np.sqrt(theirs["predictive_variance"]))


def test_scikit_learn_model_selection_and_parameters(sonar):
    sklearn = pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.model_selection import KFold, cross_val_score
    X, y, _, _ = sonar
    c = quench.GaussianProcessClassifier(method="ep", width=0.5)
    assert c.get_params()["method"] == "ep"
    assert clone(c).set_params(method="naive").method == "naive"
    scores = cross_val_score(c, X, y, cv=KFold(3, shuffle=True, random_state=0))
    assert scores.shape == (3,) and (scores > 0.6).all()
    assert sklearn.__version__


def test_bad_input_is_a_value_error(sonar):
    X, y, _, _ = sonar
    with pytest.raises(ValueError, match="unknown method 'svm2'"):
        quench.GaussianProcessClassifier(method="svm2").fit(X, y)
    with pytest.raises(ValueError, match="at least two classes"):
        quench.GaussianProcessClassifier().fit(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="2-D"):
        quench.GaussianProcessClassifier().fit(X[0], y[:1])
    bad = X.copy()
    bad[4, 7] = np.nan
    with pytest.raises(ValueError, match="sample 4, feature 7"):
        quench.GaussianProcessClassifier().fit(bad, y)
    with pytest.raises(ValueError, match="not fitted"):
        quench.GaussianProcessClassifier().predict(X)
    c = quench.GaussianProcessClassifier(learn=False).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        c.predict(X[:, :5])
    with pytest.raises(ValueError, match="no parameter 'kernal'"):
        c.set_params(kernal="x")


@pytest.fixture(scope="module")
def boston():
    header, d = table("boston.csv")
    return d[:, [i for i, h in enumerate(header) if h != "y"]], d[:, header.index("y")]


def test_adatap_bootstrap_is_the_pipeline_it_stands_for(boston):
    X, y = boston
    runs = quench.run(f"""name: same
seed: 0
data: {{file: {DATA}/boston.csv, target: y, standardize_inputs: true, standardize_target: true}}
components:
  kernel: {{plugin: gaussian}}
  likelihood: {{plugin: gaussian, noise: 0.1}}
  resampler: {{plugin: poisson_bootstrap, ratio: [1.0, 2.0]}}
learn: {{objective: evidence, parameters: [kernel.length_scales, kernel.amplitude, likelihood.noise]}}
engines:
  - {{name: adatap, plugin: adatap_bootstrap, density: false}}
outputs: {{models: true}}
""")
    a = quench.AdatapBootstrap(ratios=[1, 2]).fit(X, y)
    assert list(a.ratios_) == [1.0, 2.0]
    assert list(a.test_error_) == [r["scalars"]["test_error_square"] for r in runs]
    for ratio, run in zip([1, 2], runs):
        mine, var = a.predict(X[:20], ratio=ratio, return_var=True)
        theirs = run["model"].predict(X[:20])
        assert np.array_equal(mine, theirs["bootstrap_mean"])
        assert np.array_equal(var, theirs["bootstrap_variance"])
    with pytest.raises(ValueError, match="ratio 3 was not fitted"):
        a.predict(X[:2], ratio=3)


def test_adatap_agrees_with_monte_carlo_retrains(boston):
    # Two independent computations of the bootstrap test error (000 Fig. 1): ADATAP's equations
    # against 400 GP retrains per ratio. Budget: 4.5 MC standard errors plus the approximation's
    # 4 % (measured on Boston: -2.5 % at S/N = 1, -0.3 % at 2; docs/adatap.md).
    X, y = boston
    a = quench.AdatapBootstrap(ratios=[1, 2]).fit(X, y)
    m = quench.MonteCarloBootstrap(ratios=[1, 2], samples=400).fit(X, y)
    assert np.all(m.test_error_stderr_ > 0)
    assert np.all(np.abs(a.test_error_ - m.test_error_) <=
                  4.5 * m.test_error_stderr_ + 0.04 * m.test_error_)
    mean_a, var_a = a.predict(X[:50], return_var=True)
    mean_m, var_m = m.predict(X[:50], return_var=True)
    assert np.median(np.abs(mean_a - mean_m) / np.sqrt(var_m / 400)) < 3.0


def test_weighted_bayesian_bootstrap_is_the_pipeline_it_stands_for():
    header, d = table("diabetes.csv")
    X, y = d[:, :-1], d[:, header.index("y")]
    (run,) = quench.run(f"""name: same
seed: 0
data: {{file: {DATA}/diabetes.csv, target: y, standardize_inputs: true}}
components:
  resampler: {{plugin: exponential_weights}}
  optimizer: {{plugin: coordinate_descent}}
engines:
  - {{name: wbb, plugin: wbb, draws: 200, penalty: l1, penalty_weights: common}}
outputs: {{models: true}}
""")
    w = quench.WeightedBayesianBootstrap(draws=200).fit(X, y)
    assert w.lambda_ == run["scalars"]["lambda"]  # the same 10-fold cross-validation
    assert np.array_equal(w.coef_draws_, run["matrices"]["posterior_draws"])
    assert np.array_equal(w.intercept_draws_, run["vectors"]["intercept_draws"])
    mean, lower, upper = w.predict(X[:10], return_interval=True)
    theirs = run["model"].predict(X[:10])
    assert np.array_equal(mean, theirs["mean"])
    assert np.all(lower <= mean) and np.all(mean <= upper)
    with pytest.raises(ValueError, match="trend_filter needs lam"):
        quench.WeightedBayesianBootstrap(model="trend_filter").fit(X, y)


def test_vboot_classifier_is_the_pipeline_it_stands_for(sonar):
    X, y, Xt, yt = sonar
    (run,) = quench.run(f"""name: same
seed: 0
data: {{file: {DATA}/sonar.csv, target: y, split: {{rule: column, column: train}},
       standardize_inputs: true}}
components:
  kernel: {{plugin: gaussian, width: 0.2, amplitude: 4.0, bias: 25.0, random_features: 2000,
           feature_seed: 1}}
  likelihood: {{plugin: dirichlet, alpha_epsilon: 0.01}}
  resampler: {{plugin: perturbation}}
engines:
  - {{name: vboot, plugin: vboot, model: rff, particles: 50, classes: 2}}
""")
    v = quench.VBootClassifier().fit(X, y)
    mine, theirs = v.predict_proba(Xt), run["matrices"]["class_probabilities"]
    assert np.array_equal(mine[:, 1], theirs[:, 1])  # the model's p(class 1 | x), bit for bit
    np.testing.assert_allclose(mine[:, 0], theirs[:, 0], rtol=0, atol=1e-15)  # 1 - p
    assert v.score(Xt, yt) == pytest.approx(1.0 - run["scalars"]["test_error"], abs=0)


def test_vboot_classifier_takes_any_number_of_classes():
    rng = np.random.default_rng(3)
    centers = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    labels = np.repeat(np.array(["a", "b", "c"]), 40)
    X = centers[np.repeat(np.arange(3), 40)] + rng.normal(size=(120, 2))
    v = quench.VBootClassifier(particles=20, features=300, width=1.0).fit(X, labels)
    p, sd = v.predict_proba(X, return_sd=True)
    assert p.shape == sd.shape == (120, 3)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    assert list(v.classes_) == ["a", "b", "c"] and v.score(X, labels) > 0.8


def test_sparse_regressor_is_the_pipeline_it_stands_for():
    """inducing_points=M fits sparse_gp_regression; with as many inducing inputs as samples it
    is the exact GP; bad values are refused."""
    header, d = table("boston.csv")
    inputs = [i for i, h in enumerate(header) if h != "y"]
    X, y, Xnew = d[:456][:, inputs], d[:456, header.index("y")], d[456:][:, inputs]
    r = quench.GaussianProcessRegressor(inducing_points=60, learn=False).fit(X, y)
    assert r.model_.kind == "sparse_gp_regression"
    assert r.log_marginal_likelihood_ is not None
    # The exact GP's answer with every sample an inducing input (FITC: K~ = K up to the 1e-8
    # relative jitter on K_mm, so the means agree to ~1e-6 of their scale).
    full = quench.GaussianProcessRegressor(inducing_points=456, inducing_form="fitc",
                                           learn=False).fit(X, y)
    exact = quench.GaussianProcessRegressor(learn=False).fit(X, y)
    assert np.allclose(full.predict(Xnew), exact.predict(Xnew), rtol=0, atol=1e-5 * np.std(y))
    with pytest.warns(UserWarning, match="more than the 456 samples"):
        quench.GaussianProcessRegressor(inducing_points=1000, learn=False).fit(X, y)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="inducing_points"):
            quench.GaussianProcessRegressor(inducing_points=bad).fit(X, y)
    with pytest.raises(ValueError, match="inducing_form"):
        quench.GaussianProcessRegressor(inducing_points=10, inducing_form="dtc").fit(X, y)


def test_sparse_bootstraps_reduce_to_the_exact_ones_and_agree(boston):
    """AdatapBootstrap and MonteCarloBootstrap with inducing_points: with every sample an
    inducing input they are the exact estimators up to the 1e-8 relative jitter on K_mm (same
    seeds, so the same resamples); with M = 150 the analytical and Monte-Carlo answers on the
    same sparse prior agree as the exact ones do (000 Fig. 1 budget)."""
    X, y = boston
    X, y = X[:300], y[:300]
    exact = quench.AdatapBootstrap(learn=False).fit(X, y)
    full = quench.AdatapBootstrap(learn=False, inducing_points=300).fit(X, y)
    assert np.allclose(full.test_error_, exact.test_error_, rtol=1e-4)
    assert full.models_[0].kind == "sparse_adatap_bootstrap"
    assert np.allclose(full.predict(X[:20]), exact.predict(X[:20]), atol=1e-4 * np.std(y))
    mc_exact = quench.MonteCarloBootstrap(samples=30, learn=False).fit(X, y)
    mc_full = quench.MonteCarloBootstrap(samples=30, learn=False, inducing_points=300).fit(X, y)
    assert np.allclose(mc_full.test_error_, mc_exact.test_error_, rtol=1e-4)
    assert np.allclose(mc_full.predict(X[:20]), mc_exact.predict(X[:20]), atol=1e-4 * np.std(y))
    a = quench.AdatapBootstrap(ratios=[1, 2], learn=False, inducing_points=150).fit(X, y)
    m = quench.MonteCarloBootstrap(ratios=[1, 2], samples=400, learn=False,
                                   inducing_points=150).fit(X, y)
    assert np.all(np.abs(a.test_error_ - m.test_error_) <=
                  4.5 * m.test_error_stderr_ + 0.04 * m.test_error_)


def test_sparse_ep_classifier(sonar):
    """GaussianProcessClassifier(method="ep", inducing_points=M): every sample an inducing input
    is exact EP (test probabilities to 1e-4: the K_mm jitter moves the fit by ~1e-6); fewer
    give the built-in leave-one-out too; other methods refuse inducing points."""
    X, y, Xt, yt = sonar
    exact = quench.GaussianProcessClassifier(method="ep", learn=False).fit(X, y)
    full = quench.GaussianProcessClassifier(method="ep", learn=False,
                                            inducing_points=len(y)).fit(X, y)
    assert np.allclose(full.predict_proba(Xt), exact.predict_proba(Xt), atol=1e-4)
    sparse = quench.GaussianProcessClassifier(method="ep", inducing_points=40).fit(X, y)
    assert sparse.loo_proba_.shape == (len(y), 2)
    assert 0.0 <= sparse.loo_error_ <= 0.5 and sparse.score(Xt, yt) > 0.6
    with pytest.raises(ValueError, match="needs method 'ep'"):
        quench.GaussianProcessClassifier(method="tap", inducing_points=40).fit(X, y)


@pytest.mark.parametrize("threads", [-1, 4097])
def test_a_thread_count_the_cli_refuses_is_a_value_error(threads):
    """threads as the CLI's --threads: 0 (all cores) up to 4096 (issue 36: -1 was accepted)."""
    X = np.linspace(0.0, 1.0, 12).reshape(-1, 1)
    with pytest.raises(ValueError, match=f"threads must be 0 .* got {threads}"):
        quench.GaussianProcessRegressor(learn=False, threads=threads).fit(X, np.sin(3 * X[:, 0]))
    with pytest.raises(ValueError, match="threads must be"):
        quench.run("data: {file: nowhere.csv, target: y}\nengines: [exact_gp_regression]\n",
                   threads=threads)


def test_a_parameter_value_the_plugins_refuse_is_a_value_error_without_hidden_positions():
    """issue 36: MonteCarloBootstrap(samples=1) raised quench.PipelineError pointing into the
    YAML the estimator wrote for itself; docs/python.md promises a ValueError."""
    X = np.linspace(0.0, 1.0, 12).reshape(-1, 1)
    with pytest.raises(ValueError, match="MonteCarloBootstrap: parameter 'samples' of engine "
                                         "plugin 'mc_bootstrap' must be >= 2, got 1") as caught:
        quench.MonteCarloBootstrap(samples=1).fit(X, np.sin(3 * X[:, 0]))
    assert ":1:" not in str(caught.value) and "fit data" not in str(caught.value)


def test_verbose_prints_the_learning_as_the_cli_does(capfd):
    """verbose=True: the CLI's lines on stderr (the learned hyperparameters; the evaluations
    and bars only on a terminal); verbose=False (the default): nothing."""
    X = np.linspace(0.0, 1.0, 20).reshape(-1, 1)
    y = np.sin(3 * X[:, 0])
    quench.GaussianProcessRegressor().fit(X, y)
    assert capfd.readouterr().err == ""
    quench.GaussianProcessRegressor(verbose=True).fit(X, y)
    err = capfd.readouterr().err
    assert "learned hyperparameters by evidence" in err, err


def test_sample_weight_repeats_samples(boston, sonar):
    """Integer sample weights are frequency weights: the fit equals the fit on the data with
    each sample repeated that often (weight 0 drops it), to the bit, for a regressor, a
    classifier and the weighted Bayesian bootstrap; other weights are a ValueError."""
    X, y = boston[0][:60], boston[1][:60]
    w = np.arange(60) % 3  # 0, 1, 2, ...
    Xr, yr = np.repeat(X, w, axis=0), np.repeat(y, w)
    for make in (lambda: quench.GaussianProcessRegressor(learn=False),
                 lambda: quench.WeightedBayesianBootstrap(draws=50, lam=0.1)):
        weighted = make().fit(X, y, sample_weight=w).predict(X)
        repeated = make().fit(Xr, yr).predict(X)
        np.testing.assert_array_equal(weighted, repeated)
    both = np.r_[0:25, -25:0]  # sonar's rows are sorted by class
    Xs, ys = sonar[0][both], sonar[1][both]
    ws = np.arange(50) % 2 + 1
    weighted = quench.GaussianProcessClassifier(learn=False).fit(Xs, ys, sample_weight=ws)
    repeated = quench.GaussianProcessClassifier(learn=False).fit(
        np.repeat(Xs, ws, axis=0), np.repeat(ys, ws))
    np.testing.assert_array_equal(weighted.predict_proba(Xs), repeated.predict_proba(Xs))
    gp = quench.GaussianProcessRegressor(learn=False)
    with pytest.raises(ValueError, match="frequency weights .* sample 2 has 0.5"):
        gp.fit(X[:4], y[:4], sample_weight=[1, 1, 0.5, 1])
    with pytest.raises(ValueError, match="sample 1 has -1.0"):
        gp.fit(X[:4], y[:4], sample_weight=[1, -1, 1, 1])
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(3,\), expected \(4,\)"):
        gp.fit(X[:4], y[:4], sample_weight=[1, 1, 1])
    with pytest.raises(ValueError, match="0 for every sample"):
        gp.fit(X[:4], y[:4], sample_weight=np.zeros(4))
    # Learning a Gaussian noise by the evidence, a repeated sample (its target repeated too)
    # makes the evidence unbounded: weights above 1 are refused there, 0 and 1 are subsets.
    for learning in (quench.GaussianProcessRegressor(), quench.AdatapBootstrap(),
                     quench.MonteCarloBootstrap(samples=20)):
        with pytest.raises(ValueError, match="unbounded .*sample 0 has 2.0"):
            learning.fit(X, y, sample_weight=np.r_[2, np.ones(59)])
    subset = quench.GaussianProcessRegressor().fit(X, y, sample_weight=w > 0)
    np.testing.assert_array_equal(subset.predict(X),
                                  quench.GaussianProcessRegressor().fit(X[w > 0], y[w > 0])
                                  .predict(X))
