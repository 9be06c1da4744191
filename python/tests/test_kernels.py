"""quench's kernel objects (python/quench/kernels.py, docs/python.md "Kernels"): the + / *
algebra, the pipeline YAML and learn paths they emit, kernel_ after a fit, and the estimators
with a given kernel against independent references: scikit-learn's GaussianProcessRegressor
with the same fixed kernel, and a dense NumPy GP for kernels on chosen columns."""
import copy

import numpy as np
import pytest

import quench
from quench import (Constant, Gaussian, Linear, Matern, Periodic, Product, RationalQuadratic,
                    Sum, White)


def rasmussen_williams():
    """R&W Sec. 5.4.3's CO2 kernel at their values (the periodic part's amplitude fixed: the
    product has the Gaussian's)."""
    return (Gaussian(67.0, amplitude=4356.0)
            + Gaussian(90.0, amplitude=5.76) * Periodic(1.3, period=1.0, fixed=("amplitude",))
            + RationalQuadratic(1.2, alpha=0.78, amplitude=0.4356)
            + Gaussian(0.134, amplitude=0.0324) + White(0.0361))


# --- The algebra, YAML and learn paths (no fit).

def test_sums_and_products_compose_and_flatten():
    a, b, c = Gaussian(), Periodic(), White(0.1)
    assert a + b + c == Sum([a, b, c])  # (a + b) + c flattened
    assert a + (b + c) == Sum([a, b, c])
    assert a * b * Linear() == Product([a, b, Linear()])
    assert (a + b) * c == Product([Sum([a, b]), c])  # a sum inside a product stays one part
    assert 2.0 * a == Product([Constant(2.0), a]) and a * 3 == Product([a, Constant(3.0)])
    assert 1.5 + a == Sum([Constant(1.5), a])
    inner = Sum([a, b], columns=[0])
    assert len((inner + c).parts) == 2  # a sum on its own columns is not flattened
    with pytest.raises(TypeError):
        a + "x"
    assert a != Gaussian(2.0) and a != Matern() and Gaussian(amplitude=2) != Constant(2.0)


def test_rasmussen_williams_kernel_yaml_and_learn_paths():
    k = rasmussen_williams()
    assert k.to_yaml(1) == """sum:
  - {plugin: gaussian, length_scales: [67.0], amplitude: 4356.0}
  - product:
      - {plugin: gaussian, length_scales: [90.0], amplitude: 5.76}
      - {plugin: periodic, length_scales: [1.3], period: 1.0, amplitude: 1.0}
  - {plugin: rational_quadratic, length_scales: [1.2], alpha: 0.78, amplitude: 0.4356}
  - {plugin: gaussian, length_scales: [0.134], amplitude: 0.0324}
  - {plugin: white, noise: 0.0361}"""
    assert list(k.learned_hyperparameters()) == [
        "kernel.0.length_scales", "kernel.0.amplitude",
        "kernel.1.0.length_scales", "kernel.1.0.amplitude",
        "kernel.1.1.length_scales", "kernel.1.1.period",  # the periodic amplitude is fixed
        "kernel.2.length_scales", "kernel.2.amplitude", "kernel.2.alpha",
        "kernel.3.length_scales", "kernel.3.amplitude", "kernel.4.noise"]


