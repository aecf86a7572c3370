#pragma once

#include <string>
#include <vector>

#include "acme/file_storage.hpp"
#include "acme/private_key.hpp"
#include "acme/x509_tools.hpp"

namespace spindle::acme {

/// The certification authority of `tls internal` (Caddy's "local" CA): a self-signed root
/// made once and kept in storage (pki/authorities/local/root.crt and root.key), which signs
/// short-lived leaf certificates. Trusting root.crt on a client trusts every site using it.
/// Used by the control thread at start-up and by the ACME thread for renewals, never at once.
class local_ca {
  public:
    /// Loads the root from storage, or makes and stores one. Throws std::runtime_error naming
    /// the file when a stored root or key cannot be used.
    explicit local_ca(const file_storage& storage);

    /// A new leaf certificate and key for `names`, valid for leaf_lifetime; the PEM
    /// certificate is followed by the root, as a chain.
    pem_pair issue(const std::vector<std::string>& names) const;

    /// How long a leaf is valid (renewed a third of it before the end).
    static constexpr std::chrono::hours leaf_lifetime{24 * 7};

  private:
    std::string root_pem_;
    private_key root_key_;
};

}  // namespace spindle::acme
