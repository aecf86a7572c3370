#!/usr/bin/env bash
# Spindle against nginx + php-fpm, one command (issue 6). Builds Spindle in release mode,
# installs wrk, nginx, php8.2-fpm and gnuplot from Debian if missing, starts every server on
# 127.0.0.1 from configs generated into a temp dir, checks each response body, then runs wrk
# (warm-up, measured runs, median) and prints one table per scenario; the HTTP/2 scenario
# (issue 31) measures with h2load instead of wrk. Run as root.
#   bench/run.sh [--duration 10s] [--runs 3] [--quick] [--only SCENARIO,..] [--apps] [--h2] [--out DIR]
#   bench/run.sh --help
set -euo pipefail
cd "$(dirname "$0")/.."
command_line="${SPINDLE_BIN:+SPINDLE_BIN=$SPINDLE_BIN }bench/run.sh${*:+ $*}"

usage() {
  cat <<'EOF'
Usage: bench/run.sh [options]

Compares on 127.0.0.1, with wrk -t1: nginx answering a fixed "Hello, World!" (the HTTP
ceiling), nginx + php-fpm (pm static, 8 children, OPcache on), Spindle classic and Spindle
worker (default thread counts). Every response body is checked before it is measured.

Scenarios (all by default):
  hello      <?php echo "Hello, World!";                              c=32
  vars       ~1 KB page echoing five $_SERVER entries and a $_GET value     c=32
  bootstrap  ~150 autoloaded classes, a container building 150 services,
             a ~5 KB page; per request in classic mode, once in worker mode  c=32
  static     a 100 KB file, served by nginx itself and by Spindle itself     c=32
  post       a 1 MiB POST body read through php://input (length + CRC-32)       c=32
  gzip       a 50 KB HTML page with Accept-Encoding: gzip, compressed by the server:
             static (nginx gzip on vs Spindle) and from PHP (nginx gzip on +
             php-fpm vs Spindle worker); gzip level 6 on both sides          c=32
  sweep      hello and bootstrap at c=8, 32, 128
  https      hello over TLS (a certificate from spindle cert, TLS 1.3): nginx TLS
             return 200 (the HTTPS ceiling), nginx TLS + php-fpm, Spindle worker
             with --tls-cert                                                  c=32
  apps       real applications (bench/real_apps.py, the apps of tests/apps): WordPress
             front page, a post with comments, REST posts; MediaWiki article view
             and API query; Laravel Eloquent + Blade; Symfony router + Twig
             (worker too); nginx + php-fpm against Spindle classic, on the same
             MariaDB / PostgreSQL, the same php.ini values                 c=8, 64
  h2         hello and bootstrap over TLS 1.3 with h2load (nghttp2-client), a
             self-signed P-256 certificate made with openssl: nginx
             `listen ssl http2` return 200 (the HTTP/2 ceiling, hello only) and
             in front of php-fpm, Spindle classic and worker over HTTP/2 (ALPN
             h2), with -m 10 and again with -m 1 (as many requests in flight as
             HTTP/1.1), and the same Spindle servers over HTTP/1.1 on the same TLS
             port (h2load --h1, ALPN http/1.1)          h2: -c 32 -m 10; h1: -c 32
             (-m 1: HTTP/1.1 clients do not pipeline). Every run checks that the
             negotiated protocol is the one meant; a Spindle without HTTP/2 fails.

Options:
  --duration D     length of each measured wrk run (default 10s)
  --warmup D       wrk warm-up before a server's first measured run (default 3s)
  --runs N         measured runs per server and case; the median is reported (default 3)
  --quick          smoke check: --duration 2s --warmup 1s --runs 1
  --only LIST      comma-separated scenarios, e.g. --only hello,static
  --apps           only the real applications: --only apps
  --h2             only HTTP/2: --only h2 (with --quick: a smoke check of about a minute)
  --out DIR        where results go (default bench/out): results.tsv (medians),
                   runs.tsv (every run), results.md (the tables), chart.svg, logs/
  --no-build       use build-release/spindle as it is
  -h, --help       this text

Environment: SPINDLE_BIN=path uses that binary and skips the build.

HTTP/2 (h2): latency is h2load's time per request (stream opened to response complete) from
its --log-file; with -m 10 a request's time includes its wait behind the connection's other
9 streams. Below the table: every run's figures, Spindle worker h2 over nginx h2 + php-fpm
(issue 31's target: at least 4x for hello) and Spindle's CPU per request over HTTP/2 divided
by its CPU per request over HTTP/1.1 on the same TLS port (target: at most 1.3), with -m 10
and with -m 1 (the protocols' own costs at the same load, without multiplexing's batching).

Columns: req/s, p50 and p99 latency (medians of the runs); errors (non-2xx responses plus
socket errors, summed over the measured runs); CPU/req (user+system time of all the server's
processes over a run, divided by the requests served: nginx master+workers, php-fpm
master+children, spindle); PSS (proportional set size summed over those processes, after the
runs); x fpm and x ceiling (req/s relative to nginx + php-fpm and to nginx's fixed response at
the same concurrency; for the static file, relative to nginx serving it).
EOF
}

die() {
  echo "bench: $*" >&2
  exit 1
}

log() {
  echo "[bench] $*" >&2
}

duration=10s
warmup=3s
runs=3
only=hello,vars,bootstrap,static,post,gzip,sweep,https,h2,apps
out=bench/out
build=1
while (($# > 0)); do
  case $1 in
    --duration) duration=${2:?--duration needs a value}; shift 2 ;;
    --warmup) warmup=${2:?--warmup needs a value}; shift 2 ;;
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --quick) duration=2s; warmup=1s; runs=1; shift ;;
    --only) only=${2:?--only needs a value}; shift 2 ;;
    --apps) only=apps; shift ;;
    --h2) only=h2; shift ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    --no-build) build=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number, not $runs"

# Seconds in a wrk duration (10, 10s, 2m).
seconds() {
  case $1 in
    *m) echo $((${1%m} * 60)) ;;
    *s) echo "${1%s}" ;;
    *) echo "$1" ;;
  esac
}
for d in "$duration" "$warmup"; do
  [[ $d =~ ^[0-9]+[sm]?$ ]] || die "durations are like 10s or 2m, not $d"
done

