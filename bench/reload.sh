#!/usr/bin/env bash
# Reloads under load: wrk -c64 on one Spindle while `current` switches between two releases
# and `spindle reload` applies it, 10 times in a row; then 100 reloads more, to see whether
# memory stays flat. Scenarios: hello (classic and worker) and the Symfony app of tests/apps
# (worker). For each it prints the p99 of a steady run and of the run with the reloads, the
# requests that failed (socket errors, non-2xx, a body from neither release) and RSS before
# and after the 100 reloads.
#   bench/reload.sh [SECONDS]   (each wrk run; default 12)
# Passes when no request failed, the reload run's p99 is within 2x the steady one, and RSS
# grew by less than 10 % over the 100 reloads. Needs build/spindle (or SPINDLE_BIN) and wrk.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-12}
binary=$(realpath "${SPINDLE_BIN:-build/spindle}")
[[ -x $binary ]] || { echo "reload: build first" >&2; exit 1; }
command -v wrk >/dev/null || { echo "reload: wrk is missing (apt-get install wrk)" >&2; exit 1; }
mkdir -p bench/out
out=$(realpath bench/out)
status=0

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# p99 in microseconds from wrk --latency output.
p99_us() {
  awk '$1 == "99%" {v = $2; u = v; gsub(/[0-9.]/, "", u); gsub(/[a-z]/, "", v);
       f = u == "us" ? 1 : u == "ms" ? 1000 : 1000000; printf "%d", v * f}' <<<"$1"
}
failures() {  # socket errors + non-2xx + wrong bodies (reload.lua) of one wrk output
  awk '/Socket errors/ {gsub(",", ""); n += $4 + $6 + $8 + $10}
       /Non-2xx/ {n += $5} /^reload: unexpected/ {n++} END {print n + 0}' <<<"$1"
}

switch_current() {  # switch_current DIR RELEASE: atomically, as Deployer and Capistrano do
  ln -sfn "releases/$2" "$1/current.new"
  mv -T "$1/current.new" "$1/current"
}

scenario() {  # scenario NAME MODE APP_DIR DOCROOT_SUBDIR WORKER_SUBPATH PATH
  local name=$1 mode=$2 app=$3 docroot=$4 worker=$5 path=$6
  local dir port admin log
  dir=$(mktemp -d /tmp/spindle-reload.XXXXXX)
  port=$(free_port)
  admin=$(free_port)
  log=$out/reload-$name.log
  mkdir -p "$dir/releases"
  cp -r "$app" "$dir/releases/A"
  cp -r "$app" "$dir/releases/B"
  ln -s releases/A "$dir/current"
  local worker_block=""
  if [[ $mode == worker ]]; then
    worker_block="worker {
			file $dir/current/$worker
			num 2
			match *
		}"
  fi
  cat >"$dir/Caddyfile" <<EOF
{
	admin 127.0.0.1:$admin
	frankenphp {
		num_threads 3
	}
}
http://127.0.0.1:$port {
	bind 127.0.0.1
	root * $dir/current/$docroot
	php_server {
		$worker_block
	}
}
EOF
  "$binary" run --config "$dir/Caddyfile" 2>"$log" &
  local pid=$!
  for _ in $(seq 200); do
    curl -fs "http://127.0.0.1:$port$path" >/dev/null 2>&1 && break
    sleep 0.1
  done
  local url="http://127.0.0.1:$port$path"
  wrk -t2 -c64 -d5s "$url" >/dev/null 2>&1  # warm-up: OPcache, buffers, worker state
  local steady during
  steady=$(wrk -t2 -c64 -d"${seconds}s" --latency "$url" 2>&1)
  # The same run with 10 reloads in it, one switch of `current` each, spread over the run.
  wrk -t2 -c64 -d"${seconds}s" --latency "$url" >"$dir/during.txt" 2>&1 &
  local wrk_pid=$! reload_failures=0 release=A
  sleep 1
  for _ in $(seq 10); do
    release=$([[ $release == A ]] && echo B || echo A)
    switch_current "$dir" "$release"
    "$binary" reload --config "$dir/Caddyfile" >/dev/null 2>>"$log" || reload_failures=$((reload_failures + 1))
    sleep "$(awk -v s="$seconds" 'BEGIN { printf "%.2f", (s - 3) / 10 }')"
  done
  wait "$wrk_pid"
  during=$(cat "$dir/during.txt")
  # After the 10: the last release answers, and the other one can go.
  local other
  other=$([[ $release == A ]] && echo B || echo A)
  # 100 reloads more (no load), each switching `current`, for the memory figure.
  sleep 2
  local rss_before rss_after
  rss_before=$(rss_kb "$pid")
  for _ in $(seq 100); do
    release=$([[ $release == A ]] && echo B || echo A)
    switch_current "$dir" "$release"
    "$binary" reload --config "$dir/Caddyfile" >/dev/null 2>>"$log" || reload_failures=$((reload_failures + 1))
  done
  curl -fs "$url" >/dev/null
  sleep 2
  rss_after=$(rss_kb "$pid")
  other=$([[ $release == A ]] && echo B || echo A)
  rm -rf "${dir:?}/releases/$other"
  local after_delete
  after_delete=$(curl -s -o /dev/null -w '%{http_code}' "$url")
  kill -TERM "$pid"
  wait "$pid" || status=1
  local p_steady p_during lost growth ratio
  p_steady=$(p99_us "$steady")
  p_during=$(p99_us "$during")
  lost=$(($(failures "$steady") + $(failures "$during") + reload_failures))
  growth=$(awk -v a="$rss_before" -v b="$rss_after" 'BEGIN { printf "%.1f", (b - a) * 100 / a }')
  ratio=$(awk -v a="$p_steady" -v b="$p_during" 'BEGIN { printf "%.2f", b / a }')
  printf '%-16s req/s steady %8s, with reloads %8s; p99 %6s us -> %6s us (%sx); failed %s; after deleting the old release: %s; RSS over 100 reloads %s -> %s KB (%s%%)\n' \
    "$name" "$(awk '/Requests\/sec/ {print $2}' <<<"$steady")" \
    "$(awk '/Requests\/sec/ {print $2}' <<<"$during")" "$p_steady" "$p_during" "$ratio" "$lost" \
    "$after_delete" "$rss_before" "$rss_after" "$growth"
  if ((lost > 0)) || [[ $after_delete != 200 ]] || awk -v r="$ratio" 'BEGIN { exit !(r > 2) }' ||
    awk -v g="$growth" 'BEGIN { exit !(g > 10) }'; then
    echo "reload: $name FAILED (see $log)" >&2
    status=1
  fi
  rm -rf "$dir"
}

echo "reload: $(nproc) cores, wrk -t2 -c64 ${seconds}s per run, 10 reloads in the second run"
scenario hello-classic classic bench/apps/hello "" "" /
scenario hello-worker worker bench/apps/hello "" worker.php /
scenario symfony-worker worker tests/apps/symfony public public/index.php /hello/bench
exit $status
