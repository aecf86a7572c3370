#!/usr/bin/env bash
# A quick look at throughput: hello world in classic and worker mode, wrk -t1 -c32 on
# 127.0.0.1, each after a warm-up. The full comparison against nginx + php-fpm comes with
# the benchmark issue; this is the figure quoted in issue notes.
#   bench/quick.sh [DURATION]      (default 10s; SPINDLE_BIN, default build/spindle; needs wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10s}
binary=${SPINDLE_BIN:-build/spindle}
[[ -x $binary ]] || { echo "quick: build first (scripts/setup.sh)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "quick: wrk is missing (apt-get install wrk)" >&2; exit 1; }

run() {
  local mode=$1 port=$2
  shift 2
  "$binary" php-server --root bench/apps/hello --listen "127.0.0.1:$port" "$@" 2>/tmp/spindle-quick-$mode.log &
  local pid=$!
  for _ in $(seq 50); do
    curl -fs "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
    sleep 0.1
  done
  [[ $(curl -fs "http://127.0.0.1:$port/") == "Hello, World!" ]] || { echo "quick: $mode answers wrongly" >&2; kill $pid; exit 1; }
  wrk -t1 -c32 -d2s "http://127.0.0.1:$port/" >/dev/null
  local cpu_before cpu_after
  cpu_before=$(awk '{print $14 + $15}' /proc/$pid/stat)
  local out
  out=$(wrk -t1 -c32 -d"$duration" --latency "http://127.0.0.1:$port/")
  cpu_after=$(awk '{print $14 + $15}' /proc/$pid/stat)
  local rps requests p50 p99
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  local ticks
  ticks=$(getconf CLK_TCK)
  local cpu_us
  cpu_us=$(awk -v a="$cpu_before" -v b="$cpu_after" -v n="$requests" -v t="$ticks" \
    'BEGIN { printf "%.1f", (b - a) / t * 1e6 / n }')
  printf '%-8s %10s req/s   p50 %-8s p99 %-8s server CPU %s us/request\n' "$mode" "$rps" "$p50" "$p99" "$cpu_us"
  kill -TERM $pid
  wait $pid || true
}

echo "hello world, wrk -t1 -c32 -d$duration, $(nproc) cores"
run classic 18081 --threads 4
run worker 18082 --worker bench/apps/hello/worker.php,4 --threads 5 --index worker.php
