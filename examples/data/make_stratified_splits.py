#!/usr/bin/env python3
"""iris_split.csv, wine_split.csv, glass_split.csv: each data set with a `train` column (1 =
training row) before `y`, from a seeded stratified split: within every class, a random 70 % of
its rows (rounded) train and the rest test (numpy's RandomState(seed), one permutation per class
in class order). The quench pipelines (split: {column: train}) and the scikit-learn benchmark
(benchmarks/multiclass_vs_sklearn.py) read the same rows. Rerunning reproduces the files."""
import csv
import os

import numpy as np

SEED = 20261126
FRACTION = 0.7

here = os.path.dirname(os.path.abspath(__file__))
for name in ("iris", "wine", "glass"):
    with open(os.path.join(here, name + ".csv"), newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    y = np.array([int(r[-1]) for r in body])
    rng = np.random.RandomState(SEED)
    train = np.zeros(len(body), dtype=int)
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        chosen = rng.permutation(members)[: int(round(FRACTION * len(members)))]
        train[chosen] = 1
    with open(os.path.join(here, name + "_split.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header[:-1] + ["train", header[-1]])
        for r, t in zip(body, train):
            w.writerow(r[:-1] + [str(t), r[-1]])
    print(name, "train", int(train.sum()), "test", int(len(body) - train.sum()))

# satellite_subset.csv and letter26_subset.csv: a seeded stratified subset of the training rows
# (train = 1) of satellite.csv (1000 rows) and letter.csv (40 per letter, 1040 rows), the given
# test rows (train = 0) kept whole: the joint model's hyperparameters are learned on the subset
# (examples/pipelines/satellite_subset_multiclass.yaml, letter26_multiclass.yaml).
for name, per_class, total in (("satellite", None, 1000), ("letter26", 40, None)):
    source = "letter.csv" if name == "letter26" else name + ".csv"
    with open(os.path.join(here, source), newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    t, yi = header.index("train"), header.index("y")
    y = np.array([int(r[yi]) for r in body])
    is_train = np.array([r[t] == "1" for r in body])
    rng = np.random.RandomState(SEED)
    keep = ~is_train
    for c in np.unique(y[is_train]):
        members = np.flatnonzero(is_train & (y == c))
        k = per_class if per_class else int(round(total * len(members) / is_train.sum()))
        keep[rng.permutation(members)[:k]] = True
    with open(os.path.join(here, name + "_subset.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for r, k in zip(body, keep):
            if k:
                w.writerow(r)
    print(name, "train", int((keep & is_train).sum()), "test", int((~is_train).sum()))
