#!/usr/bin/env bash
# Out-of-tree use of an installed quench (CTest `install_and_build`, label install):
#   1. installs the build into a fresh temporary prefix;
#   2. compiles every installed header on its own (header_check/), against the package only;
#   3. builds examples/embed and examples/plugin_template with find_package(quench);
#   4. runs the embed program on Boston housing and checks its numbers are finite;
#   5. lists plugins with the installed quench: the installed ones by default, matern32 with
#      --plugin-path or QUENCH_PLUGIN_PATH; a pipeline's plugin_paths are ignored by
#      `quench validate`;
#   6. runs the template pipeline with the installed `quench run`, loading matern32 through the
#      pipeline's plugin_paths with --allow-pipeline-plugins;
#   7. imports the installed Python package (when built) and lists the installed plugins.
#
#   install_and_build.sh <quench build dir> <quench source dir> [cmake] [c++ compiler]
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 <quench build dir> <quench source dir> [cmake] [c++ compiler]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
cmake=${3:-cmake}
cxx=${4:-c++}

work=$(mktemp -d "${TMPDIR:-/tmp}/quench-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
unset QUENCH_PLUGIN_PATH

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
step() { echo "== $*"; }
# Runs a command with its output in $work/<log>; shows the log when it fails.
logged() {
  local log=$work/$1
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "$*"
  fi
}

libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")
libdir=${libdir:-lib}

step "install $build into $prefix"
logged install.log "$cmake" --install "$build" --prefix "$prefix"
quench=$prefix/bin/quench
[[ -x $quench ]] || fail "$quench was not installed"
[[ -f $prefix/$libdir/cmake/quench/quenchConfig.cmake ]] || fail "no package configuration"
ls "$prefix/$libdir/quench/plugins/"*.so >/dev/null 2>&1 || fail "no plugins installed"
# The binary finds libquench.so relative to itself; libquench.so finds the plugins next to it.
if command -v readelf >/dev/null; then
  readelf -d "$quench" | grep -Eq "R(UN)?PATH.*\\\$ORIGIN/\.\./$libdir" ||
    fail "bin/quench has no RUNPATH \$ORIGIN/../$libdir: $(readelf -d "$quench" | grep PATH)"
fi

# Configures and builds a project against the installed package only.
build_against_prefix() {  # <name> <source dir>
  local bin=$work/$1
  logged "$1-configure.log" "$cmake" -S "$2" -B "$bin" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
  local found
  found=$(sed -n 's/^quench_DIR:PATH=//p' "$bin/CMakeCache.txt")
  [[ $found == "$prefix/$libdir/cmake/quench" ]] || fail "$1 found quench in '$found'"
  logged "$1-build.log" "$cmake" --build "$bin" --parallel 2
}

step "compile each installed header on its own"
build_against_prefix header_check "$source/tests/install/header_check"

step "build examples/embed and examples/plugin_template against $prefix"
build_against_prefix embed "$source/examples/embed"
build_against_prefix plugin "$source/examples/plugin_template"
[[ -f $work/plugin/libquench_matern32.so ]] || fail "libquench_matern32.so was not built"

step "run the embed program"
logged embed.out "$work/embed/quench_embed" "$source/examples/data/boston.csv"
cat "$work/embed.out"
number='-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?'
for name in gp.log_marginal_likelihood 'gp.test_mean\[0\]' bootstrap.test_error_square; do
  grep -Eq "^  $name = $number\$" "$work/embed.out" || fail "embed output has no finite $name"
done
grep -Eq '^  gp.test_mean: 50 values$' "$work/embed.out" || fail "embed output: test_mean size"
# Three models (gp, Monte-Carlo and ADATAP bootstraps), each saved, loaded and asked again.
[[ $(grep -c '^  saved and loaded model predicts the same numbers$' "$work/embed.out") -eq 3 ]] ||
  fail "embed: a loaded model does not predict what the fitted one did"
grep -q '^  refused: the model takes 13 inputs' "$work/embed.out" || fail "embed: misuse not refused"
if grep -Eiq 'nan|inf' "$work/embed.out"; then fail "embed output has non-finite numbers"; fi

step "installed quench finds the installed plugins by default"
logged plugins-default.out "$quench" plugins
grep -q "gaussian" "$work/plugins-default.out" || fail "installed plugins not listed"
grep -q "exact_gp_regression" "$work/plugins-default.out" || fail "installed plugins not listed"
if grep -q matern32 "$work/plugins-default.out"; then fail "matern32 listed without a path"; fi
if grep -Eiq 'refused|no such file' "$work/plugins-default.out"; then
  cat "$work/plugins-default.out" >&2
  fail "installed quench refused a plugin or missed its plugin directory"
fi

step "quench plugins --plugin-path <template build>"
logged plugins-path.out "$quench" plugins --plugin-path "$work/plugin"
grep -Eq '(^|[^a-z_])matern32([^a-z_]|$)' "$work/plugins-path.out" || {
  cat "$work/plugins-path.out" >&2
  fail "matern32 not listed with --plugin-path"
}

step "QUENCH_PLUGIN_PATH=<template build> quench plugins"
logged plugins-env.out env QUENCH_PLUGIN_PATH="$work/plugin" "$quench" plugins
grep -q matern32 "$work/plugins-env.out" || fail "matern32 not listed with QUENCH_PLUGIN_PATH"

step "plugin_paths: in a pipeline are not loaded by quench validate"
sed -e "s|^data:|plugin_paths: [plugin]\ndata:|" \
  -e "s|file: ../data/boston.csv|file: $source/examples/data/boston.csv|" \
  "$source/examples/plugin_template/matern32_pipeline.yaml" >"$work/matern32_paths.yaml"
status=0
"$quench" validate "$work/matern32_paths.yaml" >"$work/validate.out" 2>&1 || status=$?
[[ $status -eq 2 ]] && grep -qF "plugin_paths ($work/plugin) ignored" "$work/validate.out" &&
  grep -qF "unknown kernel plugin 'matern32'" "$work/validate.out" || {
  cat "$work/validate.out" >&2
  fail "quench validate loaded a pipeline's plugin_paths (exit $status)"
}
logged validate-path.out "$quench" validate "$work/matern32_paths.yaml" --plugin-path "$work/plugin"

step "quench run the template pipeline (plugin_paths with --allow-pipeline-plugins)"
logged run.out "$quench" run "$work/matern32_paths.yaml" --allow-pipeline-plugins \
  --out "$work/run" --threads 2 --no-progress
cat "$work/run.out"
[[ -f $work/run/results.json ]] || fail "no results.json"
grep -q '"code": "ok"' "$work/run/results.json" || fail "the run is not ok"
grep -q '"log_marginal_likelihood"' "$work/run/results.json" || fail "no log_marginal_likelihood"

step "the third-party kernel inside a sum (docs/kernels.md)"
# matern32(v = 0.25) + matern32(v = 0.75) is matern32(v = 1): the same evidence, to rounding.
sed -e "s|^data:|plugin_paths: [plugin]\ndata:|" \
  -e "s|file: ../data/boston.csv|file: $source/examples/data/boston.csv|" \
  -e "s|kernel: {plugin: matern32, amplitude: 1.0, length_scale: 3.0}|kernel: {sum: [{plugin: matern32, amplitude: 0.25, length_scale: 3.0}, {plugin: matern32, amplitude: 0.75, length_scale: 3.0}]}|" \
  "$source/examples/plugin_template/matern32_pipeline.yaml" >"$work/matern32_sum.yaml"
grep -q "sum: \[{plugin: matern32" "$work/matern32_sum.yaml" || fail "the sum pipeline was not written"
logged run-sum.out "$quench" run "$work/matern32_sum.yaml" --allow-pipeline-plugins \
  --out "$work/run-sum" --threads 2 --no-progress
lml() { sed -n 's/.*"log_marginal_likelihood": \([-0-9.eE+]*\).*/\1/p' "$1" | head -1; }
one=$(lml "$work/run/results.json") sum=$(lml "$work/run-sum/results.json")
awk -v a="$one" -v b="$sum" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-9 * (a < 0 ? -a : a)) }' ||
  fail "a sum of matern32 kernels gives log marginal likelihood $sum, the single kernel $one"
echo "  matern32 sum: log marginal likelihood $sum (single kernel $one)"

# 7. The installed Python package (when the build has it) finds the installed plugins.
if grep -q '^QUENCH_WITH_PYTHON:BOOL=ON' "$build/CMakeCache.txt"; then
  step "the installed Python package runs"
  pydir=$(sed -n 's/^QUENCH_PYTHON_INSTALL_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")
  python=$(sed -n 's/^Python_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
  python=${python:-/usr/bin/python3}
  [[ -f $prefix/$pydir/quench/__init__.py ]] || fail "no Python package in $prefix/$pydir"
  logged python.log env PYTHONPATH="$prefix/$pydir" "$python" -B -c \
    "import quench; names = {p['name'] for p in quench.plugins()}; assert 'gaussian' in names and 'tap' in names, names; print(quench.__file__)"
  grep -q "^$prefix/$pydir/quench/__init__.py" "$work/python.log" ||
    fail "imported another quench package: $(cat "$work/python.log")"
fi

echo "install_and_build: ok"
