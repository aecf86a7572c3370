#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/server_config.hpp"
#include "encode/content_coding.hpp"

namespace spindle::encode {

/// The facts about a response that decide whether it may be compressed.
struct response_facts {
    int status = 200;
    std::string_view content_type;
    std::string_view content_encoding;  ///< as set by the application; "" when none
    std::string_view cache_control;
    bool has_content_range = false;  ///< a partial (206) or Content-Range response
};

/// A site's `encode` settings in the form the hot path reads them. Built by the control thread
/// from config::encode_config before the first accept, then read-only (any thread).
class encode_policy {
  public:
    explicit encode_policy(const config::encode_config& config);

    /// Whether the response could be compressed for some client: a status with a body (not
    /// 1xx, 204, 304), not partial, not encoded already, no Cache-Control: no-transform, and a
    /// compressible Content-Type. When true, the response carries Vary: Accept-Encoding
    /// whatever the coding chosen, so caches keep the variants apart.
    bool is_negotiable(const response_facts& response) const;

    /// The coding for a client's Accept-Encoding (all its field lines joined with ", ").
    content_coding choose(std::string_view accept_encoding) const;

    /// The level configured for `coding` (0: its default).
    int level(content_coding coding) const;

    /// Bodies known to be shorter stay uncompressed.
    std::size_t minimum_length() const { return minimum_length_; }

  private:
    std::vector<content_coding> offered_;  ///< server preference order
    int levels_[4] = {0, 0, 0, 0};         ///< by content_coding
    std::size_t minimum_length_;
    std::vector<std::string> types_;
};

/// The weak form of an entity tag ("\"x\"" -> "W/\"x\""); a compressed representation is no
/// longer byte-identical to what a strong tag promised (RFC 9110 8.8.3.3), as nginx does.
std::string weak_etag(std::string_view etag);

}  // namespace spindle::encode
