#include "encode/content_coding.hpp"

#include <strings.h>

namespace spindle::encode {
namespace {

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::string_view to_string(content_coding coding) {
    switch (coding) {
        case content_coding::identity: return "identity";
        case content_coding::gzip: return "gzip";
        case content_coding::zstd: return "zstd";
        case content_coding::br: return "br";
    }
    return "identity";
}

std::optional<content_coding> coding_from_token(std::string_view token) {
    if (iequals(token, "gzip") || iequals(token, "x-gzip")) {
        return content_coding::gzip;
    }
    if (iequals(token, "zstd")) {
        return content_coding::zstd;
    }
    if (iequals(token, "br")) {
        return content_coding::br;
    }
    if (iequals(token, "identity")) {
        return content_coding::identity;
    }
    return std::nullopt;
}

}  // namespace spindle::encode
