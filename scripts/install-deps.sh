#!/usr/bin/env bash
# Installs the Debian packages of one or more groups. Idempotent: a second run only checks
# what is installed.
#   scripts/install-deps.sh        build: what building PHP and Spindle and running it need
#   scripts/install-deps.sh test   the test toolchain: GoogleTest, pytest, clang, Chromium, ...
#   scripts/install-deps.sh apps   the Debian-packaged PHP applications that tests/apps drives
#                                  end to end, and the MariaDB server WordPress needs; their
#                                  files are served by Spindle's own libphp (Debian's php8.2
#                                  packages come along as dependencies; only the CLI runs,
#                                  for MediaWiki's installer)
set -euo pipefail

# What building PHP and Spindle needs, and the libraries the server runs with: all that
# scripts/setup.sh, scripts/install.sh and scripts/serve-example.sh install for users.
build_packages=(
  # toolchain
  build-essential cmake pkg-config autoconf bison re2c dpkg-dev git
  # PHP extension libraries (ZTS libphp is built from source against these)
  libxml2-dev libsqlite3-dev libssl-dev libicu-dev libonig-dev libsodium-dev
  zlib1g-dev libpng-dev libjpeg-dev libfreetype-dev libwebp-dev libcurl4-openssl-dev
  libzip-dev libargon2-dev
  libpq-dev libbz2-dev libgmp-dev libxslt1-dev libldap2-dev libtidy-dev libedit-dev
  # (the libraries of PECL extensions are not here: scripts/php-ext.sh installs an extension's
  # own when it builds it, so the README's first command does not wait for ImageMagick's)
  # Spindle itself; zlib1g-dev (above), libzstd-dev and libbrotli-dev for response compression,
  # libjemalloc-dev for its malloc (SPINDLE_MALLOC in CMakeLists.txt), libnghttp2-dev for
  # HTTP/2 (server/http2/http2_session.hpp)
  libboost1.81-dev libspdlog-dev nlohmann-json3-dev libzstd-dev libbrotli-dev libjemalloc-dev
  libnghttp2-dev
  # curl: the first request to the example server, and the Docker image's health check
  curl
)

# What the tests, the format check, fuzzing and the benchmarks need on top (scripts/test.sh).
test_packages=(
  clang-format
  # fuzzing (scripts/fuzz.sh): libFuzzer and the sanitizer runtimes come with clang's rt
  clang libclang-rt-14-dev
  # the unit tests and the micro-benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # integration tests; python3-yaml: scripts/check-docker.sh reads docker/compose.yaml;
  # python3-brotli and python3-zstandard decode compressed responses (tests/integration/test_encode.py);
  # haproxy: two instances behind a load balancer (tests/integration/test_scale_out.py), and
  # the PROXY protocol v1/v2 sender (tests/integration/test_proxy_protocol.py)
  # python3-pytest-xdist: the integration suites run their files on as many processes as
  # there are cores (most of a test's time is waiting on a server, a client or a timeout)
  python3 python3-pytest python3-pytest-xdist python3-yaml python3-brotli python3-zstandard
  wrk procps haproxy
  # tests/integration/test_tls.py makes its certificates and handshakes with the CLI
  openssl
  # tests/integration/test_http2.py: python3-h2 writes HTTP/2 frames by hand (and reads them),
  # nghttp2-client brings nghttp and h2load
  python3-h2 nghttp2-client
  # real services the extension and slow-client tests start on 127.0.0.1 (tests/integration)
  postgresql redis-server memcached slowhttptest
  # tests/integration/test_systemd.py checks the unit file with systemd-analyze
  systemd
  # the ACME test CA (pebble) and its DNS stub (pebble-challtestsrv) that
  # tests/integration/test_acme.py obtains certificates from
  pebble
  # the admin status page's test (tests/integration/test_admin.py) drives a headless Chromium
  chromium chromium-driver python3-selenium
)

app_packages=(
  dokuwiki adminer mediawiki
  wordpress wordpress-theme-twentytwentythree mariadb-server
  php-symfony-http-kernel php-symfony-http-foundation php-symfony-routing
  php-symfony-event-dispatcher php-symfony-error-handler php-twig
  php-symfony-security-csrf
  # tests/apps/laravel: Laravel 8 and the libraries it autoloads
  php-laravel-framework
  phpmyadmin
  # tests/apps/test_composer.py: Composer run by spindle's php-cli
  composer
  # tests/apps/test_php_fpm_parity.py: the same requests to nginx + php-fpm; bench/real_apps.py
  # serves the apps from php-fpm too (MariaDB for WordPress and MediaWiki, PostgreSQL for Laravel)
  nginx-light php8.2-fpm php8.2-mysql php8.2-pgsql
)

packages=()
for group in "${@:-build}"; do
  case $group in
    build) packages+=("${build_packages[@]}") ;;
    test) packages+=("${test_packages[@]}") ;;
    apps) packages+=("${app_packages[@]}") ;;
    *) echo "usage: scripts/install-deps.sh [build] [test] [apps]" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present" >&2
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Keep maintainer scripts from starting daemons (haproxy, MariaDB, a web server pulled in by
# php8.2): the tests start what they need on 127.0.0.1.
policy=/usr/sbin/policy-rc.d
created_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  created_policy=1
fi
trap 'if ((created_policy)); then rm -f "$policy"; fi' EXIT
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