# --- scenarios ----------------------------------------------------------------------------
# A case is WORKLOAD:CONCURRENCY; a measurement is CASE:SERVER. Servers: nginx (the fixed
# response, or the file for the static workload), fpm (nginx + php-fpm), classic, worker.

declare -A scenario_cases=(
  [hello]="hello:32"
  [vars]="vars:32"
  [bootstrap]="bootstrap:32"
  [static]="static:32"
  [post]="post:32"
  [gzip]="gzip_static:32 gzip_php:32"
  [sweep]="hello:8 hello:32 hello:128 bootstrap:8 bootstrap:32 bootstrap:128"
  [https]="https:32"
  [h2]="h2_hello:32 h2_bootstrap:32"
)
# shellcheck disable=SC2016 # backquotes are Markdown here
declare -A scenario_title=(
  [hello]='hello world, `<?php echo "Hello, World!";`'
  [vars]='~1 KB page: five `$_SERVER` entries and a `$_GET` value'
  [bootstrap]='framework-like bootstrap: 150 autoloaded service classes, a container, a ~5 KB page'
  [static]='100 KB static file'
  [post]='1 MiB POST read through `php://input`'
  [gzip]='50 KB HTML page, `Accept-Encoding: gzip`, compressed by the server (gzip level 6)'
  [sweep]='concurrency sweep, hello and bootstrap'
  [https]='hello world over HTTPS (TLS 1.3, keep-alive: one handshake per wrk connection)'
  [h2]='HTTP/2 over TLS 1.3 (ALPN h2) with h2load -c 32 -m 10 (and -m 1), against HTTP/1.1 on the same port (h2load --h1 -c 32)'
)
scenario_order=(hello vars bootstrap static post gzip sweep https h2)
workload_order=(hello vars bootstrap static post gzip_static gzip_php https h2_hello h2_bootstrap)
# Every server a measurement names. In an h2 workload, classic and worker are asked over
# HTTP/2 with h2_streams streams per connection; classic_s1 and worker_s1 are the same
# processes asked over HTTP/2 with one stream per connection, classic_h1 and worker_h1 the same
# processes asked over HTTP/1.1 on the same TLS port.
all_servers=(nginx fpm classic classic_s1 classic_h1 worker worker_s1 worker_h1)

# The app a workload runs (https is the hello app over TLS, h2_X the X app over HTTP/2).
app_for() {
  case $1 in
    https) echo hello ;;
    h2_*) echo "${1#h2_}" ;;
    *) echo "$1" ;;
  esac
}

# HTTP/2 workloads: measured with h2load rather than wrk.
is_h2() {
  [[ $1 == h2_* ]]
}

# The workload whose nginx measurement is a workload's ceiling: its own fixed nginx response
# (the file, TLS), HTTP/2's fixed response for the HTTP/2 workloads, else plain HTTP's.
ceiling_of() {
  case $1 in
    static | gzip_static | https) echo "$1" ;;
    h2_*) echo h2_hello ;;
    *) echo hello ;;
  esac
}

# The process a server name runs on (an _s1 or _h1 server is its h2 server asked otherwise).
process_of() {
  local name=${1%_h1}
  echo "${name%_s1}"
}

IFS=, read -r -a requested <<<"$only"
# The real applications run from their own script (bench/real_apps.py): not a scenario of the
# tables below, but its table is added to the results.
run_apps=0
selected=()
for s in "${requested[@]}"; do
  if [[ $s == apps ]]; then run_apps=1; else selected+=("$s"); fi
done
for s in "${selected[@]}"; do
  [[ -n ${scenario_cases[$s]:-} ]] || die "unknown scenario $s (known: ${scenario_order[*]})"
done

is_selected() {
  local s
  for s in "${selected[@]}"; do
    [[ $s == "$1" ]] && return 0
  done
  return 1
}

# Servers measured for a workload; the PHP workloads also need nginx's fixed response at the
# same concurrency (the ceiling), which is the hello workload's nginx measurement.
servers_for() {
  case $1 in
    hello) echo "nginx fpm classic worker" ;;
    static | gzip_static) echo "nginx classic" ;;
    gzip_php) echo "fpm worker" ;;
    https) echo "nginx fpm worker" ;;
    h2_hello) echo "nginx fpm classic classic_s1 classic_h1 worker worker_s1 worker_h1" ;;
    h2_bootstrap) echo "fpm classic classic_s1 classic_h1 worker worker_s1 worker_h1" ;;
    *) echo "fpm classic worker" ;;
  esac
}

