"""quench from Python: pipelines run through the same registry and plugins as the quench
command line, results as NumPy arrays (docs/python.md).

    import quench
    runs = quench.run("examples/pipelines/sonar_mean_field.yaml")   # a file, or YAML text
    runs[0]["scalars"]["loo_error"], runs[0]["vectors"]["alpha"]
    quench.plugins()                                                  # what was found
    quench.GaussianProcessRegressor(kernel=quench.Gaussian() + quench.White(0.1))  # estimators

Errors are Python exceptions with quench's messages: PipelineError (every problem of a
pipeline at once, one "file:line:col: message" per line), DataError (file, row, column),
PluginError, NumericalError, all subclasses of quench.Error.
"""
import copyreg
import os
import tempfile

from ._quench import (DataError, Error, Model, ModelFileError, NumericalError, PipelineError,
                      PluginError, __version__)
from . import _quench
from .estimators import (AdatapBootstrap, AdatapBootstrapClassifier, ConvergenceWarning,
                         GaussianProcessClassifier,
                         GaussianProcessRegressor, MonteCarloBootstrap, VBootClassifier,
                         WeightedBayesianBootstrap)
from .kernels import (Cauchy, Constant, Gaussian, InfiniteNet, Kernel, Linear, Matern, Periodic,
                      PerClass, Product, RationalQuadratic, Sum, White)

__all__ = ["run", "plugins", "load_model", "Model", "GaussianProcessClassifier",
           "GaussianProcessRegressor", "AdatapBootstrap", "AdatapBootstrapClassifier",
           "MonteCarloBootstrap",
           "WeightedBayesianBootstrap", "VBootClassifier", "Kernel", "Gaussian", "Matern",
           "RationalQuadratic", "Periodic", "Constant", "White", "Linear", "Cauchy",
           "InfiniteNet", "Sum", "Product", "PerClass", "Error", "PipelineError", "DataError",
           "PluginError", "NumericalError", "ModelFileError", "ConvergenceWarning",
           "__version__"]


def run(pipeline, *, threads=0, plugin_paths=()):
    """Runs a pipeline and returns one dict per run (engine x sweep point): engine, plugin,
    sweep, scalars, vectors and matrices (NumPy arrays, not copied), info, timings, status, and
    model (a quench.Model when the pipeline keeps models, outputs: {models: true}; else None).

    `pipeline` is the path of a pipeline file, or its YAML text (relative data paths then
    resolve against the working directory). No output files are written. The GIL is released
    while the engines run; `threads` is as the CLI's --threads (0: all cores)."""
    text = os.fspath(pipeline)
    is_file = "\n" not in text and os.path.isfile(text)
    return _quench.run(text, "<string>", os.getcwd(), is_file, threads, list(plugin_paths))


def load_model(path, *, plugin_paths=()):
    """A model saved by a run (outputs: {models: true}) or by Model.save, rebuilt with the
    plugins found (of the versions it was saved with): Model.predict(X) gives its columns at new
    raw inputs (columns in Model.input_names order) as NumPy arrays."""
    return _quench.load_model(os.fspath(path), list(plugin_paths))


def plugins(*, plugin_paths=()):
    """Every plugin found (searched like the CLI: plugin_paths, QUENCH_PLUGIN_PATH, then the
    installation's plugin directory): family, name, version, doc, library, parameters."""
    return _quench.plugins(list(plugin_paths))


def _model_from_bytes(data):
    """A model from the bytes of its file (pickle's half of _model_to_bytes)."""
    with tempfile.TemporaryDirectory(prefix="quench-model-") as directory:
        path = os.path.join(directory, "model.h5")
        with open(path, "wb") as f:
            f.write(data)
        return load_model(path)


def _model_to_bytes(model):
    """Pickling a Model (and so any fitted estimator, e.g. with joblib) stores its model file:
    the same bytes as Model.save, rebuilt by load_model with the plugins found on unpickling."""
    with tempfile.TemporaryDirectory(prefix="quench-model-") as directory:
        path = os.path.join(directory, "model.h5")
        model.save(path)
        with open(path, "rb") as f:
            return _model_from_bytes, (f.read(),)


copyreg.pickle(Model, _model_to_bytes)
