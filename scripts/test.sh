#!/usr/bin/env bash
# Second README command: install what is missing, build, run the sanitizer and fuzzing stage
# (scripts/test_sanitized.sh), then the whole test suite on the Release build. The output
# ends with that suite's CTest summary; the exit status is non-zero if either stage failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
sanitize_status=0
scripts/test_sanitized.sh || sanitize_status=$?
ctest --test-dir build --output-on-failure -j"$(nproc)"
if [ "$sanitize_status" -ne 0 ]; then
  echo "test: the sanitizer and fuzzing stage FAILED (see above)"
  exit "$sanitize_status"
fi
