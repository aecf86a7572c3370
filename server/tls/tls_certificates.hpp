#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <functional>

#include <boost/asio/ssl/context.hpp>

#include "acme/x509_tools.hpp"
#include "config/server_config.hpp"

namespace spindle::acme {
class challenge_store;
}

namespace spindle::server {

/// One site's certificate as configured, and the host names it is for.
struct tls_site_certificate {
    std::vector<std::string> hosts;  ///< lower case, "*.domain" allowed; empty: any host
    config::tls_config files;
    /// A managed certificate (ACME or the local CA): the PEM pair current now, read at every
    /// build of the set; null: `files` are read instead.
    std::function<acme::pem_pair()> managed;
};

/// The SSL contexts of one TLS listener: one per site certificate, all configured alike
/// (TLS 1.2 and 1.3, ECDHE + AEAD suites for 1.2, OpenSSL's 1.3 suites). During a handshake the
/// ClientHello's server name (SNI) picks a context the way site_selector picks a site: exact
/// host, then "*.domain", then the site answering any host, then the first certificate.
/// Immutable once built; shared by the connections that started with it (reload builds a new
/// one). Contexts are used by any I/O thread at once, which OpenSSL allows.
class tls_certificates {
  public:
    /// Reads every certificate and key. Throws config_error at the `tls` setting of a file that
    /// cannot be read or does not match its key (control thread, or the reload's strand).
    /// `protocols` says what ALPN may choose (h2, http/1.1). `challenges`, when not null,
    /// answers TLS-ALPN-01 handshakes (ALPN acme-tls/1).
    tls_certificates(const std::vector<tls_site_certificate>& sites,
                     config::http_protocols protocols,
                     const acme::challenge_store* challenges = nullptr);
    ~tls_certificates();
    tls_certificates(const tls_certificates&) = delete;
    tls_certificates& operator=(const tls_certificates&) = delete;

    /// The context a connection starts its handshake with.
    boost::asio::ssl::context& default_context() const noexcept;

  private:
    struct entry {
        std::vector<std::string> hosts;
        std::unique_ptr<boost::asio::ssl::context> context;
    };

    /// OpenSSL's servername callback (I/O thread, inside the handshake).
    static int on_server_name(SSL* ssl, int* alert, void* self) noexcept;
    /// OpenSSL's ClientHello callback, before the servername one: a hello offering
    /// acme-tls/1 for a name with a pending TLS-ALPN-01 challenge gets the challenge
    /// certificate (RFC 8737) instead of the site's (I/O thread).
    static int on_client_hello(SSL* ssl, int* alert, void* self) noexcept;
    /// OpenSSL's ALPN callback: acme-tls/1 for a challenge handshake, else h2 when the client
    /// offers it and the listener speaks it, else http/1.1 (I/O thread).
    static int on_alpn(SSL* ssl, const unsigned char** out, unsigned char* out_length,
                       const unsigned char* in, unsigned int in_length, void* self) noexcept;
    const entry& select(std::string_view host) const noexcept;

    std::vector<entry> entries_;
    std::size_t default_index_ = 0;
    /// ALPN's choices in the server's order of preference, length-prefixed as on the wire.
    std::string alpn_protocols_;
    const acme::challenge_store* challenges_;
};

/// What a TLS listener hands to each new connection: the current tls_certificates, replaced as
/// a whole by reload(). Connections keep the set they started with, so a reload never touches
/// a handshake or a connection in progress.
class tls_certificate_store {
  public:
    /// Loads the certificates now; throws config_error like tls_certificates.
    tls_certificate_store(std::vector<tls_site_certificate> sites, config::http_protocols protocols,
                          const acme::challenge_store* challenges = nullptr);

    /// The set new connections use (any thread).
    std::shared_ptr<const tls_certificates> current() const;

    /// Reads every file again. On success new handshakes use the new set and nullopt is
    /// returned; on failure the old set stays and the reason is returned (control strand).
    std::optional<std::string> reload();

    /// Takes `fresh`'s sites and certificates (a configuration reload that keeps this address:
    /// its listener and socket stay, new handshakes use the new certificates). Reload thread.
    void replace_with(const tls_certificate_store& fresh);

  private:
    std::vector<tls_site_certificate> sites_;  ///< mutex_
    config::http_protocols protocols_;         ///< mutex_
    const acme::challenge_store* challenges_;
    mutable std::mutex mutex_;
    std::shared_ptr<const tls_certificates> current_;  ///< mutex_
};

}  // namespace spindle::server
