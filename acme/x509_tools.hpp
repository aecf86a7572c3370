#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "acme/private_key.hpp"

namespace spindle::acme {

/// A certificate and the key it goes with, both PEM; the certificate text may carry its chain
/// after it. What a TLS context is loaded from.
struct pem_pair {
    std::string certificate;
    std::string key;
};

/// What Spindle needs to know about a certificate it holds.
struct certificate_info {
    std::chrono::system_clock::time_point not_before;
    std::chrono::system_clock::time_point not_after;
    std::vector<std::string> names;  ///< subjectAltName DNS and IP entries
    std::string issuer;              ///< the issuer's distinguished name, one line
};

/// Reads the first certificate of a PEM chain. Throws std::runtime_error when there is none.
certificate_info inspect_certificate(std::string_view pem);

/// A DER PKCS#10 request for `names` (first one also the subject CN), signed by `key`.
std::string make_csr_der(const private_key& key, const std::vector<std::string>& names);

/// The CA that signs a certificate made here: its certificate (PEM) and key.
struct signing_ca {
    std::string certificate;
    const private_key& key;
};

/// What make_certificate() makes.
struct certificate_request {
    std::vector<std::string> names;  ///< SAN entries; IP literals become IP entries
    std::string common_name;         ///< subject CN; empty: the first name
    std::chrono::seconds lifetime{std::chrono::hours(24 * 7)};
    bool is_ca = false;
    /// RFC 8737 id-pe-acmeIdentifier: SHA-256 of the key authorization; empty: none.
    std::string acme_identifier;
};

/// A certificate for `subject_key`, X.509 v3, signed by `ca` or, without one, self-signed.
/// Valid from an hour ago (clock skew) for request.lifetime. PEM.
std::string make_certificate(const certificate_request& request, const private_key& subject_key,
                             const signing_ca* ca);

}  // namespace spindle::acme
