#!/usr/bin/env bash
# Sets everything up on a Debian 12 machine: apt packages, the ZTS libphp (built once and
# cached outside the checkout), then Spindle itself into build/ (binary: build/spindle).
#   BUILD_TYPE=Release scripts/setup.sh      CMAKE_ARGS="-DSPINDLE_SANITIZE=ON" scripts/setup.sh
#   SPINDLE_TESTS=0 scripts/setup.sh         only what building and running need: no test
#                                            toolchain, no unit tests (scripts/install.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $(id -u) -ne 0 ]] && ! command -v sudo >/dev/null; then
  echo "setup: run as root (apt-get installs packages)" >&2
  exit 1
fi
tests=${SPINDLE_TESTS:-1}
if [[ $tests == 0 ]]; then
  scripts/install-deps.sh build
else
  scripts/install-deps.sh build test
fi
prefix=$(scripts/build-php.sh | tail -n1)

build_dir=${BUILD_DIR:-build}
echo "[setup] building Spindle in $build_dir against $prefix" >&2
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -DPHP_CONFIG="$prefix/bin/php-config" \
  -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DSPINDLE_BUILD_TESTS="$([[ $tests == 0 ]] && echo OFF || echo ON)" ${CMAKE_ARGS:-} >&2
cmake --build "$build_dir" -j"$(nproc)" >&2
echo "[setup] done: $build_dir/spindle" >&2
