#!/usr/bin/env bash
# Throughput of `processes N` against one process with the same PHP threads in all: each
# setting takes its turn, round after round (this VM's speed moves by 10-20 % within minutes),
# and the medians are compared. CPU per request is the user + system time of the supervisor
# and every server process over the measured run.
#
#   bench/processes.sh [-m classic|worker] [-r ROUNDS] [-d DURATION] [-c CONNECTIONS]
#                      [-t THREADS] [-i IO_THREADS] [-p PROCESSES...] BINARY
#
# Defaults: worker mode, 3 rounds of 8 s (each after a 2 s warm-up), 32 connections, 4 PHP
# threads in all, processes "1 2" (process count P runs THREADS/P threads each; in worker mode
# THREADS/P worker threads and the classic thread each process must have), the hello world app
# (bench/apps/hello). -i gives I/O threads in all too (IO_THREADS/P each; default: each
# process its own default, half the CPUs). Needs wrk and curl.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=worker rounds=3 duration=8s connections=32 threads=4 io='' counts="1 2" app=bench/apps/hello
while getopts "m:r:d:c:t:i:p:" opt; do
  case $opt in
    m) mode=$OPTARG ;;
    r) rounds=$OPTARG ;;
    d) duration=$OPTARG ;;
    c) connections=$OPTARG ;;
    t) threads=$OPTARG ;;
    i) io=$OPTARG ;;
    p) counts=$OPTARG ;;
    *) sed -n '7,15p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
(($# == 1)) || { sed -n '7,15p' "$0" >&2; exit 2; }
binary=$1
command -v wrk >/dev/null || { echo "processes: wrk is missing (apt-get install wrk)" >&2; exit 1; }
[[ -x $binary ]] || { echo "processes: $binary is not an executable" >&2; exit 1; }
port=18997
ticks=$(getconf CLK_TCK)
url="http://127.0.0.1:$port/"

# User + system ticks of `pid` and its children (the server processes).
tree_ticks() {
  local total=0 p
  for p in $1 $(pgrep -P "$1" || true); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo $total
}

# One measured run with `count` processes: prints "REQ_PER_S US_PER_REQUEST".
measure() {
  local count=$1 per=$((threads / $1)) mode_flags=()
  if [[ $mode == worker ]]; then
    # THREADS worker threads in all; each process adds the one classic thread it must have,
    # idle here.
    mode_flags=(--worker "$app/worker.php,$per" --index worker.php)
    per=$((per + 1))
  fi
  if [[ -n $io ]]; then
    mode_flags+=(--io-threads "$((io / count > 0 ? io / count : 1))")
  fi
  "$binary" php-server --root "$app" --listen "127.0.0.1:$port" --admin off --processes "$count" \
    --threads "$per" "${mode_flags[@]}" 2>/tmp/spindle-processes.log &
  local pid=$!
  for _ in $(seq 100); do
    curl -fs -o /dev/null "$url" && break
    sleep 0.1
  done
  curl -fs -o /dev/null "$url" || {
    echo "processes: no 200 at $url (log: /tmp/spindle-processes.log)" >&2
    kill $pid
    exit 1
  }
  # Every process booted (each logs its threads once it serves).
  for _ in $(seq 100); do
    (($(grep -c 'PHP threads' /tmp/spindle-processes.log) >= count)) && break
    sleep 0.1
  done
  wrk -t1 -c"$connections" -d2s "$url" >/dev/null
  local before after out
  before=$(tree_ticks $pid)
  out=$(wrk -t1 -c"$connections" -d"$duration" "$url")
  after=$(tree_ticks $pid)
  kill -TERM $pid
  wait $pid 2>/dev/null || true
  if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then
    echo "processes: errors while measuring $count processes:" >&2
    grep -E 'Non-2xx|Socket errors' <<<"$out" >&2
    exit 1
  fi
  awk -v before="$before" -v after="$after" -v ticks="$ticks" '
    /requests in/ { requests = $1 }
    /Requests\/sec/ { rps = $2 }
    END { printf "%.0f %.1f\n", rps, (after - before) / ticks * 1e6 / requests }' <<<"$out"
}

median() {
  tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

declare -A rps_runs cpu_runs
for round in $(seq "$rounds"); do
  for count in $counts; do
    read -r rps cpu < <(measure "$count")
    echo "round $round  processes $count: $rps req/s, $cpu us/request" >&2
    rps_runs[$count]+="$rps "
    cpu_runs[$count]+="$cpu "
  done
done

echo "$mode, $app, $threads PHP threads in all${io:+, $io I/O threads in all}, wrk -t1 -c$connections -d$duration," \
  "medians of $rounds alternated runs:"
for count in $counts; do
  printf '  processes %-3s (%2s threads each) %8s req/s  %6s us/request   (runs: %s/ %s)\n' \
    "$count" "$((threads / count))" "$(median "${rps_runs[$count]}")" \
    "$(median "${cpu_runs[$count]}")" "${rps_runs[$count]}" "${cpu_runs[$count]}"
done
