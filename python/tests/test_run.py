"""quench.run against the quench command line, errors as exceptions, plugins (docs/python.md).
Run by CTest (python.pytest) with PYTHONPATH=<build>/python and QUENCH_CLI, QUENCH_SOURCE set."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import quench

SOURCE = os.environ["QUENCH_SOURCE"]
CLI = os.environ["QUENCH_CLI"]
CRABS = os.path.join(SOURCE, "examples", "pipelines", "crabs_mean_field.yaml")


def test_run_equals_the_command_line_to_the_last_bit(tmp_path):
    # The CLI writes results.json with 17 significant digits: equal text is equal doubles.
    subprocess.run([CLI, "run", CRABS, "--out", str(tmp_path / "out"), "--no-progress"],
                   check=True, capture_output=True)
    with open(tmp_path / "out" / "results.json") as f:
        cli = json.load(f)["runs"]
    runs = quench.run(CRABS)
    assert len(runs) == len(cli) == 15
    for mine, theirs in zip(runs, cli):
        assert (mine["engine"], mine["sweep"]) == (theirs["engine"], theirs["sweep"])
        assert mine["status"]["code"] == theirs["status"]["code"]
        assert mine["scalars"] == theirs["scalars"]
        assert mine["vectors"].keys() == theirs["vectors"].keys()
        for name, v in mine["vectors"].items():
            assert v.dtype == np.float64
            assert v.tolist() == theirs["vectors"][name], name


def test_results_are_numpy_arrays_without_copies():
    runs = quench.run(CRABS)
    alpha = runs[0]["vectors"]["alpha"]
    assert isinstance(alpha, np.ndarray) and alpha.ndim == 1
    assert not alpha.flags["OWNDATA"]  # owned by quench's buffer, not copied


def test_yaml_text_resolves_data_against_the_working_directory(monkeypatch):
    monkeypatch.chdir(SOURCE)
    text = """name: text
seed: 1
data: {file: examples/data/crabs_spread.csv, target: y, split: {rule: column, column: train}}
components:
  kernel: {plugin: gaussian, width: 1.0, noise: 0.0}
  likelihood: {plugin: probit}
engines:
  - {name: tap, plugin: tap}
"""
    (run,) = quench.run(text)
    assert run["engine"] == "tap" and run["status"]["code"] == "ok"
    assert 0.0 <= run["scalars"]["loo_error"] <= 1.0


def test_pipeline_errors_arrive_at_once_with_file_line_column():
    text = "name: bad\nseed: 1\ndata: {file: x.csv, target: y}\nengines:\n  - {name: e, plugin: no_such_engine}\n  - {name: f, plugin: tap, tol: -1}\n"
    with pytest.raises(quench.PipelineError) as caught:
        quench.run(text)
    lines = str(caught.value).splitlines()
    assert len(lines) >= 2
    assert all(line.startswith("<string>:") for line in lines)
    assert any("no_such_engine" in line for line in lines)
    assert isinstance(caught.value, quench.Error)


def test_data_errors_name_the_file():
    with pytest.raises(quench.Error) as caught:
        quench.run("name: d\nseed: 1\ndata: {file: /no/such.csv, target: y}\n"
                   "components:\n  kernel: {plugin: gaussian}\n  likelihood: {plugin: gaussian}\n"
                   "engines:\n  - {name: gp, plugin: exact_gp_regression}\n")
    assert "/no/such.csv" in str(caught.value)


def test_plugins_lists_what_the_command_line_finds():
    found = {(p["family"], p["name"]) for p in quench.plugins()}
    assert ("kernel", "gaussian") in found and ("engine", "tap") in found
    gaussian = next(p for p in quench.plugins() if p["name"] == "gaussian" and p["family"] == "kernel")
    assert any(param["name"] == "width" for param in gaussian["parameters"])
    assert quench.__version__