declare -A wanted=()       # CASE:SERVER -> 1
declare -A case_seen=()
cases=()                   # every case, in order of first appearance
for s in "${scenario_order[@]}"; do
  is_selected "$s" || continue
  for c in ${scenario_cases[$s]}; do
    workload=${c%%:*}
    for server in $(servers_for "$workload"); do
      wanted[$c:$server]=1
    done
    wanted[$(ceiling_of "$workload"):${c##*:}:nginx]=1
  done
done
for w in "${workload_order[@]}"; do
  for conc in 8 32 128; do
    for server in "${all_servers[@]}"; do
      if [[ -n ${wanted[$w:$conc:$server]:-} && -z ${case_seen[$w:$conc]:-} ]]; then
        case_seen[$w:$conc]=1
        cases+=("$w:$conc")
      fi
    done
  done
done

measurements=${#wanted[@]}
estimate=$((measurements * (runs * ($(seconds "$duration") + 1) + $(seconds "$warmup") + 1) + ${#cases[@]} * 5))
# The apps: 30 server/case pairs, their warm-ups, and about 3 minutes of installing.
((run_apps)) && estimate=$((estimate + 30 * (runs * ($(seconds "$duration") + 1) + $(seconds "$warmup") + 1) + 180))
apps_note=
((run_apps)) && apps_note=" and the apps"
log "$measurements server/case pairs$apps_note, $runs run(s) of $duration each: about $((estimate / 60)) min $((estimate % 60)) s"

# --- binary, packages ----------------------------------------------------------------------

if [[ -n ${SPINDLE_BIN:-} ]]; then
  binary=$SPINDLE_BIN
elif ((build)); then
  # Against the profile-guided PHP, as the Docker image ships it (PHP_PGO=1: a PHP build of
  # its own, cached beside the plain one that scripts/setup.sh makes by default).
  pgo_training=()
  if ((run_apps)); then
    # Measuring the apps, PHP is trained on them too (bench/pgo_train_apps.sh: pages of each
    # app other than the measured ones), which needs their packages first: another PHP build.
    scripts/install-deps.sh apps >&2
    pgo_training=(PHP_PGO_TRAIN=bench/pgo_train_apps.sh)
  fi
  log "building Spindle (Release) into build-release/ against the profile-guided PHP"
  env PHP_PGO=1 "${pgo_training[@]}" BUILD_DIR=build-release BUILD_TYPE=Release \
    scripts/setup.sh >&2
  binary="build-release/spindle"
else
  binary="build-release/spindle"
fi
[[ -x $binary ]] || die "no Spindle binary at $binary (drop --no-build, or set SPINDLE_BIN)"
binary=$(realpath "$binary")

fpm_bin=php-fpm8.2
install_packages() {
  local missing=() p
  for p in wrk nghttp2-client openssl php8.2-fpm php8.2-opcache gnuplot-nox; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  command -v nginx >/dev/null || missing+=(nginx-light)
  ((${#missing[@]} > 0)) || return 0
  [[ $(id -u) -eq 0 ]] || die "run as root to install ${missing[*]}"
  log "installing ${missing[*]}"
  # Debian starts a package's service on install; policy-rc.d answering 101 stops that.
  local policy_added=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    policy_added=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; then
    # Some mirrors lack nginx-light; the full nginx package does as well.
    apt-get install -y -q --no-install-recommends "${missing[@]/nginx-light/nginx}" >&2
  fi
  ((policy_added)) && rm -f /usr/sbin/policy-rc.d
  # Should a service have started anyway, stop it: only our own instances may run.
  local pidfile
  for pidfile in /run/nginx.pid /run/php/php8.2-fpm.pid; do
    if [[ -s $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      log "stopping the system service started by apt ($pidfile)"
      kill -TERM "$(cat "$pidfile")"
    fi
  done
}
install_packages
if ((run_apps)); then
  # MariaDB, the Debian apps and the PHP extensions php-fpm needs for them.
  scripts/install-deps.sh apps >&2
fi
command -v "$fpm_bin" >/dev/null || die "$fpm_bin is missing (apt-get install php8.2-fpm)"
command -v nginx >/dev/null || die "nginx is missing (apt-get install nginx-light)"
command -v wrk >/dev/null || die "wrk is missing (apt-get install wrk)"
if is_selected h2; then
  command -v h2load >/dev/null || die "h2load is missing (apt-get install nghttp2-client)"
  command -v openssl >/dev/null || die "openssl is missing (apt-get install openssl)"
fi

# --- temp dir, apps --------------------------------------------------------------------------

rm -rf "$out/logs"
mkdir -p "$out/logs"
out=$(realpath "$out")
tmp=$(mktemp -d /tmp/spindle-bench.XXXXXX)
chmod 755 "$tmp"
running=()   # pids of the servers this script started

stop_servers() {
  local pid
  for pid in "${running[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${running[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  running=()
}

cleanup() {
  stop_servers
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Workers of nginx and php-fpm run as www-data when we are root; they only read the apps.
run_user=
if [[ $(id -u) -eq 0 ]] && id www-data >/dev/null 2>&1; then
  run_user=www-data
fi

apps=$tmp/apps
cp -r bench/apps "$apps"
bench/apps/bootstrap/generate.sh "$apps/bootstrap"
mkdir -p "$apps/static"
# Cut to 100 KB with truncate: `| head -c` would close the pipe on base64, whose SIGPIPE ends
# this script (pipefail) in about one run of three, before any server starts and without a word.
head -c 76800 /dev/urandom | base64 -w 100 >"$apps/static/payload.txt"
truncate -s 102400 "$apps/static/payload.txt"
static_md5=$(md5sum <"$apps/static/payload.txt" | cut -d' ' -f1)
# The page bench/apps/gzip_php/index.php prints, byte for byte, as a static file.
mkdir -p "$apps/gzip_static"
awk 'BEGIN {
  printf "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Orders</title></head>\n<body>\n<table>\n"
  for (i = 1; i <= 915; i++) printf "<tr><td>row %d</td><td>item-%d</td><td>%d</td></tr>\n", i, i * 37 % 1000, i * 7919 % 10007
  printf "</table>\n</body></html>\n"
}' >"$apps/gzip_static/page.html"
page_md5=$(md5sum <"$apps/gzip_static/page.html" | cut -d' ' -f1)
# Says whether OPcache is on for the SAPI that runs it, to check the setups are comparable.
echo '<?php echo json_encode(["opcache" => (opcache_get_status(false)["opcache_enabled"] ?? false), "sapi" => PHP_SAPI, "version" => PHP_VERSION]);' \
  >"$apps/hello/opcache.php"
head -c 1048576 /dev/urandom >"$tmp/post.bin"
# CRC-32 from gzip's trailer (4 bytes, little-endian, as od reads them on x86).
post_expected="1048576 $(gzip -1 -c "$tmp/post.bin" | tail -c8 | head -c4 | od -An -tx4 | tr -d ' \n')"
# wrk sends the same 1 MiB body on every request.
cat >"$tmp/post.lua" <<EOF
local f = assert(io.open("$tmp/post.bin", "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/octet-stream"
EOF
# wrk splits -H at ": ", which the unquoted expansion of wrk_args would break: a script.
echo 'wrk.headers["Accept-Encoding"] = "gzip"' >"$tmp/gzip.lua"
# One certificate for every HTTPS server, made the way a Spindle user would: spindle cert.
if is_selected https; then
  "$binary" cert --dir "$tmp/tls" --host 127.0.0.1 >"$out/logs/spindle-cert.log"
fi
# HTTP/2's certificate: self-signed, made with openssl, of the kind spindle cert makes (an
# ECDSA P-256 key), so that nginx and Spindle do the same signature and key exchange.
if is_selected h2; then
  mkdir -p "$tmp/h2tls"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$tmp/h2tls/key.pem" -out "$tmp/h2tls/cert.pem" 2>"$out/logs/openssl.log"
fi
chmod -R a+rX "$tmp"

# --- servers -----------------------------------------------------------------------------

port_ceiling=18301
port_fpm=18302
port_static=18303
port_classic=18304
port_worker=18305
port_tls_ceiling=18306
port_tls_fpm=18307
port_h2_ceiling=18308
port_h2_fpm=18309
nginx_pid=
fpm_pid=
classic_pid=
worker_pid=

wait_for_port() {
  local port=$1 name=$2 pid=$3 scheme=${4:-http} ca=${5:-$tmp/tls/ca.crt}
  for _ in $(seq 100); do
    curl -s -o /dev/null --cacert "$ca" "$scheme://127.0.0.1:$port/" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || die "$name exited at start-up (see $out/logs/)"
    sleep 0.1
  done
  die "$name does not answer on 127.0.0.1:$port (see $out/logs/)"
}

start_nginx() {
  local workload=$1 dir=$tmp/nginx app static_root=$apps/static gzip=off
  app=$(app_for "$workload")
  if [[ $workload == gzip_* ]]; then
    # nginx's gzip at Spindle's default level (nginx's own default is 1); text/html is always
    # in gzip_types. Without gzip_static, nginx compresses the file on every request.
    gzip=on
    static_root=$apps/gzip_static
  fi
  mkdir -p "$dir/body" "$dir/fastcgi"
  [[ -n $run_user ]] && chown "$run_user" "$dir/body" "$dir/fastcgi"
  # The ceiling and php-fpm again over TLS, with Spindle's certificate and protocol floor.
  local tls_servers=
  if is_selected https; then
    tls_servers=$(
      cat <<EOF
    ssl_certificate $tmp/tls/cert.pem;
    ssl_certificate_key $tmp/tls/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    server {
        listen 127.0.0.1:$port_tls_ceiling ssl;
        location / {
            default_type text/plain;
            return 200 "Hello, World!";
        }
    }
    server {
        listen 127.0.0.1:$port_tls_fpm ssl;
        root $apps/$app;
        index index.php;
        location / {
            try_files \$uri /index.php\$is_args\$args;
        }
        location ~ \\.php\$ {
            try_files \$uri =404;
            include /etc/nginx/fastcgi.conf;
            fastcgi_pass unix:$tmp/php-fpm.sock;
        }
    }
EOF
    )
  fi
  # nginx 1.22 over HTTP/2 (Debian 12's: `listen ... ssl http2`, not 1.25's `http2 on`), with
  # the HTTP/2 certificate; the ceiling and php-fpm as over HTTP/1.1. Its HTTP/2 defaults stay:
  # 128 concurrent streams, keepalive_requests (below) also bounding requests per connection.
  local h2_servers=
  if is_h2 "$workload"; then
    h2_servers=$(
      cat <<EOF
    server {
        listen 127.0.0.1:$port_h2_ceiling ssl http2;
        ssl_certificate $tmp/h2tls/cert.pem;
        ssl_certificate_key $tmp/h2tls/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        location / {
            default_type text/plain;
            return 200 "Hello, World!";
        }
    }
    server {
        listen 127.0.0.1:$port_h2_fpm ssl http2;
        ssl_certificate $tmp/h2tls/cert.pem;
        ssl_certificate_key $tmp/h2tls/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        root $apps/$app;
        index index.php;
        location / {
            try_files \$uri /index.php\$is_args\$args;
        }
        location ~ \\.php\$ {
            try_files \$uri =404;
            include /etc/nginx/fastcgi.conf;
            fastcgi_pass unix:$tmp/php-fpm.sock;
        }
    }
EOF
    )
  fi
  cat >"$dir/nginx.conf" <<EOF
${run_user:+user $run_user;}
worker_processes auto;
pid $dir/nginx.pid;
error_log $out/logs/nginx-error.log error;
daemon off;
events {
    worker_connections 4096;
}
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    # wrk keeps its connections open; nginx's default of 1000 requests per connection would
    # make it reconnect (Spindle has no such limit).
    keepalive_requests 1000000;
    client_body_temp_path $dir/body;
    fastcgi_temp_path $dir/fastcgi;
    gzip $gzip;
    gzip_comp_level 6;

    # The HTTP ceiling: a fixed response, no PHP.
    server {
        listen 127.0.0.1:$port_ceiling;
        location / {
            default_type text/plain;
            return 200 "Hello, World!";
        }
    }

    # php-fpm as Debian's nginx snippets set it up: a front controller over a Unix socket.
    server {
        listen 127.0.0.1:$port_fpm;
        root $apps/$app;
        index index.php;
        client_max_body_size 8m;
        location / {
            try_files \$uri /index.php\$is_args\$args;
        }
        location ~ \\.php\$ {
            try_files \$uri =404;
            include /etc/nginx/fastcgi.conf;
            fastcgi_pass unix:$tmp/php-fpm.sock;
        }
    }

    server {
        listen 127.0.0.1:$port_static;
        root $static_root;
    }
$tls_servers
$h2_servers
}
EOF
  nginx -c "$dir/nginx.conf" -p "$dir/" -e "$out/logs/nginx-error.log" &
  nginx_pid=$!
  running+=("$nginx_pid")
  wait_for_port "$port_ceiling" nginx "$nginx_pid"
}

start_fpm() {
  cat >"$tmp/php-fpm.conf" <<EOF
[global]
pid = $tmp/php-fpm.pid
error_log = $out/logs/php-fpm.log
daemonize = no

[bench]
${run_user:+user = $run_user}
${run_user:+group = $run_user}
listen = $tmp/php-fpm.sock
${run_user:+listen.owner = $run_user}
${run_user:+listen.group = $run_user}
listen.mode = 0660
pm = static
pm.max_children = 8
EOF
  # Debian's php.ini-production for FPM, OPcache on with Spindle's defaults: timestamps
  # validated, every 2 s (PHP's default revalidate_freq), no JIT.
  "$fpm_bin" -F -y "$tmp/php-fpm.conf" -d opcache.enable=1 -d opcache.validate_timestamps=1 \
    -d opcache.revalidate_freq=2 -d opcache.jit=off 2>>"$out/logs/php-fpm.log" &
  fpm_pid=$!
  running+=("$fpm_pid")
  for _ in $(seq 100); do
    [[ -S $tmp/php-fpm.sock ]] && return 0
    kill -0 "$fpm_pid" 2>/dev/null || die "php-fpm exited at start-up (see $out/logs/php-fpm.log)"
    sleep 0.1
  done
  die "php-fpm did not create its socket"
}

start_spindle() {
  local mode=$1 workload=$2 port args=() app
  app=$(app_for "$workload")
  if [[ $mode == worker ]]; then
    port=$port_worker
    args=(--worker "$apps/$app/worker.php" --index worker.php)
  else
    port=$port_classic
  fi
  local scheme=http ca=$tmp/tls/ca.crt
  if [[ $workload == https ]]; then
    args+=(--tls-cert "$tmp/tls/cert.pem" --tls-key "$tmp/tls/key.pem")
    scheme=https
  elif is_h2 "$workload"; then
    # HTTP/2 needs no flag: Spindle offers h2 and http/1.1 over ALPN on TLS by default.
    args+=(--tls-cert "$tmp/h2tls/cert.pem" --tls-key "$tmp/h2tls/key.pem")
    scheme=https
    ca=$tmp/h2tls/cert.pem
  fi
  local root=$apps/$app
  # Classic and worker servers run side by side: neither takes the admin port (2019).
  "$binary" php-server --root "$root" --listen "127.0.0.1:$port" --admin off "${args[@]}" \
    2>>"$out/logs/spindle-$mode.log" &
  local pid=$!
  running+=("$pid")
  if [[ $mode == worker ]]; then worker_pid=$pid; else classic_pid=$pid; fi
  wait_for_port "$port" "spindle $mode" "$pid" "$scheme" "$ca"
}

# The processes whose CPU time and memory count for a server.
server_pids() {
  case $(process_of "$1") in
    nginx) echo "$nginx_pid" $(pgrep -P "$nginx_pid") ;;
    fpm) echo "$nginx_pid" $(pgrep -P "$nginx_pid") "$fpm_pid" $(pgrep -P "$fpm_pid") ;;
    classic) echo "$classic_pid" ;;
    worker) echo "$worker_pid" ;;
  esac
}

url_for() {
  local workload=$1 server=$2 port path=/ scheme=http
  case $(process_of "$server") in
    nginx) if [[ $workload == *static ]]; then port=$port_static; else port=$port_ceiling; fi ;;
    fpm) port=$port_fpm ;;
    classic) port=$port_classic ;;
    worker) port=$port_worker ;;
  esac
  case $workload in
    vars | bootstrap | h2_bootstrap) path='/?name=bench' ;;
    static) path=/payload.txt ;;
    gzip_static) path=/page.html ;;
  esac
  if [[ $workload == https ]]; then
    scheme=https
    case $server in
      nginx) port=$port_tls_ceiling ;;
      fpm) port=$port_tls_fpm ;;
    esac
  elif is_h2 "$workload"; then
    scheme=https
    case $server in
      nginx) port=$port_h2_ceiling ;;
      fpm) port=$port_h2_fpm ;;
    esac
  fi
  echo "$scheme://127.0.0.1:$port$path"
}

