#!/usr/bin/env bash
# Builds Spindle for users (Release, no test toolchain) and installs it:
#   PREFIX/bin/spindle, PREFIX/bin/php (a link: spindle's php-cli)
#   PREFIX/lib/spindle/libphp.so and PREFIX/lib/spindle/extensions/ (opcache.so, PECL ones)
#   PREFIX/etc/spindle/ (php.ini, if you add one, and conf.d/*.ini)
# The tree finds its libraries relative to the binary, so it can be copied or moved as a whole;
# the PHP build cache under /var/cache/spindle is only needed to build it.
#   scripts/install.sh                       PREFIX=/usr/local
#   PREFIX=/opt/spindle scripts/install.sh
#   DESTDIR=/tmp/stage scripts/install.sh    stage the tree for a package or an image
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${PREFIX:-/usr/local}
build_dir=${BUILD_DIR:-build-release}

BUILD_DIR=$build_dir BUILD_TYPE=Release SPINDLE_TESTS=0 scripts/setup.sh
# cmake --install reads DESTDIR from the environment.
cmake --install "$build_dir" --prefix "$prefix" --strip >&2
# --strip strips the targets CMake built; libphp and the extensions are copied files.
find "${DESTDIR:-}$prefix/lib/spindle" -name '*.so' -exec strip --strip-unneeded {} +
echo "[install] $("${DESTDIR:-}$prefix/bin/spindle" version) in ${DESTDIR:-}$prefix" >&2
