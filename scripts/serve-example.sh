#!/usr/bin/env bash
# Installs Spindle (scripts/install.sh: build packages, PHP, a Release build into PREFIX,
# /usr/local unless set) and serves the example app on http://127.0.0.1:8080.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh
exec "${PREFIX:-/usr/local}/bin/spindle" php-server --root examples/hello --listen 127.0.0.1:8080 "$@"