# --- checks ------------------------------------------------------------------------------

check_body() {
  local workload=$1 server=$2 url body
  url=$(url_for "$workload" "$server")
  if [[ $workload == post ]]; then
    body=$(curl -fsS --data-binary "@$tmp/post.bin" -H 'Content-Type: application/octet-stream' "$url") ||
      die "$server: POST $url failed"
  elif [[ $workload == gzip_* ]]; then
    # The response must come gzip-encoded and decode to the page.
    local headers
    headers=$(curl -fsS -o "$tmp/check.gz" -D - -H 'Accept-Encoding: gzip' "$url") || die "$server: GET $url failed"
    grep -qi '^content-encoding: gzip' <<<"$headers" || die "$server: $url is not gzip-encoded: $headers"
    body=$(gunzip -c "$tmp/check.gz" | md5sum | cut -d' ' -f1)
  elif is_h2 "$workload"; then
    # The protocol the measurement means, or nothing is measured: a server without HTTP/2
    # would otherwise answer h2load over HTTP/1.1 (ALPN falls back).
    local want=2 flag=--http2 version
    [[ $server == *_h1 ]] && want=1.1 flag=--http1.1
    body=$(curl -fsS "$flag" --cacert "$tmp/h2tls/cert.pem" -o "$tmp/check.body" -w '%{http_version}' "$url") ||
      die "$server: GET $url failed"
    version=$body
    [[ $version == "$want" ]] ||
      die "$server: $url answered over HTTP/$version, not HTTP/$want (a Spindle without HTTP/2 over TLS?)"
    body=$(cat "$tmp/check.body")
  else
    body=$(curl -fsS --cacert "$tmp/tls/ca.crt" "$url") || die "$server: GET $url failed"
  fi
  local ok=1
  case $workload in
    hello | https | h2_hello) [[ $body == "Hello, World!" ]] || ok=0 ;;
    vars)
      [[ $body == *"<h1>Hello, bench!</h1>"* && $body == *"<b>REQUEST_METHOD</b>: GET</li>"* &&
        $body == *"<b>REQUEST_URI</b>: /?name=bench</li>"* && $body == *"<b>REMOTE_ADDR</b>: 127.0.0.1</li>"* &&
        ${#body} -gt 900 && ${#body} -lt 1200 ]] || ok=0
      ;;
    bootstrap | h2_bootstrap)
      [[ $body == *"<h1>Hello, bench!</h1>"* && $body == *'<li id="s150">service-150</li>'* &&
        ${#body} -gt 4500 && ${#body} -lt 5500 ]] || ok=0
      ;;
    static) [[ $(curl -fsS "$url" | md5sum | cut -d' ' -f1) == "$static_md5" ]] || ok=0 ;;
    post) [[ $body == "$post_expected" ]] || ok=0 ;;
    gzip_static | gzip_php) [[ $body == "$page_md5" ]] || ok=0 ;;
  esac
  if ((!ok)); then
    printf 'bench: wrong response from %s for %s (%s, %d bytes):\n%s\n' "$server" "$workload" "$url" "${#body}" "${body:0:600}" >&2
    exit 1
  fi
}

check_opcache() {
  local server=$1 port body
  case $server in
    fpm) port=$port_fpm ;;
    classic) port=$port_classic ;;
  esac
  body=$(curl -fsS "http://127.0.0.1:$port/opcache.php") || die "$server: /opcache.php failed"
  [[ $body == *'"opcache":true'* ]] || die "$server runs PHP without OPcache: $body"
  log "$server: $body"
}

