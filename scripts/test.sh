#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh, warnings as errors) and runs every test: formatting,
# unit tests and the integration suite against the real binary (ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
CMAKE_ARGS="-DSPINDLE_WERROR=ON ${CMAKE_ARGS:-}" scripts/setup.sh
scripts/check-format.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j2
