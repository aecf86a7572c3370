#!/usr/bin/env bash
# What 1,000 environment variables of about 45 characters cost a request, against 10: a
# request must cost the same whatever the size of the environment.
#
#   bench/env_size.sh [ROUNDS] [DURATION]          req/s and server CPU per request
#   bench/env_size.sh --instructions [REQUESTS]    instructions per request, checked
#
# SPINDLE_BIN (default build/spindle) is the server. The default measures the worker hello
# (`-w worker.php,2 --threads 3`, `wrk -t1 -c32`, 3 rounds of 8s; needs wrk). Both servers
# start once and are measured in turn, the order swapped every round (10 then 1,000, then
# 1,000 then 10): on a machine that speeds up or slows down during the run, always measuring
# the same size second favours the other one. Prints each run, then the medians and their
# ratio.
#
# --instructions counts instructions per request with bench/instructions.sh (callgrind;
# needs valgrind) for each case below with 10 and with 1,000 variables, and exits 1 when
# 1,000 cost more than max_growth_percent more than 10. The count does not move with the
# machine's load, so this is the check that the cost does not grow again (req/s on a shared
# machine moves by more than the effect).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${SPINDLE_BIN:-build/spindle}")

# One instruction more per variable and request is 990 more (3 % of a worker hello request);
# the run-to-run noise (the allocator's bookkeeping) stays under 1.5 %.
max_growth_percent=3
# mode:app of bench/apps: the worker hello, and a page that reads $_SERVER, in a worker that
# holds its request's $_SERVER until the next request as frameworks do, and classic.
cases=(worker:hello worker:held_request classic:held_request)

# Runs "$@" under `env -i` with $1 variables of about 45 characters (and PATH, HOME,
# SPINDLE_BIN), in place of the calling (sub)shell: a server started with `&` is then $!.
with_variables() {
  local count=$1
  shift
  local vars=(SPINDLE_BIN="$binary")
  for i in $(seq 1 "$count"); do
    vars+=("BENCH_VAR_$i=value-of-bench-variable-number-$i-xxxxxxxx")
  done
  exec env -i PATH="$PATH" HOME="${HOME:-/root}" "${vars[@]}" "$@"
}

instructions() {
  local requests=${1:-300} failed=0
  printf '%-22s %12s %12s %8s\n' case "10 vars" "1,000 vars" growth
  for entry in "${cases[@]}"; do
    local mode=${entry%%:*} app=${entry#*:} small large
    small=$(with_variables 10 bench/instructions.sh -m "$mode" -a "$app" -n "$requests" -t 0 |
      awk '/instructions per request/ {gsub(",", "", $1); print $1}')
    large=$(with_variables 1000 bench/instructions.sh -m "$mode" -a "$app" -n "$requests" -t 0 |
      awk '/instructions per request/ {gsub(",", "", $1); print $1}')
    if [[ -z $small || -z $large ]]; then
      echo "env_size: no instruction count for $mode $app" >&2
      exit 1
    fi
    local growth
    growth=$(awk -v a="$small" -v b="$large" 'BEGIN { printf "%+.1f", (b - a) * 100 / a }')
    printf '%-22s %12s %12s %7s%%\n' "$mode $app" "$small" "$large" "$growth"
    if awk -v g="$growth" -v m="$max_growth_percent" 'BEGIN { exit !(g > m) }'; then
      failed=1
    fi
  done
  if ((failed)); then
    echo "env_size: a request costs more than ${max_growth_percent} % more with 1,000 variables" >&2
    exit 1
  fi
}

if [[ ${1:-} == --instructions ]]; then
  instructions "${2:-}"
  exit 0
fi

rounds=${1:-3}
duration=${2:-8s}
declare -A pids ports=([10]=18091 [1000]=18092)
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

for count in 10 1000; do
  with_variables "$count" "$binary" php-server --root bench/apps/hello --index worker.php \
    --listen "127.0.0.1:${ports[$count]}" --admin off --threads 3 \
    -w bench/apps/hello/worker.php,2 2>/dev/null &
  pids[$count]=$!
done
for count in 10 1000; do
  for attempt in $(seq 101); do
    curl -fs "http://127.0.0.1:${ports[$count]}/" >/dev/null 2>&1 && break
    if ((attempt == 101)); then
      echo "env_size: the server with $count variables did not answer" >&2
      exit 1
    fi
    sleep 0.1
  done
  wrk -t1 -c32 -d2s "http://127.0.0.1:${ports[$count]}/" >/dev/null
done

# Appends "REQ_PER_S CPU_US" of one run to results_<count>.
declare -a results_10 results_1000
measure() {
  local count=$1 pid=${pids[$1]} before after out requests rate cpu
  local -n results=results_$count
  before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  out=$(wrk -t1 -c32 -d"$duration" "http://127.0.0.1:${ports[$count]}/")
  after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  if grep -q 'Non-2xx' <<<"$out"; then
    echo "env_size: non-2xx answers with $count variables" >&2
    exit 1
  fi
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  rate=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  cpu=$(awk -v a="$before" -v b="$after" -v n="$requests" -v t="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.1f", (b - a) / t * 1e6 / n }')
  printf '%5s variables: %10s req/s, server CPU %s us/request\n' "$count" "$rate" "$cpu"
  results+=("$rate $cpu")
}

for round in $(seq "$rounds"); do
  if ((round % 2)); then
    measure 10
    measure 1000
  else
    measure 1000
    measure 10
  fi
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rate_10=$(printf '%s\n' "${results_10[@]}" | cut -d' ' -f1 | median)
rate_1000=$(printf '%s\n' "${results_1000[@]}" | cut -d' ' -f1 | median)
cpu_10=$(printf '%s\n' "${results_10[@]}" | cut -d' ' -f2 | median)
cpu_1000=$(printf '%s\n' "${results_1000[@]}" | cut -d' ' -f2 | median)
awk -v r1="$rate_10" -v r2="$rate_1000" -v c1="$cpu_10" -v c2="$cpu_1000" 'BEGIN {
  printf "medians: 10 variables %.0f req/s, %.1f us; 1,000 variables %.0f req/s, %.1f us\n", r1, c1, r2, c2
  printf "1,000 / 10: %.3fx req/s, %.3fx server CPU per request\n", r2 / r1, c2 / c1
}'
