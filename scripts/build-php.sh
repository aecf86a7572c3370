#!/usr/bin/env bash
# Builds the thread-safe (ZTS) libphp with the embed SAPI that Spindle links.
#
#   scripts/build-php.sh            # Debian's php8.2 source package
#   PHP_TARBALL=/path/php-8.4.x.tar.xz scripts/build-php.sh
#
# The result is installed under $SPINDLE_CACHE (default /var/cache/spindle),
# outside the checkout, in a folder keyed by PHP version and configure flags;
# a second run with the same inputs only prints that folder. The last line on
# stdout is the install prefix (its bin/php-config is what CMake reads);
# progress goes to stderr.
set -euo pipefail

log() { echo "[build-php] $*" >&2; }

cache_root=${SPINDLE_CACHE:-/var/cache/spindle}
jobs=${JOBS:-$(nproc)}
mkdir -p "$cache_root/src"

# Extensions apps need are compiled in: Debian's php8.2-* packages are
# non-ZTS and cannot be loaded into this build.
configure_flags=(
  --enable-embed=shared
  --enable-zts
  --enable-zend-max-execution-timers
  # Zend signals install per-request handlers that touch TSRM globals from whichever thread
  # a signal lands on; the server owns signals instead (FrankenPHP builds the same way).
  --disable-zend-signals
  --disable-cgi --disable-phpdbg
  --disable-all
  --enable-opcache
  --enable-ctype --enable-dom --enable-fileinfo --enable-filter --with-iconv
  --enable-intl --enable-mbstring --with-mysqli --enable-mysqlnd --enable-pdo
  --with-pdo-mysql --with-pdo-sqlite --with-sqlite3 --with-openssl
  --enable-session --enable-simplexml --with-sodium --enable-tokenizer
  --enable-xml --enable-xmlreader --enable-xmlwriter --with-libxml --with-zlib
  --enable-gd --with-jpeg --with-freetype --with-webp --enable-calendar
  --enable-bcmath --enable-exif --with-curl --with-zip --enable-posix
  --with-password-argon2 --enable-phar
)
# Bump when the build recipe (patches, steps) changes in a way flags don't show.
recipe_version=2

fetch_debian_source() {
  local dir="$cache_root/src/debian"
  mkdir -p "$dir"
  local existing
  existing=$(ls "$dir"/php8.2_*.orig.tar.xz 2>/dev/null | head -n1 || true)
  if [[ -n "$existing" ]]; then
    echo "$existing"
    return
  fi
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
     ! grep -rqs '^deb-src .* bookworm main' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    log "adding a deb-src entry for Debian bookworm main"
    # Mirror how the machine lists its Debian sources: apt refuses the same suite with two
    # different Signed-By values, so a deb822 file gets the keyring the others use and a
    # one-line list gets none.
    local keyring
    keyring=$(awk 'BEGIN { RS = "" }
      /URIs:[^\n]*debian\.org\/debian([ \n]|$)/ && /Suites:[^\n]*bookworm/ {
        if (match($0, /Signed-By:[ \t]*[^\n]+/)) {
          v = substr($0, RSTART, RLENGTH); sub(/Signed-By:[ \t]*/, "", v); print v; exit
        }
      }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    if [[ -n "$keyring" ]]; then
      printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: %s\n' \
        "$keyring" >/etc/apt/sources.list.d/spindle-php-src.sources
    else
      echo 'deb-src http://deb.debian.org/debian bookworm main' >/etc/apt/sources.list.d/spindle-php-src.list
    fi
    apt-get update -q >&2
  fi
  log "downloading the php8.2 source package"
  (cd "$dir" && apt-get source --download-only php8.2 >&2)
  ls "$dir"/php8.2_*.orig.tar.xz | head -n1
}

tarball=${PHP_TARBALL:-}
if [[ -z "$tarball" ]]; then
  tarball=$(fetch_debian_source)
fi
[[ -f "$tarball" ]] || { log "no such tarball: $tarball"; exit 1; }

# The version comes from the tarball's name: php-8.4.1.tar.xz, php8.2_8.2.32.orig.tar.xz.
version=$(basename "$tarball" | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | tail -n1)
[[ -n "$version" ]] || { log "cannot read a PHP version from $(basename "$tarball")"; exit 1; }
key=$(printf '%s\n' "$recipe_version" "$(basename "$tarball")" "${configure_flags[@]}" | sha256sum | cut -c1-12)
prefix="$cache_root/php-$version-$key"

if [[ -f "$prefix/.complete" ]]; then
  log "cached: PHP $version at $prefix"
  echo "$prefix"
  exit 0
fi

work=$(mktemp -d "$cache_root/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
log "PHP $version from $(basename "$tarball") -> $prefix"
tar -xf "$tarball" -C "$work"
srcdir=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n1)

# OPcache enables itself only for SAPI names on its allow-list
# (accel_find_sapi() in ext/opcache/ZendAccelerator.c); add ours.
accel="$srcdir/ext/opcache/ZendAccelerator.c"
if ! grep -q '"spindle",' "$accel"; then
  sed -i 's/static const char \*supported_sapis\[\] = {/&\n\t\t"spindle",/' "$accel"
fi
grep -q '"spindle",' "$accel" || { log "could not patch the OPcache SAPI allow-list"; exit 1; }

cd "$srcdir"
if [[ ! -x configure ]]; then
  log "running buildconf"
  ./buildconf --force >&2
fi
log "configure (log: $work/configure.log)"
if ! ./configure --prefix="$prefix" "${configure_flags[@]}" >"$work/configure.log" 2>&1; then
  tail -n 30 "$work/configure.log" >&2
  log "configure failed"
  exit 1
fi

total=$(grep -cE '^[^ ]+\.lo:' Makefile || echo 0)
log "compiling about $total objects with $jobs jobs"
make -j"$jobs" >"$work/make.log" 2>&1 &
make_pid=$!
while kill -0 "$make_pid" 2>/dev/null; do
  sleep 30
  done_count=$(find . -name '*.lo' -newer configure 2>/dev/null | wc -l)
  log "compiled $done_count/$total objects"
done
if ! wait "$make_pid"; then
  grep -E 'error|Error' "$work/make.log" | head -n 20 >&2
  log "make failed (log kept at $cache_root/last-make.log)"
  cp "$work/make.log" "$cache_root/last-make.log"
  exit 1
fi

log "installing"
rm -rf "$prefix"
make install >"$work/install.log" 2>&1 || { tail -n 20 "$work/install.log" >&2; exit 1; }

"$prefix/bin/php" -r 'exit(PHP_ZTS ? 0 : 1);' || { log "built PHP is not ZTS"; exit 1; }
touch "$prefix/.complete"
log "done: $("$prefix/bin/php" -v | head -n1)"
echo "$prefix"
