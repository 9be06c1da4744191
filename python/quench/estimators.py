"""scikit-learn-style estimators over quench's engines (docs/python.md): get_params /
set_params, fit returns self, fitted attributes end in "_", predict / predict_proba / score.
Each fit runs a pipeline built from the estimator's parameters on the arrays in memory (no
files), through the same plugins as the CLI, and keeps the fitted model for predict."""
import inspect
import json
import numbers
import re
import sys
import warnings

import numpy as np

from . import _quench
from .kernels import Gaussian, Kernel, PerClass, column_name, yaml_text


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

    def _inputs(self, X, fitted_width=None):
        """X as a float array (Fortran order); ValueError for what quench cannot take. At fit
        (no fitted_width) a DataFrame's column names become feature_names_in_; afterwards they
        must be the names fitted, in the same order (scikit-learn's rule and messages)."""
        if fitted_width is None:
            names = _feature_names(X)
            if names is not None:
                self.feature_names_in_ = names
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        else:
            self._check_feature_names(X)
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

    def _check_feature_names(self, X):
        """ValueError when X's column names are not those fitted, in that order; a warning when
        only one of X and the fit had names (scikit-learn's _check_feature_names)."""
        fitted, names = getattr(self, "feature_names_in_", None), _feature_names(X)
        if fitted is None and names is None:
            return
        if names is None:
            warnings.warn(f"X does not have valid feature names, but {type(self).__name__} was "
                          "fitted with feature names", UserWarning)
            return
        if fitted is None:
            warnings.warn(f"X has feature names, but {type(self).__name__} was fitted without "
                          "feature names", UserWarning)
            return
        if len(names) == len(fitted) and (names == fitted).all():
            return
        unseen = sorted(set(names) - set(fitted))
        missing = sorted(set(fitted) - set(names))

        def listed(items):
            shown = "".join(f"- {item}\n" for item in items[:5])
            return shown + ("- ...\n" if len(items) > 5 else "")

        message = "The feature names should match those that were passed during fit.\n"
        if unseen:
            message += "Feature names unseen at fit time:\n" + listed(unseen)
        if missing:
            message += "Feature names seen at fit time, yet now missing:\n" + listed(missing)
        if not unseen and not missing:
            message += "Feature names must be in the same order as they were in fit.\n"
        raise ValueError(message)

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
        """The pipeline on the arrays; every run must end ok (learning that did not converge:
        a ConvergenceWarning, the fit at the values reached). Sets n_features_in_, model_ (of
        the first run), learned_ and learning_ (its learning report, None without learning:
        learned values, keys at a bound, iterations, evaluations); returns the runs."""
        names, target = _columns(self, X.shape[1])
        try:
            runs = _quench.run_arrays(yaml, "fit data", "", self.threads, [], names, target, X,
                                      targets, None, [], bool(self.verbose))
        except _quench.PipelineError as error:
            # A parameter value the plugins refuse is the caller's ValueError; the positions in
            # the pipeline the estimator wrote for itself mean nothing to the caller.
            problems = [re.sub(r"^.*?:\d+:\d+: ", "", line) for line in str(error).splitlines()]
            raise ValueError(f"{type(self).__name__}: " + "; ".join(problems)) from error
        for run in runs:
            status, learning = run["status"], run["learning"]
            if status["code"] == "ok":
                continue
            # Learning that stopped short of an optimum is scikit-learn's ConvergenceWarning
            # (the model is fitted at the values reached); any other failure is an error.
            if (learning and learning["status"] == "not_converged"
                    and status["message"].startswith("hyperparameter learning: ")):
                warnings.warn(_sklearn_or("ConvergenceWarning", ConvergenceWarning)(
                    f"{type(self).__name__}.fit: {status['message']}"), stacklevel=3)
                continue
            raise _quench.NumericalError(f"{type(self).__name__}.fit: {status['message']}")
        self.n_features_in_ = X.shape[1]
        self.model_ = runs[0]["model"]
        self.learning_ = runs[0]["learning"]
        self.learned_ = self.learning_["learned"] if self.learning_ else {}
        return runs


def _feature_names(X):
    """A DataFrame's column names as an object array when they are all strings (scikit-learn's
    feature_names_in_), None without names or with non-string ones (TypeError when mixed)."""
    columns = getattr(X, "columns", None)
    if columns is None or not hasattr(X, "iloc"):
        return None
    names = np.asarray(columns, dtype=object)
    strings = [isinstance(name, str) for name in names]
    if all(strings) and len(names) > 0:
        return names
    if any(strings):
        raise TypeError("Feature names are only supported if all input features have string "
                        "names, but your input has "
                        f"{sorted({type(name).__name__ for name in names})} as feature name / "
                        "column name types. Convert them all to strings with "
                        "X.columns = X.columns.astype(str)")
    return None


class NotFittedError(ValueError, AttributeError):
    """predict (or the like) before fit."""


class DataConversionWarning(UserWarning):
    """y came as a column vector (n x 1) and was flattened."""


class ConvergenceWarning(UserWarning):
    """Hyperparameter learning stopped short of a converged optimum; the fit uses the values
    it reached (scikit-learn's ConvergenceWarning when scikit-learn is in use)."""


def _sklearn_or(name, own):
    """scikit-learn's class `name` when scikit-learn is in use (already imported), so that its
    tools recognize the error or warning; else quench's own class of the same name and bases."""
    module = sys.modules.get("sklearn.exceptions")
    return getattr(module, name, own) if module is not None else own


