#!/usr/bin/env bash
# Fails when a C or C++ file differs from what .clang-format makes of it (third_party/ has its
# own .clang-format that keeps upstream formatting).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.c' '*.h')
if ((${#files[@]} == 0)); then
  exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}"; then
  echo "check-format: run clang-format -i on the files above" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted" >&2
