#!/usr/bin/env bash
# C-library allocations per request (malloc, calloc, realloc, aligned): worker or classic hello
# world under the bench/alloc_count.c LD_PRELOAD shim, measured as the difference between a
# short and a long wrk run, so start-up and shutdown cancel out. PHP's own allocator (ZendMM)
# is not counted: this is what Spindle, libstdc++, Asio and Beast allocate.
#   bench/allocations.sh [worker|classic]      (SPINDLE_BIN, default build/spindle; needs wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-worker}
binary=$(realpath "${SPINDLE_BIN:-build/spindle}")
[[ -x $binary ]] || { echo "allocations: build first (scripts/setup.sh)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "allocations: wrk is missing (apt-get install wrk)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -shared -fPIC -o "$tmp/alloc_count.so" bench/alloc_count.c
args=(--root bench/apps/hello --threads 5)
[[ $mode == worker ]] && args+=(--worker bench/apps/hello/worker.php,4 --index worker.php)
port=18310

# Prints "REQUESTS ALLOCATIONS BYTES" for one server life with a wrk run of $1.
measure() {
  LD_PRELOAD="$tmp/alloc_count.so" "$binary" php-server --listen 127.0.0.1:$port --admin off \
    "${args[@]}" 2>"$tmp/server.log" &
  local pid=$!
  for _ in $(seq 100); do curl -sf -o /dev/null http://127.0.0.1:$port/ && break; sleep 0.1; done
  local requests
  requests=$(wrk -t1 -c32 -d"$1" http://127.0.0.1:$port/ | awk '/requests in/ {print $1}')
  kill -TERM $pid
  wait $pid || true
  # One more request came from the readiness check.
  awk -v r="$requests" '/^alloc_count:/ {print r + 1, $2, $4}' "$tmp/server.log"
}

read -r short_requests short_allocations short_bytes < <(measure 1s)
read -r long_requests long_allocations long_bytes < <(measure 6s)
awk -v rq=$((long_requests - short_requests)) -v a=$((long_allocations - short_allocations)) \
  -v b=$((long_bytes - short_bytes)) -v mode="$mode" \
  'BEGIN {printf "%s hello: %.1f allocations, %.0f bytes per request (over %d requests)\n", mode, a / rq, b / rq, rq}'
