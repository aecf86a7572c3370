// libFuzzer target: arbitrary connection starts through the PROXY protocol header parser
// (server/http/proxy_header.cpp), fed whole and then in pieces whose sizes come from the input.
// Both feeds must end in the same state with the same header; a done header is never longer
// than the input nor than the protocol allows, not_proxy takes no byte, and nothing crashes
// or trips a sanitizer. Run it with scripts/fuzz.sh.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "server/http/proxy_header.hpp"

namespace {

using namespace spindle::server;

void check(bool holds, const char* what) {
    if (!holds) {
        std::fprintf(stderr, "proxy_header_fuzz: invariant broken: %s\n", what);
        std::abort();
    }
}

bool same_endpoint(const std::optional<proxy_endpoint>& a, const std::optional<proxy_endpoint>& b) {
    return a.has_value() == b.has_value() &&
           (!a || (a->address == b->address && a->port == b->port));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);

    proxy_header_parser whole;
    const std::size_t used = whole.feed(input);
    check(used <= input.size(), "used more than given");
    check(whole.is_final() || used == input.size(), "stopped early without a final state");
    if (whole.state() == proxy_header_state::not_proxy) {
        check(used == 0 && whole.header_size() == 0, "not_proxy took bytes");
    }
    if (whole.state() == proxy_header_state::done) {
        check(whole.header_size() == used, "header size is not what was used");
        check(whole.header_size() <= 16 + proxy_header_parser::max_v2_payload, "header too long");
        check(
            whole.header().version != 1 || whole.header_size() <= proxy_header_parser::max_v1_size,
            "v1 line too long");
    }
    if (whole.state() == proxy_header_state::invalid) {
        check(!whole.error().empty(), "invalid without a reason");
    }

    // The same bytes in pieces of 1 to 16 bytes, sizes taken from the input itself.
    proxy_header_parser pieces;
    std::size_t offset = 0;
    std::size_t taken = 0;
    for (std::size_t i = 0; offset < input.size() && !pieces.is_final(); ++i) {
        const std::size_t length =
            std::min<std::size_t>(input.size() - offset, 1 + (data[i % size] & 0x0f));
        taken += pieces.feed(input.substr(offset, length));
        offset += length;
    }
    check(pieces.state() == whole.state(), "piecewise feed ends in another state");
    if (whole.state() == proxy_header_state::done) {
        check(taken == used && pieces.header_size() == whole.header_size(),
              "piecewise feed took another length");
        check(same_endpoint(pieces.header().source, whole.header().source) &&
                  same_endpoint(pieces.header().destination, whole.header().destination),
              "piecewise feed read other addresses");
    }
    return 0;
}
