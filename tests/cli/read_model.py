#!/usr/bin/env python3
"""Reads a saved quench model with h5py alone (no quench) and reproduces its prediction at the
first row of a CSV file; prints it (docs/models.md).

    python3 read_model.py MODEL.h5 DATA.csv

gp_regression: prints the predictive mean. wbb_linear: prints the mean, then the quantiles at
posterior/quantile_levels, of the draws' fits b_t + x^T beta_t (numpy's default quantile is
type 7, as quench's), in the target's units.

GP regression supports the gaussian kernel with `length_scales` (ARD) or `width`, amplitude
v0 and bias v1: k(x, x') = v0 exp(-1/2 sum_l w_l (x_l - x'_l)^2) + v1, w_l = 1/l_l^2 (or 1/(width d))."""
import csv
import sys

import h5py
import numpy as np

model_file, data_file = sys.argv[1], sys.argv[2]
with open(model_file, "rb") as f:
    assert f.read(13) == b"quench-model\n"


def first_row_inputs(names, mean, scale):
    with open(data_file, newline="") as f:
        row = next(csv.DictReader(f))
    return (np.array([float(row[n]) for n in names]) - mean) / scale


def read_wbb_linear(f):
    names = [n.decode() for n in f["data/input_names"][()]]
    x = first_row_inputs(names, f["data/input_mean"][()], f["data/input_scale"][()])
    beta = f["posterior/coefficients"][()].T  # T x p (stored column-major)
    b = f["posterior/intercepts"][()]
    levels = f["posterior/quantile_levels"][()]
    fits = (b + beta @ x) * f["data/target_scale"][()] + f["data/target_mean"][()]
    print(" ".join(repr(float(v)) for v in [fits.mean(), *np.quantile(fits, levels)]))


def read_gp_regression(f):
    assert f["components/kernel/plugin"][()].decode() == "gaussian"
    names = [n.decode() for n in f["data/input_names"][()]]
    mean, scale = f["data/input_mean"][()], f["data/input_scale"][()]
    y_mean, y_scale = f["data/target_mean"][()], f["data/target_scale"][()]
    X_train = f["data/X_train"][()].T  # stored column-major: (cols, rows)
    alpha = f["posterior/alpha"][()]

    def kernel_value(block):
        for group in ("learned", "params"):
            key = f"components/kernel/{group}/{block}"
            if key in f:
                return np.atleast_1d(f[key][()])
        return None

    d = X_train.shape[1]
    scales = kernel_value("length_scales")
    width = kernel_value("width")
    w = 1.0 / scales**2 if scales is not None else np.full(d, 1.0 / (width[0] * d))
    v0 = kernel_value("amplitude")[0]
    v1 = kernel_value("bias")[0]
    x = first_row_inputs(names, mean, scale)
    k = v0 * np.exp(-0.5 * ((X_train - x) ** 2 * w).sum(axis=1)) + v1
    print(repr(float(k @ alpha * y_scale + y_mean)))


with h5py.File(model_file, "r") as f:
    kind = f["model/kind"][()].decode()
    {"gp_regression": read_gp_regression, "wbb_linear": read_wbb_linear}[kind](f)
