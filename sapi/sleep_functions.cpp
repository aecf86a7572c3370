// PHP's sleep functions for slot threads. PHP's own call nanosleep(), which nothing but a
// signal ends: a script asleep never reaches the VM interrupt through which the slow log and
// GET /threads/N/backtrace take its backtrace. These sleep on the slot's backtrace mailbox
// instead (backtrace_mailbox.hpp), serve an order the moment it comes, and sleep on. A signal
// (the interrupt of a stop or a timeout) still ends the sleep as it ends nanosleep(). They run
// on the slot thread executing the calling script.

#include "sapi/sleep_functions.hpp"

#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <ctime>

#include "sapi/backtrace_mailbox.hpp"
#include "sapi/internal_functions.hpp"
#include "sapi/php.hpp"
#include "sapi/slot_context.hpp"

namespace spindle::sapi {
namespace {

using std::chrono::steady_clock;

// Longest sleep measured on the clock: 30 years. A longer one (time_nanosleep(PHP_INT_MAX, 0))
// would overflow steady_clock's nanoseconds; it sleeps 30 years instead, which no request
// outlives.
constexpr time_t longest_sleep_seconds = 30LL * 365 * 24 * 3600;

// nanosleep() with its results (0; -1 with errno EINTR and `remaining` filled, or EINVAL), on
// the slot's mailbox. Outside a slot thread (`spindle php-cli`) it is nanosleep() itself.
int slot_nanosleep(const timespec& request, timespec* remaining) noexcept {
    slot_context* ctx = current_slot();
    if (ctx == nullptr || ctx->mailbox == nullptr) {
        return nanosleep(&request, remaining);
    }
    if (request.tv_sec < 0 || request.tv_nsec < 0 || request.tv_nsec > 999'999'999) {
        errno = EINVAL;
        return -1;
    }
    const steady_clock::time_point deadline =
        steady_clock::now() +
        std::chrono::seconds(request.tv_sec < longest_sleep_seconds ? request.tv_sec
                                                                    : longest_sleep_seconds) +
        std::chrono::nanoseconds(request.tv_nsec);
    backtrace_mailbox& mailbox = *ctx->mailbox;
    for (;;) {
        // The counter first: an order posted after this read changes it, and the wait below
        // then returns at once instead of missing it.
        const std::uint32_t seen = mailbox.wake_value();
        if (mailbox.has_orders()) {
            serve_backtrace_orders(*ctx);
        }
        const steady_clock::duration left = deadline - steady_clock::now();
        if (left <= steady_clock::duration::zero()) {
            return 0;
        }
        switch (mailbox.wait(seen, left)) {
            case mailbox_wait::timed_out: return 0;
            case mailbox_wait::interrupted: {
                if (remaining != nullptr) {
                    const auto rest = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::max(deadline - steady_clock::now(), steady_clock::duration::zero()));
                    remaining->tv_sec = static_cast<time_t>(rest.count() / 1'000'000'000);
                    remaining->tv_nsec = static_cast<long>(rest.count() % 1'000'000'000);
                }
                errno = EINTR;
                return -1;
            }
            case mailbox_wait::posted: break;
        }
    }
}

// sleep(int $seconds): int - 0, or the whole seconds left when a signal ended it (glibc's
// sleep(), which PHP calls, truncates).
ZEND_FUNCTION(spindle_sleep) {
    zend_long num;
    ZEND_PARSE_PARAMETERS_START(1, 1)
    Z_PARAM_LONG(num)
    ZEND_PARSE_PARAMETERS_END();
    if (num < 0) {
        zend_argument_value_error(1, "must be greater than or equal to 0");
        RETURN_THROWS();
    }
    timespec request{};
    request.tv_sec = static_cast<time_t>(static_cast<unsigned int>(num));
    timespec remaining{};
    if (slot_nanosleep(request, &remaining) != 0) {
        RETURN_LONG(static_cast<zend_long>(remaining.tv_sec));
    }
    RETURN_LONG(0);
}

// usleep(int $microseconds): void
ZEND_FUNCTION(spindle_usleep) {
    zend_long num;
    ZEND_PARSE_PARAMETERS_START(1, 1)
    Z_PARAM_LONG(num)
    ZEND_PARSE_PARAMETERS_END();
    if (num < 0) {
        zend_argument_value_error(1, "must be greater than or equal to 0");
        RETURN_THROWS();
    }
    // As glibc's usleep() splits PHP's (unsigned int) argument.
    const unsigned int microseconds = static_cast<unsigned int>(num);
    timespec request{};
    request.tv_sec = static_cast<time_t>(microseconds / 1'000'000);
    request.tv_nsec = static_cast<long>(microseconds % 1'000'000) * 1000;
    (void)slot_nanosleep(request, nullptr);
}

// time_nanosleep(int $seconds, int $nanoseconds): array|bool
ZEND_FUNCTION(spindle_time_nanosleep) {
    zend_long tv_sec;
    zend_long tv_nsec;
    ZEND_PARSE_PARAMETERS_START(2, 2)
    Z_PARAM_LONG(tv_sec)
    Z_PARAM_LONG(tv_nsec)
    ZEND_PARSE_PARAMETERS_END();
    if (tv_sec < 0) {
        zend_argument_value_error(1, "must be greater than or equal to 0");
        RETURN_THROWS();
    }
    if (tv_nsec < 0) {
        zend_argument_value_error(2, "must be greater than or equal to 0");
        RETURN_THROWS();
    }
    timespec request{};
    request.tv_sec = static_cast<time_t>(tv_sec);
    request.tv_nsec = static_cast<long>(tv_nsec);
    timespec remaining{};
    if (slot_nanosleep(request, &remaining) == 0) {
        RETURN_TRUE;
    }
    if (errno == EINTR) {
        array_init(return_value);
        add_assoc_long_ex(return_value, "seconds", sizeof("seconds") - 1, remaining.tv_sec);
        add_assoc_long_ex(return_value, "nanoseconds", sizeof("nanoseconds") - 1,
                          remaining.tv_nsec);
        return;
    }
    if (errno == EINVAL) {
        zend_value_error(
            "Nanoseconds was not in the range 0 to 999 999 999 or seconds was negative");
        RETURN_THROWS();
    }
    RETURN_FALSE;
}

// time_sleep_until(float $timestamp): bool
ZEND_FUNCTION(spindle_time_sleep_until) {
    double target_secs;
    ZEND_PARSE_PARAMETERS_START(1, 1)
    Z_PARAM_DOUBLE(target_secs)
    ZEND_PARSE_PARAMETERS_END();

    timeval now{};
    if (gettimeofday(&now, nullptr) != 0) {
        RETURN_FALSE;
    }
    constexpr std::uint64_t ns_per_sec = 1'000'000'000;
    const double top_target_sec = static_cast<double>(UINT64_MAX / ns_per_sec);
    if (!(target_secs >= 0 && target_secs <= top_target_sec)) {
        zend_argument_value_error(1, "must be between 0 and %" PRIu64,
                                  static_cast<std::uint64_t>(top_target_sec));
        RETURN_THROWS();
    }
    const auto target_ns = static_cast<std::uint64_t>(target_secs * ns_per_sec);
    const std::uint64_t current_ns = static_cast<std::uint64_t>(now.tv_sec) * ns_per_sec +
                                     static_cast<std::uint64_t>(now.tv_usec) * 1000;
    if (target_ns < current_ns) {
        php_error_docref(nullptr, E_WARNING,
                         "Argument #1 ($timestamp) must be greater than or equal to the current "
                         "time");
        RETURN_FALSE;
    }
    const std::uint64_t diff_ns = target_ns - current_ns;
    timespec request{};
    request.tv_sec = static_cast<time_t>(diff_ns / ns_per_sec);
    request.tv_nsec = static_cast<long>(diff_ns % ns_per_sec);
    timespec remaining{};
    // PHP sleeps on through signals. One that asks the request to end (a stop, a timeout)
    // ends the sleep, so the request ends at its next VM step rather than when the target time
    // comes.
    const slot_context* ctx = current_slot();
    while (slot_nanosleep(request, &remaining) != 0) {
        if (errno != EINTR) {
            RETURN_FALSE;
        }
        if (ctx != nullptr && request_must_end(*ctx)) {
            RETURN_TRUE;
        }
        request = remaining;
    }
    RETURN_TRUE;
}

}  // namespace

void install_sleep_functions() {
    replace_internal_handler("sleep", zif_spindle_sleep);
    replace_internal_handler("usleep", zif_spindle_usleep);
    replace_internal_handler("time_nanosleep", zif_spindle_time_nanosleep);
    replace_internal_handler("time_sleep_until", zif_spindle_time_sleep_until);
}

}  // namespace spindle::sapi
