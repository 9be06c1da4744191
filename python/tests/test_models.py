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
