#!/bin/sh
# Derives crabs_spread.csv from crabs.csv: same rows, but the train column marks rows
# k mod 5 in {1, 3} (k = 0..49 within each of the four 50-row colour-by-sex groups, which MASS
# sorts by size), so that training and test crabs span the same sizes. 80 train / 120 test,
# 20 train rows per group, as in the standard split. See README.md.
set -eu
cd "$(dirname "$0")"
awk -F, 'BEGIN { OFS = "," }
  NR == 1 { print; next }
  { k = (NR - 2) % 50; $7 = (k % 5 == 1 || k % 5 == 3) ? 1 : 0; print }' crabs.csv > crabs_spread.csv
