#!/usr/bin/env bash
# Builds the thread-safe (ZTS) libphp with the embed SAPI that Spindle links.
#
#   scripts/build-php.sh            # Debian's php8.2 source package
#   PHP_TARBALL=/path/php-8.4.x.tar.xz scripts/build-php.sh
#   PHP_PGO=1 scripts/build-php.sh  # profile-guided: two compiles and a training run
#   PHP_PGO=1 PHP_PGO_TRAIN=bench/pgo_train_apps.sh scripts/build-php.sh  # trained on apps too
#
# By default PHP is compiled once. With PHP_PGO=1 (the Docker image and bench/run.sh) the
# build is profile-guided: PHP is compiled with instrumentation, runs the training application
# in scripts/pgo (requests through the embed SAPI, OPcache on), and is compiled again with the
# profile it wrote. That lays PHP's code out and predicts its branches the way requests run
# it: 8 % more classic requests per second on the bootstrap benchmark, which the training does
# not run (bench/RESULTS.md), for twice the compile time (38.5 minutes of set-up on 2 cores
# instead of about 20), too much for a first start.
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
  # No CLI: the image ships none (tests/apps runs MediaWiki's installer on Debian's), and
  # building it compiles every file twice (libtool's non-PIC objects for the executable
  # besides the shared library's).
  --disable-cli --disable-cgi --disable-phpdbg
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
  # What FrankenPHP's static build ships from PHP's own tree, where Debian has the libraries
  # (docs/extensions.md lists them all). pcntl: full in `spindle php-cli`; in the threaded
  # server sapi/pcntl_guard.cpp refuses the functions that would act on the whole process.
  --with-pgsql --with-pdo-pgsql --with-bz2 --with-gmp --with-gettext --enable-soap
  --enable-sockets --with-xsl --with-ldap --with-tidy --enable-ftp --enable-shmop
  --enable-sysvmsg --enable-sysvsem --enable-sysvshm --enable-dba --with-libedit
  --enable-pcntl
)
# libphp.so is position-independent code, and by default every call from one of PHP's
# exported functions to another (_emalloc, zend_hash_find, zval_ptr_dtor: 62,000 call sites)
# goes through the PLT, and none of them can be inlined, in case another object interposes
# them. Debian's php-fpm, an executable, pays neither. -fno-semantic-interposition lets GCC
# inline and call them directly within a file; the dynamic list binds every function call
# inside the library to the library's own definition (what -Bsymbolic-functions does), except
# the one function Spindle replaces (sapi/execution_timer.c). Data stays preemptible: the
# executable's copies of PHP globals (copy relocations) must be the ones PHP uses.
interposable_function=zend_max_execution_timer_init
# -g1: line tables and function names (backtraces with file:line, as a crash report or gdb's
# bt needs), not the full debug information of -g, which made zend_execute.c take 33 s to
# compile instead of 22 and PHP's whole build about a quarter longer; install.sh and the
# Docker image strip it anyway.
php_cflags="-g1 -O2 -fno-semantic-interposition"
# Bump when the build recipe (patches, steps) changes in a way flags don't show.
recipe_version=5
pgo=${PHP_PGO:-0}
training_dir=$(cd "$(dirname "$0")/pgo" && pwd)
# PHP_PGO_TRAIN="COMMAND [ARGS]": a second training, after the training app's: `COMMAND ARGS
# PREFIX` runs with the instrumented PHP installed at PREFIX, and whatever it runs through that
# PHP, as any user, joins the profile. bench/run.sh --apps trains on WordPress, MediaWiki,
# Laravel and Symfony this way (bench/pgo_train_apps.sh), which needs their databases and
# packages: a benchmark's build, not a first start's. The cache key covers the command and the
# contents of the files it names.
extra_training=${PHP_PGO_TRAIN:-}
invoked_from=$PWD

