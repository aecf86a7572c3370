#!/usr/bin/env bash
# Fuzzes, with libFuzzer, N seconds per target (default 30): caddyfile_fuzz (the Caddyfile
# front end: lexer, parser, dispenser, adapter, JSON validation), path_fuzz (the router's
# path normalisation and resolution), proxy_header_fuzz (PROXY protocol v1/v2 headers) and
# request_fuzz (raw HTTP requests through Beast's
# parser and the header mapping into the embedded PHP engine's $_SERVER, $_COOKIE, $_GET,
# $_POST). It builds in its own clang build dir, build-fuzz (the gcc
# build in build/ is not touched), against the same cached libphp as scripts/setup.sh. Each
# target works on a copy of its committed seed corpus in build-fuzz/corpus/, which keeps what
# earlier runs found. Exits non-zero when a fuzzer finds a crash; the input is left as
# build-fuzz/TARGET-crash-* (rerun: build-fuzz/tests/fuzz/TARGET build-fuzz/TARGET-crash-...).
# Longer runs: scripts/fuzz.sh 3600. With --http2 it also builds and runs http2_fuzz (raw
# frames into a real HTTP/2 connection), which compiles most of the server with clang first:
# minutes that scripts/test.sh leaves out.
#   scripts/fuzz.sh        scripts/fuzz.sh 600        scripts/fuzz.sh 300 --http2
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
http2=0
if [[ ${2:-} == --http2 ]]; then
  http2=1
elif [[ -n ${2:-} ]] || [[ ! $seconds =~ ^[0-9]+$ ]] || ((seconds == 0)); then
  echo "usage: scripts/fuzz.sh [seconds [--http2]]" >&2
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
echo "[fuzz] building the fuzz targets in $build_dir" >&2
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -DPHP_CONFIG="$prefix/bin/php-config" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPINDLE_FUZZ=ON -DSPINDLE_BUILD_TESTS=OFF >&2
targets=(caddyfile_fuzz path_fuzz request_fuzz proxy_header_fuzz)
((http2)) && targets+=(http2_fuzz)
cmake --build "$build_dir" --target "${targets[@]}" -j"$(nproc)" >&2

run() {  # run TARGET CORPUS-NAME SEED-DIR...
  local target=$1 corpus="$build_dir/corpus/$2"
  shift 2
  mkdir -p "$corpus"
  for seeds in "$@"; do
    find "$seeds" -maxdepth 1 -type f -exec cp {} "$corpus"/ \;
  done
  echo "[fuzz] $target for ${seconds}s over $corpus" >&2
  # -timeout: an input taking seconds means a blow-up (imports are capped far below it).
  "$build_dir/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 \
    -artifact_prefix="$build_dir/$target-" "$corpus"
}

# The golden-test Caddyfiles are realistic seeds that reach deep into the adapter.
run caddyfile_fuzz caddyfile tests/fuzz/corpus/caddyfile tests/fixtures/config
run path_fuzz path tests/fuzz/corpus/path
run proxy_header_fuzz proxy_header tests/fuzz/corpus/proxy_header
# The embedded PHP engine: its allocations through malloc so ASan sees them, PHP's persistent
# memory not a leak.
USE_ZEND_ALLOC=0 ASAN_OPTIONS=detect_leaks=0 run request_fuzz request tests/fuzz/corpus/request
if ((http2)); then
  USE_ZEND_ALLOC=0 ASAN_OPTIONS=detect_leaks=0 run http2_fuzz http2 tests/fuzz/corpus/http2
fi
echo "[fuzz] no crash in ${seconds}s per target" >&2
