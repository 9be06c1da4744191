"""scikit-learn-style estimators over quench's engines (docs/python.md): get_params /
set_params, fit returns self, fitted attributes end in "_", predict / predict_proba / score.
Each fit runs a pipeline built from the estimator's parameters on the arrays in memory (no
files), through the same plugins as the CLI, and keeps the fitted model for predict."""
import inspect
import sys
import warnings

import numpy as np

from . import _quench
from .kernels import Gaussian, Kernel, column_name


class _Estimator:
    """get_params / set_params from the constructor's keyword arguments (scikit-learn's
    convention, without depending on scikit-learn)."""

    @classmethod
    def _param_names(cls):
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep=True):
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        for name, value in params.items():
            if name not in self._param_names():
                raise ValueError(f"{type(self).__name__} has no parameter '{name}'; "
                                 f"it has {', '.join(self._param_names())}")
            setattr(self, name, value)
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    @staticmethod
    def _inputs(X, fitted_width=None):
        if hasattr(X, "tocsr") and hasattr(X, "nnz"):  # scipy.sparse, without importing it
            raise TypeError("sparse input is not supported: pass a dense array (X.toarray())")
        X = np.asarray(X)
        if np.iscomplexobj(X):
            raise ValueError("Complex data not supported: X must hold real numbers")
        X = X.astype(np.float64, copy=False)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D array (samples x features), got {X.ndim} dimensions. "
                             "Reshape your data: X.reshape(-1, 1) for one feature, "
                             "X.reshape(1, -1) for one sample")
        if X.shape[0] == 0:
            raise ValueError("X has no samples")
        if X.shape[1] == 0:
            raise ValueError(f"X has 0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
        if not np.isfinite(X).all():
            bad = np.argwhere(~np.isfinite(X))[0]
            raise ValueError(f"X holds {X[bad[0], bad[1]]} (NaN or inf) at sample {bad[0]}, "
                             f"feature {bad[1]}")
        if fitted_width is not None and X.shape[1] != fitted_width:
            raise ValueError(f"X has {X.shape[1]} features, the model was fitted on {fitted_width}")
        return np.asfortranarray(X)

    def _check_fitted(self, attribute="model_"):
        """NotFittedError unless fit has set `attribute`."""
        if not hasattr(self, attribute):
            raise _sklearn_or("NotFittedError", NotFittedError)(
                f"this {type(self).__name__} is not fitted yet: call fit first")

    def _predictions(self, X):
        """The fitted model's columns at X (NotFittedError before fit, ValueError for another
        width)."""
        self._check_fitted()
        return self.model_.predict(self._inputs(X, self.n_features_in_))

    def _fit_pipeline(self, yaml, X, targets):
        """The pipeline on the arrays; every run must end ok. Sets n_features_in_, model_ (of
        the first run), learned_ and learning_ (its learning report, None without learning:
        learned values, keys at a bound, iterations, evaluations); returns the runs."""
        names = [column_name(j) for j in range(X.shape[1])]
        runs = _quench.run_arrays(yaml, "fit data", "", self.threads, [], names, "y", X, targets,
                                  None, [])
        for run in runs:
            if run["status"]["code"] != "ok":
                raise _quench.NumericalError(
                    f"{type(self).__name__}.fit: {run['status']['message']}")
        self.n_features_in_ = X.shape[1]
        self.model_ = runs[0]["model"]
        self.learning_ = runs[0]["learning"]
        self.learned_ = self.learning_["learned"] if self.learning_ else {}
        return runs


class NotFittedError(ValueError, AttributeError):
    """predict (or the like) before fit."""


class DataConversionWarning(UserWarning):
    """y came as a column vector (n x 1) and was flattened."""


def _sklearn_or(name, own):
    """scikit-learn's class `name` when scikit-learn is in use (already imported), so that its
    tools recognize the error or warning; else quench's own class of the same name and bases."""
    module = sys.modules.get("sklearn.exceptions")
    return getattr(module, name, own) if module is not None else own


def _labelled(X, y, what):
    """y as a 1-D array with one entry per sample of X (a column vector is flattened, with a
    DataConversionWarning, as scikit-learn does), real and, if numbers, finite; float64 for
    what="target"."""
    y = np.asarray(y)
    if np.iscomplexobj(y):
        raise ValueError("Complex data not supported: y must hold real numbers")
    if what == "target":
        y = y.astype(np.float64)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(_sklearn_or("DataConversionWarning", DataConversionWarning)(
            "A column-vector y was passed when a 1d array was expected; it is used flattened"),
            stacklevel=3)
        y = y[:, 0]
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-D with one {what} per sample ({X.shape[0]}), got shape {y.shape}")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError(f"y holds NaN or inf at sample {int(np.argwhere(~np.isfinite(y))[0][0])}")
    return y


def _classes(estimator, X, y, fewest, most=None):
    """X checked, y as labels and their sorted classes (between `fewest` and `most` of them).
    Numbers that are not whole are not labels (scikit-learn's "Unknown label type" error)."""
    X = estimator._inputs(X)
    y = _labelled(X, y, "label")
    if y.dtype.kind == "f" and (y != np.round(y)).any():
        raise ValueError("Unknown label type: continuous (y holds numbers that are not whole; "
                         "a classifier needs class labels)")
    classes = np.unique(y)
    if classes.size < fewest or (most is not None and classes.size > most):
        words = {2: "two"}
        count = words.get(fewest, str(fewest))
        needs = f"exactly {count}" if most == fewest else f"at least {count}"
        got = f"{classes.size} class" + ("" if classes.size == 1 else "es")
        raise ValueError(f"{type(estimator).__name__} needs {needs} classes, got {got}")
    return X, y, classes


def _accuracy(estimator, X, y):
    """Mean accuracy."""
    return float(np.mean(estimator.predict(X) == np.asarray(y)))


def _r2(estimator, X, y):
    """The coefficient of determination R^2."""
    y = np.asarray(y, dtype=np.float64)
    return float(1.0 - np.sum((y - estimator.predict(X)) ** 2) / np.sum((y - y.mean()) ** 2))


def _regression_data(estimator, X, y, fewest=1):
    """X checked (at least `fewest` samples), and y as the texts of its numbers (finite, one per
    sample)."""
    X = estimator._inputs(X)
    if X.shape[0] < fewest:
        raise ValueError(f"{type(estimator).__name__} needs at least {fewest} samples here, got "
                         f"{X.shape[0]} sample" + ("" if X.shape[0] == 1 else "s"))
    y = _labelled(X, y, "target")
    return X, [repr(float(v)) for v in y]


def _user_kernel(estimator):
    """estimator.kernel: None (the estimator's default kernel) or a quench kernel."""
    kernel = estimator.kernel
    if kernel is not None and not isinstance(kernel, Kernel):
        raise TypeError(f"kernel must be None or a quench kernel (quench.Gaussian(), "
                        f"quench.Periodic() + quench.White(), ...), got {kernel!r}")
    return kernel


def _standardized(estimator, option):
    """estimator's standardize_inputs or standardize_target: None means True for the default
    kernel (its hyperparameters are in standardized units) and False for a given kernel (its
    hyperparameters are in the data's units, as in scikit-learn)."""
    value = getattr(estimator, option)
    return _user_kernel(estimator) is None if value is None else value


def _target_yaml(estimator):
    """The data block's keys for estimator.standardize_target: True (centre and scale), "center"
    (subtract the mean only) or False (the targets as given)."""
    value = _standardized(estimator, "standardize_target")
    if isinstance(value, str) and value == "center":
        return "standardize_target: false, center_target: true"
    if value not in (True, False):
        raise ValueError(f"standardize_target must be None, True, False or 'center', got {value!r}")
    return f"standardize_target: {str(bool(value)).lower()}"


def _kernel_entry(kernel, n_features):
    """The pipeline's `  kernel:` line(s) for a quench kernel on n_features input columns."""
    node = kernel.to_yaml(n_features)
    if "\n" not in node:
        return f"  kernel: {node}\n"
    return "  kernel:\n" + "".join(f"    {line}\n" for line in node.splitlines())


def _learn_lists(parameters):
    """`parameters: [...]` and, where some have their own bounds, `, bounds: {...}` of a learn
    block, from {path: (low, high) or None}."""
    bounds = ", ".join(f"{path}: [{float(low)!r}, {float(high)!r}]"
                       for path, (low, high) in ((p, b) for p, b in parameters.items() if b))
    return (f"parameters: [{', '.join(parameters)}]"
            + (f", bounds: {{{bounds}}}" if bounds else ""))


_INDUCING_FORMS = ("fitc", "vfe", "sor")


def _inducing_yaml(estimator, n_samples):
    """The pipeline's `inducing:` block for estimator.inducing_points (None: the exact prior, "").
    M above the number of samples is cut to it with a warning (as scikit-learn's Nystroem does
    with n_components): every sample is then an inducing input."""
    m = estimator.inducing_points
    if m is None:
        return ""
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"inducing_points must be None or a positive number of inducing inputs, "
                         f"got {m!r}")
    if estimator.inducing_form not in _INDUCING_FORMS:
        raise ValueError(f"inducing_form must be one of {', '.join(_INDUCING_FORMS)}, got "
                         f"{estimator.inducing_form!r}")
    if m > n_samples:
        warnings.warn(f"inducing_points={m} is more than the {n_samples} samples: using "
                      f"{n_samples}", UserWarning)
        m = n_samples
    return (f"inducing: {{count: {int(m)}, method: greedy_variance, "
            f"form: {estimator.inducing_form}}}\n")


