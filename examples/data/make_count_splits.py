#!/usr/bin/env python3
"""doctorvisits_split.csv, recreation_split.csv, quine_split.csv: the count data sets with a 0/1
`train` column (1 = training row) inserted before `y`, from a seeded uniform random split.

For each data set, independently: rng = random.Random(SEED) (a fresh generator per file, SEED =
20261127), train_rows = set(rng.sample(range(n), n_train)) over the 0-based data-row indices;
every other row is a test row. Rows stay in the source order and every field is copied as the
same text, so dropping the `train` column gives the source file back.

    file                 n     n_train  n_test
    doctorvisits_split   5190  4000     1190
    recreation_split     659   494      165    (round(0.75 * 659))
    quine_split          146   110      36     (round(0.75 * 146), 75.3 %)

Python 3 standard library only; `python3 examples/data/make_count_splits.py` rewrites the three
files bit for bit (random.Random's seeding from an int and sample() on a range are stable across
Python 3 versions; written with Python 3.11).
"""
import csv
import os
import random

SEED = 20261127
N_TRAIN = {"doctorvisits": 4000, "recreation": 494, "quine": 110}

here = os.path.dirname(os.path.abspath(__file__))
for name, n_train in N_TRAIN.items():
    with open(os.path.join(here, name + ".csv"), newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    assert header[-1] == "y", name
    train = set(random.Random(SEED).sample(range(len(body)), n_train))
    path = os.path.join(here, name + "_split.csv")
    with open(path + ".tmp", "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(header[:-1] + ["train", header[-1]])
        for i, row in enumerate(body):
            out.writerow(row[:-1] + ["1" if i in train else "0", row[-1]])
    os.replace(path + ".tmp", path)
    print(f"{name}_split.csv: {len(body)} rows, train {len(train)}, test {len(body) - len(train)}")