def _forget(estimator, *names):
    """Removes fitted attributes an earlier fit of another configuration left."""
    for name in names:
        if hasattr(estimator, name):
            delattr(estimator, name)


def _most_weight(estimator, likelihood):
    """1 where the fit learns a Gaussian noise variance by the evidence (a repeated sample makes
    it unbounded), else None (any whole weight)."""
    return 1 if likelihood is None and estimator.learn and estimator.learn_noise else None


# The most rows the repeated data of frequency weights may hold (their sum).
_MAX_WEIGHTED_ROWS = 10**8


def _frequency_weighted(estimator, X, y, sample_weight, most=None):
    """X and y with sample i repeated sample_weight[i] times: every estimator takes frequency
    weights, fitting the data in which sample i occurs that often (weight 0 leaves it out; a
    single number weights every sample so). X and y as given without sample_weight. ValueError
    for weights that are not whole numbers >= 0 (quench's engines have no place for a fractional
    weight), above `most` (when given), not one per sample, or that leave no sample."""
    if sample_weight is None:
        return X, y
    frame = hasattr(X, "iloc")
    if not frame:
        X = np.asarray(X)
        if X.ndim == 0:
            return X, y  # not a table of samples: the estimator's own check says what it is
    n = X.shape[0]
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim == 0:
        weights = np.full(n, float(weights))
    if weights.shape != (n,):
        raise ValueError(f"sample_weight.shape == {weights.shape}, expected {(n,)}!")
    bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0) | (weights != np.round(weights)))
    if bad.size:
        raise ValueError(
            f"{type(estimator).__name__} takes sample_weight as frequency weights (whole "
            f"numbers >= 0: weight k repeats the sample k times); sample {bad[0]} has "
            f"{weights[bad[0]]!r}")
    if most is not None and weights.max() > most:
        raise ValueError(
            f"{type(estimator).__name__} learns a Gaussian noise variance by the evidence, which "
            f"a sample repeated with its target makes unbounded (the noise runs to 0): "
            f"sample_weight takes 0 or 1 here (sample {int(np.argmax(weights))} has "
            f"{weights.max()!r}); set learn_noise=False (or learn=False) to repeat samples")
    total = weights.sum()
    if total == 0:
        raise ValueError("sample_weight is 0 for every sample: no data is left to fit")
    if total > _MAX_WEIGHTED_ROWS:
        raise ValueError(f"sample_weight repeats the samples to {total:.0f} rows, more than "
                         f"{_MAX_WEIGHTED_ROWS}")
    series = hasattr(y, "iloc")
    if not series:
        y = np.asarray(y)
    if y.ndim == 0 or y.shape[0] != n:
        raise ValueError(f"y must have one entry per sample of X ({n}), got shape {y.shape}")
    rows = np.repeat(np.arange(n), weights.astype(np.int64))
    X = X.iloc[rows] if frame else X[rows]
    y = y.iloc[rows] if series else y[rows]
    return X, y


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


def _regression_data(estimator, X, y, fewest=1, likelihood=None):
    """X checked (at least `fewest` samples), and y as the texts of its numbers (finite, one per
    sample; of the kind `likelihood` reads, when given: _likelihood)."""
    X = estimator._inputs(X)
    if X.shape[0] < fewest:
        raise ValueError(f"{type(estimator).__name__} needs at least {fewest} samples here, got "
                         f"{X.shape[0]} sample" + ("" if X.shape[0] == 1 else "s"))
    y = _labelled(X, y, "target")
    if likelihood is not None:
        _check_targets(y, likelihood)
    return X, [repr(float(v)) for v in y]


_REGRESSION_KINDS = ("real", "count", "successes")  # scalar non-binary targets

# What each target kind of a regression likelihood holds (quench/target.h), and which values are
# not of it.
_TARGET_KINDS = {
    "real": ("real numbers", lambda y: np.zeros(y.shape, dtype=bool)),
    "count": ("counts (non-negative integers)", lambda y: (y < 0) | (y != np.round(y))),
    "successes": ("successes out of one trial (0 or 1)", lambda y: (y != 0) & (y != 1)),
}


def _check_targets(y, likelihood):
    """ValueError naming the first sample whose target the likelihood cannot read."""
    what, bad = _TARGET_KINDS[likelihood["kind"]]
    wrong = np.flatnonzero(bad(y))
    if wrong.size:
        raise ValueError(f"likelihood '{likelihood['name']}' needs {what} as targets, got "
                         f"{y[wrong[0]]!r} at sample {wrong[0]} ({wrong.size} such sample"
                         + ("" if wrong.size == 1 else "s") + ")")


def _plain(value):
    """A likelihood parameter as a plain Python value: NumPy scalars unwrapped, sequences as
    lists of floats."""
    if isinstance(value, (np.generic, np.ndarray)) and np.ndim(value) == 0:
        return value.item()
    if isinstance(value, (list, tuple, np.ndarray)):
        return [float(v) for v in np.ravel(value)]
    return value


