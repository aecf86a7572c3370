#!/usr/bin/env bash
# Recycling soak (issue 29): a worker script that leaks 1 MiB per request, with
# `max_memory 32MiB`, serves 20,000 requests; passes when none fails, the script is recycled
# every ~33 requests and RSS stays flat (the pytest scenario of
# tests/integration/test_recycling.py, which runs 2,000 by default, at its soak length).
#   bench/recycle_soak.sh   (needs build/spindle, or SPINDLE_BIN)
# Prints the request rate, the recycle count and RSS after 200 requests and at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${SPINDLE_BIN:-build/spindle}
[[ -x $binary ]] || { echo "recycle_soak: build first (cmake --build build)" >&2; exit 1; }
exec /usr/bin/python3 -m pytest -p no:cacheprovider -q -s --soak \
  tests/integration/test_recycling.py \
  -k "leaking and 20000" --spindle="$PWD/$binary"