# --- measuring ----------------------------------------------------------------------------

ticks=$(getconf CLK_TCK)

# user+system clock ticks of the processes (fields 14 and 15 of /proc/PID/stat; the name in
# parentheses may hold spaces, so count from its closing parenthesis).
cpu_ticks() {
  local pid total=0 t
  for pid in "$@"; do
    t=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null) || t=0
    total=$((total + t))
  done
  echo "$total"
}

pss_kib() {
  local pid
  for pid in "$@"; do
    cat "/proc/$pid/smaps_rollup" 2>/dev/null || true
  done | awk '/^Pss:/ { s += $2 } END { print s + 0 }'
}

# wrk latency figure (e.g. 812.00us, 1.32ms, 2.01s) in milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN {
    n = v + 0
    if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000
    printf "%.3f", n
  }'
}

wrk_args() {
  local workload=$1 conc=$2 dur=$3
  local args=(-t1 "-c$conc" "-d$dur" --latency)
  [[ $workload == post ]] && args+=(-s "$tmp/post.lua")
  [[ $workload == gzip_* ]] && args+=(-s "$tmp/gzip.lua")
  echo "${args[@]}"
}

# h2load for an h2 workload: -t1 as wrk, HTTP/2 with h2_streams streams per connection (or
# one, for _s1: as many requests in flight as HTTP/1.1 has, so that h2 and h1 CPU per request
# compare the protocols at the same load, without multiplexing's batching), or HTTP/1.1 (ALPN
# http/1.1, --h1) with one request at a time per connection, as browsers and proxies send it
# (--h1 with -m N would pipeline N requests, which no browser does).
h2_streams=10
h2load_args() {
  local server=$1 conc=$2 dur=$3
  local args=(-t1 "-c$conc" "-D$(seconds "$dur")")
  case $server in
    *_h1) args+=(--h1 -m1) ;;
    *_s1) args+=(-m1) ;;
    *) args+=("-m$h2_streams") ;;
  esac
  echo "${args[@]}"
}