def _regression_yaml(estimator, resampler, engine, X):
    """GP regression: estimator.kernel (default: a Gaussian ARD kernel on standardized inputs
    and targets), Gaussian noise, the inducing-point prior when estimator.inducing_points, the
    kernel's hyperparameters (and the noise unless learn_noise=False) learned by the evidence
    when estimator.learn, then `engine`."""
    kernel = _user_kernel(estimator)
    if kernel is None:
        entry = "  kernel: {plugin: gaussian}\n"
        parameters = {"kernel.length_scales": None, "kernel.amplitude": None}
    else:
        entry = _kernel_entry(kernel, X.shape[1])
        parameters = kernel.learned_hyperparameters()
    if estimator.learn_noise:
        parameters["likelihood.noise"] = None
    learn = (f"learn: {{objective: evidence, {_learn_lists(parameters)}, "
             f"restarts: {int(estimator.restarts)}}}\n" if estimator.learn and parameters else "")
    inputs = str(bool(_standardized(estimator, "standardize_inputs"))).lower()
    return (f"name: estimator\nseed: {int(estimator.seed)}\n"
            f"data: {{file: fit data, target: y, standardize_inputs: {inputs}, "
            f"{_target_yaml(estimator)}}}\n"
            + _inducing_yaml(estimator, X.shape[0]) + "components:\n" + entry +
            f"  likelihood: {{plugin: gaussian, noise: {float(estimator.noise)!r}}}\n" + resampler +
            learn + f"engines:\n  - {engine}\noutputs: {{models: true}}\n")


