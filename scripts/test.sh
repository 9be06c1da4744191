#!/usr/bin/env bash
# Second README command: install what is missing, build, run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
