#!/usr/bin/env bash
# Runs the tests under sanitizers; any report fails the run.
#   address (default): Spindle built with AddressSanitizer + UndefinedBehaviorSanitizer, the
#     unit tests and the whole integration suite against that binary. PHP itself stays
#     uninstrumented; USE_ZEND_ALLOC=0 sends its allocations through malloc so ASan sees
#     Spindle's use of PHP memory. Tests marked zend_allocator (memory_limit, RSS) measure the
#     allocator that this turns off, and tests marked wall_clock bound latencies that the
#     instrumented build cannot meet (its PHP output runs several times slower); both are
#     left out here and run in scripts/test.sh.
#   thread: the unit tests (front end pieces, pool, state machine: no PHP runs there) under
#     ThreadSanitizer.
#   scripts/sanitize.sh [address|thread|all]
set -euo pipefail
cd "$(dirname "$0")/.."

kind=${1:-address}
prefix=$(scripts/build-php.sh | tail -n1)

build() {  # build DIR TARGET CMAKE-FLAGS...  (TARGET all: everything)
  local dir=$1 target=$2
  shift 2
  cmake -S . -B "$dir" -DPHP_CONFIG="$prefix/bin/php-config" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "$@" >&2
  cmake --build "$dir" -j"$(nproc)" --target "$target" >&2
}

# Every report goes to a file too, so one in a server the tests stopped is not lost.
check_reports() {  # check_reports DIR
  if compgen -G "$1/report*" >/dev/null; then
    echo "sanitize: reports found:" >&2
    cat "$1"/report* >&2
    exit 1
  fi
}

run_address() {
  local dir=build-asan reports
  build "$dir" all -DSPINDLE_SANITIZE=ON
  reports=$(realpath "$dir")/reports
  rm -rf "$reports" && mkdir -p "$reports"
  # detect_leaks=0: PHP's persistent allocations live until exit by design.
  # verify_asan_link_order=0: the dlopen shim is preloaded ahead of the runtime.
  export ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0:halt_on_error=1:log_path=$reports/report"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/report"
  export USE_ZEND_ALLOC=0
  "$dir/tests/unit/spindle_unit_tests" --gtest_brief=1
  LD_PRELOAD=$(realpath "$dir/tests/sanitize/libno_deepbind.so") \
    /usr/bin/python3 -m pytest -p no:cacheprovider -q -n 4 --dist loadfile \
    -m "not zend_allocator and not wall_clock" tests/integration \
    --spindle="$(realpath "$dir/spindle")"
  check_reports "$reports"
  echo "[sanitize] address + undefined: no reports" >&2
}

run_thread() {
  local dir=build-tsan reports
  # Only the unit tests run under ThreadSanitizer: the server binary is not built.
  build "$dir" spindle_unit_tests -DSPINDLE_SANITIZE_THREAD=ON
  reports=$(realpath "$dir")/reports
  rm -rf "$reports" && mkdir -p "$reports"
  TSAN_OPTIONS="halt_on_error=1:log_path=$reports/report" \
    "$dir/tests/unit/spindle_unit_tests" --gtest_brief=1
  check_reports "$reports"
  echo "[sanitize] thread: no reports" >&2
}

case $kind in
  address) run_address ;;
  thread) run_thread ;;
  all)
    # Two plain calls: in an && list set -e would not stop at a failing test run.
    run_address
    run_thread
    ;;
  *) echo "usage: scripts/sanitize.sh [address|thread|all]" >&2; exit 2 ;;
esac