def _fitted_regression_kernel(estimator):
    """kernel_: estimator.kernel (default: Gaussian()) with the values learned by the fit."""
    return (_user_kernel(estimator) or Gaussian()).with_learned(estimator.learned_)


_METHODS = {"tap": "tap", "ep": "ep", "naive": "naive_mean_field", "svm": "svm_limit"}
_MULTI_CLASS = ("joint", "one_vs_rest")
# The joint model's learned amplitude stays within these bounds: on separable classes the
# evidence keeps rising with it (by < 0.2 nats from 1e3 to 1e4 on iris), so the bound ends the
# learning early at a model that predicts the same.
_JOINT_AMPLITUDE = (1e-3, 1e4)


class GaussianProcessClassifier(_Estimator):
    """GP classifier of 001/003 (Gaussian kernel on standardized inputs), two classes or more.

    Two classes: the binary probit model, method "tap" (default), "ep", "naive" (naive mean
    field) or "svm" (the SVM limit, 001 Sec. 7: classes and a decision function, no
    probabilities). With learn=True (default) the kernel width is learned by the evidence,
    starting from `width` (of TAP for "naive" and "svm", which have none), and so is `noise`, a
    variance added to the kernel's diagonal at the training inputs (the latent function's own
    noise, which lets overlapping classes be fitted by a smooth function; noise=0 is the
    noise-free model of 001, then not learned). With inducing_points=M (two classes: method
    "ep" only; more: the joint model) EP runs on the inducing-point prior of M inputs chosen by
    greedy conditional variance (inducing_form "fitc" by default, "vfe" or "sor"), O(N M^2) per
    sweep for two classes (docs/large_n.md), O(C^2 N M^2 + (CM)^3) for the joint model of C
    (docs/multiclass.md).

    C > 2 classes (multi_class; docs/python.md): "joint" (default) is one model of all classes,
    nested EP for the multinomial probit likelihood (engine multiclass_ep, whatever `method`
    except "svm", which needs "one_vs_rest"), the kernel width and amplitude learned by its
    evidence (`noise` stays fixed: with the amplitude learned it is only a reparametrization of
    it); "one_vs_rest" fits C binary problems of `method` (engine one_vs_rest) sharing the
    width and noise, learned by the sum of their evidences (TAP's for "naive" and "svm"), and
    normalizes their probabilities; inducing_points needs two classes or the joint model.

    `kernel` (a quench kernel, docs/python.md) replaces the Gaussian kernel of `width` and
    `noise` (both then unused; latent noise is the kernel's: White(...) in a sum, or a part's
    noise=), and learn=True learns its hyperparameters (all > 0 but its fixed ones). Inputs
    are standardized (standardize_inputs: None = True for the default kernel, False for a
    given one, whose length scales are then in X's units).

    Fitted attributes: classes_, n_classes_, loo_error_ (the built-in leave-one-out error: 001
    eq 32, App. D, eq 38), loo_proba_ (N x C: p(class | the other examples) at each training
    input, the left-out field Gaussian at the cavity; not for "svm"), log_evidence_ (tap, ep,
    joint; one-vs-rest: the sum over the classes), width_, noise_, amplitude_ (learned by the
    joint model, else 1; None with a given kernel), kernel_ (the kernel with the learned
    values; the default one as Gaussian(length_scales=sqrt(width_ d), amplitude_, noise_)),
    model_ (a quench.Model)."""

    _estimator_type = "classifier"  # scikit-learn's is_classifier

    def _more_tags(self):  # scikit-learn's estimator tags
        # Two classes only where the configuration has no multi-class model.
        joint = self.multi_class == "joint"
        return {"binary_only": (self.inducing_points is not None and not joint)
                or (self.method == "svm" and joint)}

    def __init__(self, method="tap", width=1.0, noise=0.01, learn=True, seed=0, threads=0,
                 inducing_points=None, inducing_form="fitc", multi_class="joint", kernel=None,
                 standardize_inputs=None):
        self.method = method
        self.width = width
        self.noise = noise
        self.learn = learn
        self.seed = seed
        self.threads = threads
        self.inducing_points = inducing_points
        self.inducing_form = inducing_form
        self.multi_class = multi_class
        self.kernel = kernel
        self.standardize_inputs = standardize_inputs

    def fit(self, X, y):
        if self.method not in _METHODS:
            raise ValueError(f"unknown method '{self.method}': use one of {', '.join(_METHODS)}")
        if self.multi_class not in _MULTI_CLASS:
            raise ValueError(f"unknown multi_class '{self.multi_class}': use one of "
                             f"{', '.join(_MULTI_CLASS)}")
        X, y, classes = _classes(self, X, y, 2)
        joint = classes.size > 2 and self.multi_class == "joint"
        if self.inducing_points is not None and not joint:
            if classes.size > 2:
                raise ValueError(f"inducing_points with {classes.size} classes needs "
                                 "multi_class='joint' (one-vs-rest runs on the exact prior)")
            if self.method != "ep":
                raise ValueError(f"inducing_points needs method 'ep' (EP on the inducing-point "
                                 f"prior), got method '{self.method}'")
        if classes.size > 2:
            if self.method == "svm" and self.multi_class == "joint":
                raise ValueError(f"method 'svm' has no joint model of {classes.size} classes "
                                 "(the SVM limit gives no probabilities): use "
                                 "multi_class='one_vs_rest'")
        self.classes_ = classes
        self.n_classes_ = classes.size
        if classes.size == 2:
            targets = ["1" if label == classes[1] else "-1" for label in y]
        else:
            targets = [str(int(i)) for i in np.searchsorted(classes, y)]  # 0 .. C-1
        run = self._fit_pipeline(self._yaml(X, classes.size), X, targets)[0]
        assert run["engine"] == "gp"  # the fit (model_, learning_), before any other engine
        self.loo_error_ = run["scalars"]["loo_error"]
        if "loo_probability" in run["matrices"]:  # C > 2: N x C
            self.loo_proba_ = np.asarray(run["matrices"]["loo_probability"])
        elif "loo_probability" in run["vectors"]:  # p(classes_[1])
            p = np.asarray(run["vectors"]["loo_probability"])
            self.loo_proba_ = np.column_stack([1.0 - p, p])
        elif hasattr(self, "loo_proba_"):
            del self.loo_proba_  # from an earlier fit with another method
        self.log_evidence_ = run["scalars"].get("log_evidence")
        if _user_kernel(self) is not None:
            self.width_ = self.noise_ = self.amplitude_ = None
            self.kernel_ = self.kernel.with_learned(self.learned_)
            return self
        self.width_ = float(self.learned_.get("kernel.width", [self.width])[0])
        self.noise_ = float(self.learned_.get("kernel.noise", [self.noise])[0])
        self.amplitude_ = float(self.learned_.get("kernel.amplitude", [1.0])[0])
        d = self.n_features_in_  # the default's w_l = 1/(width d) = 1/l_l^2
        self.kernel_ = Gaussian(length_scales=[float(np.sqrt(self.width_ * d))] * d,
                                amplitude=self.amplitude_, noise=self.noise_)
        return self

    def _yaml(self, X, n_classes):
        """The pipeline the estimator stands for on `n_classes` classes: its engine "gp" first
        (its run is the fit), with the learning it asks for."""
        engine = _METHODS[self.method]
        joint = n_classes > 2 and self.multi_class == "joint"
        kernel = _user_kernel(self)
        if kernel is None:
            kernel_entry = f"  kernel: {{plugin: gaussian, width: {float(self.width)!r}"
            if joint:
                kernel_entry += ", amplitude: 1.0"
            kernel_entry += (f", noise: {float(self.noise)!r}" if self.noise else "") + "}\n"
            if joint:  # the noise only reparametrizes the amplitude there: not learned
                parameters = {"kernel.width": None, "kernel.amplitude": _JOINT_AMPLITUDE}
            else:
                parameters = {"kernel.width": None}
                if self.noise:
                    parameters["kernel.noise"] = None
        else:
            kernel_entry = _kernel_entry(kernel, X.shape[1])
            parameters = kernel.learned_hyperparameters()
        extra = ""  # a second engine whose objective the learning maximizes
        if n_classes == 2:
            likelihood, entry = "probit", f"{{name: gp, plugin: {engine}}}"
            evidence = engine if engine in ("tap", "ep") else "tap"  # a plugin, defaults
        elif joint:
            likelihood, entry = "multinomial_probit", "{name: gp, plugin: multiclass_ep}"
            evidence = "gp"
        else:
            likelihood = "probit"
            entry = f"{{name: gp, plugin: one_vs_rest, inner: {engine}}}"
            evidence = "gp"
            if engine not in ("tap", "ep"):  # naive, svm: TAP's evidence, as for two classes
                evidence = "tap_evidence"
                extra = "  - {name: tap_evidence, plugin: one_vs_rest, inner: tap}\n"
        learn = ""
        if self.learn and parameters:
            learn = (f"learn: {{objective: evidence, engine: {evidence}, "
                     f"{_learn_lists(parameters)}}}\n")
        else:
            extra = ""
        inputs = ", standardize_inputs: true" if _standardized(self, "standardize_inputs") else ""
        return (f"name: estimator\nseed: {int(self.seed)}\n"
                f"data: {{file: fit data, target: y{inputs}}}\n"
                + _inducing_yaml(self, X.shape[0]) + "components:\n" + kernel_entry +
                f"  likelihood: {{plugin: {likelihood}}}\n" + learn +
                f"engines:\n  - {entry}\n" + extra + "outputs: {models: true}\n")

    @property
    def predict_proba(self):
        """p(class | x): columns in classes_ order (001 eq 12; C > 2: the joint model's
        predictive, or one-vs-rest's C binary probabilities normalized to sum 1). Not offered by
        the SVM limit (hasattr(estimator, "predict_proba") is False for method="svm")."""
        if self.method == "svm":
            raise AttributeError("predict_proba: the SVM limit gives classes only (001 Sec. 7); "
                                 "use method 'tap', 'ep' or 'naive' for probabilities")
        return self._predict_proba

    def _predict_proba(self, X):
        p = self._predictions(X)
        if self.n_classes_ > 2:
            return np.column_stack([p[f"probability.{c}"] for c in range(self.n_classes_)])
        return np.column_stack([1.0 - p["probability"], p["probability"]])

    def decision_function(self, X):
        """Two classes: the log-odds log p/(1 - p) of predict_proba's second column (so it ranks
        inputs as predict_proba does, and its sign is the predicted class); the SVM's field for
        "svm". The latent posterior mean <h(x)> is model_.predict(X)["latent_mean"].

        C > 2: an (n, C) array, one column per class of classes_: the latent posterior means
        <f_c(x)> of the joint model (their argmax is predict's class but, rarely, near a class
        boundary where the classes' latent variances differ); for one-vs-rest the log-odds
        log p_c/(1 - p_c) of predict_proba's columns (the normalized probabilities), or each
        binary SVM's field for "svm" (row-wise argmax: predict's class)."""
        p = self._predictions(X)
        if self.n_classes_ > 2:
            C = self.n_classes_
            for name in ("decision", "latent_mean"):
                if f"{name}.0" in p:
                    return np.column_stack([p[f"{name}.{c}"] for c in range(C)])
            prob = np.column_stack([p[f"probability.{c}"] for c in range(C)])
            with np.errstate(divide="ignore"):
                return np.log(prob) - np.log1p(-prob)
        if "decision" in p:
            return np.asarray(p["decision"])
        with np.errstate(divide="ignore"):
            return np.log(p["probability"]) - np.log1p(-np.asarray(p["probability"]))

    def predict(self, X):
        label = self._predictions(X)["label"]
        if self.n_classes_ > 2:
            return self.classes_[np.asarray(label).astype(int)]
        return self.classes_[(label > 0).astype(int)]

    score = _accuracy


