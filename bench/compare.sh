#!/usr/bin/env bash
# Compares Spindle binaries on one workload: the binaries take turns, round after round, so a
# change in this VM's speed (it moves by 10-20 % within minutes) falls on all of them alike,
# and the medians are compared. This is how bench/RESULTS.md measures one change: build the
# tree before and after it, copy each binary aside, compare them.
#
#   bench/compare.sh [-m classic|worker] [-r ROUNDS] [-d DURATION] [-c CONNECTIONS]
#                    [-a APP_DIR] [-p PATH] BINARY BINARY...
#
# Defaults: worker mode, 3 rounds of 8 s (each after a 2 s warm-up), 32 connections, the hello
# world app (bench/apps/hello) at /. Worker mode runs APP_DIR/worker.php as the front
# controller. More server flags: SPINDLE_FLAGS="--io-threads 2" bench/compare.sh ...
# Needs wrk and curl. Prints each binary's runs, then the medians of req/s and of server CPU
# (user + system time of the process over the run) per request.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=worker rounds=3 duration=8s connections=32 app=bench/apps/hello path=/
while getopts "m:r:d:c:a:p:" opt; do
  case $opt in
    m) mode=$OPTARG ;;
    r) rounds=$OPTARG ;;
    d) duration=$OPTARG ;;
    c) connections=$OPTARG ;;
    a) app=$OPTARG ;;
    p) path=$OPTARG ;;
    *) sed -n '7,14p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
(($# >= 2)) || { sed -n '7,14p' "$0" >&2; exit 2; }
command -v wrk >/dev/null || { echo "compare: wrk is missing (apt-get install wrk)" >&2; exit 1; }
for binary in "$@"; do
  [[ -x $binary ]] || { echo "compare: $binary is not an executable" >&2; exit 1; }
done
case $mode in
  classic) mode_flags=() ;;
  worker) mode_flags=(--worker "$app/worker.php" --index worker.php) ;;
  *) echo "compare: -m takes classic or worker" >&2; exit 2 ;;
esac
port=18998
ticks=$(getconf CLK_TCK)
rps_runs=() cpu_runs=()

# One measured run of `binary`: prints "REQ_PER_S US_PER_REQUEST".
measure() {
  local binary=$1 url="http://127.0.0.1:$port$path"
  # shellcheck disable=SC2086 # SPINDLE_FLAGS is a list of flags
  "$binary" php-server --root "$app" --listen "127.0.0.1:$port" --admin off "${mode_flags[@]}" \
    ${SPINDLE_FLAGS:-} 2>/tmp/spindle-compare.log &
  local pid=$!
  for _ in $(seq 100); do
    curl -fs -o /dev/null "$url" && break
    sleep 0.1
  done
  curl -fs -o /dev/null "$url" || {
    echo "compare: $binary does not answer 200 at $url (log: /tmp/spindle-compare.log)" >&2
    kill $pid
    exit 1
  }
  wrk -t1 -c"$connections" -d2s "$url" >/dev/null
  local before after out
  before=$(awk '{print $14 + $15}' /proc/$pid/stat)
  out=$(wrk -t1 -c"$connections" -d"$duration" "$url")
  after=$(awk '{print $14 + $15}' /proc/$pid/stat)
  kill -TERM $pid
  wait $pid 2>/dev/null || true
  if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then
    echo "compare: errors while measuring $binary:" >&2
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

binaries=("$@")
for round in $(seq "$rounds"); do
  for i in "${!binaries[@]}"; do
    read -r rps cpu < <(measure "${binaries[i]}")
    echo "round $round  ${binaries[i]}: $rps req/s, $cpu us/request" >&2
    rps_runs[i]+="$rps "
    cpu_runs[i]+="$cpu "
  done
done

echo "$mode, $app$path, wrk -t1 -c$connections -d$duration, medians of $rounds alternated runs:"
for i in "${!binaries[@]}"; do
  printf '  %-40s %8s req/s  %6s us/request   (runs: %s/ %s)\n' "${binaries[i]}" \
    "$(median "${rps_runs[$i]}")" "$(median "${cpu_runs[$i]}")" "${rps_runs[$i]}" "${cpu_runs[$i]}"
done
