#pragma once

#include <string_view>

namespace spindle::server {

/// Who completes a PHP response: the one question the PHP thread and the connection's I/O
/// thread must agree on. Changed only through transition(), under the exchange's mutex; read
/// without it (an atomic) on the PHP thread's hot path.
///
///   watched -> unwatched                   (I/O: the session stopped watching the socket)
///   watched | unwatched -> written         (PHP: wrote the whole response itself)
///   watched | unwatched -> relayed         (PHP: bytes went to the I/O thread)
///   watched | unwatched | relayed -> aborted   (I/O: the client left; PHP: out of memory)
///
/// written and aborted are final. Whoever moves the exchange to written completes the
/// response (metrics, access log, the end of its in-flight count) on the PHP thread; in every
/// other case the session does, on the I/O thread. A refused transition tells the caller the
/// other side got there first: abort() after written finds the response already complete, a
/// direct write after aborted owes nothing to anyone.
enum class exchange_state {
    watched,    ///< PHP runs; the session watches the socket and would see a direct write
    unwatched,  ///< PHP runs; the session no longer watches: a direct write posts a notice
    relayed,    ///< bytes were posted to the I/O thread; the session completes the response
    written,    ///< the PHP thread wrote the whole response itself and completed it
    aborted,    ///< the client is gone or the response failed: nothing more is sent
};

/// Lower-case name, for logs and test messages.
std::string_view to_string(exchange_state state) noexcept;

/// Moves `state` to `to` if the state machine above permits it; false (state unchanged)
/// otherwise. The caller holds the exchange's mutex.
[[nodiscard]] bool transition(exchange_state& state, exchange_state to) noexcept;

}  // namespace spindle::server
