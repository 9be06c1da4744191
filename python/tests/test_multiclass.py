"""GaussianProcessClassifier on C > 2 classes (docs/python.md): the joint model (multiclass_ep,
multinomial probit) and one-vs-rest (one_vs_rest over each method) against the pipelines they
stand for on iris_split.csv, string labels, pickling, bad input, and two classes unchanged."""
import os
import pickle

import numpy as np
import pytest

import quench

SOURCE = os.environ["QUENCH_SOURCE"]
DATA = os.path.join(SOURCE, "examples", "data")
IRIS = os.path.join(DATA, "iris_split.csv")
NAMES = np.array(["setosa", "versicolor", "virginica"])  # iris's classes 0, 1, 2


@pytest.fixture(scope="module")
def iris():
    with open(IRIS) as f:
        header = f.readline().strip().split(",")
    d = np.loadtxt(IRIS, delimiter=",", skiprows=1)
    train = d[:, header.index("train")] == 1
    X = d[:, [i for i, h in enumerate(header) if h.endswith("_cm")]]
    y = d[:, header.index("y")].astype(int)
    return X[train], y[train], X[~train], y[~train]


@pytest.fixture(scope="module")
def joint(iris):
    X, y, _, _ = iris
    return quench.GaussianProcessClassifier().fit(X, y)


@pytest.fixture(scope="module")
def one_vs_rest(iris):
    X, y, _, _ = iris
    return {method: quench.GaussianProcessClassifier(method=method, multi_class="one_vs_rest")
            .fit(X, y) for method in ("tap", "ep", "naive", "svm")}


def iris_run(components, learn, engines):
    """A pipeline on iris_split.csv's own split (the estimator's training rows, test rows)."""
    (run, *_) = quench.run(f"""name: same
seed: 0
data: {{file: {IRIS}, target: y, split: {{rule: column, column: train}},
       standardize_inputs: true}}
components:
{components}{learn}engines:
{engines}""")
    return run


def same_up_to_rounding(mine, theirs):
    """The model's predictions at the raw test inputs against the engine's at the standardized
    ones (the run's test_probability): equal up to rounding, which the joint model's large
    latents (amplitude 1e4) amplify (measured: 7e-12 joint, 1e-16 one-vs-rest)."""
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-10)