class GaussianProcessRegressor(_Estimator):
    """GP regression, by default with a Gaussian ARD kernel on standardized inputs and targets,
    else with `kernel` (a quench kernel: Gaussian() + Periodic() * ..., docs/python.md) on the
    inputs and targets as given (standardize_inputs / standardize_target: None = True for the
    default kernel, False for a given one; standardize_target="center" subtracts the targets'
    mean only; predictions are in the targets' units in every case). Exact, or with
    inducing_points=M on the inducing-point prior of M inputs chosen by greedy conditional
    variance (inducing_form "vfe", Titsias' bound, by default; "fitc" or "sor"; O(N M^2),
    docs/large_n.md). With learn=True (default) the kernel's hyperparameters (the default's
    length scales and amplitude; a given kernel's all > 0 but its fixed ones) and, unless
    learn_noise=False, the noise are learned by the evidence (its VFE bound; `restarts` seeded
    restarts). Fitted attributes: log_marginal_likelihood_ (the bound for VFE), kernel_ (the
    kernel with the learned values), learned_, model_. predict(X, return_std=True) gives the
    predictive standard deviation (noise included)."""

    _estimator_type = "regressor"  # scikit-learn's is_regressor

    def __init__(self, noise=0.1, learn=True, restarts=0, seed=0, threads=0, inducing_points=None,
                 inducing_form="vfe", kernel=None, learn_noise=True, standardize_inputs=None,
                 standardize_target=None):
        self.noise = noise
        self.learn = learn
        self.restarts = restarts
        self.seed = seed
        self.threads = threads
        self.inducing_points = inducing_points
        self.inducing_form = inducing_form
        self.kernel = kernel
        self.learn_noise = learn_noise
        self.standardize_inputs = standardize_inputs
        self.standardize_target = standardize_target

    def fit(self, X, y):
        X, targets = _regression_data(self, X, y)
        engine = "exact_gp_regression" if self.inducing_points is None else "sparse_gp_regression"
        (run,) = self._fit_pipeline(
            _regression_yaml(self, "", f"{{name: gp, plugin: {engine}}}", X), X, targets)
        scalars = run["scalars"]
        self.log_marginal_likelihood_ = scalars.get(
            "log_marginal_likelihood", scalars.get("log_marginal_likelihood_bound"))
        self.kernel_ = _fitted_regression_kernel(self)
        return self

    def predict(self, X, return_std=False):
        p = self._predictions(X)
        mean = np.asarray(p["mean"])
        return (mean, np.sqrt(p["predictive_variance"])) if return_std else mean

    score = _r2


