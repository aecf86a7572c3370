#include "encode/encode_policy.hpp"

#include "encode/accept_encoding.hpp"
#include "encode/compressible_types.hpp"

namespace spindle::encode {
namespace {

// Whether a Cache-Control value holds the no-transform directive (RFC 9111 5.2.2.6).
bool has_no_transform(std::string_view cache_control) {
    constexpr std::string_view directive = "no-transform";
    for (std::size_t at = 0; at + directive.size() <= cache_control.size(); ++at) {
        bool same = true;
        for (std::size_t i = 0; i < directive.size() && same; ++i) {
            const char c = cache_control[at + i];
            same = (c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) == directive[i];
        }
        if (same) {
            return true;
        }
    }
    return false;
}

}  // namespace

encode_policy::encode_policy(const config::encode_config& config)
    : minimum_length_(config.minimum_length), types_(config.types) {
    for (const config::encode_format& format : config.formats) {
        const std::optional<content_coding> coding = coding_from_token(format.name);
        if (coding && *coding != content_coding::identity) {
            offered_.push_back(*coding);
            levels_[static_cast<int>(*coding)] = format.level;
        }
    }
}

bool encode_policy::is_negotiable(const response_facts& response) const {
    const int status = response.status;
    if (status < 200 || status == 204 || status == 304 || status == 206 ||
        response.has_content_range) {
        return false;
    }
    // An application that compressed its output itself (ob_gzhandler,
    // zlib.output_compression) sets Content-Encoding; "identity" means none.
    if (!response.content_encoding.empty() && response.content_encoding != "identity") {
        return false;
    }
    return !has_no_transform(response.cache_control) &&
           is_compressible_type(response.content_type, types_);
}

content_coding encode_policy::choose(std::string_view accept_encoding) const {
    return negotiate(accept_encoding, offered_);
}

int encode_policy::level(content_coding coding) const {
    return levels_[static_cast<int>(coding)];
}

std::string weak_etag(std::string_view etag) {
    if (etag.starts_with("W/") || !etag.starts_with('"')) {
        return std::string(etag);
    }
    return "W/" + std::string(etag);
}

}  // namespace spindle::encode
