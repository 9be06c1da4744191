#!/usr/bin/env python3
"""Reads a saved quench GP regression model with h5py alone (no quench) and reproduces its
predictive mean at the first row of a CSV file; prints that number (docs/models.md).

    python3 read_model.py MODEL.h5 DATA.csv

Supports the gaussian kernel with `length_scales` (ARD) or `width`, amplitude v0 and bias v1:
k(x, x') = v0 exp(-1/2 sum_l w_l (x_l - x'_l)^2) + v1, w_l = 1/l_l^2 (or 1/(width d))."""
import csv
import sys

import h5py
import numpy as np

model_file, data_file = sys.argv[1], sys.argv[2]
with open(model_file, "rb") as f:
    assert f.read(13) == b"quench-model\n"
with h5py.File(model_file, "r") as f:
    assert f["model/kind"][()].decode() == "gp_regression"
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

with open(data_file, newline="") as f:
    row = next(csv.DictReader(f))
x = (np.array([float(row[n]) for n in names]) - mean) / scale
k = v0 * np.exp(-0.5 * ((X_train - x) ** 2 * w).sum(axis=1)) + v1
print(repr(float(k @ alpha * y_scale + y_mean)))