def test_yaml_of_parameters_columns_and_bounds():
    # One length scale is one per column of the kernel's inputs; bias and noise 0 are absent
    # (and so not learned); columns name X's columns as the estimators do (x<j>).
    assert Gaussian(2.0, bias=0.5).to_yaml(3) == \
        "{plugin: gaussian, length_scales: [2.0, 2.0, 2.0], amplitude: 1.0, bias: 0.5}"
    assert Matern([1.0, 3.0], nu=2.5, noise=0.01).learned_hyperparameters("kernel") == {
        "kernel.length_scales": None, "kernel.amplitude": None, "kernel.noise": None}
    k = Product([Gaussian(columns=[2]) + Linear(columns=[0, 2]), Constant(0.5)])
    assert k.to_yaml(3) == """product:
  - sum:
      - {plugin: gaussian, length_scales: [1.0], amplitude: 1.0, columns: [x2]}
      - {plugin: linear, length_scales: [1.0, 1.0], columns: [x0, x2]}
  - {plugin: constant, value: 0.5}"""
    on_columns = Sum([Gaussian(), Periodic(period=2.0)], columns=[1])
    assert on_columns.to_yaml(4).splitlines()[1:] == [
        "  - {plugin: gaussian, length_scales: [1.0], amplitude: 1.0}",
        "  - {plugin: periodic, length_scales: [1.0], period: 2.0, amplitude: 1.0}",
        "columns: [x1]"]
    bounded = Periodic(bounds={"period": (0.5, 2.0)}, fixed=("length_scales", "amplitude"))
    assert (White(0.1) + bounded).learned_hyperparameters() == {
        "kernel.0.noise": None, "kernel.1.period": (0.5, 2.0)}
    with pytest.raises(ValueError, match="one number or 2"):
        Gaussian([1.0, 2.0, 3.0]).to_yaml(2)
    with pytest.raises(ValueError, match="column 3 is not a column index"):
        Gaussian(columns=[3]).to_yaml(3)
    with pytest.raises(ValueError, match="no hyperparameter 'width'"):
        Gaussian(fixed=("width",))
    with pytest.raises(ValueError, match="0 < low < high"):
        Gaussian(bounds={"amplitude": (2.0, 1.0)})
    with pytest.raises(ValueError, match="nu must be"):
        Matern(nu=1.0)


def test_repr_copy_and_learned_values():
    k = rasmussen_williams()
    assert repr(Gaussian(67.0, amplitude=4356.0) + White(0.5)) == \
        "Gaussian(length_scales=67.0, amplitude=4356.0) + White(noise=0.5)"
    assert repr(2.0 * (Gaussian() + White(0.1))) == \
        "Constant(value=2.0) * (Gaussian() + White(noise=0.1))"
    assert eval(repr(k), vars(quench)) == k
    assert copy.deepcopy(k) == k and copy.deepcopy(k) is not k
    learned = {"kernel.0.length_scales": np.array([50.0]), "kernel.1.1.period": np.array([1.01]),
               "kernel.4.noise": np.array([0.04])}
    fitted = k.with_learned(learned)
    assert fitted.parts[0].length_scales == [50.0] and fitted.parts[1].parts[1].period == 1.01
    assert fitted.parts[4].noise == 0.04 and fitted.parts[2] == k.parts[2]  # others unchanged
    assert k.parts[0].length_scales == 67.0  # the original is left alone
    assert fitted.parts[1].parts[1].fixed == ("amplitude",)


# --- Fits against independent references.

@pytest.fixture(scope="module")
def periodic_data():
    """A small 1-D periodic data set: a yearly cycle on a trend, observed with noise, in raw
    units (decimal years), and new inputs beyond it."""
    rng = np.random.default_rng(5)
    x = np.sort(rng.uniform(0.0, 4.0, 40))
    y = np.sin(2 * np.pi * x) + 0.5 * x + 0.1 * rng.normal(size=x.size)
    return x[:, None], y, np.linspace(-0.5, 5.0, 23)[:, None]


def scikit_learn_kernels():
    """(quench kernel, the same kernel in scikit-learn) pairs: sums, products, periodic,
    rational quadratic, white, constant, Matern."""
    sk = pytest.importorskip("sklearn.gaussian_process.kernels")
    C = sk.ConstantKernel
    return [
        (Gaussian(2.0, amplitude=1.5) * Periodic(0.9, period=1.1, fixed=("amplitude",))
         + White(0.02),
         C(1.5) * sk.RBF(2.0) * sk.ExpSineSquared(0.9, 1.1) + sk.WhiteKernel(0.02)),
        (RationalQuadratic(0.7, alpha=1.3, amplitude=0.8) + Gaussian(3.0, amplitude=2.0)
         + White(0.05),
         C(0.8) * sk.RationalQuadratic(0.7, 1.3) + C(2.0) * sk.RBF(3.0) + sk.WhiteKernel(0.05)),
        (Constant(0.3) * (Periodic(1.2, period=0.95, amplitude=2.0) + Matern(1.5, nu=2.5)),
         C(0.3) * (C(2.0) * sk.ExpSineSquared(1.2, 0.95) + sk.Matern(1.5, nu=2.5))),
    ]