class _BootstrapRegressor(_Estimator):
    """The bootstrap of GP regression (000) at resampling ratios S/N: the engine's test error per
    ratio and a model per ratio whose predict gives the bootstrap mean and variance of the
    predictor at new inputs. The GP is GaussianProcessRegressor's: `kernel`, learn,
    learn_noise, standardize_inputs and standardize_target as there; kernel_ after fit."""

    _estimator_type = "regressor"  # scikit-learn's is_regressor

    def fit(self, X, y):
        ratios = [float(r) for r in np.atleast_1d(self.ratios)]
        if not ratios or min(ratios) <= 0:
            raise ValueError(f"ratios must be positive resampling ratios S/N, got {self.ratios!r}")
        X, targets = _regression_data(self, X, y, fewest=2)
        resampler = f"  resampler: {{plugin: poisson_bootstrap, ratio: {ratios!r}}}\n"
        runs = self._fit_pipeline(
            _regression_yaml(self, resampler, self._engine_entry(), X), X, targets)
        self.kernel_ = _fitted_regression_kernel(self)
        self.ratios_ = np.array([r["sweep"]["resampler.ratio"] for r in runs])
        # 000 eq 21 with the square loss, in the units the GP sees (standardized by default, as
        # in results.json).
        self.test_error_ = np.array([r["scalars"]["test_error_square"] for r in runs])
        if "test_error_square_stderr" in runs[0]["scalars"]:  # Monte-Carlo: sd / sqrt(T)
            self.test_error_stderr_ = np.array(
                [r["scalars"]["test_error_square_stderr"] for r in runs])
        self.models_ = [r["model"] for r in runs]
        return self

    def predict(self, X, ratio=None, return_var=False):
        """The bootstrap mean of the predictor at X (and its bootstrap variance) at `ratio`
        (default: the first fitted ratio), in the target's units."""
        self._check_fitted("models_")
        i = 0 if ratio is None else int(np.argmin(np.abs(self.ratios_ - float(ratio))))
        if ratio is not None and self.ratios_[i] != float(ratio):
            raise ValueError(f"ratio {ratio} was not fitted; fitted: {list(self.ratios_)}")
        p = self.models_[i].predict(self._inputs(X, self.n_features_in_))
        mean = np.asarray(p["bootstrap_mean"])
        return (mean, np.asarray(p["bootstrap_variance"])) if return_var else mean

    score = _r2  # of the bootstrap mean at the first fitted ratio


