#!/usr/bin/env bash
# First README command: install what is missing, build, run the main example pipeline
# (Boston Monte-Carlo bootstrap learning curve, 000 Fig. 1 simulation side).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
./build/bin/quench run examples/pipelines/boston_mc_bootstrap.yaml
