#!/usr/bin/env bash
# Instructions per request, counted by valgrind's callgrind: a figure that does not move with
# this VM's speed (req/s and CPU time move 10-20 % within minutes), so a change of 1 % shows.
# Requests go one at a time over one keep-alive connection (curl), after a warm-up.
#
#   bench/instructions.sh [-m classic|worker|fpm] [-a APP] [-n REQUESTS] [-t TOP]
#
# APP is a folder of bench/apps (hello, vars, bootstrap, ...; default hello), copied to a temp
# dir first (bootstrap's classes are generated there). classic and worker run SPINDLE_BIN
# (default build/spindle) with one PHP thread, and count every thread of the process. fpm
# counts one php-fpm child (Debian's php8.2-fpm, pm static, 1 child, OPcache on as in
# bench/run.sh) behind nginx, which is not counted; the child's start-up is included, spread
# over the REQUESTS it serves. Needs valgrind, curl; fpm needs nginx and php8.2-fpm; run as
# root. Prints the total per request, by object file and the TOP functions (default 15);
# KEEP_PROFILE=FILE keeps the callgrind profile for callgrind_annotate. The pages of the real
# applications (WordPress, MediaWiki, Laravel, Symfony) are bench/app_profile.py's.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=classic app=hello requests=200 top=15
while getopts "m:a:n:t:" opt; do
  case $opt in
    m) mode=$OPTARG ;;
    a) app=$OPTARG ;;
    n) requests=$OPTARG ;;
    t) top=$OPTARG ;;
    *) sed -n '6,15p' "$0" >&2; exit 2 ;;
  esac
done
[[ -d bench/apps/$app ]] || { echo "instructions: no app bench/apps/$app" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instructions: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }
path=/
[[ $app == vars || $app == bootstrap ]] && path='/?name=bench'
warmup=50
port=18320

tmp=$(mktemp -d)
chmod 755 "$tmp"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
cp -r bench/apps "$tmp/apps"
[[ $app == bootstrap ]] && bench/apps/bootstrap/generate.sh "$tmp/apps/bootstrap"
root=$tmp/apps/$app
url="http://127.0.0.1:$port$path"

# Sends $1 requests one after another on one connection; fails on any non-2xx answer.
send() {
  local args=()
  for _ in $(seq "$1"); do args+=(-o /dev/null "$url"); done
  curl -sf "${args[@]}"
}

wait_ready() {
  for _ in $(seq 600); do
    curl -sf -o /dev/null "$url" && return 0
    sleep 0.2
  done
  echo "instructions: the server did not answer $url" >&2
  exit 1
}

case $mode in
  classic | worker)
    binary=$(realpath "${SPINDLE_BIN:-build/spindle}")
    [[ -x $binary ]] || { echo "instructions: build first (scripts/setup.sh)" >&2; exit 1; }
    flags=(--root "$root" --listen "127.0.0.1:$port" --admin off --threads 1)
    [[ $mode == worker ]] && flags+=(--threads 2 --worker "$root/worker.php,1" --index worker.php)
    valgrind --tool=callgrind --callgrind-out-file="$tmp/callgrind.%p" \
      "$binary" php-server "${flags[@]}" 2>"$tmp/server.log" &
    pid=$!
    pids+=("$pid")
    wait_ready
    send "$warmup"
    # Counters to zero after the warm-up, a dump after the measured requests.
    callgrind_control -z "$pid" >/dev/null 2>&1
    send "$requests"
    callgrind_control -d "$pid" >/dev/null 2>&1
    profile=$tmp/callgrind.$pid.1
    ;;
  fpm)
    fpm_bin=$(command -v php-fpm8.2 || true)
    if [[ -z $fpm_bin ]] || ! command -v nginx >/dev/null; then
      echo "instructions: fpm needs nginx and php8.2-fpm (apt-get install nginx php8.2-fpm)" >&2
      exit 1
    fi
    # A child that has served REQUESTS exits and writes its profile: the first one warms
    # OPcache up, the second one is measured. (callgrind_control cannot reach an idle child.)
    cat >"$tmp/php-fpm.conf" <<EOF
[global]
pid = $tmp/php-fpm.pid
error_log = $tmp/php-fpm.log
daemonize = no
[bench]
user = www-data
group = www-data
listen = $tmp/php-fpm.sock
listen.owner = www-data
listen.group = www-data
pm = static
pm.max_children = 1
pm.max_requests = $requests
EOF
    cat >"$tmp/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $tmp/nginx.pid;
error_log $tmp/nginx.log;
user www-data;
events { worker_connections 64; }
http {
  access_log off;
  server {
    listen 127.0.0.1:$port;
    root $root;
    location / { try_files \$uri /index.php\$is_args\$args; }
    location ~ \.php\$ { include /etc/nginx/fastcgi.conf; fastcgi_pass unix:$tmp/php-fpm.sock; }
  }
}
EOF
    mkdir "$tmp/profiles"
    chmod 1777 "$tmp/profiles"
    valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$tmp/profiles/callgrind.%p" \
      "$fpm_bin" -F -y "$tmp/php-fpm.conf" -d opcache.enable=1 -d opcache.validate_timestamps=1 \
      -d opcache.revalidate_freq=2 -d opcache.jit=off 2>"$tmp/server.log" &
    pids+=($!)
    for _ in $(seq 300); do [[ -S $tmp/php-fpm.sock ]] && break; sleep 0.2; done
    nginx -c "$tmp/nginx.conf" 2>>"$tmp/server.log" &
    pids+=($!)
    wait_ready
    # The readiness check was the first child's first request.
    send $((requests - 1))
    send "$requests"
    # The second child's profile: the third one, just started, has served nothing yet.
    for _ in $(seq 100); do
      (($(find "$tmp/profiles" -size +0 -name 'callgrind.*' | wc -l) >= 2)) && break
      sleep 0.2
    done
    profile=$(find "$tmp/profiles" -size +0 -name 'callgrind.*' -printf '%T@ %p\n' | sort -n |
      sed -n 2p | cut -d' ' -f2)
    ;;
  *) echo "instructions: -m takes classic, worker or fpm" >&2; exit 2 ;;
esac

for _ in $(seq 100); do [[ -s $profile ]] && break; sleep 0.2; done
if [[ $mode == fpm ]]; then
  measured="the second php-fpm child's $requests requests, its start-up included"
else
  measured="$requests requests after $warmup to warm up"
fi
echo "$mode, bench/apps/$app at $path, callgrind: $measured"
python3 bench/callgrind_summary.py "$profile" "$requests" "$top"
if [[ -n ${KEEP_PROFILE:-} ]]; then
  cp "$profile" "$KEEP_PROFILE"
fi