# One client run against a server, for the warm-up (output dropped) or a measurement.
run_client() {
  local workload=$1 conc=$2 server=$3 dur=$4 url
  url=$(url_for "$workload" "$server")
  if is_h2 "$workload"; then
    # h2load appends to its log file: each run its own.
    rm -f "$tmp/h2load.log"
    # shellcheck disable=SC2046
    h2load $(h2load_args "$server" "$conc" "$dur") --log-file="$tmp/h2load.log" "$url"
  else
    # shellcheck disable=SC2046
    wrk $(wrk_args "$workload" "$conc" "$dur") "$url"
  fi
}

# Dies unless h2load spoke the protocol the server name means (h2, or http/1.1 for _h1).
check_h2load_protocol() {
  local text=$1 server=$2 want=h2 protocol
  [[ $server == *_h1 ]] && want=http/1.1
  protocol=$(awk '/^Application protocol:/ { print $3 }' <<<"$text")
  [[ $protocol == "$want" ]] || die "$server: h2load spoke ${protocol:-nothing}, not $want:"$'\n'"$text"
}

# "REQ_PER_S REQUESTS P50_MS P99_MS ERRORS" of an h2load run, from its output and the
# per-request times of its --log-file (h2load prints no percentiles). Errors: h2load's failed
# requests (non-2xx answers, reset streams, broken connections, timeouts).
h2load_figures() {
  local text=$1
  local rps requests errors percentiles
  rps=$(awk '/^finished in/ { print $4 }' <<<"$text")
  read -r requests errors < <(awk '/^requests:/ {
    for (i = 2; i < NF; i++) { if ($(i + 1) ~ /^done/) d = $i; if ($(i + 1) ~ /^failed/) f = $i }
    print d + 0, f + 0 }' <<<"$text")
  percentiles=$(cut -f3 "$tmp/h2load.log" | sort -n | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "nan nan"; exit }
    p50 = int(NR * 0.50 + 0.999999); p99 = int(NR * 0.99 + 0.999999)
    printf "%.3f %.3f\n", v[p50] / 1000, v[p99] / 1000 }')
  echo "$rps $requests $percentiles $errors"
}

echo -e "workload\tconcurrency\tserver\trun\treq_s\trequests\tp50_ms\tp99_ms\terrors\tcpu_us_per_req" >"$out/runs.tsv"

declare -A med_rps=() med_p50=() med_p99=() sum_err=() med_cpu=() pss=()

# One measured wrk run; appends to runs.tsv.
measure() {
  local workload=$1 conc=$2 server=$3 run=$4 pids before after text
  read -r -a pids <<<"$(server_pids "$server")"
  before=$(cpu_ticks "${pids[@]}")
  text=$(run_client "$workload" "$conc" "$server" "$duration")
  after=$(cpu_ticks "${pids[@]}")
  local rps requests p50 p99 errors
  if is_h2 "$workload"; then
    check_h2load_protocol "$text" "$server"
    read -r rps requests p50 p99 errors <<<"$(h2load_figures "$text")"
  else
    local non2xx sockerr
    rps=$(awk '/^Requests\/sec/ { print $2 }' <<<"$text")
    requests=$(awk '/requests in/ { print $1 }' <<<"$text")
    p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' <<<"$text")")
    p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' <<<"$text")")
    non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' <<<"$text")
    sockerr=$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' <<<"$text")
    errors=$((${non2xx:-0} + ${sockerr:-0}))
  fi
  local cpu
  cpu=$(awk -v a="$before" -v b="$after" -v n="$requests" -v t="$ticks" \
    'BEGIN { if (n > 0) printf "%.1f", (b - a) / t * 1e6 / n; else print "nan" }')
  echo -e "$workload\t$conc\t$server\t$run\t$rps\t$requests\t$p50\t$p99\t$errors\t$cpu" >>"$out/runs.tsv"
  log "  $workload c=$conc $server run $run: $rps req/s, p50 ${p50} ms, p99 ${p99} ms, $errors errors, $cpu us CPU/req"
}

median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

