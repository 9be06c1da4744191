#!/bin/sh
# Fig. 1-style plot of the 1-D VBoot toy (002): the 50 particles' class-1 probabilities
# softmax(f^(k)(x))_1 (grey), their average (eq 12, black) and the training labels (circles).
#   examples/vboot_toy_plot.sh RESULTS_DIR   (the --out directory of vboot_toy.yaml)
set -e
out=${1:?results directory of examples/pipelines/vboot_toy.yaml}
here=$(cd "$(dirname "$0")" && pwd)
data="$here/data/vboot_toy.csv"
tables="$out/tables"
# Test inputs (train = 0 rows, in file order) beside each particle's probability.
awk -F, 'NR > 1 && $3 == 0 { print $1 }' "$data" > "$out/toy_x.txt"
tail -n +2 "$tables/vboot_rff__probability_samples_c1.csv" | tr ',' ' ' |
  paste -d' ' "$out/toy_x.txt" - > "$out/toy_samples.txt"
tail -n +2 "$tables/vboot_rff__class_probabilities.csv" | cut -d, -f2 |
  paste -d' ' "$out/toy_x.txt" - > "$out/toy_mean.txt"
awk -F, 'NR > 1 && $3 == 1 { print $1, $2 }' "$data" > "$out/toy_train.txt"
mkdir -p "$out/plots"
gnuplot <<GP
set terminal pngcairo size 900,500
set output "$out/plots/vboot_toy.png"
set title "VBoot-RFF toy (002 Fig. 1): 50 particles, D = 2000"
set xlabel "x"; set ylabel "P(y = 1 | x)"; set yrange [-0.05:1.05]; set key at graph 0.98, graph 0.55
plot for [k=2:51] "$out/toy_samples.txt" using 1:k with lines lc rgb "#b0b0b0" notitle, \
     "$out/toy_mean.txt" using 1:2 with lines lw 3 lc rgb "black" title "eq 12 average", \
     "$out/toy_train.txt" using 1:2 with points pt 6 lc rgb "red" title "training labels"
GP
echo "$out/plots/vboot_toy.png"
