#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "server/admin/process_stats.hpp"
#include "server/http/http_metrics.hpp"

namespace spindle::worker {
class pool;
}

namespace spindle::acme {
class certificate_manager;
}

namespace spindle::server {

/// Whether the server should be sent traffic (GET /readyz), and if not, why.
struct readiness {
    bool ready = false;
    std::string reason;  ///< empty when ready
};

/// Ready once every PHP thread booted at least once (every worker script reached
/// frankenphp_handle_request()) and while the server is not draining. Any thread.
readiness check_readiness(const worker::pool& pool, bool draining);

/// GET /metrics: FrankenPHP's metric families (threads, queue, per-worker gauges and counters
/// with a `worker` label), Spindle's (HTTP responses by status class, durations, connections,
/// 503 rejections, worker request-duration histograms) and the process_* ones, in the
/// Prometheus text format 0.0.4. Any thread; reads atomics and each group's queue length.
std::string metrics_text(const worker::pool& pool, const http_metrics::snapshot& http,
                         std::size_t connections, const process_sample& process);

/// The managed certificates' families for GET /metrics: spindle_tls_certificate_expiry_seconds
/// (Unix time of notAfter) and spindle_tls_certificate_fallback (1 while the self-signed
/// stand-in is served), one sample per site labelled with its first name. Empty when
/// `certificates` is null. Any thread.
std::string certificate_metrics_text(const acme::certificate_manager* certificates);

/// GET /threads: one JSON object per slot (index, group, state, counters, the running
/// request) and the totals, stamped with `now` (seconds since the Unix epoch) so a poller can
/// turn request counts into rates. Any thread.
std::string threads_json(const worker::pool& pool, bool draining, double now);

/// The thread N of a GET /threads/N/backtrace path: N in decimal, without sign or leading
/// zero; nullopt for any other path (or an N past any slot count).
std::optional<std::size_t> backtrace_thread(std::string_view path);

}  // namespace spindle::server