# Writes one deb-src entry per suite (SUITE=URI ...), the way the machine lists its Debian
# sources: apt refuses the same suite with two different Signed-By values, so a deb822 file
# gets the keyring the others use and a one-line list gets none.
add_source_entries() {
  local keyring
  keyring=$(awk 'BEGIN { RS = "" }
    /URIs:[^\n]*debian\.org\/debian([ \n]|$)/ && /Suites:[^\n]*bookworm/ {
      if (match($0, /Signed-By:[ \t]*[^\n]+/)) {
        v = substr($0, RSTART, RLENGTH); sub(/Signed-By:[ \t]*/, "", v); print v; exit
      }
    }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  rm -f /etc/apt/sources.list.d/spindle-php-src.sources /etc/apt/sources.list.d/spindle-php-src.list
  local entry suite uri
  for entry in "$@"; do
    suite=${entry%%=*} uri=${entry#*=}
    if [[ -n "$keyring" ]]; then
      printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n\n' \
        "$uri" "$suite" "$keyring" >>/etc/apt/sources.list.d/spindle-php-src.sources
    else
      echo "deb-src $uri $suite main" >>/etc/apt/sources.list.d/spindle-php-src.list
    fi
  done
}

# The newest php8.2 source the mirror serves: the security suite's when it downloads (Debian's
# security mirror often lists sources it does not serve: 404), else the main suite's.
fetch_debian_source() {
  local dir="$cache_root/src/debian"
  mkdir -p "$dir"
  local existing
  existing=$(ls "$dir"/php8.2_*.orig.tar.xz 2>/dev/null | sort -V | tail -n1 || true)
  if [[ -n "$existing" ]]; then
    echo "$existing"
    return
  fi
  if [[ ! -e /etc/apt/sources.list.d/spindle-php-src.sources &&
        ! -e /etc/apt/sources.list.d/spindle-php-src.list ]]; then
    log "adding deb-src entries for Debian bookworm-security and bookworm main"
    add_source_entries bookworm-security=http://deb.debian.org/debian-security \
      bookworm=http://deb.debian.org/debian bookworm-updates=http://deb.debian.org/debian
    apt-get update -q >&2
  fi
  local version
  # Newest first: apt-cache lists every version of every suite it knows.
  for version in $(apt-cache showsrc php8.2 | awk '/^Version:/ { print $2 }' | sort -rV | uniq); do
    log "downloading the php8.2 source package $version"
    if (cd "$dir" && apt-get source --download-only "php8.2=$version" >&2); then
      ls "$dir"/php8.2_*.orig.tar.xz | sort -V | tail -n1
      return
    fi
    log "php8.2 $version is listed but does not download; trying the next version"
    rm -f "$dir"/php8.2_"${version%%-*}"*
  done
  log "no php8.2 source package downloads from the configured mirrors"
  exit 1
}

tarball=${PHP_TARBALL:-}
if [[ -z "$tarball" ]]; then
  tarball=$(fetch_debian_source)
fi
[[ -f "$tarball" ]] || { log "no such tarball: $tarball"; exit 1; }

# The version comes from the tarball's name: php-8.4.1.tar.xz, php8.2_8.2.32.orig.tar.xz.
version=$(basename "$tarball" | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | tail -n1)
[[ -n "$version" ]] || { log "cannot read a PHP version from $(basename "$tarball")"; exit 1; }
# A profile-guided build is keyed by the training too: another training, another build.
training=none
extra_training_command=()
if [[ $pgo == 1 ]]; then
  training=$(cd "$training_dir" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum)
  if [[ -n $extra_training ]]; then
    read -ra extra_training_command <<<"$extra_training"
    # Absolute: it runs from PHP's source tree.
    [[ -f ${extra_training_command[0]} ]] ||
      { log "PHP_PGO_TRAIN: no such file: ${extra_training_command[0]}"; exit 1; }
    extra_training_command[0]=$(realpath "${extra_training_command[0]}")
    named_files=()
    for word in "${extra_training_command[@]}"; do
      [[ -f $word ]] && named_files+=("$word")
    done
    training+=" $extra_training $(sha256sum "${named_files[@]}" | cut -c1-64 | sha256sum)"
  fi
elif [[ -n $extra_training ]]; then
  log "PHP_PGO_TRAIN needs PHP_PGO=1"
  exit 1
fi
key=$(printf '%s\n' "$recipe_version" "$(basename "$tarball")" "${configure_flags[@]}" "$training" \
  "$php_cflags" "$interposable_function" |
  sha256sum | cut -c1-12)
prefix="$cache_root/php-$version-$key"

if [[ -f "$prefix/.complete" ]]; then
  # Caches made before the install step created the scan directory get it here.
  mkdir -p "$prefix/etc/conf.d"
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
dynamic_list="$work/interposable.list"
printf '{ %s; };\n' "$interposable_function" >"$dynamic_list"
# PHP's Makefile takes LDFLAGS from make's command line (compile below), not from configure.
php_ldflags="-Wl,--dynamic-list-data -Wl,--dynamic-list=$dynamic_list"
configure_env=(CFLAGS="$php_cflags")
# With instrumentation, an ifunc resolver (PHP picks its SSE4.2/AVX2 string routines with them)
# would count its calls before the dynamic loader has relocated its library, and crash it;
# without ifunc PHP picks them through function pointers, as it does under sanitizers.
if [[ $pgo == 1 ]]; then
  configure_env+=(ax_cv_have_func_attribute_ifunc=no)
fi
# php.ini and the scan directory live in the prefix, so the extensions scripts/php-ext.sh
# builds against this PHP are enabled for it alone (etc/conf.d/NAME.ini), never for another.
if ! env "${configure_env[@]}" ./configure --prefix="$prefix" "${configure_flags[@]}" \
  --with-config-file-path="$prefix/etc" --with-config-file-scan-dir="$prefix/etc/conf.d" \
  >"$work/configure.log" 2>&1; then
  tail -n 30 "$work/configure.log" >&2
  log "configure failed"
  exit 1
fi

compile() {  # compile LABEL [MAKE-VARIABLE=VALUE...]
  local label=$1 total done_count make_pid
  shift
  total=$(grep -cE '^[^ ]+\.lo:' Makefile || echo 0)
  log "$label: compiling about $total objects with $jobs jobs"
  touch "$work/make.log.start"
  make -j"$jobs" LDFLAGS="$php_ldflags" "$@" >"$work/make.log" 2>&1 &
  make_pid=$!
  while kill -0 "$make_pid" 2>/dev/null; do
    sleep 30
    done_count=$(find . -name '*.lo' -newer "$work/make.log.start" 2>/dev/null | wc -l)
    log "$label: compiled $done_count/$total objects"
  done
  if ! wait "$make_pid"; then
    grep -E 'error|Error' "$work/make.log" | head -n 20 >&2
    log "make failed (log kept at $cache_root/last-make.log)"
    cp "$work/make.log" "$cache_root/last-make.log"
    exit 1
  fi
}

install_php() {
  log "installing"
  rm -rf "$prefix"
  make install >"$work/install.log" 2>&1 || { tail -n 20 "$work/install.log" >&2; exit 1; }
  # The scan directory exists from the start, empty until scripts/php-ext.sh enables an
  # extension in it: `cmake --install` copies it, so a fresh machine that builds no PECL
  # extension (scripts/serve-example.sh) must have one too.
  mkdir -p "$prefix/etc/conf.d"
}

# Requests of the training application, each route a few thousand times, and PHP's own
# benchmark of the engine once. Their output is of no interest; a failed request, or anything
# PHP logs (a warning, a deprecation), fails the build: the profile would be one of error paths.
train() {
  local driver="$work/train" ini="$work/train.ini" app="$training_dir/app"
  log "training: building the driver"
  # shellcheck disable=SC2046 # php-config prints one flag per word
  cc -O1 -o "$driver" "$training_dir/train.c" $("$prefix/bin/php-config" --includes) \
    -L"$prefix/lib" -lphp -Wl,-rpath,"$prefix/lib"
  printf '%s\n' 'zend_extension=opcache' 'opcache.enable=1' 'opcache.validate_timestamps=0' \
    'memory_limit=256M' 'error_reporting=-1' 'log_errors=1' 'display_errors=0' >"$ini"
  log "training: requests of scripts/pgo/app, and Zend/bench.php"
  local q="$app/index.php?route="
  if ! "$driver" "$ini" 2000 "${q}/" "${q}/hello&name=pgo" \
      "${q}/products&category=books&sort=price&page=2" "${q}/products&q=river&sort=newest" \
      "${q}/products/7" "${q}/products/999" "${q}/api/products&category=games" \
      "${q}/api/products/12" >/dev/null 2>"$work/train.log" ||
    ! "$driver" "$ini" 1 "$srcdir/Zend/bench.php" >/dev/null 2>>"$work/train.log" ||
    [[ -s "$work/train.log" ]]; then
    tail -n 20 "$work/train.log" >&2
    log "training failed"
    exit 1
  fi
  if [[ ${#extra_training_command[@]} -gt 0 ]]; then
    log "training: ${extra_training_command[*]} $prefix"
    # The command may run PHP as another user (www-data): the profile's files are written
    # next to the objects.
    chmod 755 "$work"
    chmod -R a+rwX "$srcdir"
    (cd "$invoked_from" && "${extra_training_command[@]}" "$prefix") >&2 ||
      { log "training by ${extra_training_command[*]} failed"; exit 1; }
  fi
}

if [[ $pgo == 1 ]]; then
  # -fprofile-update=single: the training runs on one thread.
  compile "instrumented build" PROF_FLAGS="-fprofile-generate -fprofile-update=single"
  install_php
  train
  make prof-clean >/dev/null
  # partial-training: code the training never ran is optimised as usual, not for size.
  compile "profile-guided build" PROF_FLAGS="-fprofile-use -fprofile-partial-training \
-fprofile-correction -Wno-missing-profile"
else
  compile "build"
fi
install_php

if ! grep -qs '^#define ZTS 1' "$prefix/include/php/main/php_config.h"; then
  log "built PHP is not ZTS"
  exit 1
fi
# A PLT slot (JUMP_SLOT relocation) is what lets a call be replaced: the function Spindle
# replaces must keep its own, and PHP's own calls (_emalloc stands for them) must have none.
relocations=$(readelf -rW "$prefix/lib/libphp.so")
if ! grep -qE "JUMP_SLOT.* $interposable_function( |\$)" <<<"$relocations"; then
  log "libphp no longer calls $interposable_function through its PLT: Spindle could not replace it"
  exit 1
fi
if grep -qE 'JUMP_SLOT.* _emalloc( |$)' <<<"$relocations"; then
  log "libphp still calls its own functions through its PLT (the dynamic list was not linked)"
  exit 1
fi
touch "$prefix/.complete"
log "done: PHP $("$prefix/bin/php-config" --version) at $prefix"
echo "$prefix"