summarize() {
  local workload=$1 conc=$2 server=$3 key=$1:$2:$3
  local rows
  rows=$(awk -F'\t' -v w="$workload" -v c="$conc" -v s="$server" '$1 == w && $2 == c && $3 == s' "$out/runs.tsv")
  med_rps[$key]=$(cut -f5 <<<"$rows" | median)
  med_p50[$key]=$(cut -f7 <<<"$rows" | median)
  med_p99[$key]=$(cut -f8 <<<"$rows" | median)
  sum_err[$key]=$(cut -f9 <<<"$rows" | awk '{ s += $1 } END { print s + 0 }')
  med_cpu[$key]=$(cut -f10 <<<"$rows" | median)
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started_at=$(date +%s)

for workload in "${workload_order[@]}"; do
  # This workload's cases and the servers they need.
  mine=()
  declare -A need=()
  for c in "${cases[@]}"; do
    [[ ${c%%:*} == "$workload" ]] || continue
    mine+=("$c")
    for server in "${all_servers[@]}"; do
      [[ -n ${wanted[$c:$server]:-} ]] && need[$server]=1
    done
  done
  if ((${#mine[@]} == 0)); then
    unset need
    continue
  fi
  log "$workload: starting ${!need[*]}"
  # Fresh servers for each workload, so that the memory figures are this workload's.
  [[ -n ${need[fpm]:-} ]] && start_fpm
  [[ -n ${need[nginx]:-}${need[fpm]:-} ]] && start_nginx "$workload"
  [[ -n ${need[classic]:-}${need[classic_s1]:-}${need[classic_h1]:-} ]] && start_spindle classic "$workload"
  [[ -n ${need[worker]:-}${need[worker_s1]:-}${need[worker_h1]:-} ]] && start_spindle worker "$workload"
  if [[ $workload == hello ]]; then
    [[ -n ${need[fpm]:-} ]] && check_opcache fpm
    [[ -n ${need[classic]:-} ]] && check_opcache classic
  fi
  for server in "${all_servers[@]}"; do
    [[ -n ${need[$server]:-} ]] && check_body "$workload" "$server"
  done

  for c in "${mine[@]}"; do
    conc=${c##*:}
    order=()
    for server in "${all_servers[@]}"; do
      [[ -n ${wanted[$c:$server]:-} ]] && order+=("$server")
    done
    for server in "${order[@]}"; do
      run_client "$workload" "$conc" "$server" "$warmup" >/dev/null
    done
    # Runs alternate between the servers, so that a slow spell of the machine is shared.
    for ((run = 1; run <= runs; run++)); do
      for server in "${order[@]}"; do
        measure "$workload" "$conc" "$server" "$run"
      done
    done
    for server in "${order[@]}"; do
      summarize "$workload" "$conc" "$server"
    done
  done
  for server in "${all_servers[@]}"; do
    if [[ -n ${need[$server]:-} ]]; then
      read -r -a pids <<<"$(server_pids "$server")"
      pss[$workload:$server]=$(pss_kib "${pids[@]}")
    fi
  done
  stop_servers
  unset need
done

if ((run_apps)); then
  log "apps: bench/real_apps.py"
  /usr/bin/python3 bench/real_apps.py --spindle "$binary" --out "$out" --duration "$duration" \
    --warmup "$warmup" --runs "$runs" >&2
fi

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed=$(($(date +%s) - started_at))

# --- report -------------------------------------------------------------------------------

declare -A label=(
  [nginx]="nginx return 200 (ceiling)"
  [fpm]="nginx + php-fpm"
  [classic]="spindle classic"
  [worker]="spindle worker"
)
declare -A h2_label=(
  [nginx]="nginx h2 return 200 (ceiling)"
  [fpm]="nginx h2 + php-fpm"
  [classic]="spindle classic h2"
  [classic_s1]="spindle classic h2, -m 1"
  [classic_h1]="spindle classic h1 (same TLS port)"
  [worker]="spindle worker h2"
  [worker_s1]="spindle worker h2, -m 1"
  [worker_h1]="spindle worker h1 (same TLS port)"
)

fmt_int() {
  awk -v v="$1" 'BEGIN {
    if (v == "" || v == "nan") { print "-"; exit }
    s = sprintf("%d", v + 0.5); r = ""
    while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
    print s r
  }'
}

fmt_ms() {
  awk -v v="$1" 'BEGIN { if (v >= 100) printf "%.0f ms", v; else if (v >= 10) printf "%.1f ms", v; else printf "%.2f ms", v }'
}

ratio() {
  if [[ -z $1 || -z $2 ]]; then
    echo "-"
  else
    awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) print "-"; else if (a / b < 0.1) printf "%.3fx", a / b; else printf "%.2fx", a / b }'
  fi
}

# wrk -v exits non-zero after printing its version.
wrk_version=$( (wrk -v 2>&1 || true) | awk 'NR == 1 { sub(/^debian\//, "", $2); print $2 }')
machine_line="$(nproc) cores ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), \
$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, Linux $(uname -r); \
wrk $wrk_version on the same cores"
is_selected h2 && machine_line+=", $(h2load --version | awk 'NR == 1 { sub("/", " ", $2); print $2 }') h2load too"

# Every measured run of a server in a case, "REQ_PER_S (CPU us/req)", joined by " / ".
runs_of() {
  awk -F'\t' -v w="$1" -v c="$2" -v s="$3" '$1 == w && $2 == c && $3 == s {
    printf "%s%s (%s us)", (n++ ? " / " : ""), int($5 + 0.5), $10 }' "$out/runs.tsv"
}

# Below the HTTP/2 table: the h2load commands, issue 31's two derived figures for each case,
# and every run's figures (a busy machine's medians of 2 or 3 runs hide how far they spread).
h2_summary() {
  local c workload conc server
  echo
  echo "h2load commands: HTTP/2 \`h2load $(h2load_args worker 32 "$duration") URL\` (rows \"-m 1\":"
  echo "\`h2load $(h2load_args worker_s1 32 "$duration") URL\`, as many requests in flight as HTTP/1.1); HTTP/1.1 on"
  echo "the same Spindle TLS port \`h2load $(h2load_args worker_h1 32 "$duration") URL\` (ALPN http/1.1, no pipelining)."
  echo
  for c in ${scenario_cases[h2]}; do
    workload=${c%%:*}
    conc=${c##*:}
    [[ -n ${med_rps[$c:worker]:-} ]] || continue
    echo "- ${workload#h2_} c=$conc: spindle worker h2 / nginx h2 + php-fpm **$(ratio "${med_rps[$c:worker]}" "${med_rps[$c:fpm]:-}")**" \
      "(classic h2: $(ratio "${med_rps[$c:classic]:-}" "${med_rps[$c:fpm]:-}"))$([[ $workload == h2_hello ]] && echo "; target: at least 4x")."
    echo "  CPU/req over h2 / over h1 (same server, same TLS port), target at most 1.3x: worker" \
      "**$(ratio "${med_cpu[$c:worker]:-}" "${med_cpu[$c:worker_h1]:-}")** (-m 1:" \
      "**$(ratio "${med_cpu[$c:worker_s1]:-}" "${med_cpu[$c:worker_h1]:-}")**), classic" \
      "**$(ratio "${med_cpu[$c:classic]:-}" "${med_cpu[$c:classic_h1]:-}")** (-m 1:" \
      "**$(ratio "${med_cpu[$c:classic_s1]:-}" "${med_cpu[$c:classic_h1]:-}")**)."
    for server in "${all_servers[@]}"; do
      [[ -n ${med_rps[$c:$server]:-} ]] || continue
      echo "  Runs, ${h2_label[$server]}: $(runs_of "$workload" "$conc" "$server")."
    done
  done
}

echo -e "scenario\tworkload\tconcurrency\tserver\truns\treq_s\tp50_ms\tp99_ms\terrors\tcpu_us_per_req\tpss_mib\tx_fpm\tx_ceiling" \
  >"$out/results.tsv"
{
  echo "Machine: $machine_line. Load average before: $load_before, after: $load_after."
  echo "Command: \`$command_line\`; $runs run(s) of $duration per server and case, medians; took $((elapsed / 60)) min."
  echo "Spindle: $binary ($("$binary" version 2>/dev/null | head -n1)); php-fpm: $("$fpm_bin" -v | head -n1 | cut -d' ' -f1-2), nginx $(nginx -v 2>&1 | cut -d/ -f2)."
  for s in "${scenario_order[@]}"; do
    is_selected "$s" || continue
    echo
    echo "### $s: ${scenario_title[$s]}"
    echo
    echo "| case | server | req/s | p50 | p99 | errors | CPU/req | PSS | x fpm | x ceiling |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for c in ${scenario_cases[$s]}; do
      workload=${c%%:*}
      conc=${c##*:}
      ceiling_workload=$(ceiling_of "$workload")
      for server in "${all_servers[@]}"; do
        key=$c:$server
        # The ceiling row of a PHP workload is its ceiling workload's nginx measurement.
        src=$key
        pss_key=$workload:$server
        if [[ $server == nginx ]]; then
          src=$ceiling_workload:$conc:nginx
          pss_key=$ceiling_workload:nginx
        fi
        [[ -n ${med_rps[$src]:-} ]] || continue
        ceiling=${med_rps[$ceiling_workload:$conc:nginx]:-}
        fpm=${med_rps[$c:fpm]:-}
        name=${label[$server]:-}
        is_h2 "$workload" && name=${h2_label[$server]}
        [[ $workload == static && $server == nginx ]] && name="nginx (sendfile)"
        [[ $workload == static && $server == classic ]] && name="spindle"
        [[ $workload == gzip_static && $server == nginx ]] && name="nginx gzip on"
        [[ $workload == gzip_static && $server == classic ]] && name="spindle (compressed-file cache)"
        [[ $workload == gzip_php && $server == fpm ]] && name="nginx gzip on + php-fpm"
        if [[ $workload == https ]]; then
          case $server in
            nginx) name="nginx TLS return 200 (ceiling)" ;;
            fpm) name="nginx TLS + php-fpm" ;;
            worker) name="spindle worker TLS" ;;
          esac
        fi
        pss_mib=$(awk -v k="${pss[$pss_key]:-0}" 'BEGIN { printf "%.1f", k / 1024 }')
        printf '| %s c=%s | %s | %s | %s | %s | %s | %s us | %s MiB | %s | %s |\n' "$workload" "$conc" "$name" \
          "$(fmt_int "${med_rps[$src]}")" "$(fmt_ms "${med_p50[$src]}")" "$(fmt_ms "${med_p99[$src]}")" \
          "${sum_err[$src]}" "$(fmt_int "${med_cpu[$src]}")" "$pss_mib" \
          "$(ratio "${med_rps[$src]}" "$fpm")" "$(ratio "${med_rps[$src]}" "$ceiling")"
        echo -e "$s\t$workload\t$conc\t$server\t$runs\t${med_rps[$src]}\t${med_p50[$src]}\t${med_p99[$src]}\t${sum_err[$src]}\t${med_cpu[$src]}\t$pss_mib\t$(ratio "${med_rps[$src]}" "$fpm" | tr -d x)\t$(ratio "${med_rps[$src]}" "$ceiling" | tr -d x)" \
          >>"$out/results.tsv"
      done
    done
    [[ $s == h2 ]] && h2_summary
  done
  if ((run_apps)); then
    echo
    echo "### apps: WordPress, MediaWiki, Laravel, Symfony (bench/real_apps.py; chart: apps-chart.svg)"
    echo
    echo "CPU/req: user+system time of the server's processes (nginx + php-fpm, or spindle) per"
    echo "request; DB CPU/req: the database server's, counted apart; PSS after the app's runs."
    echo
    cat "$out/apps.md"
  fi
} >"$out/results.md"
cat "$out/results.md"

