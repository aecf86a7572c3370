#include "server/tls/tls_certificates.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cctype>
#include <utility>

#include <boost/beast/core/string.hpp>

#include "acme/challenge_store.hpp"
#include "acme/private_key.hpp"
#include "config/config_error.hpp"
#include "config/json_config.hpp"
#include "server/routing/site_selector.hpp"

namespace spindle::server {

namespace net = boost::asio;

namespace {

// Mozilla's "intermediate" TLS 1.2 suites: forward secrecy and AEAD only. TLS 1.3 keeps
// OpenSSL's default suites (AES-GCM and ChaCha20-Poly1305), which are that list already.
constexpr const char* tls12_ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// OpenSSL would otherwise ask for the passphrase of an encrypted key on the terminal.
int refuse_passphrase(char*, int, int, void*) {
    return -1;
}

// RFC 8737's protocol name, as it appears in an ALPN list (length-prefixed).
constexpr unsigned char acme_tls_protocol[] = {10,  'a', 'c', 'm', 'e', '-',
                                               't', 'l', 's', '/', '1'};

// Marks the SSL of a TLS-ALPN-01 handshake, so that the servername callback leaves its
// certificate alone and the ALPN callback agrees to acme-tls/1.
int challenge_index() {
    static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
    return index;
}

// The host name of a ClientHello's server_name extension (RFC 6066 section 3), lower case;
// empty when there is none.
std::string hello_server_name(SSL* ssl) {
    const unsigned char* data = nullptr;
    std::size_t length = 0;
    if (SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_server_name, &data, &length) != 1 ||
        length < 5) {
        return {};
    }
    // list length (2), name type (1, host_name = 0), name length (2), name.
    const std::size_t name_length = (std::size_t{data[3]} << 8) | data[4];
    if (data[2] != TLSEXT_NAMETYPE_host_name || 5 + name_length > length) {
        return {};
    }
    std::string name(reinterpret_cast<const char*>(data + 5), name_length);
    for (char& c : name) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return name;
}

bool offers_acme_tls(SSL* ssl) {
    const unsigned char* data = nullptr;
    std::size_t length = 0;
    if (SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_application_layer_protocol_negotiation, &data,
                                  &length) != 1 ||
        length < 2) {
        return false;
    }
    const std::string_view list(reinterpret_cast<const char*>(data + 2), length - 2);
    return list.find(std::string_view(reinterpret_cast<const char*>(acme_tls_protocol),
                                      sizeof acme_tls_protocol)) != std::string_view::npos;
}

// A managed certificate's PEM pair into the context: the leaf, then its chain.
void use_pem_pair(SSL_CTX* native, const acme::pem_pair& pair, const config::tls_config& files) {
    const auto fail = [&](const std::string& what) {
        return config::located_error(files.origin, what + ": " + acme::openssl_error());
    };
    BIO* key_bio = BIO_new_mem_buf(pair.key.data(), static_cast<int>(pair.key.size()));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio, nullptr, refuse_passphrase, nullptr);
    BIO_free(key_bio);
    if (key == nullptr || SSL_CTX_use_PrivateKey(native, key) != 1) {
        EVP_PKEY_free(key);
        throw fail("cannot use the managed certificate's key");
    }
    EVP_PKEY_free(key);
    BIO* bio = BIO_new_mem_buf(pair.certificate.data(), static_cast<int>(pair.certificate.size()));
    X509* leaf = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    const bool ok = leaf != nullptr && SSL_CTX_use_certificate(native, leaf) == 1;
    X509_free(leaf);
    while (ok) {
        X509* intermediate = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
        if (intermediate == nullptr) {
            ERR_clear_error();  // the end of the chain
            break;
        }
        // add0: the context takes the reference.
        SSL_CTX_add0_chain_cert(native, intermediate);
    }
    BIO_free(bio);
    if (!ok || SSL_CTX_check_private_key(native) != 1) {
        throw fail("cannot use the managed certificate");
    }
}

