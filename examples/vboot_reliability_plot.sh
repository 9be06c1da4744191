#!/bin/sh
# Reliability diagram of a vboot run (002 predictions, eq 12): per confidence bin, the accuracy
# against the mean confidence (the `reliability` matrix), with the diagonal of perfect
# calibration; the gap weighted by bin size is the expected calibration error.
#   examples/vboot_reliability_plot.sh RESULTS_DIR [ENGINE]   (ENGINE defaults to vboot_rff)
set -e
out=${1:?results directory of a vboot pipeline}
engine=${2:-vboot_rff}
table="$out/tables/${engine}__reliability.csv"
mkdir -p "$out/plots"
tail -n +2 "$table" | tr ',' ' ' | awk '$3 > 0' > "$out/reliability_$engine.txt"
gnuplot <<GP
set terminal pngcairo size 600,550
set output "$out/plots/reliability_$engine.png"
set title "Reliability: $engine"
set xlabel "mean confidence in bin"; set ylabel "accuracy in bin"
set xrange [0:1]; set yrange [0:1]; set key top left
plot x with lines dt 2 lc rgb "grey" title "perfect calibration", \
     "$out/reliability_$engine.txt" using 1:2 with linespoints pt 7 lc rgb "blue" title "vboot"
GP
echo "$out/plots/reliability_$engine.png"