def _yaml_value(value):
    """A plain parameter value as YAML flow text."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(repr(v) for v in value) + "]"
    return repr(value)


def _engine_params(estimator):
    """estimator.engine_params checked: a dict of the engine plugin's parameter names (the
    plugin checks that it has them) to numbers, booleans or strings; {} for None."""
    params = estimator.engine_params
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise ValueError(f"engine_params must be a dict of engine options, got {params!r}")
    for name, value in params.items():
        if not (isinstance(name, str) and re.fullmatch(r"[a-z_][a-z0-9_]*", name)):
            raise ValueError(f"engine_params: {name!r} is not an engine option's name")
        if not isinstance(value, (bool, numbers.Real, str)):
            raise ValueError(f"engine_params: {name} must be a number, a boolean or a string, "
                             f"got {value!r}")
    return {name: value if isinstance(value, (bool, str)) else
            int(value) if isinstance(value, numbers.Integral) else float(value)
            for name, value in params.items()}


def _likelihood(estimator, kinds, default):
    """estimator.likelihood with its likelihood_params, as the plugin found says it is: None for
    `default` (the estimator's own model, unchanged), else a dict with name, params (plain
    values), kind (its target kind) and hyperparameters (the names of its learnable blocks).
    ValueError for an unknown name (listing the likelihood plugins found), a parameter the plugin
    refuses, a target kind not in `kinds`, or a size column (exposures, trials: the estimators
    pass none)."""
    name, params = estimator.likelihood, getattr(estimator, "likelihood_params", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"likelihood must be the name of a likelihood plugin, got {name!r}")
    if params is not None and not isinstance(params, dict):
        raise ValueError(f"likelihood_params must be None or a dict of the likelihood plugin's "
                         f"parameters, got {params!r}")
    if name == default:
        if params:
            hint = " (the noise is noise=)" if default == "gaussian" else ""
            raise ValueError(f"likelihood_params are for a likelihood other than '{default}', got "
                             f"{params!r}{hint}")
        return None
    params = {str(k): _plain(v) for k, v in (params or {}).items()}
    info = _quench.likelihood_info(name, params, [])
    kind = info["target_kind"]
    if kind not in kinds:
        owner = ("GaussianProcessClassifier" if kind == "binary" else
                 "GaussianProcessRegressor" if kind in _TARGET_KINDS else None)
        raise ValueError(f"likelihood '{name}' reads {kind or 'undeclared'} targets; "
                         f"{type(estimator).__name__} needs one of {', '.join(kinds)} targets"
                         + (f": use {owner}(likelihood='{name}')" if owner else ""))
    if info["size_column"]:
        raise ValueError(f"likelihood '{name}' reads each row's size from the column "
                         f"'{info['size_column']}'; the estimators pass no such column (leave "
                         f"the likelihood's exposure or trials parameter empty)")
    return {"name": name, "params": params, "kind": kind,
            "hyperparameters": info["hyperparameters"],
            "learned_by_default": info["learned_by_default"],
            "target_unit_powers": info["target_unit_powers"]}


def _standardized_bounds(likelihood):
    """Search intervals, on standardized targets (sd 1), of the likelihood's hyperparameters in
    the target's units to a power p (as the plugin declares them): [0.01^p, 1000^p], narrower
    than the plugin's bounds. Student-t's scale from 1 % of the targets' sd: the plugin's floor,
    1e-5, lets the evidence of nearly noise-free targets drive it where EP's tilted moments cost
    most (a fit of 20 points that learns in 5.4 s within these bounds ran over 5 min without)."""
    return {name: (0.01 ** p, 1000.0 ** p)
            for name, p in likelihood["target_unit_powers"].items()}


def _learned_likelihood_blocks(estimator, likelihood):
    """The likelihood's hyperparameters a fit learns: learn_noise True (the blocks the plugin
    learns by default: Student-t's scale, not its degrees of freedom), False (none) or the names
    of some of its blocks."""
    blocks, choice = likelihood["hyperparameters"], estimator.learn_noise
    if isinstance(choice, (bool, np.bool_)):
        return list(likelihood["learned_by_default"]) if choice else []
    names = [choice] if isinstance(choice, str) else list(choice)
    unknown = [n for n in names if n not in blocks]
    if unknown:
        raise ValueError(f"learn_noise names {', '.join(map(repr, unknown))}, which likelihood "
                         f"'{likelihood['name']}' does not learn; it learns "
                         + (", ".join(map(repr, blocks)) or "nothing"))
    return names


def _likelihood_node(likelihood):
    """The pipeline's likelihood node: {plugin: name, parameter: value, ...}."""
    entries = [f"plugin: {likelihood['name']}"]
    entries += [f"{k}: {_yaml_value(v)}" for k, v in likelihood["params"].items()]
    return "{" + ", ".join(entries) + "}"


def _fit_regression(estimator, yaml, X, targets, likelihood):
    """estimator._fit_pipeline; with a likelihood (_likelihood, not None), a target the core's
    loader refuses (a third party's likelihood's checks) is a ValueError with its message."""
    if likelihood is None:
        return estimator._fit_pipeline(yaml, X, targets)
    try:
        return estimator._fit_pipeline(yaml, X, targets)
    except _quench.DataError as e:
        raise ValueError(f"{type(estimator).__name__}.fit: y does not suit likelihood "
                         f"'{likelihood['name']}': {e}") from e


def _fitted_likelihood_params(likelihood, learned):
    """The likelihood's parameters with the values learned by the fit (likelihood_params_)."""
    params = dict(likelihood["params"])
    for key, value in learned.items():
        if key.startswith("likelihood."):
            value = np.asarray(value, dtype=np.float64)
            params[key[len("likelihood."):]] = (float(value[0]) if value.size == 1
                                                else [float(v) for v in value])
    return params


