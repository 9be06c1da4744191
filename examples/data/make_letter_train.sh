#!/bin/sh
# letter_train.csv: the 15000 training rows of letter.csv (train = 1) without the split column,
# for choosing hyperparameters on a validation split carved from the training rows
# (examples/pipelines/vboot_letter_*_validation.yaml) without touching the 5000 test rows.
cd "$(dirname "$0")"
awk -F, -v OFS=, 'NR == 1 || $17 == 1 { $17 = ""; sub(/,,/, ","); print }' letter.csv > letter_train.csv
