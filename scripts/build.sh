#!/usr/bin/env bash
# Configures and builds quench (Release) in build/ (idempotent: re-running rebuilds only what
# changed). Compiles through ccache when it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Paths below the checkout are hashed relative to it, so another clone reuses the cache.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" > build.log 2>&1 ||
  { cat build.log; exit 1; }
cmake --build build -j"$(nproc)" >> build.log 2>&1 || { tail -50 build.log; exit 1; }
echo "build: ok (log in build.log)"
