#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <openssl/evp.h>

namespace spindle::acme {

/// An ECDSA P-256 key: the ACME account key (signs JWS with ES256) and the key of every
/// certificate Spindle asks for or makes (Caddy's default key type too). Immutable; any thread.
class private_key {
  public:
    /// A fresh key from OpenSSL's random generator.
    static private_key generate();
    /// Reads a PEM private key (PKCS#8 or SEC1). Throws std::runtime_error saying why when the
    /// text is no key, is encrypted, or is not a P-256 EC key.
    static private_key from_pem(std::string_view pem);

    /// PKCS#8 PEM, unencrypted.
    std::string to_pem() const;
    /// The public key as a JWK (RFC 7517): {"crv","kty","x","y"}, members in RFC 7638's order.
    nlohmann::json jwk() const;
    /// RFC 7638 thumbprint: base64url(SHA-256 of the JWK's canonical JSON).
    std::string thumbprint() const;
    /// ES256 signature of `data` (RFC 7518 section 3.4): r and s, 32 bytes each, big endian.
    std::string sign_es256(std::string_view data) const;

    EVP_PKEY* native() const noexcept { return key_.get(); }

  private:
    explicit private_key(EVP_PKEY* key) : key_(key, &EVP_PKEY_free) {}
    std::shared_ptr<EVP_PKEY> key_;
};

/// SHA-256 of `bytes`, raw (32 bytes).
std::string sha256(std::string_view bytes);

/// The reason of OpenSSL's last error, with its error queue cleared.
std::string openssl_error();

}  // namespace spindle::acme
