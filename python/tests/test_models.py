"""Fitted models from Python: a run's model in memory, the CLI's saved file loaded, Model.save and
quench.load_model, against each other and against `quench predict` (docs/python.md)."""
import csv
import os
import subprocess

import numpy as np
import pytest

import quench

SOURCE = os.environ["QUENCH_SOURCE"]
CLI = os.environ["QUENCH_CLI"]
PIPELINE = os.path.join(SOURCE, "examples", "pipelines", "boston_model.yaml")
DATA = os.path.join(SOURCE, "examples", "data", "boston.csv")


def inputs(names, rows=slice(440, 506)):
    with open(DATA) as f:
        header = f.readline().strip().split(",")
    table = np.loadtxt(DATA, delimiter=",", skiprows=1)
    return np.asfortranarray(table[rows][:, [header.index(n) for n in names]])


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "out"
    subprocess.run([CLI, "run", PIPELINE, "--out", str(out), "--no-progress"], check=True,
                   capture_output=True)
    (run,) = quench.run(PIPELINE)
    return run["model"], out / "models" / "gp.h5"


def test_the_run_in_memory_and_the_saved_file_predict_the_same_bits(fitted, tmp_path):
    model, saved = fitted
    assert model.kind == "gp_regression" and model.target_name == "y"
    X = inputs(model.input_names)
    mine = model.predict(X)
    assert set(mine) == {"mean", "variance", "predictive_variance"}
    loaded = quench.load_model(saved).predict(X)
    for name in mine:
        assert np.array_equal(mine[name], loaded[name]), name
    model.save(tmp_path / "again.h5")
    again = quench.load_model(tmp_path / "again.h5").predict(X)
    for name in mine:
        assert np.array_equal(mine[name], again[name]), name


def test_predictions_equal_the_command_line_predict(fitted, tmp_path):
    model, saved = fitted
    subprocess.run([CLI, "predict", str(saved), DATA, "--out", str(tmp_path / "p.csv")],
                   check=True, capture_output=True)
    with open(tmp_path / "p.csv") as f:
        rows = list(csv.DictReader(f))
    mine = model.predict(inputs(model.input_names, slice(None)))
    for name in ("mean", "variance", "predictive_variance"):
        theirs = np.array([float(r[name]) for r in rows])
        np.testing.assert_allclose(mine[name], theirs, rtol=1e-12, atol=0)  # the CSV's digits


def test_bad_inputs_and_files_are_exceptions(fitted, tmp_path):
    model, _ = fitted
    with pytest.raises(ValueError):
        model.predict(np.zeros((3, len(model.input_names) + 1)))
    junk = tmp_path / "junk.h5"
    junk.write_bytes(b"not a model")
    with pytest.raises(quench.ModelFileError) as caught:
        quench.load_model(junk)
    assert str(junk) in str(caught.value)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_input_is_a_value_error_naming_its_row_and_input(fitted, bad):
    model, _ = fitted
    X = inputs(model.input_names)
    X[3, 2] = bad
    with pytest.raises(ValueError, match=f"row 3, input '{model.input_names[2]}' is "):
        model.predict(X)


def test_an_estimator_fitted_on_a_dataframe_saves_its_column_names(tmp_path):
    """The saved model names its inputs as the DataFrame did (one named "y", one not a plain
    identifier, one read by a kernel part by index), so `quench predict` finds them by name in
    a CSV file whose columns are in another order, and predicts what the estimator does."""
    pd = pytest.importorskip("pandas")
    names = ["lstat", "y", "rooms per dwelling"]
    X = pd.DataFrame(inputs(["lstat", "dis", "rm"], slice(0, 80)), columns=names)
    target = inputs(["y"], slice(0, 80))[:, 0]
    kernel = quench.Gaussian([1.0, 1.0], columns=[0, 2]) + quench.Gaussian(1.0, columns=[1])
    gp = quench.GaussianProcessRegressor(kernel=kernel, learn=False).fit(X, target)
    assert gp.model_.input_names == names and gp.model_.target_name == "y_"
    gp.model_.save(tmp_path / "gp.h5")
    shuffled = X[["rooms per dwelling", "lstat", "y"]].assign(unused=1.0)
    shuffled.to_csv(tmp_path / "new.csv", index=False, float_format="%.17g")
    subprocess.run([CLI, "predict", str(tmp_path / "gp.h5"), str(tmp_path / "new.csv"), "--out",
                    str(tmp_path / "p.csv"), "--ignore-extra-columns"], check=True,
                   capture_output=True)
    with open(tmp_path / "p.csv") as f:
        theirs = np.array([float(r["mean"]) for r in csv.DictReader(f)])
    np.testing.assert_allclose(gp.predict(X), theirs, rtol=1e-12, atol=0)  # the CSV's digits
    with pytest.raises(ValueError, match="two columns named .a."):
        quench.GaussianProcessRegressor(learn=False).fit(X.set_axis(["a", "b", "a"], axis=1),
                                                         target)
