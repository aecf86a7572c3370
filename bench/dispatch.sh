#!/usr/bin/env bash
# What handing one request to a PHP slot and getting the answer back costs, without PHP or
# HTTP: bench/micro's Google Benchmark BM_dispatch_* (see bench/micro/dispatch_bench.cpp),
# repeated, with the median of the repetitions.
#   bench/dispatch.sh [REPETITIONS] [extra benchmark flags...]
#   (default 9 repetitions; builds build-bench/ with -DSPINDLE_BUILD_BENCH=ON)
set -euo pipefail
cd "$(dirname "$0")/.."
repetitions=${1:-9}
shift $(($# > 0 ? 1 : 0))
build=build-bench
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPINDLE_BUILD_TESTS=OFF \
    -DSPINDLE_BUILD_BENCH=ON >/dev/null
fi
cmake --build "$build" --target spindle_micro_bench -j"$(nproc)" >/dev/null
"$build/bench/micro/spindle_micro_bench" --benchmark_filter='^BM_dispatch' \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true "$@"
