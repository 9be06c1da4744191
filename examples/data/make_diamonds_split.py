#!/usr/bin/env python3
"""diamonds_split.csv and diamonds_subset5000.csv from diamonds.csv (seeded, reproducible).

diamonds.csv is sorted by price within blocks, so every subset is drawn from a seeded shuffle
(Python's random.Random(2025), whose shuffle is fixed across Python 3 versions):
  diamonds_split.csv      all 53 940 rows, a 0/1 `train` column before `y`: the first 5 000
                          rows of the shuffle are the test rows (train = 0), the other 48 940
                          train (train = 1); rows stay in the source order.
  diamonds_subset5000.csv the same 5 000 test rows plus the next 5 000 of the shuffle as the
                          training rows (the exact GP's random training subset), same columns.
  diamonds_new1000.csv    the first 1 000 rows of the shuffle in diamonds.csv's columns: the
                          new inputs of the bootstrap on all 53 940 rows.
"""
import csv
import os
import random

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "diamonds.csv"), newline="") as f:
    rows = list(csv.reader(f))
header, body = rows[0], rows[1:]
order = list(range(len(body)))
random.Random(2025).shuffle(order)
test, subset = set(order[:5000]), set(order[5000:10000])


def write(name, keep, split_column=True):
    path = os.path.join(here, name)
    with open(path + ".tmp", "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(header[:-1] + ["train", header[-1]] if split_column else header)
        for i, row in enumerate(body):
            if keep(i):
                out.writerow(row[:-1] + ["0" if i in test else "1", row[-1]]
                             if split_column else row)
    os.replace(path + ".tmp", path)


write("diamonds_split.csv", lambda i: True)
write("diamonds_subset5000.csv", lambda i: i in test or i in subset)
new = set(order[:1000])
write("diamonds_new1000.csv", lambda i: i in new, split_column=False)
