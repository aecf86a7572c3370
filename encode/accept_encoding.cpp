#include "encode/accept_encoding.hpp"

#include <algorithm>
#include <optional>

namespace spindle::encode {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), in thousandths; nullopt when
// malformed.
std::optional<int> parse_qvalue(std::string_view text) {
    if (text.empty() || (text[0] != '0' && text[0] != '1')) {
        return std::nullopt;
    }
    int value = (text[0] - '0') * 1000;
    if (text.size() == 1) {
        return value;
    }
    if (text[1] != '.' || text.size() > 5) {
        return std::nullopt;
    }
    int scale = 100;
    for (char c : text.substr(2)) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        value += (c - '0') * scale;
        scale /= 10;
    }
    return value <= 1000 ? std::optional(value) : std::nullopt;
}

// One entry: "gzip", "br;q=0.8", "*;q=0". Its q is 1000 unless a "q" parameter says otherwise;
// nullopt when the q parameter is malformed (the entry is then ignored).
struct entry {
    std::string_view token;
    int q = 1000;
};

std::optional<entry> parse_entry(std::string_view text) {
    entry e;
    const std::size_t semicolon = text.find(';');
    e.token = trim(text.substr(0, semicolon));
    if (e.token.empty()) {
        return std::nullopt;
    }
    for (std::size_t at = semicolon; at != std::string_view::npos;) {
        const std::size_t next = text.find(';', at + 1);
        const std::string_view param = trim(text.substr(at + 1, next - at - 1));
        at = next;
        const std::size_t equals = param.find('=');
        const std::string_view name = trim(param.substr(0, equals));
        if (name != "q" && name != "Q") {
            continue;
        }
        if (equals == std::string_view::npos) {
            return std::nullopt;
        }
        const std::optional<int> q = parse_qvalue(trim(param.substr(equals + 1)));
        if (!q) {
            return std::nullopt;
        }
        e.q = *q;
    }
    return e;
}

}  // namespace

content_coding negotiate(std::string_view accept_encoding,
                         std::span<const content_coding> offered) {
    // q-values in thousandths; -1: not mentioned.
    int star = -1;
    int identity = -1;
    int explicit_q[4] = {-1, -1, -1, -1};
    while (!accept_encoding.empty()) {
        const std::size_t comma = accept_encoding.find(',');
        const std::optional<entry> e = parse_entry(accept_encoding.substr(0, comma));
        accept_encoding.remove_prefix(comma == std::string_view::npos ? accept_encoding.size()
                                                                      : comma + 1);
        if (!e) {
            continue;
        }
        if (e->token == "*") {
            star = e->q;
        } else if (const std::optional<content_coding> coding = coding_from_token(e->token)) {
            int& slot = *coding == content_coding::identity ? identity
                                                            : explicit_q[static_cast<int>(*coding)];
            // A coding listed twice: the better rating counts.
            slot = std::max(slot, e->q);
        }
    }
    content_coding best = content_coding::identity;
    int best_q = 0;
    for (const content_coding coding : offered) {
        const int listed = explicit_q[static_cast<int>(coding)];
        const int q = listed >= 0 ? listed : std::max(star, 0);
        if (q > best_q) {
            best = coding;
            best_q = q;
        }
    }
    // Identity only wins when the client rates it, itself or through "*", above every offered
    // coding ("gzip;q=0.5, identity"); unrated, it is the fallback.
    const int identity_q = identity >= 0 ? identity : std::max(star, 0);
    return best_q > 0 && best_q >= identity_q ? best : content_coding::identity;
}

}  // namespace spindle::encode