def test_fixed_kernels_agree_with_scikit_learn(periodic_data):
    # The same fixed kernel, noise (alpha) and raw targets (normalize_y=False): the log
    # marginal likelihood and predictive mean to 1e-8 relative; scikit-learn's variance at new
    # inputs has the white noise in it (its WhiteKernel's diagonal), quench's latent one not.
    from sklearn.gaussian_process import GaussianProcessRegressor as SkRegressor
    X, y, Xnew = periodic_data
    for kernel, sk_kernel in scikit_learn_kernels():
        mine = quench.GaussianProcessRegressor(kernel=kernel, noise=0.01, learn=False).fit(X, y)
        theirs = SkRegressor(sk_kernel, alpha=0.01, optimizer=None, normalize_y=False).fit(X, y)
        assert mine.log_marginal_likelihood_ == pytest.approx(
            theirs.log_marginal_likelihood_value_, rel=1e-8), kernel
        mean, sd = theirs.predict(Xnew, return_std=True)
        np.testing.assert_allclose(mine.predict(Xnew), mean, rtol=1e-8, atol=1e-8 * np.abs(y).max())
        white = sum(p.noise for p in getattr(kernel, "parts", []) if isinstance(p, White))
        latent = mine.model_.predict(Xnew)["variance"]
        np.testing.assert_allclose(latent + white, sd ** 2, rtol=1e-8, atol=1e-12)
        assert mine.kernel_ == kernel  # nothing learned


def test_learned_kernel_round_trip(periodic_data):
    # kernel_ is the kernel at the learned values: fitted again without learning it gives the
    # learned log marginal likelihood and the same predictions; scikit-learn agrees on that
    # likelihood at those values.
    from sklearn.gaussian_process import GaussianProcessRegressor as SkRegressor
    X, y, Xnew = periodic_data
    kernel, _ = scikit_learn_kernels()[0]
    learned = quench.GaussianProcessRegressor(kernel=kernel, noise=1e-6,
                                              learn_noise=False).fit(X, y)
    assert set(learned.learned_) == set(kernel.learned_hyperparameters())
    k = learned.kernel_
    assert abs(k.parts[0].parts[1].period - 1.0) < 0.05  # the cycle, in X's units (years)
    again = quench.GaussianProcessRegressor(kernel=k, noise=1e-6, learn=False).fit(X, y)
    assert again.log_marginal_likelihood_ == pytest.approx(learned.log_marginal_likelihood_,
                                                            rel=1e-12)
    np.testing.assert_allclose(again.predict(Xnew), learned.predict(Xnew), rtol=1e-10)
    gauss, periodic = k.parts[0].parts
    sk = pytest.importorskip("sklearn.gaussian_process.kernels")
    sk_kernel = (sk.ConstantKernel(gauss.amplitude) * sk.RBF(gauss.length_scales[0])
                 * sk.ExpSineSquared(periodic.length_scales[0], periodic.period)
                 + sk.WhiteKernel(k.parts[1].noise))
    theirs = SkRegressor(sk_kernel, alpha=1e-6, optimizer=None).fit(X, y)
    assert theirs.log_marginal_likelihood_value_ == pytest.approx(
        learned.log_marginal_likelihood_, rel=1e-8)


def test_centred_targets(periodic_data):
    # standardize_target="center": the GP on the targets less their mean (R&W's CO2 model),
    # predictions back in the targets' units; bad values are refused.
    X, y, Xnew = periodic_data
    kernel, _ = scikit_learn_kernels()[0]
    centred = quench.GaussianProcessRegressor(kernel=kernel, noise=0.01, learn=False,
                                              standardize_target="center").fit(X, y)
    by_hand = quench.GaussianProcessRegressor(kernel=kernel, noise=0.01, learn=False
                                              ).fit(X, y - y.mean())
    assert centred.log_marginal_likelihood_ == pytest.approx(by_hand.log_marginal_likelihood_,
                                                             rel=1e-12)
    np.testing.assert_allclose(centred.predict(Xnew), by_hand.predict(Xnew) + y.mean(),
                               rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="standardize_target must be"):
        quench.GaussianProcessRegressor(kernel=kernel, standardize_target="scale").fit(X, y)