def test_joint_is_the_pipeline_it_stands_for(iris, joint):
    # multiclass_ep with the width and amplitude learned by its evidence (amplitude within
    # [1e-3, 1e4]), the noise 0.01 fixed: the same bits as the pipeline on the file.
    X, y, Xt, yt = iris
    run = iris_run("  kernel: {plugin: gaussian, width: 1.0, amplitude: 1.0, noise: 0.01}\n"
                   "  likelihood: {plugin: multinomial_probit}\n",
                   "learn: {objective: evidence, engine: gp, parameters: [kernel.width, "
                   "kernel.amplitude], bounds: {kernel.amplitude: [0.001, 10000.0]}}\n",
                   "  - {name: gp, plugin: multiclass_ep}\n")
    c = joint
    assert c.model_.kind == "multiclass_gp_classifier"
    assert c.n_classes_ == 3 and list(c.classes_) == [0, 1, 2]
    assert c.width_ == run["learning"]["learned"]["kernel.width"][0]
    assert c.amplitude_ == run["learning"]["learned"]["kernel.amplitude"][0]
    assert c.noise_ == 0.01
    assert c.loo_error_ == run["scalars"]["loo_error"]
    assert c.log_evidence_ == run["scalars"]["log_evidence"]
    assert np.array_equal(c.loo_proba_, run["matrices"]["loo_probability"])
    assert c.loo_proba_.shape == (len(y), 3)
    p = c.predict_proba(Xt)
    same_up_to_rounding(p, run["matrices"]["test_probability"])
    assert c.score(Xt, yt) == 1.0 - run["scalars"]["test_error"]
    # Measured: 41 of 45 test rows (0.911), LOO 2 of 105, log Z = -19.59, amplitude at its
    # upper bound (iris's classes are nearly separable: the evidence rises with it).
    assert c.score(Xt, yt) >= 0.9 and c.loo_error_ <= 0.05
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(c.loo_proba_.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    # predict_proba, predict and decision_function are the model's columns.
    m = c.model_.predict(Xt)
    assert np.array_equal(p, np.column_stack([m[f"probability.{k}"] for k in range(3)]))
    assert np.array_equal(c.predict(Xt), m["label"].astype(int))
    d = c.decision_function(Xt)
    assert np.array_equal(d, np.column_stack([m[f"latent_mean.{k}"] for k in range(3)]))
    assert np.array_equal(np.argmax(d, axis=1), c.predict(Xt))  # (no near-tie here)


def test_joint_loo_proba_agrees_with_retraining_without_each_example(iris, joint):
    # The joint model's built-in leave-one-out (the predictive at each point's cavity) against
    # 105 multiclass_ep retrains, each without one training row, at the learned kernel.
    c = joint
    run = iris_run(f"  kernel: {{plugin: gaussian, width: {c.width_!r}, amplitude: "
                   f"{c.amplitude_!r}, noise: 0.01}}\n"
                   "  likelihood: {plugin: multinomial_probit}\n", "",
                   "  - {name: gp, plugin: exact_loo, inner: multiclass_ep}\n")
    gap = np.abs(c.loo_proba_ - run["matrices"]["exact_loo_probability"])
    # Measured: max 0.102, mean 0.0040 (bounds: about 1.5x and 2.5x).
    assert gap.max() < 0.15 and gap.mean() < 0.01, (gap.max(), gap.mean())
    assert run["scalars"]["exact_loo_errors"] == run["scalars"]["loo_errors"]  # 2 of 105


def test_joint_on_inducing_points(iris):
    # The joint model on the inducing-point prior (FITC): with every training row inducing its
    # prior is the exact one up to the jitter (1e-8 of K_mm's mean diagonal), so its
    # probabilities equal the exact model's (measured: 2e-9; bound 1e-6); with 20 it is a model
    # of its own, saved with its inducing inputs.
    X, y, Xt, yt = iris
    exact = quench.GaussianProcessClassifier(learn=False).fit(X, y)
    every = quench.GaussianProcessClassifier(learn=False, inducing_points=len(y)).fit(X, y)
    np.testing.assert_allclose(every.predict_proba(Xt), exact.predict_proba(Xt), rtol=0,
                               atol=1e-6)
    np.testing.assert_allclose(every.loo_proba_, exact.loo_proba_, rtol=0, atol=1e-6)
    few = quench.GaussianProcessClassifier(inducing_points=20).fit(X, y)
    assert few.model_.kind == "multiclass_gp_classifier"
    assert few.loo_proba_.shape == (len(y), 3)
    # Measured: 41 of 45 test rows, as the exact joint model.
    assert few.score(Xt, yt) >= 0.85
    again = pickle.loads(pickle.dumps(few))
    assert np.array_equal(again.predict_proba(Xt), few.predict_proba(Xt))


def test_one_vs_rest_is_the_pipeline_it_stands_for(iris, one_vs_rest):
    # one_vs_rest over TAP, the width and noise shared by the three binary problems and learned
    # by the sum of their TAP evidences: the same bits as the pipeline on the file.
    X, y, Xt, yt = iris
    run = iris_run("  kernel: {plugin: gaussian, width: 1.0, noise: 0.01}\n"
                   "  likelihood: {plugin: probit}\n",
                   "learn: {objective: evidence, engine: gp, parameters: [kernel.width, "
                   "kernel.noise]}\n",
                   "  - {name: gp, plugin: one_vs_rest, inner: tap}\n")
    c = one_vs_rest["tap"]
    assert c.model_.kind == "one_vs_rest_classifier" and c.n_classes_ == 3
    assert c.width_ == run["learning"]["learned"]["kernel.width"][0]
    assert c.noise_ == run["learning"]["learned"]["kernel.noise"][0]
    assert c.amplitude_ == 1.0
    assert c.loo_error_ == run["scalars"]["loo_error"]
    assert c.log_evidence_ == run["scalars"]["log_evidence"]  # the sum over the classes
    assert np.array_equal(c.loo_proba_, run["matrices"]["loo_probability"])
    same_up_to_rounding(c.predict_proba(Xt), run["matrices"]["test_probability"])
    assert c.score(Xt, yt) == 1.0 - run["scalars"]["test_error"]


@pytest.mark.parametrize("method", ["tap", "ep", "naive", "svm"])
def test_one_vs_rest_methods(iris, one_vs_rest, method):
    X, y, Xt, yt = iris
    c = one_vs_rest[method]
    # Measured: test accuracy 0.911 (tap, ep), 0.933 (naive, svm); LOO error 2/105 (7/105 svm).
    assert c.score(Xt, yt) >= 0.9 and c.loo_error_ <= 0.1
    # naive and svm have no evidence: their width and noise are TAP's (the summed evidence).
    if method in ("naive", "svm"):
        assert (c.width_, c.noise_) == (one_vs_rest["tap"].width_, one_vs_rest["tap"].noise_)
    m = c.model_.predict(Xt)
    assert np.array_equal(c.predict(Xt), m["label"].astype(int))
    d = c.decision_function(Xt)
    assert d.shape == (len(yt), 3)
    assert np.array_equal(np.argmax(d, axis=1), c.predict(Xt))
    if method == "svm":
        assert not hasattr(c, "predict_proba") and not hasattr(c, "loo_proba_")
        assert c.log_evidence_ is None
        assert np.array_equal(d, np.column_stack([m[f"decision.{k}"] for k in range(3)]))
        return
    p = c.predict_proba(Xt)
    assert np.array_equal(p, np.column_stack([m[f"probability.{k}"] for k in range(3)]))
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert c.loo_proba_.shape == (len(y), 3)
    np.testing.assert_allclose(c.loo_proba_.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    with np.errstate(divide="ignore"):
        assert np.array_equal(d, np.log(p) - np.log1p(-p))  # the log-odds of each column
    assert (c.log_evidence_ is None) == (method == "naive")


@pytest.mark.parametrize("multi_class", ["joint", "one_vs_rest"])
def test_string_labels(iris, joint, one_vs_rest, multi_class):
    # Labels of any type: classes_ sorted, the classes mapped to 0..C-1 in that order. The
    # species' names sort as their numbers: the same bits. Names sorted in another order
    # ('c', 'a', 'b' for 0, 1, 2) permute the columns; the joint model is symmetric in the
    # classes, its fit agrees up to EP's tolerance (measured: 5e-8 with the learning, whose
    # optimizer path the rounding moves; 3e-11 with the kernel fixed).
    X, y, Xt, yt = iris
    c = joint if multi_class == "joint" else one_vs_rest["tap"]
    named = quench.GaussianProcessClassifier(multi_class=multi_class).fit(X, NAMES[y])
    assert list(named.classes_) == ["setosa", "versicolor", "virginica"]
    assert np.array_equal(named.predict_proba(Xt), c.predict_proba(Xt))
    assert np.array_equal(named.predict(Xt), NAMES[c.predict(Xt)])
    assert named.score(Xt, NAMES[yt]) == c.score(Xt, yt)
    shuffled = np.array(["c", "a", "b"])
    other = quench.GaussianProcessClassifier(multi_class=multi_class).fit(X, shuffled[y])
    assert list(other.classes_) == ["a", "b", "c"]
    np.testing.assert_allclose(other.predict_proba(Xt), c.predict_proba(Xt)[:, [1, 2, 0]],
                               rtol=0, atol=1e-6)
    np.testing.assert_allclose(other.loo_proba_, c.loo_proba_[:, [1, 2, 0]], rtol=0, atol=1e-6)
    assert np.array_equal(other.predict(Xt), shuffled[c.predict(Xt)])


def test_multiclass_estimators_pickle_with_their_models(iris, joint, one_vs_rest):
    _, _, Xt, _ = iris
    for c in (joint, one_vs_rest["tap"], one_vs_rest["svm"]):
        same = pickle.loads(pickle.dumps(c))
        assert same.model_.kind == c.model_.kind and same.n_classes_ == 3
        assert np.array_equal(same.decision_function(Xt), c.decision_function(Xt))
        assert np.array_equal(same.predict(Xt), c.predict(Xt))
        if hasattr(c, "predict_proba"):
            assert np.array_equal(same.predict_proba(Xt), c.predict_proba(Xt))


def test_multiclass_cross_validation(iris):
    pytest.importorskip("sklearn")
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    X, y, _, _ = iris
    for multi_class in ("joint", "one_vs_rest"):
        c = quench.GaussianProcessClassifier(multi_class=multi_class)
        scores = cross_val_score(c, X, NAMES[y], cv=StratifiedKFold(3, shuffle=True,
                                                                   random_state=0))
        assert scores.shape == (3,) and (scores > 0.85).all(), (multi_class, scores)


def test_multiclass_bad_input(iris):
    X, y, _, _ = iris
    with pytest.raises(ValueError, match="at least two classes, got 1 class"):
        quench.GaussianProcessClassifier().fit(X, np.full(len(y), "setosa"))
    with pytest.raises(ValueError, match="unknown multi_class 'ovr'"):
        quench.GaussianProcessClassifier(multi_class="ovr").fit(X, y)
    with pytest.raises(ValueError, match="inducing_points with 3 classes needs "
                       "multi_class='joint'"):
        quench.GaussianProcessClassifier(method="ep", inducing_points=20,
                                         multi_class="one_vs_rest").fit(X, y)
    with pytest.raises(ValueError, match="multi_class='one_vs_rest'"):
        quench.GaussianProcessClassifier(method="svm").fit(X, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        quench.GaussianProcessClassifier().fit(X, y + 0.5)
    # The tags say which configurations take more than two classes.
    assert not quench.GaussianProcessClassifier()._more_tags()["binary_only"]
    assert quench.GaussianProcessClassifier(method="svm")._more_tags()["binary_only"]
    assert not quench.GaussianProcessClassifier(
        method="svm", multi_class="one_vs_rest")._more_tags()["binary_only"]
    assert not quench.GaussianProcessClassifier(method="ep", inducing_points=5)._more_tags()[
        "binary_only"]
    assert quench.GaussianProcessClassifier(method="ep", inducing_points=5,
                                            multi_class="one_vs_rest")._more_tags()["binary_only"]


@pytest.mark.parametrize("method", ["tap", "svm"])
def test_two_classes_are_the_binary_model_whatever_multi_class(iris, method):
    # Two of iris's classes: multi_class does not apply, the fit is the binary model of
    # before (test_estimators.py pins it to the pipeline on Sonar) with its two-column
    # loo_proba_ and its log-odds decision function.
    X, y, Xt, yt = iris
    keep, keep_t = y > 0, yt > 0
    fits = [quench.GaussianProcessClassifier(method=method, multi_class=m).fit(X[keep], y[keep])
            for m in ("joint", "one_vs_rest")]
    for c in fits:
        assert c.model_.kind == ("svm_classifier" if method == "svm" else "gp_classifier")
        assert c.n_classes_ == 2
        assert list(c.classes_) == [1, 2] and c.amplitude_ == 1.0
    a, b = fits
    assert (a.width_, a.noise_, a.loo_error_) == (b.width_, b.noise_, b.loo_error_)
    assert np.array_equal(a.decision_function(Xt[keep_t]), b.decision_function(Xt[keep_t]))
    assert a.decision_function(Xt[keep_t]).shape == (keep_t.sum(),)
    if method != "svm":
        assert a.loo_proba_.shape == (keep.sum(), 2)
        assert np.array_equal(a.predict_proba(Xt[keep_t]), b.predict_proba(Xt[keep_t]))


def test_engine_params_reach_the_engine(iris, joint):
    """engine_params are the engine plugin's options: the joint model with the default tol
    given explicitly is the default fit to the bit, an iteration cap below what it needs
    is the engine's non-convergence (a NumericalError naming it), an option the plugin lacks
    a ValueError with its suggestion, and one-vs-rest refuses them."""
    X, y, Xt, _ = iris
    same = quench.GaussianProcessClassifier(engine_params={"tol": 1e-9}).fit(X, y)
    np.testing.assert_array_equal(same.predict_proba(Xt), joint.predict_proba(Xt))
    with pytest.raises(quench.NumericalError, match="multiclass EP"):
        quench.GaussianProcessClassifier(learn=False, engine_params={"max_iterations": 2}).fit(X, y)
    with pytest.raises(ValueError, match="max_iteration.*did you mean 'max_iterations'"):
        quench.GaussianProcessClassifier(engine_params={"max_iteration": 10}).fit(X, y)
    with pytest.raises(ValueError, match="one-vs-rest runs its binary engines"):
        quench.GaussianProcessClassifier(multi_class="one_vs_rest",
                                         engine_params={"tol": 1e-6}).fit(X, y)
    with pytest.raises(ValueError, match="not an engine option's name"):
        quench.GaussianProcessClassifier(engine_params={"tol: 1, x": 1}).fit(X, y)


def test_adatap_bootstrap_classifier_is_the_pipeline_it_stands_for(iris):
    # AdatapBootstrapClassifier: the joint model's width and amplitude learned by its evidence
    # (noise-free kernel), then adatap_bootstrap with the multinomial probit per ratio: the
    # same numbers as the pipeline on the file, its model's probabilities at new inputs.
    X, y, Xt, yt = iris
    names = NAMES[y]  # string labels: classes_ in sorted order
    c = quench.AdatapBootstrapClassifier(ratios=[0.5, 1.0]).fit(X, names)
    assert list(c.classes_) == list(NAMES) and c.n_classes_ == 3
    assert list(c.ratios_) == [0.5, 1.0]
    runs = quench.run(f"""name: same
seed: 0
data: {{file: {IRIS}, target: y, split: {{rule: column, column: train}},
       standardize_inputs: true}}
components:
  kernel: {{plugin: gaussian, width: 1.0, amplitude: 1.0}}
  likelihood: {{plugin: multinomial_probit}}
  resampler: {{plugin: poisson_bootstrap, ratio: [0.5, 1.0]}}
learn: {{objective: evidence, engine: multiclass_ep, parameters: [kernel.width,
        kernel.amplitude], bounds: {{kernel.amplitude: [0.001, 10000.0]}}}}
engines:
  - {{name: adatap, plugin: adatap_bootstrap}}
""")
    assert c.width_ == runs[0]["learning"]["learned"]["kernel.width"][0]
    assert c.amplitude_ == runs[0]["learning"]["learned"]["kernel.amplitude"][0]
    for i, run in enumerate(runs):
        assert run["status"]["code"] == "ok"
        assert c.bootstrap_error_[i] == run["scalars"]["bootstrap_error"]
        assert c.bootstrap_log_loss_[i] == run["scalars"]["bootstrap_log_loss"]
        assert np.array_equal(c.left_out_proba_[i], run["matrices"]["left_out_probability"])
        p, v = c.predict_proba(Xt, ratio=run["sweep"]["resampler.ratio"], return_var=True)
        # The raw inputs against the standardized ones, through the spread's root and the
        # inner EPs at latents of amplitude 1e4: measured 1.9e-10.
        np.testing.assert_allclose(p, run["matrices"]["prediction_probability"], rtol=0,
                                   atol=1e-9)
        np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        assert (v >= 0).all() and v.shape == p.shape
    # A larger bootstrap sample errs less (iris: 0.05 at S/N = 0.5, 0.04 at 1, measured).
    assert c.bootstrap_error_[1] <= c.bootstrap_error_[0] + 2 * c.bootstrap_error_stderr_[0]
    assert list(c.predict(Xt[:3])) == list(NAMES[np.argmax(c.predict_proba(Xt[:3]), axis=1)])
    assert c.score(Xt, NAMES[yt]) >= 0.9
    with pytest.raises(ValueError, match="ratio 2.0 was not fitted"):
        c.predict_proba(Xt, ratio=2.0)


def test_kernel_per_class_is_the_pipeline_it_stands_for(iris):
    # kernel=[k_0, k_1, k_2]: the joint model with class c's latent GP on k_c, every kernel's
    # hyperparameters learned under kernel.c<c>: the same bits as the pipeline with
    # components.kernel as a list; kernel_ is a PerClass with the learned values.
    X, y, Xt, yt = iris
    kernels = [quench.Gaussian(1.0, amplitude=1.0), quench.Gaussian(2.0, amplitude=1.0),
               quench.Matern(1.0, nu=2.5)]
    c = quench.GaussianProcessClassifier(kernel=kernels, standardize_inputs=True).fit(X, y)
    lines = [f"    - {k.to_yaml(4)}\n" for k in kernels]
    paths = list(quench.PerClass(kernels).learned_hyperparameters())
    assert paths[0] == "kernel.c0.length_scales" and paths[-1] == "kernel.c2.amplitude"
    run = iris_run("  kernel:\n" + "".join(lines) + "  likelihood: {plugin: multinomial_probit}\n",
                   f"learn: {{objective: evidence, engine: gp, parameters: [{', '.join(paths)}]}}\n",
                   "  - {name: gp, plugin: multiclass_ep}\n")
    assert c.log_evidence_ == run["scalars"]["log_evidence"]
    assert np.array_equal(c.loo_proba_, run["matrices"]["loo_probability"])
    same_up_to_rounding(c.predict_proba(Xt), run["matrices"]["test_probability"])
    assert isinstance(c.kernel_, quench.PerClass) and len(c.kernel_.parts) == 3
    learned = run["learning"]["learned"]
    assert c.kernel_.parts[2].amplitude == learned["kernel.c2.amplitude"][0]
    assert c.kernel == kernels  # the parameter as given (scikit-learn's clone)
    with pytest.raises(TypeError, match="whole kernel"):
        quench.PerClass(kernels) + quench.White(0.1)
    # One-vs-rest splits it: class c's binary problem on k_c.
    ovr = quench.GaussianProcessClassifier(kernel=kernels, multi_class="one_vs_rest",
                                           method="ep", standardize_inputs=True).fit(X, y)
    assert isinstance(ovr.kernel_, quench.PerClass)
    assert ovr.score(Xt, yt) >= 0.85
    with pytest.raises(ValueError, match="one per class"):
        quench.GaussianProcessClassifier(kernel=kernels[:2]).fit(X, y)


def test_adatap_bootstrap_classifier_takes_a_kernel_per_class(iris):
    # kernel=[...] reaches the analytical bootstrap of C classes: the same numbers as the
    # pipeline with components.kernel as a list (length scales learned by the joint model's
    # evidence; amplitudes fixed: learned, they run to the bound 1e6 on nearly separable iris,
    # where the replica cavities are improper and the fit ends with that status).
    X, y, _, _ = iris
    kernels = [quench.Gaussian(1.0, amplitude=20.0, fixed=("amplitude",)),
               quench.Gaussian(2.0, amplitude=40.0, fixed=("amplitude",)),
               quench.Gaussian(1.5, amplitude=30.0, fixed=("amplitude",))]
    c = quench.AdatapBootstrapClassifier(ratios=[1.0], kernel=kernels,
                                         standardize_inputs=True).fit(X, y)
    paths = list(quench.PerClass(kernels).learned_hyperparameters())
    runs = quench.run(f"""name: same
seed: 0
data: {{file: {IRIS}, target: y, split: {{rule: column, column: train}},
       standardize_inputs: true}}
components:
  kernel:
""" + "".join(f"    - {k.to_yaml(4)}\n" for k in kernels) + f"""  likelihood: {{plugin: multinomial_probit}}
  resampler: {{plugin: poisson_bootstrap, ratio: 1.0}}
learn: {{objective: evidence, engine: multiclass_ep, parameters: [{', '.join(paths)}]}}
engines:
  - {{name: adatap, plugin: adatap_bootstrap}}
""")
    (run,) = runs
    assert run["status"]["code"] == "ok"
    assert c.bootstrap_error_[0] == run["scalars"]["bootstrap_error"]
    assert c.bootstrap_log_loss_[0] == run["scalars"]["bootstrap_log_loss"]
    assert isinstance(c.kernel_, quench.PerClass)
    assert list(c.kernel_.parts[1].length_scales) == list(
        run["learning"]["learned"]["kernel.c1.length_scales"])


def test_adatap_bootstrap_classifier_on_inducing_points_is_the_pipeline(iris):
    # inducing_points=M reaches the multi-class bootstrap's inducing-point prior: the same
    # numbers as the pipeline with an inducing: block (kernel fixed; FITC on 20 inputs).
    X, y, Xt, _ = iris
    kernel = quench.Gaussian(1.5, amplitude=20.0, fixed=("length_scales", "amplitude"))
    c = quench.AdatapBootstrapClassifier(ratios=[1.0], kernel=kernel, standardize_inputs=True,
                                         inducing_points=20).fit(X, y)
    runs = quench.run(f"""name: same
seed: 0
data: {{file: {IRIS}, target: y, split: {{rule: column, column: train}},
       standardize_inputs: true}}
inducing: {{count: 20, method: greedy_variance, form: fitc}}
components:
  kernel: {kernel.to_yaml(X.shape[1])}
  likelihood: {{plugin: multinomial_probit}}
  resampler: {{plugin: poisson_bootstrap, ratio: 1.0}}
engines:
  - {{name: adatap, plugin: adatap_bootstrap}}
""")
    (run,) = runs
    assert run["status"]["code"] == "ok"
    assert run["scalars"]["inducing_count"] == 20
    assert c.bootstrap_error_[0] == run["scalars"]["bootstrap_error"]
    assert c.bootstrap_log_loss_[0] == run["scalars"]["bootstrap_log_loss"]
    np.testing.assert_allclose(c.predict_proba(Xt), run["matrices"]["prediction_probability"],
                               rtol=0, atol=1e-9)
