#!/usr/bin/env bash
# Throughput of a worker hello world with 10 and with 1,000 environment variables of about
# 45 characters, run alternately: a request must cost the same whatever the environment size.
#   bench/env_size.sh [ROUNDS] [DURATION]     (default 3 rounds of 8s; needs build/spindle, wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
duration=${2:-8s}

run() {
  local count=$1 port=$2
  local vars=()
  for i in $(seq 1 "$count"); do
    vars+=("BENCH_VAR_$i=value-of-bench-variable-number-$i-xxxxxxxx")
  done
  env -i PATH="$PATH" HOME="${HOME:-/root}" "${vars[@]}" build/spindle php-server \
    --root bench/apps/hello --index worker.php --listen "127.0.0.1:$port" \
    -w bench/apps/hello/worker.php,2 --threads 3 2>/dev/null &
  local pid=$!
  for _ in $(seq 50); do
    curl -fs "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
    sleep 0.1
  done
  wrk -t1 -c32 -d2s "http://127.0.0.1:$port/" >/dev/null
  local before after out requests
  before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  out=$(wrk -t1 -c32 -d"$duration" "http://127.0.0.1:$port/")
  after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  printf '%5s variables: %10s req/s, server CPU %s us/request\n' "$count" \
    "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" \
    "$(awk -v a="$before" -v b="$after" -v n="$requests" -v t="$(getconf CLK_TCK)" \
      'BEGIN { printf "%.1f", (b - a) / t * 1e6 / n }')"
  kill -TERM "$pid"
  wait "$pid" || true
}

for _ in $(seq "$rounds"); do
  run 10 18091
  run 1000 18092
done
