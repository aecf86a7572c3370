#include "acme/jws.hpp"

#include "acme/base64url.hpp"

namespace spindle::acme {

std::string sign_jws(const jws_signer& signer, std::string_view nonce, std::string_view url,
                     std::string_view payload) {
    nlohmann::json header = {{"alg", "ES256"}, {"nonce", nonce}, {"url", url}};
    if (signer.kid.empty()) {
        header["jwk"] = signer.key.jwk();
    } else {
        header["kid"] = signer.kid;
    }
    const std::string protected_part = base64url_encode(header.dump());
    const std::string payload_part = base64url_encode(payload);
    const std::string signature =
        base64url_encode(signer.key.sign_es256(protected_part + "." + payload_part));
    return nlohmann::json{
        {"protected", protected_part}, {"payload", payload_part}, {"signature", signature}}
        .dump();
}

}  // namespace spindle::acme
