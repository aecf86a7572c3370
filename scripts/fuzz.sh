#!/usr/bin/env bash
# Fuzzes the Caddyfile front end (lexer, parser, dispenser, adapter, JSON validation) with libFuzzer for N seconds
# (default 30). It builds in its own clang build dir, build-fuzz (the gcc build in build/ is not
# touched), against the same cached libphp as scripts/setup.sh. The fuzzer works on a copy of
# the committed seed corpus in build-fuzz/corpus/, which keeps what earlier runs found. Exits
# non-zero when the fuzzer finds a crash; the input that caused it is left as
# build-fuzz/crash-* (rerun: build-fuzz/tests/fuzz/caddyfile_fuzz build-fuzz/crash-...).
#   scripts/fuzz.sh        scripts/fuzz.sh 600
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
if [[ ! $seconds =~ ^[0-9]+$ ]] || ((seconds == 0)); then
  echo "usage: scripts/fuzz.sh [seconds]" >&2
  exit 2
fi
for tool in clang clang++; do
  if ! command -v "$tool" >/dev/null; then
    echo "fuzz: $tool is missing; run scripts/install-deps.sh" >&2
    exit 1
  fi
done
prefix=$(scripts/build-php.sh | tail -n1)

build_dir=${BUILD_DIR:-build-fuzz}
echo "[fuzz] building the fuzz target in $build_dir" >&2
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -DPHP_CONFIG="$prefix/bin/php-config" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPINDLE_FUZZ=ON -DSPINDLE_BUILD_TESTS=OFF >&2
cmake --build "$build_dir" --target caddyfile_fuzz -j"$(nproc)" >&2

corpus="$build_dir/corpus/caddyfile"
mkdir -p "$corpus"
cp tests/fuzz/corpus/caddyfile/* "$corpus"/
# The golden-test Caddyfiles are realistic seeds that reach deep into the adapter.
cp tests/fixtures/config/*.Caddyfile "$corpus"/
echo "[fuzz] running for ${seconds}s over $corpus" >&2
# -timeout: an input taking seconds means a blow-up (imports are capped to stay far below it).
"$build_dir/tests/fuzz/caddyfile_fuzz" -max_total_time="$seconds" -timeout=10 \
  -artifact_prefix="$build_dir/" "$corpus"
echo "[fuzz] no crash in ${seconds}s" >&2
