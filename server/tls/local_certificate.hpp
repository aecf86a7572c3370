#pragma once

#include <string>
#include <vector>

namespace spindle::server {

/// What write_local_certificate() wrote.
struct local_certificate_files {
    std::string ca_certificate;  ///< ca.crt: what clients trust
    std::string certificate;     ///< cert.pem: the server certificate (then the CA's)
    std::string key;             ///< key.pem: its private key, mode 0600
};

/// Makes a certificate for local development, only when asked (`spindle cert`): a new
/// certification authority (ECDSA P-256), a server certificate it signs for `hosts` (names
/// become DNS subjectAltNames, IP addresses IP ones), valid 398 days. The CA's private key is
/// never written, so that CA can sign nothing else: a client that trusts ca.crt trusts this one
/// certificate. Creates `dir` (mode 0700) if needed and never overwrites a file. Throws
/// std::runtime_error naming the file or the OpenSSL step that failed. Control thread.
local_certificate_files write_local_certificate(const std::string& dir,
                                                const std::vector<std::string>& hosts);

}  // namespace spindle::server
