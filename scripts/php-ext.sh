#!/usr/bin/env bash
# Builds PHP extensions against Spindle's own PHP (the ZTS libphp of scripts/build-php.sh) with
# its phpize, installs each one's .so into that PHP's extension directory and enables it in
# that PHP's scan directory (PREFIX/etc/conf.d), as docker-php-ext-install and `pecl install`
# do for the official images. Debian's php8.2-* packages are built without thread safety and
# cannot be loaded into this PHP; their sources can.
#
#   scripts/php-ext.sh redis apcu imagick      Debian's source package php-NAME (apt-get source),
#                                              or, where the mirror lacks it, the upstream
#                                              release in third_party/pecl (memcached, yaml, pcov)
#   scripts/php-ext.sh ./redis-6.0.2.tgz       a PECL tarball
#   scripts/php-ext.sh ./my-extension/         a source directory with a config.m4
#   scripts/php-ext.sh --no-enable redis       build and install, leave php.ini alone
#                                              (load it with `extension=redis`)
#   scripts/php-ext.sh --list                  what is installed, and whether it is enabled
#   scripts/php-ext.sh --runtime-packages      the Debian packages whose shared libraries the
#                                              installed extensions need at run time
#
# The Debian libraries an extension builds against (imagick: libmagickwand-dev) are installed
# when missing, as root; otherwise the error names them.
#
# Each build is cached by its source and this PHP: a second run with the same inputs takes a
# second. Building an extension never rebuilds PHP. PHP_PREFIX picks another PHP build than
# scripts/build-php.sh's; EXT_CONFIGURE_ARGS_NAME (e.g. EXT_CONFIGURE_ARGS_redis=--enable-redis-igbinary)
# passes options to one extension's configure. Progress goes to stderr.
set -euo pipefail

log() { echo "[php-ext] $*" >&2; }
die() {
  log "$*"
  exit 1
}

cache_root=${SPINDLE_CACHE:-/var/cache/spindle}
repo_root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
enable=1
list=0
runtime_packages=0
sources=()
for arg in "$@"; do
  case $arg in
    --no-enable) enable=0 ;;
    --list) list=1 ;;
    --runtime-packages) runtime_packages=1 ;;
    -h | --help)
      sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*) die "unknown option $arg (see --help)" ;;
    *) sources+=("$arg") ;;
  esac
done

prefix=${PHP_PREFIX:-$("$(dirname "$0")/build-php.sh" | tail -n1)}
php_config="$prefix/bin/php-config"
[[ -x $php_config ]] || die "no php-config in $prefix (PHP_PREFIX must be a scripts/build-php.sh prefix)"
extension_dir=$("$php_config" --extension-dir)
conf_dir="$prefix/etc/conf.d"
record_dir="$prefix/etc/php-ext"
mkdir -p "$conf_dir" "$record_dir"

if ((list)); then
  for record in "$record_dir"/*.key; do
    [[ -e $record ]] || continue
    name=$(basename "$record" .key)
    state="installed"
    [[ -e $conf_dir/20-$name.ini ]] && state="enabled"
    echo "$name $state $(head -n1 "$record")"
  done
  exit 0
fi
# One package name a line, for an image's runtime stage: what provides each NEEDED library of
# the installed extensions (resolved by ldd, owned per dpkg -S), less what every image has.
if ((runtime_packages)); then
  for record in "$record_dir"/*.key; do
    [[ -e $record ]] || continue
    module="$extension_dir/$(basename "$record" .key).so"
    ldd "$module" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
  done | sort -u | while read -r library; do
    # Merged /usr: dpkg may know the file by its /lib name.
    dpkg -S "$library" 2>/dev/null || dpkg -S "${library#/usr}" 2>/dev/null ||
      dpkg -S "$(readlink -f "$library")" 2>/dev/null || die "$library belongs to no Debian package"
  done | sed -E 's/^([^:,]+).*/\1/' | grep -vxE 'libc6|libgcc-s1' | sort -u
  exit 0
