#!/usr/bin/env bash
# What one request's superglobals cost with 10, 100 and 1,000 environment variables of about
# 40 characters: bench/micro's Google Benchmark, one process per size (the engine copies the
# environment once, when it starts), each under `env -i` so that only those variables exist.
# The sizes run alternately, ROUNDS times and in a shuffled order, so that a change in the
# machine's load (other builds, other benchmarks) hits every size alike; it prints the median
# over the rounds of each benchmark's CPU time per size, and the growth from 10 to 1,000.
#   bench/superglobals.sh [ROUNDS] [MIN_TIME] [extra benchmark flags...]
#   (default 5 rounds of 0.5 s per benchmark; builds build-bench/ with -DSPINDLE_BUILD_BENCH=ON)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
min_time=${2:-0.5}
shift $(($# > 2 ? 2 : $#))
build=build-bench
binary=$build/bench/micro/spindle_micro_bench

if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPINDLE_BUILD_TESTS=OFF \
    -DSPINDLE_BUILD_BENCH=ON >/dev/null
fi
cmake --build "$build" --target spindle_micro_bench -j"$(nproc)" >/dev/null

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for round in $(seq "$rounds"); do
  # A new order each round: whatever else the machine does at the time falls on every size.
  for size in $(shuf -e 10 100 1000); do
    env -i PATH="$PATH" HOME="${HOME:-/root}" "$binary" --env-vars="$size" \
      --benchmark_min_time="$min_time" --benchmark_filter='^BM_(classic|worker|server|env|header)' \
      --benchmark_format=json "$@" \
      >"$out/$size.$round.json" 2>"$out/$size.log" || { cat "$out/$size.log" >&2; exit 1; }
  done
done

python3 - "$out" "$rounds" <<'EOF'
import json, statistics, sys
folder, rounds = sys.argv[1], int(sys.argv[2])
sizes = [10, 100, 1000]
samples = {}
order = []
for size in sizes:
    for round in range(1, rounds + 1):
        with open(f"{folder}/{size}.{round}.json") as f:
            data = json.load(f)
        for b in data["benchmarks"]:
            name = b["name"]
            if name not in order:
                order.append(name)
            scale = {"ns": 1.0, "us": 1e3, "ms": 1e6}[b["time_unit"]]
            samples.setdefault(name, {}).setdefault(size, []).append(b["cpu_time"] * scale)
            # A benchmark that measures a difference reports it as a counter.
            if "added_ns" in b:
                extra = f"{name} (added_ns)"
                if extra not in order:
                    order.append(extra)
                samples.setdefault(extra, {}).setdefault(size, []).append(b["added_ns"])
medians = {name: {size: statistics.median(v) for size, v in row.items()}
           for name, row in samples.items()}
ctx = data["context"]
print(f"{ctx.get('num_cpus')} CPUs, load average {ctx.get('load_avg')}, variables_order "
      f"{ctx.get('variables_order')}; median CPU time per iteration over {rounds} rounds")
print()
print(f"| benchmark | {' | '.join(f'{s} vars' for s in sizes)} | 10 -> 1,000 |")
print("|---|" + "---|" * (len(sizes) + 1))
for name in order:
    row = medians[name]
    cells = [f"{row[s]:,.0f} ns" if s in row else "-" for s in sizes]
    growth = (row[1000] / row[10] - 1) * 100 if 10 in row and 1000 in row else float("nan")
    print(f"| {name} | {' | '.join(cells)} | {growth:+.1f} % |")
EOF
