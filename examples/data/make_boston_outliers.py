#!/usr/bin/env python3
"""boston_outliers.csv from boston.csv: a robust-regression data set (Student-t against Gaussian
GP regression; fit on `y_outliers` over the training rows, score RMSE on the clean test rows).

Columns: the 13 Boston inputs unchanged (crim .. lstat, same text), then
  train       1 = training row, 0 = test row;
  y_clean     boston.csv's `y` (medv), unchanged;
  y_outliers  y_clean, except on 20 training rows: y_clean + s * 8 * sd, written with 4 decimals.
Every row of boston.csv, in its order. The test rows are never corrupted (there y_outliers =
y_clean), so scoring either column on the test rows gives the same clean targets.

Construction, one generator rng = random.Random(SEED), SEED = 20261128, drawn in this order:
  1. train_rows = rng.sample(range(506), 400)  (0-based data-row indices): 400 train / 106 test;
  2. sd = statistics.stdev(y_clean over the training rows, in row order)  (sample sd, n - 1);
  3. bad_rows = rng.sample(sorted(train_rows), round(0.05 * 400) = 20);
  4. for each i in sorted(bad_rows): s_i = rng.choice((-1, 1));
     y_outliers_i = y_clean_i + s_i * 8 * sd.
The script prints sd and the corrupted rows. Since the file has no `y` column and quench's
default inputs are every column but the target and the split column, a pipeline must list its
`inputs:` (the 13 names), otherwise y_clean (or y_outliers) would be read as an input.

Python 3 standard library only; `python3 examples/data/make_boston_outliers.py` rewrites the file
bit for bit (written with Python 3.11).
"""
import csv
import os
import random
import statistics

SEED = 20261128
N_TRAIN = 400
OUTLIER_FRACTION = 0.05
SCALE = 8

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "boston.csv"), newline="") as f:
    rows = list(csv.reader(f))
header, body = rows[0], rows[1:]
assert header[-1] == "y" and len(header) == 14 and len(body) == 506
y = [float(r[-1]) for r in body]

rng = random.Random(SEED)
train = sorted(rng.sample(range(len(body)), N_TRAIN))
sd = statistics.stdev([y[i] for i in train])
n_bad = round(OUTLIER_FRACTION * N_TRAIN)
bad = sorted(rng.sample(train, n_bad))
sign = {i: rng.choice((-1, 1)) for i in bad}

train_set = set(train)
path = os.path.join(here, "boston_outliers.csv")
with open(path + ".tmp", "w", newline="") as f:
    out = csv.writer(f, lineterminator="\n")
    out.writerow(header[:-1] + ["train", "y_clean", "y_outliers"])
    for i, row in enumerate(body):
        corrupted = f"{y[i] + sign[i] * SCALE * sd:.4f}" if i in sign else row[-1]
        out.writerow(row[:-1] + ["1" if i in train_set else "0", row[-1], corrupted])
os.replace(path + ".tmp", path)

print(f"boston_outliers.csv: {len(body)} rows, train {len(train)}, test {len(body) - len(train)}")
print(f"sd(y_clean over training rows) = {sd:.6f}; {n_bad} outliers of +-{SCALE} sd = "
      f"+-{SCALE * sd:.4f}")
print("corrupted rows (1-based data row: sign, y_clean -> y_outliers):")
for i in bad:
    print(f"  {i + 1}: {sign[i]:+d}, {body[i][-1]} -> {y[i] + sign[i] * SCALE * sd:.4f}")
