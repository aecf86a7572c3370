#include "server/tls_certificates.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <utility>

#include <boost/beast/core/string.hpp>

#include "config/config_error.hpp"
#include "config/json_config.hpp"
#include "server/site_selector.hpp"

namespace spindle::server {

namespace net = boost::asio;

namespace {

// Mozilla's "intermediate" TLS 1.2 suites: forward secrecy and AEAD only. TLS 1.3 keeps
// OpenSSL's default suites (AES-GCM and ChaCha20-Poly1305), which are that list already.
constexpr const char* tls12_ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// The reason of the last OpenSSL error, with the queue cleared for the next caller.
std::string openssl_reason() {
    const unsigned long code = ERR_peek_last_error();
    ERR_clear_error();
    if (code == 0) {
        return "unknown OpenSSL error";
    }
    const char* reason = ERR_reason_error_string(code);
    return reason != nullptr ? reason : "OpenSSL error " + std::to_string(code);
}

// OpenSSL would otherwise ask for the passphrase of an encrypted key on the terminal.
int refuse_passphrase(char*, int, int, void*) {
    return -1;
}

std::unique_ptr<net::ssl::context> make_context(const config::tls_config& files) {
    auto context = std::make_unique<net::ssl::context>(net::ssl::context::tls_server);
    SSL_CTX* native = context->native_handle();
    const auto fail = [&](const std::string& what) {
        return config::located_error(files.origin, what + ": " + openssl_reason());
    };
    SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
    // No compression (CRIME), no renegotiation (a client-driven CPU sink), and the server's
    // order of the (all strong) suites.
    SSL_CTX_set_options(
        native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    // Idle keep-alive connections give their read/write buffers back (about 34 KB each), as
    // nginx does.
    SSL_CTX_set_mode(native, SSL_MODE_RELEASE_BUFFERS);
    if (SSL_CTX_set_cipher_list(native, tls12_ciphers) != 1) {
        throw fail("cannot set the TLS 1.2 cipher list");
    }
    SSL_CTX_set_default_passwd_cb(native, refuse_passphrase);
    // The key first: loaded after it, a certificate that does not match replaces it quietly,
    // and the check below can then say what is wrong.
    if (SSL_CTX_use_PrivateKey_file(native, files.key.c_str(), SSL_FILETYPE_PEM) != 1) {
        throw fail("cannot use private key " + files.key +
                   " (a PEM key without passphrase is needed)");
    }
    if (SSL_CTX_use_certificate_chain_file(native, files.certificate.c_str()) != 1) {
        throw fail("cannot use certificate " + files.certificate);
    }
    if (SSL_CTX_check_private_key(native) != 1) {
        // OpenSSL's reason ("no private key assigned": it dropped the mismatched key) would
        // only confuse.
        ERR_clear_error();
        throw config::located_error(
            files.origin,
            "private key " + files.key + " does not match certificate " + files.certificate);
    }
    return context;
}

}  // namespace

tls_certificates::tls_certificates(const std::vector<tls_site_certificate>& sites) {
    for (const tls_site_certificate& site : sites) {
        entries_.push_back({site.hosts, make_context(site.files)});
        // The servername callback runs on the context the connection started with; it is set
        // on every context so that any of them can be that one.
        SSL_CTX* native = entries_.back().context->native_handle();
        SSL_CTX_set_tlsext_servername_callback(native, &tls_certificates::on_server_name);
        SSL_CTX_set_tlsext_servername_arg(native, this);
    }
    // Without SNI (or an unknown name): the site answering any host, else the first site.
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        if (entries_[i].hosts.empty()) {
            default_index_ = i;
            break;
        }
    }
}

tls_certificates::~tls_certificates() = default;

net::ssl::context& tls_certificates::default_context() const noexcept {
    return *entries_[default_index_].context;
}

const tls_certificates::entry& tls_certificates::select(std::string_view host) const noexcept {
    const entry* wildcard = nullptr;
    for (const entry& e : entries_) {
        for (const std::string& name : e.hosts) {
            if (boost::beast::iequals(name, host)) {
                return e;
            }
            if (wildcard == nullptr && wildcard_matches(name, host)) {
                wildcard = &e;
            }
        }
    }
    return wildcard != nullptr ? *wildcard : entries_[default_index_];
}

int tls_certificates::on_server_name(SSL* ssl, int*, void* self) noexcept {
    const char* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    if (name == nullptr) {
        return SSL_TLSEXT_ERR_OK;
    }
    const entry& chosen = static_cast<const tls_certificates*>(self)->select(name);
    SSL_CTX* context = chosen.context->native_handle();
    if (SSL_get_SSL_CTX(ssl) != context) {
        SSL_set_SSL_CTX(ssl, context);
    }
    return SSL_TLSEXT_ERR_OK;
}

tls_certificate_store::tls_certificate_store(std::vector<tls_site_certificate> sites)
    : sites_(std::move(sites)), current_(std::make_shared<const tls_certificates>(sites_)) {}

std::shared_ptr<const tls_certificates> tls_certificate_store::current() const {
    const std::lock_guard lock(mutex_);
    return current_;
}

std::optional<std::string> tls_certificate_store::reload() {
    std::vector<tls_site_certificate> sites;
    {
        const std::lock_guard lock(mutex_);
        sites = sites_;
    }
    std::shared_ptr<const tls_certificates> fresh;
    try {
        fresh = std::make_shared<const tls_certificates>(sites);
    } catch (const config::config_error& e) {
        return e.what();
    }
    const std::lock_guard lock(mutex_);
    current_ = std::move(fresh);
    return std::nullopt;
}

void tls_certificate_store::replace_with(const tls_certificate_store& fresh) {
    std::vector<tls_site_certificate> sites;
    std::shared_ptr<const tls_certificates> certificates;
    {
        const std::lock_guard lock(fresh.mutex_);
        sites = fresh.sites_;
        certificates = fresh.current_;
    }
    const std::lock_guard lock(mutex_);
    sites_ = std::move(sites);
    current_ = std::move(certificates);
}

}  // namespace spindle::server