def _user_kernel(estimator):
    """estimator.kernel: None (the estimator's default kernel), a quench kernel, or a list of
    them (a kernel per class, PerClass)."""
    kernel = estimator.kernel
    if isinstance(kernel, (list, tuple)):
        return PerClass(kernel)
    if kernel is not None and not isinstance(kernel, Kernel):
        raise TypeError(f"kernel must be None or a quench kernel (quench.Gaussian(), "
                        f"quench.Periodic() + quench.White(), ...), got {kernel!r}")
    return kernel


def _standardized(estimator, option):
    """estimator's standardize_inputs (or another such option): None means True for the default
    kernel (its hyperparameters are in standardized units) and False for a given kernel (its
    hyperparameters are in the data's units, as in scikit-learn)."""
    value = getattr(estimator, option)
    return _user_kernel(estimator) is None if value is None else value


def _target_transform(estimator, likelihood=None):
    """estimator.standardize_target resolved: True (centre and scale), "center" (subtract the
    mean only) or False (the targets as given). None is True for the default kernel, False for a
    given one, and False for a likelihood (_likelihood; None: Gaussian) of counts or successes,
    which are never transformed (ValueError if asked for)."""
    value = estimator.standardize_target
    real = likelihood is None or likelihood["kind"] == "real"
    if value is None:
        value = _user_kernel(estimator) is None and real
    elif not real and value is not False:
        raise ValueError(f"standardize_target={value!r} applies to real targets; likelihood "
                         f"'{likelihood['name']}' reads {likelihood['kind']} targets, taken as "
                         "given (standardize_target=None or False)")
    if isinstance(value, str) and value == "center":
        return value
    if value not in (True, False):
        raise ValueError(f"standardize_target must be None, True, False or 'center', got {value!r}")
    return bool(value)


def _target_yaml(transform):
    """The data block's keys for a _target_transform."""
    if transform == "center":
        return "standardize_target: false, center_target: true"
    return f"standardize_target: {str(transform).lower()}"


def _columns(estimator, n_features):
    """The names of the fit data's input columns and of its target column: feature_names_in_
    (a DataFrame's column names), else x0, x1, ...; the target "y", or "y_", "y__", ... when
    an input has that name. A saved model names its inputs so, and `quench predict` reads
    them from a CSV file by these names."""
    names = getattr(estimator, "feature_names_in_", None)
    names = ([str(name) for name in names] if names is not None
             else [column_name(j) for j in range(n_features)])
    seen = set()
    for name in names:
        if name in seen:
            raise ValueError(f"X has two columns named {name!r}: quench reads the inputs by "
                             "their names (rename one)")
        seen.add(name)
    target = "y"
    while target in names:
        target += "_"
    return names, target


def _data_yaml(estimator, n_features, options=""):
    """The pipeline's `data:` line on the fit data's columns (_columns), with `options` (the
    mapping's further "key: value" entries)."""
    target = yaml_text(_columns(estimator, n_features)[1])
    return f"data: {{file: fit data, target: {target}{', ' + options if options else ''}}}\n"


def _kernel_entry(estimator, kernel, n_features):
    """The pipeline's `  kernel:` line(s) for a quench kernel on the fit data's n_features
    input columns (_columns)."""
    node = kernel.to_yaml(_columns(estimator, n_features)[0])
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


