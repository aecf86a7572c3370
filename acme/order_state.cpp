#include "acme/order_state.hpp"

namespace spindle::acme {

const char* to_string(order_phase phase) noexcept {
    switch (phase) {
        case order_phase::authorizing: return "authorizing";
        case order_phase::finalizing: return "finalizing";
        case order_phase::processing: return "processing";
        case order_phase::downloading: return "downloading";
        case order_phase::done: return "done";
        case order_phase::failed: return "failed";
    }
    return "unknown";
}

const char* to_string(order_event event) noexcept {
    switch (event) {
        case order_event::pending: return "pending";
        case order_event::ready: return "ready";
        case order_event::processing: return "processing";
        case order_event::valid: return "valid";
        case order_event::invalid: return "invalid";
        case order_event::downloaded: return "downloaded";
    }
    return "unknown";
}

std::optional<order_event> order_event_from_status(std::string_view status) noexcept {
    for (order_event e : {order_event::pending, order_event::ready, order_event::processing,
                          order_event::valid, order_event::invalid}) {
        if (status == to_string(e)) {
            return e;
        }
    }
    return std::nullopt;
}

order_phase transition(order_phase from, order_event event) noexcept {
    if (event == order_event::invalid) {
        return order_phase::failed;
    }
    switch (from) {
        case order_phase::authorizing:
            switch (event) {
                case order_event::pending: return order_phase::authorizing;
                case order_event::ready: return order_phase::finalizing;
                case order_event::processing: return order_phase::processing;
                case order_event::valid: return order_phase::downloading;
                default: return order_phase::failed;
            }
        case order_phase::finalizing:
            // The finalize answer: usually "processing", "valid" when the CA issues at once,
            // "ready" when it has not begun yet.
            switch (event) {
                case order_event::ready: return order_phase::processing;
                case order_event::processing: return order_phase::processing;
                case order_event::valid: return order_phase::downloading;
                default: return order_phase::failed;
            }
        case order_phase::processing:
            switch (event) {
                case order_event::ready:
                case order_event::processing: return order_phase::processing;
                case order_event::valid: return order_phase::downloading;
                default: return order_phase::failed;
            }
        case order_phase::downloading:
            return event == order_event::downloaded ? order_phase::done : order_phase::failed;
        case order_phase::done:
        case order_phase::failed: return order_phase::failed;
    }
    return order_phase::failed;
}

}  // namespace spindle::acme
