#!/usr/bin/env bash
# X-Sendfile against PHP streaming the file itself (issue 29): one 1 GiB download (a sparse
# file, so the page cache serves it) through Symfony's BinaryFileResponse logic
# (tests/fixtures/x_sendfile/symfony_logic.php), once handed off to the server (x_sendfile on)
# and once read by PHP with readfile() (off). Prints, for each, the download's wall time and
# rate, the server's CPU time, and how long the PHP thread was busy (spindle_busy_threads,
# sampled every 10 ms on /metrics).
#   bench/x_sendfile.sh   (needs build/spindle, or SPINDLE_BIN, and curl)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${SPINDLE_BIN:-build/spindle}
[[ -x $binary ]] || { echo "x_sendfile: build first (cmake --build build)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/files"
truncate -s 1G "$work/files/big.iso"
port=18095 admin=18096

run() {  # run on|off
  local block=""
  [[ $1 == on ]] && block="x_sendfile $work/files"
  cat >"$work/Caddyfile" <<CADDY
{
	admin 127.0.0.1:$admin
	frankenphp {
		num_threads 1
	}
}
:$port {
	bind 127.0.0.1
	root * $PWD/tests/fixtures/x_sendfile
	php_server {
		$block
	}
}
CADDY
  "$binary" run --config "$work/Caddyfile" 2>"$work/log-$1" &
  local pid=$!
  for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$port/hello.php" >/dev/null 2>&1 && break
    sleep 0.1
  done
  local cpu_before busy=0 samples=0
  cpu_before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  curl -fs -o /dev/null -w '%{time_total} %{speed_download} %{size_download}\n' \
    "http://127.0.0.1:$port/symfony_logic.php?path=$work/files/big.iso" >"$work/curl-$1" &
  local download=$!
  while kill -0 "$download" 2>/dev/null; do
    busy=$((busy + $(curl -fs "http://127.0.0.1:$admin/metrics" |
      awk '/^spindle_busy_threads / {print $2}')))
    samples=$((samples + 1))
    sleep 0.01
  done
  wait "$download"
  local cpu_after ticks
  cpu_after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  ticks=$(getconf CLK_TCK)
  kill -TERM "$pid"
  wait "$pid"
  read -r seconds speed size <"$work/curl-$1"
  awk -v mode="$1" -v s="$seconds" -v v="$speed" -v n="$size" -v c=$((cpu_after - cpu_before)) \
    -v t="$ticks" -v b="$busy" -v k="$samples" 'BEGIN {
      printf "x_sendfile %-3s: %d bytes in %.2f s (%.0f MiB/s), server CPU %.2f s, PHP thread busy in %d of %d samples\n",
        mode, n, s, v / 1048576, c / t, b, k }'
}

run on
run off
