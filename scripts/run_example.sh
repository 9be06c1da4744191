#!/usr/bin/env bash
# First README command: install what is missing, build, run the main example pipeline
# (Boston Monte-Carlo bootstrap learning curve, 000 Fig. 1 simulation side).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "run_example: three steps: missing packages, the build, the example run"
scripts/install_deps.sh
scripts/build.sh
echo "run_example: running examples/pipelines/boston_mc_bootstrap.yaml (1000 bootstrap" \
  "resamples at 6 sizes; quench shows its progress)"
./build/bin/quench run examples/pipelines/boston_mc_bootstrap.yaml