fi
((${#sources[@]})) || die "nothing to build: name an extension, a tarball or a directory (see --help)"

# The Debian packages each extension's configure needs, so a missing one is named before a
# configure failure buries it. Extensions not listed here need none beyond PHP's own.
declare -A needs=(
  [imagick]="libmagickwand-dev"
  [memcached]="libmemcached-dev zlib1g-dev"
  [yaml]="libyaml-dev"
  [amqp]="librabbitmq-dev"
  [mongodb]="libssl-dev libsasl2-dev libzstd-dev"
  [zstd]="libzstd-dev"
)

# As root, the missing ones are installed, all in one apt-get run before any build, as the
# official images' install-php-extensions does: they are not among scripts/install-deps.sh's
# build packages, which the README's first command installs (libmagickwand-dev alone brings
# about 130 packages). Otherwise the error names them.
install_needs() {  # install_needs NAME...
  local missing=() wanting=() name p
  for name in "$@"; do
    for p in ${needs[$name]:-}; do
      if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
        [[ " ${wanting[*]} " == *" $name "* ]] || wanting+=("$name")
      fi
    done
  done
  ((${#missing[@]})) || return 0
  local who="${wanting[*]} needs"
  ((${#wanting[@]} == 1)) || who="${wanting[*]} need"
  if [[ $(id -u) -ne 0 ]]; then
    die "$who Debian's ${missing[*]}: apt-get install ${missing[*]}"
  fi
  log "$who Debian's ${missing[*]}: installing"
  (export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2 && apt-get install -y -q --no-install-recommends "${missing[@]}" >&2) ||
    die "$who Debian's ${missing[*]}, and apt-get could not install them"
}

# Downloads Debian's source package of php-NAME (once) and prints its upstream tarball.
debian_tarball() {  # debian_tarball NAME
  local dir="$cache_root/src/debian-ext/$1" existing
  mkdir -p "$dir"
  existing=$(ls "$dir"/*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | sort -V | tail -n1 || true)
  if [[ -z $existing ]]; then
    # A mirror that failed within the last day is not asked again: a cached build's second
    # run stays a matter of seconds.
    if [[ -n $(find "$dir/unavailable" -mmin -1440 2>/dev/null) ]]; then
      log "$1: Debian's source package was unavailable at $(cat "$dir/unavailable"); retried after a day"
      return 1
    fi
    log "$1: downloading Debian's source package php-$1"
    if ! (cd "$dir" && apt-get source --download-only "php-$1" >&2); then
      log "$1: apt-get source php-$1 failed (a missing deb-src entry, which scripts/build-php.sh adds, or a mirror without the files)"
      date -u '+%Y-%m-%d %H:%M UTC' >"$dir/unavailable"
      return 1
    fi
    rm -f "$dir/unavailable"
    existing=$(ls "$dir"/*.orig.tar.* | grep -v '\.asc$' | sort -V | tail -n1)
  fi
  echo "$existing"
}

# The copy of NAME's upstream release in third_party/pecl, if the repository carries one:
# the fallback for extensions whose Debian sources the mirror does not serve.
vendored_source() {  # vendored_source NAME
  ls -d "$repo_root/third_party/pecl/$1"-[0-9]*/ 2>/dev/null | sort -V | tail -n1
}

# The source directory to build in an unpacked tree: the one config.m4 at the top, or, in
# Debian's packages that carry several upstream versions (php-redis: redis-5.3.7/ and
# redis-4.3.0/), the newest version's.
pick_source_dir() {  # pick_source_dir TREE
  local found
  found=$(find "$1" -maxdepth 3 -name config.m4 -printf '%h\n' | sort -V)
  [[ -n $found ]] || die "no config.m4 in $1: not a PHP extension's source"
  # Nested copies (a bundled library's own config.m4) lie deeper than the extension's.
  local shallowest
  shallowest=$(awk -F/ '{ print NF }' <<<"$found" | sort -n | head -n1)
  awk -F/ -v depth="$shallowest" 'NF == depth' <<<"$found" | sort -V | tail -n1
}

# A bare name that is no file here: Debian's php-NAME, or the copy in third_party/pecl.
is_bare_name() {  # is_bare_name SOURCE
  [[ ! -e $1 && $1 =~ ^[a-z][a-z0-9_]*$ ]]
}

build_one() {  # build_one SOURCE
  local source=$1 label kind= identity
  if is_bare_name "$source"; then
    label=$source
    local tarball vendored
    if tarball=$(debian_tarball "$label"); then
      kind=debian
      source=$tarball
      identity=$(basename "$source")
    elif vendored=$(vendored_source "$label") && [[ -n $vendored ]]; then
      log "$label: building the upstream release in ${vendored#"$repo_root"/} instead"
      source=${vendored%/}
    else
      die "$label: no Debian source package and no copy in third_party/pecl; give a PECL tarball or a source directory"
    fi
  fi
  if [[ $kind == debian ]]; then
    :
  elif [[ -d $source ]]; then
    kind=directory
    source=$(cd "$source" && pwd)
    label=$(basename "$source" | sed -E 's/-[0-9][^-]*$//')
    # A directory's identity is its content: an edit rebuilds it.
    identity=$(cd "$source" && find . -type f ! -path './.git/*' ! -path './modules/*' \
      ! -name '*.o' ! -name '*.lo' ! -name '*.la' | LC_ALL=C sort | xargs -d '\n' sha256sum | sha256sum)
  elif [[ -f $source ]]; then
    kind=tarball
    source=$(cd "$(dirname "$source")" && pwd)/$(basename "$source")
    label=$(basename "$source" | sed -E 's/\.(tgz|tar\.[a-z0-9]+)$//; s/-[0-9][^-]*$//')
    identity=$(sha256sum <"$source")
  else
    die "$source: neither a directory, a tarball nor an extension name"
  fi
  local args_var="EXT_CONFIGURE_ARGS_${label//-/_}"
  local configure_args=${!args_var:-}
  local key
  key=$(printf '%s\n' "$identity" "$prefix" "$configure_args" | sha256sum | cut -c1-12)

  # A cached build: its record names the key and the modules it installed.
  local record
  for record in "$record_dir"/*.key; do
    [[ -e $record ]] || continue
    if [[ $(sed -n 2p "$record") == "$key" ]]; then
      local name
      name=$(basename "$record" .key)
      if [[ -f $extension_dir/$name.so ]]; then
        log "$label: cached ($name.so, $(head -n1 "$record"))"
        enable_one "$name"
        return
      fi
    fi
  done

  work=$(mktemp -d "$cache_root/ext-build.XXXXXX")
  if [[ $kind == directory ]]; then
    cp -a "$source" "$work/src"
  else
    mkdir "$work/src"
    tar -xf "$source" -C "$work/src"
  fi
  local dir
  dir=$(pick_source_dir "$work/src")
  local version
  version=$(basename "$dir")
  # A directory is copied to src/: name the folder it came from.
  [[ $dir == "$work/src" && $kind == directory ]] && version=$(basename "$source")
  log "$label: building $version with $prefix/bin/phpize"
  if ! (cd "$dir" && "$prefix/bin/phpize" >"$work/phpize.log" 2>&1); then
    tail -n 20 "$work/phpize.log" >&2
    die "$label: phpize failed (autoconf is in scripts/install-deps.sh)"
  fi
  # shellcheck disable=SC2086 # configure_args is a list of words
  if ! (cd "$dir" && ./configure --with-php-config="$php_config" $configure_args \
    >"$work/configure.log" 2>&1); then
    tail -n 20 "$work/configure.log" >&2
    die "$label: configure failed; the lines above name what is missing"
  fi
  if ! (cd "$dir" && make -j"$jobs" >"$work/make.log" 2>&1); then
    grep -E 'error' "$work/make.log" | head -n 20 >&2
    die "$label: make failed"
  fi
  local modules=("$dir"/modules/*.so)
  [[ -e ${modules[0]} ]] || die "$label: the build made no modules/*.so"
  (cd "$dir" && make install >"$work/install.log" 2>&1) || {
    tail -n 20 "$work/install.log" >&2
    die "$label: make install failed"
  }
  local module name
  for module in "${modules[@]}"; do
    name=$(basename "$module" .so)
    printf '%s\n%s\n' "$version" "$key" >"$record_dir/$name.key"
    log "$label: installed $extension_dir/$name.so"
    enable_one "$name"
  done
  rm -rf "$work"
  work=
}

# Zend extensions (xdebug, opcache) hook the engine and load with zend_extension=.
enable_one() {  # enable_one NAME
  ((enable)) || return 0
  local directive=extension
  if nm -D --defined-only "$extension_dir/$1.so" 2>/dev/null | grep -qw zend_extension_entry; then
    directive=zend_extension
  fi
  echo "$directive=$1" >"$conf_dir/20-$1.ini"
  log "$1: enabled in $conf_dir/20-$1.ini"
}

work=
trap 'if [[ -n $work ]]; then rm -rf "$work"; fi' EXIT
names=()
for source in "${sources[@]}"; do
  if is_bare_name "$source"; then
    names+=("$source")
  fi
done
install_needs "${names[@]}"
for source in "${sources[@]}"; do
  build_one "$source"
done
