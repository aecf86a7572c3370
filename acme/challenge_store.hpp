#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <openssl/x509.h>

#include "acme/private_key.hpp"

namespace spindle::acme {

/// The certificate a TLS-ALPN-01 challenge is answered with (RFC 8737): self-signed, for the
/// one name, carrying the acmeIdentifier extension.
struct alpn_certificate {
    std::shared_ptr<X509> certificate;
    private_key key;
};

/// The challenges being validated now, published by the ACME thread and read by the I/O
/// threads: HTTP-01 answers by token (GET /.well-known/acme-challenge/TOKEN on plain HTTP) and
/// TLS-ALPN-01 certificates by server name (a handshake offering acme-tls/1). A mutex: a few
/// entries live for seconds, lookups happen only on those two paths.
class challenge_store {
  public:
    /// The path prefix HTTP-01 requests use (RFC 8555 section 8.3).
    static constexpr std::string_view http_prefix = "/.well-known/acme-challenge/";

    void put_http(const std::string& token, const std::string& key_authorization);
    void remove_http(const std::string& token);
    /// The key authorization for a token; nullopt when no challenge has it (I/O thread).
    std::optional<std::string> http_answer(std::string_view token) const;

    void put_tls_alpn(const std::string& name, std::shared_ptr<const alpn_certificate> cert);
    void remove_tls_alpn(const std::string& name);
    /// The challenge certificate for a server name (lower case); null when none (I/O thread,
    /// inside a handshake).
    std::shared_ptr<const alpn_certificate> tls_alpn(std::string_view name) const;

  private:
    mutable std::mutex mutex_;
    std::map<std::string, std::string, std::less<>> http_;                              ///< mutex_
    std::map<std::string, std::shared_ptr<const alpn_certificate>, std::less<>> alpn_;  ///< mutex_
};

}  // namespace spindle::acme