class AdatapBootstrap(_BootstrapRegressor):
    """The analytical (ADATAP) bootstrap of GP regression (000): one set of equations per ratio,
    no retraining. Fitted: ratios_, test_error_ (000 eq 53 per ratio), models_ (000 eq 57 at
    any input: predict / predict(return_var=True)). With inducing_points=M, on the
    inducing-point prior (inducing_form "fitc" by default) in O(N M^2) time and O(N M) memory
    (docs/large_n.md)."""

    def __init__(self, ratios=(1.0,), noise=0.1, learn=True, restarts=0, seed=0, threads=0,
                 inducing_points=None, inducing_form="fitc", kernel=None, learn_noise=True,
                 standardize_inputs=None, standardize_target=None):
        self.ratios = ratios
        self.noise = noise
        self.learn = learn
        self.restarts = restarts
        self.seed = seed
        self.threads = threads
        self.inducing_points = inducing_points
        self.inducing_form = inducing_form
        self.kernel = kernel
        self.learn_noise = learn_noise
        self.standardize_inputs = standardize_inputs
        self.standardize_target = standardize_target

    def _engine_entry(self):
        return "{name: adatap, plugin: adatap_bootstrap, density: false}"


class MonteCarloBootstrap(_BootstrapRegressor):
    """The Monte-Carlo bootstrap of GP regression: `samples` retrains on Poisson resamples per
    ratio. Fitted: ratios_, test_error_ (000 eq 21 per ratio) and test_error_stderr_, models_
    (the retrains' mean and variance at any input). With inducing_points=M, each retrain is
    sparse GP regression on the inducing-point prior (inducing_form "fitc" by default),
    O(|D| M^2) each (docs/large_n.md)."""

    def __init__(self, ratios=(1.0,), samples=1000, noise=0.1, learn=True, restarts=0, seed=0,
                 threads=0, inducing_points=None, inducing_form="fitc", kernel=None,
                 learn_noise=True, standardize_inputs=None, standardize_target=None):
        self.ratios = ratios
        self.samples = samples
        self.noise = noise
        self.learn = learn
        self.restarts = restarts
        self.seed = seed
        self.threads = threads
        self.inducing_points = inducing_points
        self.inducing_form = inducing_form
        self.kernel = kernel
        self.learn_noise = learn_noise
        self.standardize_inputs = standardize_inputs
        self.standardize_target = standardize_target

    def _engine_entry(self):
        inner = "exact_gp_regression" if self.inducing_points is None else "sparse_gp_regression"
        return (f"{{name: monte_carlo, plugin: mc_bootstrap, samples: {int(self.samples)}, "
                f"inner: {inner}, keep_samples: false}}")