def dense_log_marginal_likelihood(K, y):
    """log N(y | 0, K), by a Cholesky factor."""
    L = np.linalg.cholesky(K)
    a = np.linalg.solve(L, y)
    return -0.5 * a @ a - np.log(np.diag(L)).sum() - 0.5 * y.size * np.log(2 * np.pi)


def test_kernels_on_columns_against_a_dense_gp():
    # An additive kernel: a periodic one on column 1, a Gaussian ARD one on columns 0 and 2,
    # against its covariance written out in NumPy.
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 3, size=(30, 3))
    y = np.sin(2 * np.pi * X[:, 1] / 1.5) + X[:, 0] * X[:, 2] + 0.1 * rng.normal(size=30)
    kernel = Periodic(0.8, period=1.5, columns=[1]) + Gaussian([1.2, 2.0], amplitude=1.7,
                                                               columns=[0, 2])
    r = quench.GaussianProcessRegressor(kernel=kernel, noise=0.05, learn=False).fit(X, y)
    d1 = X[:, 1, None] - X[None, :, 1]
    periodic = np.exp(-2 * np.sin(np.pi * d1 / 1.5) ** 2 / 0.8 ** 2)
    d0, d2 = X[:, 0, None] - X[None, :, 0], X[:, 2, None] - X[None, :, 2]
    gaussian = 1.7 * np.exp(-0.5 * (d0 ** 2 / 1.2 ** 2 + d2 ** 2 / 2.0 ** 2))
    K = periodic + gaussian + 0.05 * np.eye(30)
    assert r.log_marginal_likelihood_ == pytest.approx(dense_log_marginal_likelihood(K, y),
                                                       rel=1e-10)


def test_default_kernel_is_today_s_and_is_gaussian_on_standardized_data():
    # kernel=None is the estimator's kernel of before (test_estimators.py holds it to the
    # pipelines bitwise): Gaussian() on standardized inputs and targets, to the bit, learning
    # included; kernel_ reports it with the learned values.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) * [1.0, 10.0, 0.1]
    y = X[:, 0] + np.sin(X[:, 1] / 5) + 0.1 * rng.normal(size=60)
    default = quench.GaussianProcessRegressor().fit(X, y)
    explicit = quench.GaussianProcessRegressor(kernel=Gaussian(), standardize_inputs=True,
                                               standardize_target=True).fit(X, y)
    mean, sd = default.predict(X[:10] * 1.1, return_std=True)
    mean2, sd2 = explicit.predict(X[:10] * 1.1, return_std=True)
    assert np.array_equal(mean, mean2) and np.array_equal(sd, sd2)
    assert default.log_marginal_likelihood_ == explicit.log_marginal_likelihood_
    assert default.kernel_ == explicit.kernel_
    assert default.kernel_.length_scales == list(default.learned_["kernel.length_scales"])
    assert set(default.learned_) == {"kernel.length_scales", "kernel.amplitude", "likelihood.noise"}
    # A given kernel sees the data as given (scikit-learn's units): Gaussian() is then the
    # default kernel on raw inputs and targets.
    raw = quench.GaussianProcessRegressor(kernel=Gaussian()).fit(X, y)
    unscaled = quench.GaussianProcessRegressor(standardize_inputs=False,
                                               standardize_target=False).fit(X, y)
    assert raw.log_marginal_likelihood_ == unscaled.log_marginal_likelihood_
    assert raw.log_marginal_likelihood_ != default.log_marginal_likelihood_


