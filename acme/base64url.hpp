#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace spindle::acme {

/// RFC 4648 section 5 ("base64url") without padding, as JWS (RFC 7515) and ACME use it.
std::string base64url_encode(std::string_view bytes);

/// The bytes of `text`; nullopt when a character is outside the alphabet or the length cannot
/// be unpadded base64url.
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace spindle::acme
