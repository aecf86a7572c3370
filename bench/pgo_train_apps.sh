#!/usr/bin/env bash
# The second training of a profile-guided PHP build for benchmarks (scripts/build-php.sh runs
# it with PHP_PGO_TRAIN=bench/pgo_train_apps.sh; bench/run.sh --apps sets that):
#
#   bench/pgo_train_apps.sh PREFIX
#
# With the instrumented PHP installed at PREFIX, builds Spindle against it (in
# build-pgo-train/, kept between runs) and has it serve the training pages of
# bench/real_apps.py: WordPress, MediaWiki, Laravel and Symfony pages other than the ones the
# benchmark measures, classic and worker. Needs what bench/run.sh --apps needs (the apps
# group of scripts/install-deps.sh) and root, as real_apps.py does.
#
# build-php.sh keys its cache by this file, not by real_apps.py: bump the version after
# changing real_apps.py's TRAINING pages or what they run.
set -euo pipefail
training_version=1
cd "$(dirname "$0")/.."
prefix=${1:?usage: bench/pgo_train_apps.sh PREFIX}
build=build-pgo-train
echo "[pgo-train] training $training_version: Spindle against $prefix in $build" >&2
cmake -S . -B "$build" -DPHP_CONFIG="$prefix/bin/php-config" -DCMAKE_BUILD_TYPE=Release \
  -DSPINDLE_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target spindle >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bench/real_apps.py --spindle "$build/spindle" --train "${PGO_TRAIN_REQUESTS:-200}" --out "$out"
