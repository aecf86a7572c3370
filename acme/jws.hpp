#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "acme/private_key.hpp"

namespace spindle::acme {

/// Who signs an ACME request (RFC 8555 section 6.2): a new account shows its public key (jwk),
/// every later request names the account URL (kid).
struct jws_signer {
    const private_key& key;
    std::string kid;  ///< the account URL; empty: the header carries the jwk instead
};

/// The flattened JWS JSON (RFC 7515 section 7.2.2) that is the body of an ACME POST:
/// {"protected","payload","signature"}, ES256, with `nonce` and `url` in the protected header.
/// An empty `payload` is POST-as-GET (RFC 8555 section 6.3).
std::string sign_jws(const jws_signer& signer, std::string_view nonce, std::string_view url,
                     std::string_view payload);

}  // namespace spindle::acme
