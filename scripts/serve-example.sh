#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and serves the example app on http://127.0.0.1:8080.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/spindle php-server --root examples/hello --listen 127.0.0.1:8080 "$@"
