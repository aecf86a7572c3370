#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace spindle::acme {

/// Caddy's file_system storage: the data directory that keeps account keys, certificates and
/// the local CA, with Caddy's (certmagic's) layout, so a directory can move between the two:
///
///   certificates/<issuer>/<name>/<name>.crt|.key|.json   a certificate, its key, metadata
///   acme/<issuer>/users/<email>/<user>.key|.json         an ACME account key and its URL
///   pki/authorities/local/root.crt|.key                  the `tls internal` CA
///
/// <issuer> is the CA's directory URL without its scheme, '/' and ':' made '-'
/// ("acme-v02.api.letsencrypt.org-directory"), or "local". Written by the ACME thread, read
/// by the control thread at start-up; writes go to a temporary file renamed into place, so a
/// reader never sees half a certificate. Directories are made 0700, secrets 0600.
class file_storage {
  public:
    explicit file_storage(std::string root);

    const std::string& root() const noexcept { return root_; }

    /// The file's content; nullopt when it does not exist. Throws std::runtime_error when it
    /// exists but cannot be read.
    std::optional<std::string> read(const std::string& key) const;
    /// Writes the file whole, making its directories. Throws std::runtime_error saying why.
    void write(const std::string& key, std::string_view data, bool is_secret) const;
    /// The file's full path.
    std::string path(const std::string& key) const;

  private:
    std::string root_;
};

/// The default root: $XDG_DATA_HOME/spindle, else $HOME/.local/share/spindle, else
/// ./spindle-data (as Caddy's default, with its name).
std::string default_storage_root();

/// <issuer> of the layout for an ACME directory URL.
std::string issuer_key(std::string_view directory_url);

/// The storage key of a certificate file: certificates/<issuer>/<name>/<name>.<extension>;
/// a wildcard's '*' is written "wildcard_" as certmagic does.
std::string certificate_key(std::string_view issuer, std::string_view name,
                            std::string_view extension);

/// The storage key of an account file: acme/<issuer>/users/<email>/<user>.<extension>, where
/// an empty email is "default" and <user> is the part before '@'.
std::string account_key(std::string_view issuer, std::string_view email,
                        std::string_view extension);

}  // namespace spindle::acme