class WeightedBayesianBootstrap(_Estimator):
    """The weighted Bayesian bootstrap (004) of a penalized linear model (model="linear":
    penalty "l1" LASSO, "l2" ridge or "elastic_net" on standardized inputs; lam=None: lambda by
    10-fold cross-validation) or of trend filtering (model="trend_filter" of the targets in
    sample order, `order`, lam required): `draws` weighted posterior modes, one RNG stream each.
    Fitted: coef_draws_ (draws x coefficients, 004 Alg. 1), coef_ (their mean),
    intercept_draws_ (linear), lambda_, model_. predict(X, return_interval=True) adds the
    central `level` interval of the draws' predictions."""

    _estimator_type = "regressor"  # scikit-learn's is_regressor

    def __init__(self, model="linear", penalty="l1", lam=None, draws=1000,
                 penalty_weights="common", order=3, level=0.95, seed=0, threads=0):
        self.model = model
        self.penalty = penalty
        self.lam = lam
        self.draws = draws
        self.penalty_weights = penalty_weights
        self.order = order
        self.level = level
        self.seed = seed
        self.threads = threads

    def fit(self, X, y):
        if self.model not in ("linear", "trend_filter"):
            raise ValueError(f"unknown model '{self.model}': use linear or trend_filter")
        if self.model == "trend_filter" and self.lam is None:
            raise ValueError("trend_filter needs lam (the penalty lambda)")
        X, targets = _regression_data(self, X, y, fewest=10 if self.lam is None else 2)
        linear = self.model == "linear"
        engine = (f"{{name: wbb, plugin: wbb, model: {self.model}, draws: {int(self.draws)}, "
                  f"penalty_weights: {self.penalty_weights}, level: {float(self.level)!r}"
                  + (f", penalty: {self.penalty}" if linear else f", order: {int(self.order)}")
                  + (f", lambda: {float(self.lam)!r}" if self.lam is not None else "") + "}")
        optimizer = "coordinate_descent" if linear else "trend_filter_admm, tolerance: 1.0e-8"
        yaml = (f"name: estimator\nseed: {int(self.seed)}\n"
                "data: {file: fit data, target: y"
                + (", standardize_inputs: true" if linear else "") + "}\n"
                "components:\n  resampler: {plugin: exponential_weights}\n"
                f"  optimizer: {{plugin: {optimizer}}}\n"
                f"engines:\n  - {engine}\noutputs: {{models: true}}\n")
        (run,) = self._fit_pipeline(yaml, X, targets)
        self.coef_draws_ = run["matrices"]["posterior_draws"]
        self.coef_ = run["vectors"]["posterior_mean"]
        if linear:
            self.intercept_draws_ = run["vectors"]["intercept_draws"]
        self.lambda_ = run["scalars"]["lambda"]
        return self

    def predict(self, X, return_interval=False):
        """The mean over the draws of their predictions at X (and the central `level` interval
        of them), in the target's units."""
        p = self._predictions(X)
        mean = np.asarray(p["mean"])
        if not return_interval:
            return mean
        quantiles = sorted(k for k in p if k.startswith("q"))
        return mean, np.asarray(p[quantiles[0]]), np.asarray(p[quantiles[-1]])

    score = _r2  # of the draws' mean prediction