def _regression_yaml(estimator, resampler, engine, X, likelihood=None):
    """GP regression: estimator.kernel (default: a Gaussian ARD kernel on standardized inputs
    and targets), Gaussian noise, the inducing-point prior when estimator.inducing_points, the
    kernel's hyperparameters (and the noise unless learn_noise=False) learned by the evidence
    when estimator.learn, then `engine`. With `likelihood` (_likelihood; None: Gaussian) that
    likelihood instead, its learnable hyperparameters learned with the kernel's unless
    learn_noise=False, by EP's evidence, and the targets as given unless standardize_target."""
    kernel = _user_kernel(estimator)
    if kernel is None:
        entry = "  kernel: {plugin: gaussian}\n"
        parameters = {"kernel.length_scales": None, "kernel.amplitude": None}
    else:
        entry = _kernel_entry(estimator, kernel, X.shape[1])
        parameters = kernel.learned_hyperparameters()
    transform = _target_transform(estimator, likelihood)
    if likelihood is None:
        node, evidence = f"{{plugin: gaussian, noise: {float(estimator.noise)!r}}}", ""
        if estimator.learn_noise:
            parameters["likelihood.noise"] = None
    else:
        node, evidence = _likelihood_node(likelihood), "engine: ep, "
        bounds = _standardized_bounds(likelihood) if transform is True else {}
        for name in _learned_likelihood_blocks(estimator, likelihood):
            parameters[f"likelihood.{name}"] = bounds.get(name)
    learn = (f"learn: {{objective: evidence, {evidence}{_learn_lists(parameters)}, "
             f"restarts: {int(estimator.restarts)}}}\n" if estimator.learn and parameters else "")
    inputs = str(bool(_standardized(estimator, "standardize_inputs"))).lower()
    return (f"name: estimator\nseed: {int(estimator.seed)}\n"
            + _data_yaml(estimator, X.shape[1],
                         f"standardize_inputs: {inputs}, {_target_yaml(transform)}")
            + _inducing_yaml(estimator, X.shape[0]) + "components:\n" + entry +
            f"  likelihood: {node}\n" + resampler +
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
    noise=), and learn=True learns its hyperparameters (all > 0 but its fixed ones); C > 2
    classes also take a list of C kernels, one per class in classes_ order (quench.PerClass;
    kernel_ is then a PerClass): the joint model's class c latent GP, or one-vs-rest's class c
    problem, on the c-th. Inputs
    are standardized (standardize_inputs: None = True for the default kernel, False for a
    given one, whose length scales are then in X's units).

    likelihood: "probit" (default, 001's model) or another likelihood plugin of binary targets
    ("logit", a third party's) for the binary model and one-vs-rest's problems, fitted by the
    same engines (the joint model of C > 2 classes is the multinomial probit's only).

    engine_params: options of the engine plugin that fits (`quench plugins multiclass_ep` lists
    the joint model's: tol, learning_tol, max_iterations, damping, acceleration_depth; those of
    ep, tap, naive_mean_field or svm_limit for two classes), e.g. {"tol": 1e-7,
    "max_iterations": 2000}; learning runs the same engine. Not for one-vs-rest, whose binary
    engines keep defaults.

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
                 verbose=False, inducing_points=None, inducing_form="fitc", multi_class="joint",
                 kernel=None, standardize_inputs=None, likelihood="probit", engine_params=None):
        self.method = method
        self.width = width
        self.noise = noise
        self.learn = learn
        self.seed = seed
        self.threads = threads
        self.verbose = verbose
        self.inducing_points = inducing_points
        self.inducing_form = inducing_form
        self.multi_class = multi_class
        self.kernel = kernel
        self.standardize_inputs = standardize_inputs
        self.likelihood = likelihood
        self.engine_params = engine_params

    def fit(self, X, y, sample_weight=None):
        X, y = _frequency_weighted(self, X, y, sample_weight)
        likelihood = _likelihood(self, ("binary",), "probit")
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
            if likelihood is not None and self.multi_class == "joint":
                raise ValueError(f"likelihood '{self.likelihood}' has no joint model of "
                                 f"{classes.size} classes (the joint model is the multinomial "
                                 "probit): use multi_class='one_vs_rest'")
            if self.engine_params and self.multi_class != "joint":
                raise ValueError("engine_params set the options of the engine of two classes "
                                 "or of the joint model; one-vs-rest runs its binary engines "
                                 "with their defaults")
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
            self.kernel_ = _user_kernel(self).with_learned(self.learned_)
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
            kernel_entry = _kernel_entry(self, kernel, X.shape[1])
            parameters = kernel.learned_hyperparameters()
        extra = ""  # a second engine whose objective the learning maximizes
        options = "".join(f", {name}: {_yaml_value(value)}"
                          for name, value in _engine_params(self).items())
        if n_classes == 2:
            likelihood, entry = self.likelihood, f"{{name: gp, plugin: {engine}{options}}}"
            evidence = "gp" if engine in ("tap", "ep") else "tap"  # TAP's, defaults, for the rest
        elif joint:
            likelihood, entry = "multinomial_probit", f"{{name: gp, plugin: multiclass_ep{options}}}"
            evidence = "gp"
        else:
            likelihood = self.likelihood
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
        inputs = "standardize_inputs: true" if _standardized(self, "standardize_inputs") else ""
        return (f"name: estimator\nseed: {int(self.seed)}\n"
                + _data_yaml(self, X.shape[1], inputs)
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
    predictive standard deviation (noise included).

    likelihood: "gaussian" (default: the model above, exact Gaussian algebra) or any other
    likelihood plugin of real, count or 0/1 targets: "poisson", "negative_binomial",
    "student_t", "binomial" (one trial), a third party's; likelihood_params (a dict) sets its
    parameters (e.g. {"dispersion": 2.0}; `noise` is the Gaussian's only). It is fitted by EP
    (engine ep; on the inducing-point prior with inducing_points) and learn=True learns the
    kernel's hyperparameters and, unless learn_noise=False, the likelihood's learnable ones by
    EP's evidence (the dispersion; Student-t's scale, and its dof when learn_noise names it:
    learn_noise=("dof", "scale")). Targets are standardized (standardize_target=None with the
    default kernel) when real (Gaussian, Student-t), never when counts. Fitted besides:
    log_evidence_ (= log_marginal_likelihood_, EP's), loo_log_predictive_ (log p(y_i | the
    other rows) per training row, at the cavities, without refitting) and loo_mean_ (their
    predictive means of y_i), likelihood_params_ (with the learned values). predict gives the
    predictive mean of y (and its standard deviation with return_std=True), not the latent
    function's; log_predictive_density(X, y) gives log p(y_i | data) per row (any likelihood)."""

    _estimator_type = "regressor"  # scikit-learn's is_regressor

    def __init__(self, noise=0.1, learn=True, restarts=0, seed=0, threads=0, verbose=False,
                 inducing_points=None, inducing_form="vfe", kernel=None, learn_noise=True,
                 standardize_inputs=None, standardize_target=None, likelihood="gaussian",
                 likelihood_params=None):
        self.noise = noise
        self.learn = learn
        self.restarts = restarts
        self.seed = seed
        self.threads = threads
        self.verbose = verbose
        self.inducing_points = inducing_points
        self.inducing_form = inducing_form
        self.kernel = kernel
        self.learn_noise = learn_noise
        self.standardize_inputs = standardize_inputs
        self.standardize_target = standardize_target
        self.likelihood = likelihood
        self.likelihood_params = likelihood_params

    def fit(self, X, y, sample_weight=None):
        likelihood = _likelihood(self, _REGRESSION_KINDS, "gaussian")
        X, y = _frequency_weighted(self, X, y, sample_weight, _most_weight(self, likelihood))
        X, targets = _regression_data(self, X, y, likelihood=likelihood)
        engine = ("ep" if likelihood is not None else "exact_gp_regression"
                  if self.inducing_points is None else "sparse_gp_regression")
        yaml = _regression_yaml(self, "", f"{{name: gp, plugin: {engine}}}", X, likelihood)
        (run,) = _fit_regression(self, yaml, X, targets, likelihood)
        scalars = run["scalars"]
        self.log_marginal_likelihood_ = scalars.get(
            "log_marginal_likelihood",
            scalars.get("log_marginal_likelihood_bound", scalars.get("log_evidence")))
        self.kernel_ = _fitted_regression_kernel(self)
        if likelihood is None:
            _forget(self, "log_evidence_", "loo_log_predictive_", "loo_mean_",
                    "likelihood_params_")
            return self
        # The built-in leave-one-out in y's units (the engine's are the standardized y's when
        # standardize_target is asked for).
        shift, scale = self.model_.target_mean, self.model_.target_scale
        self.log_evidence_ = scalars["log_evidence"]
        self.loo_log_predictive_ = (np.asarray(run["vectors"]["loo_log_predictive_density"])
                                    - np.log(scale))
        self.loo_mean_ = np.asarray(run["vectors"]["loo_mean"]) * scale + shift
        self.likelihood_params_ = _fitted_likelihood_params(likelihood, self.learned_)
        return self

    def predict(self, X, return_std=False):
        """The predictive mean of y at X (with return_std=True also its standard deviation:
        noise included), in y's units."""
        p = self._predictions(X)
        if "target_mean" in p:  # a likelihood of the latent GP
            mean, variance = np.asarray(p["target_mean"]), p["target_variance"]
        else:
            mean, variance = np.asarray(p["mean"]), p["predictive_variance"]
        return (mean, np.sqrt(variance)) if return_std else mean

    def log_predictive_density(self, X, y):
        """log p(y_i | the training data) at each row of X, for the likelihood's density of y
        (counts: the probability of y_i) under the latent GP's predictive distribution at x_i
        (quench/target_prediction.h), in y's units."""
        self._check_fitted()
        X = self._inputs(X, self.n_features_in_)
        return self.model_.log_predictive_density(X, _labelled(X, y, "target"))

    score = _r2


class _BootstrapRegressor(_Estimator):
    """The bootstrap of GP regression (000) at resampling ratios S/N: the engine's test error per
    ratio and a model per ratio whose predict gives the bootstrap mean and variance of the
    predictor at new inputs. The GP is GaussianProcessRegressor's: `kernel`, learn,
    learn_noise, standardize_inputs, standardize_target, likelihood and likelihood_params as
    there; kernel_ after fit. With a likelihood other than "gaussian" the bootstrap is of its EP
    fit (docs/adatap_classification.md), the predictor is the latent posterior mean (the log
    rate of a count model), and test_error_log_predictive_ (the bootstrap's mean negative log
    predictive density of a left-out y) is fitted beside the square loss test_error_."""

    _estimator_type = "regressor"  # scikit-learn's is_regressor

    def fit(self, X, y, sample_weight=None):
        X, y = _frequency_weighted(
            self, X, y, sample_weight,
            _most_weight(self, _likelihood(self, _REGRESSION_KINDS, "gaussian")))
        ratios = [float(r) for r in np.atleast_1d(self.ratios)]
        if not ratios or min(ratios) <= 0:
            raise ValueError(f"ratios must be positive resampling ratios S/N, got {self.ratios!r}")
        likelihood = _likelihood(self, _REGRESSION_KINDS, "gaussian")
        X, targets = _regression_data(self, X, y, fewest=2, likelihood=likelihood)
        resampler = f"  resampler: {{plugin: poisson_bootstrap, ratio: {ratios!r}}}\n"
        yaml = _regression_yaml(self, resampler, self._engine_entry(likelihood is None), X,
                                likelihood)
        runs = _fit_regression(self, yaml, X, targets, likelihood)
        self.kernel_ = _fitted_regression_kernel(self)
        self.ratios_ = np.array([r["sweep"]["resampler.ratio"] for r in runs])
        # 000 eq 21 with the square loss, in the units the GP sees (standardized by default, as
        # in results.json); another likelihood's also with the log loss; Monte-Carlo's standard
        # errors sd / sqrt(T).
        scalars = [r["scalars"] for r in runs]
        self.test_error_ = np.array([s["test_error_square"] for s in scalars])
        optional = {"test_error_stderr_": "test_error_square_stderr",
                    "test_error_log_predictive_": "test_error_log_predictive",
                    "test_error_log_predictive_stderr_": "test_error_log_predictive_stderr"}
        _forget(self, "likelihood_params_", *optional)
        for attribute, key in optional.items():
            if key in scalars[0]:
                setattr(self, attribute, np.array([s[key] for s in scalars]))
        if likelihood is not None:
            self.likelihood_params_ = _fitted_likelihood_params(likelihood, self.learned_)
        self.models_ = [r["model"] for r in runs]
        return self

    def predict(self, X, ratio=None, return_var=False):
        """The bootstrap mean of the predictor at X (and its bootstrap variance) at `ratio`
        (default: the first fitted ratio), in the target's units (a likelihood other than
        "gaussian": of the latent posterior mean)."""
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
                 verbose=False, inducing_points=None, inducing_form="fitc", kernel=None,
                 learn_noise=True, standardize_inputs=None, standardize_target=None,
                 likelihood="gaussian", likelihood_params=None):
        self.ratios = ratios
        self.noise = noise
        self.learn = learn
        self.restarts = restarts
        self.seed = seed
        self.threads = threads
        self.verbose = verbose
        self.inducing_points = inducing_points
        self.inducing_form = inducing_form
        self.kernel = kernel
        self.learn_noise = learn_noise
        self.standardize_inputs = standardize_inputs
        self.standardize_target = standardize_target
        self.likelihood = likelihood
        self.likelihood_params = likelihood_params

    def _engine_entry(self, gaussian):
        return "{name: adatap, plugin: adatap_bootstrap, density: false}"


class MonteCarloBootstrap(_BootstrapRegressor):
    """The Monte-Carlo bootstrap of GP regression: `samples` retrains on Poisson resamples per
    ratio. Fitted: ratios_, test_error_ (000 eq 21 per ratio) and test_error_stderr_, models_
    (the retrains' mean and variance at any input). With inducing_points=M, each retrain is
    sparse GP regression on the inducing-point prior (inducing_form "fitc" by default),
    O(|D| M^2) each (docs/large_n.md)."""

    def __init__(self, ratios=(1.0,), samples=1000, noise=0.1, learn=True, restarts=0, seed=0,
                 threads=0, verbose=False, inducing_points=None, inducing_form="fitc", kernel=None,
                 learn_noise=True, standardize_inputs=None, standardize_target=None,
                 likelihood="gaussian", likelihood_params=None):
        self.ratios = ratios
        self.samples = samples
        self.noise = noise
        self.learn = learn
        self.restarts = restarts
        self.seed = seed
        self.threads = threads
        self.verbose = verbose
        self.inducing_points = inducing_points
        self.inducing_form = inducing_form
        self.kernel = kernel
        self.learn_noise = learn_noise
        self.standardize_inputs = standardize_inputs
        self.standardize_target = standardize_target
        self.likelihood = likelihood
        self.likelihood_params = likelihood_params

    def _engine_entry(self, gaussian):
        inner = "exact_gp_regression" if self.inducing_points is None else "sparse_gp_regression"
        inner = inner if gaussian else "ep"
        return (f"{{name: monte_carlo, plugin: mc_bootstrap, samples: {int(self.samples)}, "
                f"inner: {inner}, keep_samples: false}}")


class AdatapBootstrapClassifier(_Estimator):
    """The analytical (ADATAP) bootstrap of the joint GP classifier of two classes or more
    (docs/adatap_multiclass.md): the multinomial probit on C latent GPs (GaussianProcessClassifier's
    joint model, engine multiclass_ep), bootstrapped at resampling ratios S/N by one set of
    replica equations per ratio instead of retraining it. With learn=True (default) the
    Gaussian kernel's width and amplitude are first learned by the joint model's evidence,
    starting from `width` (or a given `kernel`'s hyperparameters). Inputs are standardized
    (standardize_inputs: None = True for the default kernel, False for a given one).

    engine_params: options of adatap_bootstrap (`quench plugins adatap_bootstrap`: e.g.
    site_tolerance, class_cubature, error_draws). With inducing_points=M the bootstrap (and the
    learning) runs on the inducing-point prior of M inputs chosen by greedy conditional
    variance (inducing_form "fitc" by default, "vfe" or "sor"; docs/adatap_multiclass.md, "On
    the inducing-point prior"): O(C^2 N M^2) per iteration, no matrix of order C N.

    Fitted: classes_, n_classes_, ratios_, bootstrap_error_ (per ratio: the 0/1 error of the
    samples that leave a training point out, eq M12) and bootstrap_error_stderr_ (of its u-draws),
    bootstrap_log_loss_ (eq M11), left_out_proba_ (per ratio, N x C: the bootstrap mean of each
    left-out point's class probabilities), width_, amplitude_ (None with a given kernel),
    kernel_, models_ (one quench.Model per ratio). predict_proba(X, ratio=None,
    return_var=False): the bootstrap mean of the class probabilities at X (eq M10), with
    return_var their bootstrap variance; predict: the class of the largest mean."""

    _estimator_type = "classifier"  # scikit-learn's is_classifier

    def __init__(self, ratios=(1.0,), width=1.0, learn=True, seed=0, threads=0, verbose=False,
                 kernel=None, standardize_inputs=None, engine_params=None, inducing_points=None,
                 inducing_form="fitc"):
        self.ratios = ratios
        self.width = width
        self.learn = learn
        self.seed = seed
        self.threads = threads
        self.verbose = verbose
        self.kernel = kernel
        self.standardize_inputs = standardize_inputs
        self.engine_params = engine_params
        self.inducing_points = inducing_points
        self.inducing_form = inducing_form

    def fit(self, X, y, sample_weight=None):
        X, y = _frequency_weighted(self, X, y, sample_weight)
        X, y, classes = _classes(self, X, y, 2)
        ratios = [float(r) for r in np.atleast_1d(self.ratios)]
        if not ratios or min(ratios) <= 0:
            raise ValueError(f"ratios must be positive resampling ratios S/N, got {self.ratios!r}")
        self.classes_ = classes
        self.n_classes_ = classes.size
        targets = [str(int(i)) for i in np.searchsorted(classes, y)]  # 0 .. C-1
        kernel = _user_kernel(self)
        if kernel is None:
            kernel_entry = (f"  kernel: {{plugin: gaussian, width: {float(self.width)!r}, "
                            "amplitude: 1.0}\n")
            parameters = {"kernel.width": None, "kernel.amplitude": _JOINT_AMPLITUDE}
        else:
            kernel_entry = _kernel_entry(self, kernel, X.shape[1])
            parameters = kernel.learned_hyperparameters()
        learn = ""
        if self.learn and parameters:
            learn = (f"learn: {{objective: evidence, engine: multiclass_ep, "
                     f"{_learn_lists(parameters)}}}\n")
        options = "".join(f", {name}: {_yaml_value(value)}"
                          for name, value in _engine_params(self).items())
        inputs = "standardize_inputs: true" if _standardized(self, "standardize_inputs") else ""
        yaml = (f"name: estimator\nseed: {int(self.seed)}\n"
                + _data_yaml(self, X.shape[1], inputs) + _inducing_yaml(self, X.shape[0])
                + "components:\n" + kernel_entry
                + "  likelihood: {plugin: multinomial_probit}\n"
                + f"  resampler: {{plugin: poisson_bootstrap, ratio: {ratios!r}}}\n" + learn
                + f"engines:\n  - {{name: adatap, plugin: adatap_bootstrap{options}}}\n"
                + "outputs: {models: true}\n")
        runs = self._fit_pipeline(yaml, X, targets)
        self.ratios_ = np.array([r["sweep"]["resampler.ratio"] for r in runs])
        scalars = [r["scalars"] for r in runs]
        self.bootstrap_error_ = np.array([s["bootstrap_error"] for s in scalars])
        self.bootstrap_error_stderr_ = np.array([s["bootstrap_error_stderr"] for s in scalars])
        self.bootstrap_log_loss_ = np.array([s["bootstrap_log_loss"] for s in scalars])
        self.left_out_proba_ = [np.asarray(r["matrices"]["left_out_probability"]) for r in runs]
        self.models_ = [r["model"] for r in runs]
        if kernel is not None:
            self.width_ = self.amplitude_ = None
            self.kernel_ = kernel.with_learned(self.learned_)
            return self
        self.width_ = float(self.learned_.get("kernel.width", [self.width])[0])
        self.amplitude_ = float(self.learned_.get("kernel.amplitude", [1.0])[0])
        d = self.n_features_in_  # the default's w_l = 1/(width d) = 1/l_l^2
        self.kernel_ = Gaussian(length_scales=[float(np.sqrt(self.width_ * d))] * d,
                                amplitude=self.amplitude_)
        return self

    def _model_at(self, ratio):
        self._check_fitted("models_")
        i = 0 if ratio is None else int(np.argmin(np.abs(self.ratios_ - float(ratio))))
        if ratio is not None and self.ratios_[i] != float(ratio):
            raise ValueError(f"ratio {ratio} was not fitted; fitted: {list(self.ratios_)}")
        return self.models_[i]

    def predict_proba(self, X, ratio=None, return_var=False):
        """The bootstrap mean of p(class | x) at `ratio` (default: the first fitted), columns in
        classes_ order; with return_var also its bootstrap variance."""
        model = self._model_at(ratio)
        p = model.predict(self._inputs(X, self.n_features_in_))
        C = self.n_classes_
        mean = np.column_stack([p[f"probability.{c}"] for c in range(C)])
        if not return_var:
            return mean
        return mean, np.column_stack([p[f"probability_variance.{c}"] for c in range(C)])

    def predict(self, X, ratio=None):
        proba = self.predict_proba(X, ratio)  # first: it raises before fit
        return self.classes_[np.argmax(proba, axis=1)]

    score = _accuracy


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
                 penalty_weights="common", order=3, level=0.95, seed=0, threads=0, verbose=False):
        self.model = model
        self.penalty = penalty
        self.lam = lam
        self.draws = draws
        self.penalty_weights = penalty_weights
        self.order = order
        self.level = level
        self.seed = seed
        self.threads = threads
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        X, y = _frequency_weighted(self, X, y, sample_weight)
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
                + _data_yaml(self, X.shape[1], "standardize_inputs: true" if linear else "")
                + "components:\n  resampler: {plugin: exponential_weights}\n"
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
                 alpha_epsilon=0.01, prior_variance=1.0, seed=0, threads=0, verbose=False):
        self.particles = particles
        self.features = features
        self.width = width
        self.amplitude = amplitude
        self.bias = bias
        self.alpha_epsilon = alpha_epsilon
        self.prior_variance = prior_variance
        self.seed = seed
        self.threads = threads
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        X, y = _frequency_weighted(self, X, y, sample_weight)
        X, y, classes = _classes(self, X, y, 2)
        self.classes_ = classes
        targets = [str(int(np.searchsorted(classes, label))) for label in y]  # 0 .. C-1
        yaml = (f"name: estimator\nseed: {int(self.seed)}\n"
                + _data_yaml(self, X.shape[1], "standardize_inputs: true")
                + f"components:\n  kernel: {{plugin: gaussian, width: {float(self.width)!r}, "
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
