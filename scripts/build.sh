#!/usr/bin/env bash
# Configures and builds quench (Release) in build/ (idempotent: re-running rebuilds only what
# changed). Compiles through ccache when it is installed. The compiler's output goes to
# build.log; the terminal gets what is happening, how long a first build takes, and the
# build's progress (CMake's [ NN%] lines, at most one line per 10 % and per 20 s).
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Paths below the checkout are hashed relative to it, so another clone reuses the cache.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
fi
jobs="$(nproc)"
if [ -x build/bin/quench ]; then
  echo "build: updating quench in build/ (only what changed; log in build.log)"
else
  echo "build: building quench in build/ with $jobs jobs (a first build takes ~7 min on" \
    "2 cores, less with a warm ccache; log in build.log)"
fi
start=$SECONDS
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" > build.log 2>&1 ||
  { cat build.log; exit 1; }

# Reads the build's output, appends it to build.log and prints its progress. Nothing read
# is ever evaluated: only the digits of a leading "[ NN%]" are used.
show_progress() {
  local line percent shown=0 shown_at=$start
  while IFS= read -r line || [ -n "$line" ]; do
    printf '%s\n' "$line" >> build.log
    [[ $line =~ ^\[\ *([0-9]+)%\] ]] || continue
    percent=$((10#${BASH_REMATCH[1]}))
    if ((percent / 10 > shown / 10 && SECONDS - shown_at >= 20)); then
      shown=$percent
      shown_at=$SECONDS
      printf 'build: %3d %% after %d min %02d s\n' "$percent" $(((SECONDS - start) / 60)) \
        $(((SECONDS - start) % 60))
    fi
  done
}

cmake --build build -j"$jobs" 2>&1 | show_progress || { tail -50 build.log; exit 1; }
printf 'build: ok in %d min %02d s (log in build.log)\n' $(((SECONDS - start) / 60)) \
  $(((SECONDS - start) % 60))