std::unique_ptr<net::ssl::context> make_context(const tls_site_certificate& site) {
    const config::tls_config& files = site.files;
    auto context = std::make_unique<net::ssl::context>(net::ssl::context::tls_server);
    SSL_CTX* native = context->native_handle();
    const auto fail = [&](const std::string& what) {
        return config::located_error(files.origin, what + ": " + acme::openssl_error());
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
    if (site.managed) {
        use_pem_pair(native, site.managed(), files);
        return context;
    }
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

tls_certificates::tls_certificates(const std::vector<tls_site_certificate>& sites,
                                   config::http_protocols protocols,
                                   const acme::challenge_store* challenges)
    : challenges_(challenges) {
    // Preference is the server's (RFC 7301 3.2), as nginx and Go choose: h2 first.
    if (protocols.h2) {
        alpn_protocols_.append("\x02h2");
    }
    if (protocols.h1) {
        alpn_protocols_.append("\x08http/1.1");
    }
    for (const tls_site_certificate& site : sites) {
        entries_.push_back({site.hosts, make_context(site)});
        // The servername callback runs on the context the connection started with; it is set
        // on every context so that any of them can be that one.
        SSL_CTX* native = entries_.back().context->native_handle();
        SSL_CTX_set_tlsext_servername_callback(native, &tls_certificates::on_server_name);
        SSL_CTX_set_tlsext_servername_arg(native, this);
        if (challenges_ != nullptr) {
            SSL_CTX_set_client_hello_cb(native, &tls_certificates::on_client_hello, this);
        }
        SSL_CTX_set_alpn_select_cb(native, &tls_certificates::on_alpn, this);
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

int tls_certificates::on_client_hello(SSL* ssl, int*, void* self) noexcept {
    const auto* certificates = static_cast<const tls_certificates*>(self);
    if (!offers_acme_tls(ssl)) {
        return SSL_CLIENT_HELLO_SUCCESS;
    }
    const std::shared_ptr<const acme::alpn_certificate> challenge =
        certificates->challenges_->tls_alpn(hello_server_name(ssl));
    if (!challenge) {
        return SSL_CLIENT_HELLO_SUCCESS;
    }
    // The SSL holds its own references to the certificate and key from here on.
    if (SSL_use_cert_and_key(ssl, challenge->certificate.get(), challenge->key.native(), nullptr,
                             1) != 1) {
        ERR_clear_error();
        return SSL_CLIENT_HELLO_SUCCESS;
    }
    SSL_set_ex_data(ssl, challenge_index(), const_cast<tls_certificates*>(certificates));
    return SSL_CLIENT_HELLO_SUCCESS;
}

int tls_certificates::on_alpn(SSL* ssl, const unsigned char** out, unsigned char* out_length,
                              const unsigned char* in, unsigned int in_length,
                              void* self) noexcept {
    unsigned char* selected = nullptr;
    if (SSL_get_ex_data(ssl, challenge_index()) == nullptr) {
        // No common protocol: no ALPN answer, and the client speaks HTTP/1.1 as before ALPN.
        const std::string& ours = static_cast<const tls_certificates*>(self)->alpn_protocols_;
        if (SSL_select_next_proto(
                &selected, out_length, reinterpret_cast<const unsigned char*>(ours.data()),
                static_cast<unsigned int>(ours.size()), in, in_length) != OPENSSL_NPN_NEGOTIATED) {
            return SSL_TLSEXT_ERR_NOACK;
        }
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    if (SSL_select_next_proto(&selected, out_length, acme_tls_protocol, sizeof acme_tls_protocol,
                              in, in_length) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

int tls_certificates::on_server_name(SSL* ssl, int*, void* self) noexcept {
    if (SSL_get_ex_data(ssl, challenge_index()) != nullptr) {
        // A TLS-ALPN-01 handshake keeps the challenge certificate on_client_hello set.
        return SSL_TLSEXT_ERR_OK;
    }
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

tls_certificate_store::tls_certificate_store(std::vector<tls_site_certificate> sites,
                                             config::http_protocols protocols,
                                             const acme::challenge_store* challenges)
    : sites_(std::move(sites)),
      protocols_(protocols),
      challenges_(challenges),
      current_(std::make_shared<const tls_certificates>(sites_, protocols_, challenges_)) {}

std::shared_ptr<const tls_certificates> tls_certificate_store::current() const {
    const std::lock_guard lock(mutex_);
    return current_;
}

std::optional<std::string> tls_certificate_store::reload() {
    std::vector<tls_site_certificate> sites;
    config::http_protocols protocols;
    {
        const std::lock_guard lock(mutex_);
        sites = sites_;
        protocols = protocols_;
    }
    std::shared_ptr<const tls_certificates> fresh;
    try {
        fresh = std::make_shared<const tls_certificates>(sites, protocols, challenges_);
    } catch (const config::config_error& e) {
        return e.what();
    }
    const std::lock_guard lock(mutex_);
    current_ = std::move(fresh);
    return std::nullopt;
}

void tls_certificate_store::replace_with(const tls_certificate_store& fresh) {
    std::vector<tls_site_certificate> sites;
    config::http_protocols protocols;
    std::shared_ptr<const tls_certificates> certificates;
    {
        const std::lock_guard lock(fresh.mutex_);
        sites = fresh.sites_;
        protocols = fresh.protocols_;
        certificates = fresh.current_;
    }
    const std::lock_guard lock(mutex_);
    sites_ = std::move(sites);
    protocols_ = protocols;
    current_ = std::move(certificates);
}

}  // namespace spindle::server