def test_bootstraps_take_a_kernel(periodic_data):
    X, y, Xnew = periodic_data
    kernel = Gaussian(2.0, amplitude=1.5) * Periodic(0.9, period=1.1, fixed=("amplitude",))
    a = quench.AdatapBootstrap(kernel=kernel, ratios=[1, 2], noise=0.02, learn=False).fit(X, y)
    m = quench.MonteCarloBootstrap(kernel=kernel, samples=200, noise=0.02, learn=False).fit(X, y)
    assert a.kernel_ == kernel == m.kernel_
    # The bootstrap mean at S = N of the fixed GP is close to the GP's own mean (same kernel).
    gp = quench.GaussianProcessRegressor(kernel=kernel, noise=0.02, learn=False).fit(X, y)
    assert np.abs(a.predict(Xnew[3:18], ratio=1) - gp.predict(Xnew[3:18])).max() < 0.2
    assert np.abs(m.predict(Xnew[3:18]) - a.predict(Xnew[3:18], ratio=1)).max() < 0.1
    learned = quench.AdatapBootstrap(kernel=kernel).fit(X, y)
    assert set(learned.learned_) == set(kernel.learned_hyperparameters()) | {"likelihood.noise"}
    assert learned.kernel_ == kernel.with_learned(learned.learned_)


def test_classifier_takes_a_kernel():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] ** 2 + X[:, 1] > 0.5, 1, -1)
    # The default kernel written as a kernel object: w_l = 1/(width d) is length scale
    # sqrt(width d); the same model to rounding.
    default = quench.GaussianProcessClassifier(learn=False).fit(X, y)
    same = quench.GaussianProcessClassifier(
        kernel=Gaussian(np.sqrt(2.0), noise=0.01), standardize_inputs=True,
        learn=False).fit(X, y)
    np.testing.assert_allclose(same.predict_proba(X), default.predict_proba(X), atol=1e-12)
    assert default.kernel_ == Gaussian([np.sqrt(2.0)] * 2, noise=0.01)
    kernel = Gaussian([1.0, 1.0], noise=0.01) + Linear(columns=[1], fixed=("length_scales",))
    c = quench.GaussianProcessClassifier(kernel=kernel).fit(X, y)
    assert set(c.learned_) == {"kernel.0.length_scales", "kernel.0.amplitude", "kernel.0.noise"}
    assert c.kernel_ == kernel.with_learned(c.learned_) and c.width_ is None
    assert c.score(X, y) > 0.9
    # Three classes by x0 with label noise, the joint model: the kernel's hyperparameters by
    # its evidence (the amplitude bounded as the default kernel's is). It switches x1 off and
    # recovers the noise-free classes (measured: 97.5 %, the labels 77.5 %).
    bands = [-0.5, 0.5]
    labels = np.digitize(X[:, 0] + 0.3 * rng.normal(size=80), bands)
    kernel = Gaussian(1.0, noise=0.01, fixed=("noise",), bounds={"amplitude": (1e-3, 1e4)})
    j = quench.GaussianProcessClassifier(kernel=kernel).fit(X, labels)
    assert set(j.learned_) == {"kernel.length_scales", "kernel.amplitude"}
    assert j.kernel_.noise == 0.01
    assert j.kernel_.length_scales[1] > 10 * j.kernel_.length_scales[0]
    assert np.mean(j.predict(X) == np.digitize(X[:, 0], bands)) > 0.9


def test_estimator_parameters_with_a_kernel(periodic_data):
    from sklearn.base import clone
    X, y, _ = periodic_data
    r = quench.GaussianProcessRegressor(kernel=rasmussen_williams(), learn=False)
    twin = clone(r)
    assert twin.kernel == r.kernel and twin.kernel is not r.kernel
    assert "kernel=Gaussian(length_scales=67.0" in repr(r)
    r.fit(X, y)
    assert r.kernel == rasmussen_williams()  # fit leaves the parameter alone
    with pytest.raises(TypeError, match="quench kernel"):
        quench.GaussianProcessRegressor(kernel="rbf").fit(X, y)


def test_scikit_learn_checks_with_a_kernel():
    # scikit-learn's estimator checks on a regressor with a given kernel (raw inputs, the
    # kernel's own noise learned, the likelihood's fixed).
    from sklearn.utils.estimator_checks import check_estimator
    check_estimator(quench.GaussianProcessRegressor(
        kernel=Gaussian(1.0) + White(0.1), noise=1e-6, learn_noise=False))
