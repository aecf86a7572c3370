#pragma once

#include <optional>
#include <string_view>

namespace spindle::acme {

/// Where the client is in one certificate order (RFC 8555 section 7.1.6, seen from the
/// client). Changed only through transition().
enum class order_phase {
    authorizing,  ///< the CA waits for the authorizations: solve their challenges
    finalizing,   ///< all authorized ("ready"): send the CSR to `finalize`
    processing,   ///< CSR accepted, the CA is issuing: poll the order
    downloading,  ///< "valid": fetch the certificate URL
    done,         ///< the chain is in hand
    failed,       ///< the CA marked the order invalid, or answered out of turn
};

/// What the client learnt: the order status the CA reported, or that the download finished.
enum class order_event { pending, ready, processing, valid, invalid, downloaded };

const char* to_string(order_phase phase) noexcept;
const char* to_string(order_event event) noexcept;

/// The order status text ("pending", "ready", ...) as an event; nullopt for an unknown one.
std::optional<order_event> order_event_from_status(std::string_view status) noexcept;

/// The phase after `event` in `from`: the one table of allowed steps. An event the phase does
/// not expect (a "pending" order after the CSR was sent, anything after done) leads to
/// `failed`, so a confused CA ends the order instead of looping.
[[nodiscard]] order_phase transition(order_phase from, order_event event) noexcept;

}  // namespace spindle::acme
