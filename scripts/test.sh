#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh with the test toolchain, warnings as errors; the
# Debian-packaged apps that tests/apps drives) and runs every test: formatting, unit tests, the integration suite and
# the app flows against the real binary (ctest), then a short fixed fuzzing run of the
# Caddyfile front end (FUZZ_SECONDS, default 30; 0 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
CMAKE_ARGS="-DSPINDLE_WERROR=ON ${CMAKE_ARGS:-}" scripts/setup.sh
scripts/install-deps.sh apps
# The PECL extensions tests/integration/test_extensions.py loads, built against Spindle's PHP
# with its phpize (cached after the first run) and not enabled, so no other test loads them.
scripts/php-ext.sh --no-enable redis apcu igbinary msgpack imagick xdebug memcached yaml pcov amqp
scripts/check-format.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j2
scripts/check-docker.sh
if [[ ${FUZZ_SECONDS:-30} != 0 ]]; then
  scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
fi