# --- chart --------------------------------------------------------------------------------

if ((${#cases[@]} == 0)); then
  log "no chart of the synthetic scenarios: none ran"
elif command -v gnuplot >/dev/null; then
  {
    echo -e "case\tnginx\tnginx + php-fpm\tspindle classic\tspindle worker"
    for c in "${cases[@]}"; do
      line="${c%%:*} c=${c##*:}"
      for server in nginx fpm classic worker; do
        v=${med_rps[$c:$server]:-}
        line+=$'\t'${v:--}
      done
      echo "$line"
    done
  } >"$out/chart.tsv"
  gnuplot <<EOF
set terminal svg size 1200,560 dynamic font "sans,12" background rgb "white"
set output "$out/chart.svg"
set title "Spindle vs nginx + php-fpm: requests per second (log scale; wrk -t1, h2_* cases h2load -t1 -m $h2_streams, 127.0.0.1, $(nproc) cores)"
set datafile separator "\t"
set datafile missing "-"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set yrange [100:*]
set grid ytics
set ylabel "req/s (median of $runs)"
set xtics rotate by 30 right scale 0
set key top right
plot for [i=2:5] "$out/chart.tsv" using i:xtic(1) title columnheader(i)
EOF
  log "chart: $out/chart.svg"
else
  log "gnuplot is missing: no chart"
fi
log "results: $out/results.md, $out/results.tsv, $out/runs.tsv"
