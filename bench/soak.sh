#!/usr/bin/env bash
# Soak: a long mixed run (hello, a $_SERVER echo and a 64 KiB upload in turn, see soak.lua)
# against one Spindle, sampling its RSS and open fds every 10 s. Passes when no response is
# wrong or missing, RSS after warm-up grows at most 5 % and the fd count does not grow.
#   bench/soak.sh [WORKER_REQUESTS [CLASSIC_REQUESTS]]   (default 1000000 and 200000)
# Needs build/spindle (or SPINDLE_BIN) and wrk. Prints one summary line per mode and writes the
# samples to bench/out/soak-<mode>.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
worker_requests=${1:-1000000}
classic_requests=${2:-200000}
binary=${SPINDLE_BIN:-build/spindle}
[[ -x $binary ]] || { echo "soak: build first (scripts/setup.sh)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "soak: wrk is missing (apt-get install wrk)" >&2; exit 1; }
mkdir -p bench/out
app=bench/apps/soak
status=0

sample() {  # sample PID OUT: every 10 s, "seconds rss_kb fds" until PID ends
  local pid=$1 out=$2 start=$SECONDS
  printf 'seconds\trss_kb\tfds\n' >"$out"
  while kill -0 "$pid" 2>/dev/null; do
    printf '%s\t%s\t%s\n' $((SECONDS - start)) \
      "$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)" \
      "$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)" >>"$out"
    sleep 10
  done
}

soak() {  # soak MODE REQUESTS FLAGS...
  local mode=$1 requests=$2 port=18091
  shift 2
  local log=bench/out/soak-$mode.log samples=bench/out/soak-$mode.tsv
  "$binary" php-server --root "$app" --listen "127.0.0.1:$port" "$@" 2>"$log" &
  local pid=$!
  for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
    sleep 0.1
  done
  # Warm-up: OPcache, thread stacks, buffers reach their working size before the baseline.
  wrk -t1 -c32 -d10s -s bench/soak.lua "http://127.0.0.1:$port/" >/dev/null 2>&1
  sample "$pid" "$samples" &
  local sampler=$!
  # Rounds of 30 s (each with fresh connections) until the count is reached.
  local out round done_requests=0 wrong=0 socket_errors=0 non2xx=0 start=$SECONDS
  while ((done_requests < requests)); do
    round=$(wrk -t1 -c32 -d30s -s bench/soak.lua "http://127.0.0.1:$port/" 2>&1)
    out+=$round$'\n'
    done_requests=$((done_requests + $(awk '/requests in/ {print $1}' <<<"$round")))
    socket_errors=$((socket_errors + $(awk '/Socket errors/ {gsub(",", ""); s = $4 + $6 + $8 + $10} END {print s + 0}' <<<"$round")))
    non2xx=$((non2xx + $(awk '/Non-2xx/ {n = $5} END {print n + 0}' <<<"$round")))
  done
  local seconds=$((SECONDS - start))
  sleep 1
  local rss_start rss_end fd_start fd_end
  rss_start=$(awk 'NR == 2 {print $2}' "$samples")
  fd_start=$(awk 'NR == 2 {print $3}' "$samples")
  rss_end=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
  fd_end=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
  kill -TERM "$pid"
  wait "$pid" || status=1
  wait "$sampler" 2>/dev/null || true
  wrong=$(grep -c '^soak: unexpected response' <<<"$out" || true)
  local growth
  growth=$(awk -v a="$rss_start" -v b="$rss_end" 'BEGIN { printf "%.1f", (b - a) * 100 / a }')
  printf '%-8s %9s requests in %6ss: wrong %s, socket errors %s, non-2xx %s; RSS %s -> %s KB (%s%%); fds %s -> %s\n' \
    "$mode" "$done_requests" "$seconds" "$wrong" "$socket_errors" "$non2xx" \
    "$rss_start" "$rss_end" "$growth" "$fd_start" "$fd_end"
  if ((wrong > 0 || socket_errors > 0 || non2xx > 0)) ||
    awk -v g="$growth" 'BEGIN { exit !(g > 5) }' || ((fd_end > fd_start)); then
    echo "soak: $mode FAILED (see $log and $samples)" >&2
    status=1
  fi
}

echo "soak: $(nproc) cores, wrk -t1 -c32, mix of hello / \$_SERVER echo / 64 KiB upload"
soak worker "$worker_requests" --worker "$app/worker.php,4" --threads 5 --index worker.php
soak classic "$classic_requests" --threads 4
exit $status
