#!/usr/bin/env bash
# Sanitizer and fuzzing stage, called by scripts/test.sh (docs/fuzzing.md). One clang build in
# build-sanitize/ (AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer coverage,
# benchmarks off) serves both: the test suite runs there with leak checks on, then every fuzz
# harness runs for QUENCH_FUZZ_SECONDS (default 45) from its seed corpus, the harnesses side by
# side. The suite here is every test but the plugins' own numerical ones (QUENCH_BUILD_PLUGIN_
# TESTS=OFF: half the stage's build and two thirds of its test time); the instrumented plugins
# run through the framework, pipeline, CLI and bad-input tests, and the Release stage runs
# every test. Idempotent; exits non-zero on any failing test, sanitizer report or fuzz
# finding. Full log: build-sanitize.log.
set -euo pipefail
cd "$(dirname "$0")/.."
log=build-sanitize.log
: > "$log"
fail() {
  tail -60 "$log"
  echo "sanitize: FAILED at $1 (full log in $log)"
  exit 1
}
launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Paths below the checkout are hashed relative to it, so another clone reuses the cache.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
fi

start=$SECONDS
# CXX is read on the first configure only (the compiler of a build directory is fixed).
# -O1 with line tables only: reports with file:line, compiled faster than -O2 -g. As in every
# build, the sources compile as unity batches (QUENCH_UNITY_BUILD; a cold build here takes
# 488 s instead of 611-698 s file by file). No MPI driver: OpenMPI's own allocations at exit trip
# LeakSanitizer; no Python module: an instrumented module cannot load into an uninstrumented
# interpreter (the Release stage tests both).
CXX=clang++-14 cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DQUENCH_SANITIZE=address,undefined -DQUENCH_BUILD_FUZZERS=ON -DQUENCH_BUILD_BENCHMARKS=OFF \
  -DQUENCH_BUILD_PLUGIN_TESTS=OFF \
  -DQUENCH_WITH_MPI=OFF -DQUENCH_WITH_PYTHON=OFF \
  -DQUENCH_FUZZ_SECONDS="${QUENCH_FUZZ_SECONDS:-45}" "${launcher[@]}" >> "$log" 2>&1 ||
  fail configure
cmake --build build-sanitize -j"$(nproc)" >> "$log" 2>&1 || fail build
echo "sanitize: build ok ($((SECONDS - start)) s)"

# Leak checks stay on; any UB already aborts (-fno-sanitize-recover=undefined).
export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Excluded: `install` (install_and_build.sh installs the package and compiles the examples
# against it without the sanitizer flags, so they cannot link the instrumented library; it
# tests packaging, which the main stage covers) and `fuzz` (run below).
start=$SECONDS
ctest --test-dir build-sanitize -LE 'install|fuzz' --output-on-failure \
  -j"$(nproc)" >> "$log" 2>&1 || fail "the sanitized tests"
echo "sanitize: tests $(grep -E 'tests passed' "$log" | tail -1) ($((SECONDS - start)) s)"

start=$SECONDS
ctest --test-dir build-sanitize -L fuzz -V -j"$(nproc)" >> "$log" 2>&1 || fail fuzzing
grep -E 'Test +#[0-9]+: fuzz\.|number_of_executed_units' "$log" | sed 's/^/sanitize: fuzz /'
echo "sanitize: fuzz $(grep -E 'tests passed' "$log" | tail -1) ($((SECONDS - start)) s)"
