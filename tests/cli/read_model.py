#!/usr/bin/env python3
"""Reads a saved quench model with h5py alone (no quench) and reproduces its first prediction
column at the first row of a CSV file; prints that number (docs/models.md).

    python3 read_model.py MODEL.h5 DATA.csv

With the gaussian kernel (`length_scales` (ARD) or `width`, amplitude v0 and bias v1:
k(x, x') = v0 exp(-1/2 sum_l w_l (x_l - x'_l)^2) + v1, w_l = 1/l_l^2 (or 1/(width d))):
gp_regression the predictive mean; gp_classifier the latent mean, svm_classifier the decision
value; adatap_bootstrap, adatap_classifier, adatap_svm and mc_bootstrap the bootstrap mean.
wbb_linear: the mean, then the quantiles at posterior/quantile_levels, of the draws' fits
b_t + x^T beta_t (numpy's default quantile is type 7, as quench's), in the target's units,
space-separated.
vboot (two classes): probability P(y = class 1 | x) = (1/K) sum_k softmax(f^(k)(x))_1 (002 eq
12), the particles f^(k) from the stored random Fourier features and weights, or from the
stored network parameters (002 eq 2)."""
import csv
import sys

import h5py
import numpy as np


def first_row(data_file, names):
    with open(data_file, newline="") as f:
        row = next(csv.DictReader(f))
    return np.array([float(row[n]) for n in names])


def gaussian_kernel_vector(f, x):
    """k(x, x_i) for every training input x_i (engine units)."""
    assert f["components/kernel/plugin"][()].decode() == "gaussian"
    X_train = f["data/X_train"][()].T  # stored column-major: (cols, rows)

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
    return v0 * np.exp(-0.5 * ((X_train - x) ** 2 * w).sum(axis=1)) + v1


def in_target_units(f, value):
    return value * f["data/target_scale"][()] + f["data/target_mean"][()]


def gp_regression_mean(f, x):
    return in_target_units(f, gaussian_kernel_vector(f, x) @ f["posterior/alpha"][()])


def classifier_latent_mean(f, x):
    """gp_classifier latent_mean / svm_classifier decision: K(x, X) t o alpha (001 eq 27)."""
    return gaussian_kernel_vector(f, x) @ f["posterior/t_alpha"][()]


def adatap_bootstrap_mean(f, x):
    """000 eq 57: k^T T gamma with T^T k = k - G diag(delta_lambda) k."""
    k = gaussian_kernel_vector(f, x)
    G = f["posterior/G"][()]  # symmetric: the stored transpose is G itself
    v = k - G @ (f["posterior/delta_lambda"][()] * k)
    return in_target_units(f, v @ f["posterior/gamma"][()])


def mc_bootstrap_mean(f, x):
    """The mean over the kept retrains f_t(x) = sum_i A_it k(x, x_i)."""
    A = f["posterior/coefficients"][()]  # N x T stored column-major: h5py reads T x N
    return in_target_units(f, (A @ gaussian_kernel_vector(f, x)).mean())


def wbb_linear_summary(f, x):
    beta = f["posterior/coefficients"][()].T  # T x p (stored column-major)
    b = f["posterior/intercepts"][()]
    levels = f["posterior/quantile_levels"][()]
    fits = (b + beta @ x) * f["data/target_scale"][()] + f["data/target_mean"][()]
    return [fits.mean(), *np.quantile(fits, levels)]


def vboot_probability(f, x):
    C = f["posterior/class_values"].shape[0]
    K = int(f["posterior/particles"][()])
    assert C == 2
    if f["posterior/particle_model"][()].decode() == "rff":
        omega = f["posterior/frequencies"][()].T  # d x D0
        b = f["posterior/phases"][()]
        s, v1 = f["posterior/feature_scale"][()], f["posterior/feature_bias"][()]
        phi = s * np.cos(x @ omega + b)
        if v1 > 0:
            phi = np.append(phi, np.sqrt(v1))
        W = f["posterior/weights"][()].T  # D x (C K), column c K + k
        latent = (phi @ W).reshape(C, K).T  # K x C
    else:
        sizes = [int(v) for v in f["posterior/layer_sizes"][()]]
        thetas = f["posterior/parameters"][()]  # K x P (column-major P x K on disk)
        latent = np.empty((K, C))
        for k in range(K):
            h, at = x, 0
            for layer in range(3):
                n_in, n_out = sizes[layer], sizes[layer + 1]
                W = thetas[k, at:at + n_in * n_out].reshape(n_in, n_out).T  # column-major
                bias = thetas[k, at + n_in * n_out:at + n_in * n_out + n_out]
                z = W @ h / np.sqrt(n_in) + bias
                h = np.maximum(z, 0.0) if layer < 2 else z
                at += n_in * n_out + n_out
            latent[k] = h
    p = np.exp(latent - latent.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return p[:, 1].mean()


model_file, data_file = sys.argv[1], sys.argv[2]
with open(model_file, "rb") as f:
    assert f.read(13) == b"quench-model\n"
with h5py.File(model_file, "r") as f:
    kind = f["model/kind"][()].decode()
    names = [n.decode() for n in f["data/input_names"][()]]
    x = (first_row(data_file, names) - f["data/input_mean"][()]) / f["data/input_scale"][()]
    first_column = {
        "gp_regression": gp_regression_mean,
        "gp_classifier": classifier_latent_mean,
        "svm_classifier": classifier_latent_mean,
        "adatap_bootstrap": adatap_bootstrap_mean,
        "adatap_classifier": adatap_bootstrap_mean,
        "adatap_svm": adatap_bootstrap_mean,
        "mc_bootstrap": mc_bootstrap_mean,
    }
    if kind in first_column:
        print(repr(float(first_column[kind](f, x))))
    elif kind == "wbb_linear":
        print(" ".join(repr(float(v)) for v in wbb_linear_summary(f, x)))
    elif kind == "vboot":
        print(repr(float(vboot_probability(f, x))))
    else:
        sys.exit(f"read_model.py does not read '{kind}' models")