class VBootClassifier(_Estimator):
    """The variational bootstrap (002) classifier: `particles` perturbed MAP fits of a linear
    model on `features` random Fourier features of a Gaussian kernel (model="rff", closed form,
    eq 8), the Dirichlet label transform (eqs 10-11); any number of classes. Fitted: classes_,
    model_. predict_proba averages the particles' softmax (eq 12); predict_proba(X,
    return_sd=True) also gives their spread over the particles."""

    _estimator_type = "classifier"  # scikit-learn's is_classifier

    def __init__(self, particles=50, features=2000, width=0.2, amplitude=4.0, bias=25.0,
                 alpha_epsilon=0.01, prior_variance=1.0, seed=0, threads=0):
        self.particles = particles
        self.features = features
        self.width = width
        self.amplitude = amplitude
        self.bias = bias
        self.alpha_epsilon = alpha_epsilon
        self.prior_variance = prior_variance
        self.seed = seed
        self.threads = threads

    def fit(self, X, y):
        X, y, classes = _classes(self, X, y, 2)
        self.classes_ = classes
        targets = [str(int(np.searchsorted(classes, label))) for label in y]  # 0 .. C-1
        yaml = (f"name: estimator\nseed: {int(self.seed)}\n"
                "data: {file: fit data, target: y, standardize_inputs: true}\n"
                f"components:\n  kernel: {{plugin: gaussian, width: {float(self.width)!r}, "
                f"amplitude: {float(self.amplitude)!r}, bias: {float(self.bias)!r}, "
                f"random_features: {int(self.features)}, feature_seed: {int(self.seed) + 1}}}\n"
                f"  likelihood: {{plugin: dirichlet, alpha_epsilon: {float(self.alpha_epsilon)!r}}}\n"
                "  resampler: {plugin: perturbation}\n"
                f"engines:\n  - {{name: vboot, plugin: vboot, model: rff, particles: "
                f"{int(self.particles)}, classes: {classes.size}, "
                f"prior_variance: {float(self.prior_variance)!r}}}\noutputs: {{models: true}}\n")
        self._fit_pipeline(yaml, X, targets)
        return self

    def predict_proba(self, X, return_sd=False):
        """The particles' mean class probabilities (columns in classes_ order) and, with
        return_sd, their standard deviation over the particles."""
        p = self._predictions(X)  # first: it raises before fit
        if self.classes_.size == 2:
            prob = np.column_stack([1.0 - p["probability"], p["probability"]])
            sd = np.column_stack([p["probability_sd"], p["probability_sd"]])
        else:
            C = self.classes_.size
            prob = np.column_stack([p[f"probability_c{c}"] for c in range(C)])
            sd = np.column_stack([p[f"probability_sd_c{c}"] for c in range(C)])
        return (prob, sd) if return_sd else prob

    def predict(self, X):
        proba = self.predict_proba(X)  # first: it raises before fit
        return self.classes_[np.argmax(proba, axis=1)]

    score = _accuracy
