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
#   7. the template's likelihood, zero_inflated_poisson: its checks (derivatives against central
#      differences), `quench validate` refusing an engine that cannot fit its count target at
#      file:line:col, zip_pipeline.yaml with every latent-GP engine (ep, tap, exact_loo and
#      mc_bootstrap over ep, adatap_bootstrap) after learning pi by the EP evidence, and the same
#      engines at pi = 1e-100 against the built-in poisson likelihood;
#   8. imports the installed Python package (when built) and lists the installed plugins.
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
[[ -f $work/plugin/libquench_zero_inflated_poisson.so ]] ||
  fail "libquench_zero_inflated_poisson.so was not built"

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

# 7. The template's likelihood plugin (docs/plugins.md, "Likelihood plugins").
step "the template's likelihood: zero_inflated_poisson_check"
logged zip-check.out "$work/plugin/zero_inflated_poisson_check"
cat "$work/zip-check.out"
grep -q '^zero_inflated_poisson checks: ok$' "$work/zip-check.out" ||
  fail "zero_inflated_poisson_check did not end ok"

step "quench validate refuses an engine that cannot fit the likelihood's count target"
zip_pipeline=$source/examples/plugin_template/zip_pipeline.yaml
zip_data=$source/examples/plugin_template/recreation_subset.csv
# The pipeline with its data file named absolutely, written into $work.
zip_copy() { sed -e "s|file: recreation_subset.csv|file: $zip_data|" "$zip_pipeline"; }
{
  zip_copy
  echo "  - {name: gp, plugin: exact_gp_regression}"
} >"$work/zip_refused.yaml"
gp_line=$(wc -l <"$work/zip_refused.yaml")
status=0
"$quench" validate "$work/zip_refused.yaml" --plugin-path "$work/plugin" \
  >"$work/zip-refused.out" 2>&1 || status=$?
refusal="$work/zip_refused.yaml:$gp_line:24: engine 'gp' (exact_gp_regression) cannot fit the"
refusal+=" count target of likelihood 'zero_inflated_poisson'; it fits real targets"
if [[ $status -ne 2 ]] || ! grep -qF "$refusal" "$work/zip-refused.out"; then
  cat "$work/zip-refused.out" >&2
  fail "quench validate did not refuse exact_gp_regression at line $gp_line (exit $status)"
fi
sed 's/^/  /' "$work/zip-refused.out"

zip_engines="ep tap exact_loo adatap monte_carlo"
# Every engine's row of <report>/tables/scalars.csv has status ok.
engines_ok() {  # <report dir>
  local engine
  for engine in $zip_engines; do
    awk -F, -v e="$engine" '$1 == e && $2 == "ok" { found = 1 } END { exit !found }' \
      "$1/tables/scalars.csv" ||
      fail "engine $engine is not ok in $1: $(grep "^$engine," "$1/tables/scalars.csv")"
  done
  if grep -Eiq '(^|,)[-+]?(nan|inf)' "$1/tables/scalars.csv"; then
    fail "non-finite numbers in $1/tables/scalars.csv"
  fi
}

step "quench run examples/plugin_template/zip_pipeline.yaml (pi learned; $zip_engines)"
logged run-zip.out "$quench" run "$zip_pipeline" --plugin-path "$work/plugin" \
  --out "$work/run-zip" --threads 2 --no-progress
engines_ok "$work/run-zip"
pi=$(sed -n 's/.*"likelihood.zero_probability": \([-0-9.eE+]*\).*/\1/p' \
  "$work/run-zip/results.json" | head -1)
awk -v p="$pi" 'BEGIN { exit !(p != "" && p > 1e-6 && p < 0.9) }' ||
  fail "learned zero_probability '$pi' is not inside (1e-6, 0.9)"
grep -q '"at_bound": \[\]' "$work/run-zip/results.json" ||
  fail "a learned hyperparameter ended on a bound"
grep -E '^(learned|    likelihood.zero_probability|ep |tap |exact_loo |adatap |monte_carlo )' \
  "$work/run-zip.out" | sed 's/^/  /'

step "zero_probability 1e-100 gives the built-in poisson likelihood's numbers in every engine"
# The pipeline at its start values (no learn:), once with pi = 1e-100 and once with `poisson`.
# At pi = 1e-100 log p(y | f) is the Poisson's to rounding wherever e^-mu > 1e-86, so the two
# runs differ only by their quadratures: quench's adaptive rule for this likelihood, the
# re-centred mode-centred rule of `poisson`, each within 1e-10 of the exact tilted moments
# (quench/tilted_quadrature.h). Measured: every scalar within 3e-12 relative, the same
# iteration counts; allowed |a - b| <= 1e-8 (1 + |b|).
zip_copy | sed -e '/^learn:/,/^engines:/{/^engines:/!d}' \
  -e 's|zero_probability: 0.3}|zero_probability: 1e-100}|' >"$work/zip_tiny.yaml"
zip_copy | sed -e '/^learn:/,/^engines:/{/^engines:/!d}' \
  -e 's|{plugin: zero_inflated_poisson, zero_probability: 0.3}|{plugin: poisson}|' \
  >"$work/zip_poisson.yaml"
if ! grep -q 'zero_probability: 1e-100}' "$work/zip_tiny.yaml" ||
  ! grep -q '{plugin: poisson}' "$work/zip_poisson.yaml" ||
  grep -q '^learn:' "$work/zip_tiny.yaml"; then
  fail "the comparison pipelines were not written"
fi
logged run-tiny.out "$quench" run "$work/zip_tiny.yaml" --plugin-path "$work/plugin" \
  --out "$work/run-tiny" --threads 2 --no-progress
logged run-poisson.out "$quench" run "$work/zip_poisson.yaml" --out "$work/run-poisson" \
  --threads 2 --no-progress
engines_ok "$work/run-tiny"
engines_ok "$work/run-poisson"
awk -F, -v tolerance=1e-8 '
  NR == FNR { row[FNR] = $0; rows = FNR; next }
  {
    if (!(FNR in row)) { print "  extra row " FNR ": " $0; bad = 1; next }
    n = split(row[FNR], a, ",")
    if (n != NF) { print "  row " FNR ": " n " and " NF " fields"; bad = 1; next }
    for (i = 1; i <= NF; ++i) {
      if (a[i] == $i) continue
      d = a[i] - $i; d = d < 0 ? -d : d; s = $i < 0 ? -$i : $i
      if (FNR > 1 && a[i] != "" && $i != "") {
        if (d / (1 + s) > worst) worst = d / (1 + s)
        if (d <= tolerance * (1 + s)) continue
      }
      print "  row " FNR ", field " i ": " a[i] " vs " $i
      bad = 1
    }
  }
  END {
    if (FNR != rows) { print "  " rows " rows and " FNR " rows"; bad = 1 }
    printf "  every scalar of %d runs within %.1e relative (allowed %g)\n", FNR - 1, worst,
      tolerance
    exit bad
  }' "$work/run-tiny/tables/scalars.csv" "$work/run-poisson/tables/scalars.csv" \
  >"$work/compare.out" || {
  cat "$work/compare.out" >&2
  fail "zero_inflated_poisson at pi = 1e-100 differs from poisson"
}
cat "$work/compare.out"

# 8. The installed Python package (when the build has it) finds the installed plugins.
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
