#include "server/tls/local_certificate.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <system_error>

namespace spindle::server {

namespace {

// Browsers refuse server certificates valid for longer than 398 days.
constexpr long validity_seconds = 398L * 24 * 3600;

struct openssl_free {
    void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); }
    void operator()(X509* p) const noexcept { X509_free(p); }
    void operator()(BIGNUM* p) const noexcept { BN_free(p); }
    void operator()(X509_EXTENSION* p) const noexcept { X509_EXTENSION_free(p); }
    void operator()(std::FILE* p) const noexcept { std::fclose(p); }
};
template <class T>
using owned = std::unique_ptr<T, openssl_free>;

[[noreturn]] void fail(const std::string& step) {
    const unsigned long code = ERR_peek_last_error();
    ERR_clear_error();
    const char* reason = code != 0 ? ERR_reason_error_string(code) : nullptr;
    throw std::runtime_error("cannot make the local certificate: " + step +
                             (reason != nullptr ? std::string(": ") + reason : std::string()));
}

owned<EVP_PKEY> make_key() {
    owned<EVP_PKEY> key(EVP_EC_gen("P-256"));
    if (!key) {
        fail("generating an EC P-256 key");
    }
    return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    owned<X509_EXTENSION> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
    if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
        fail(std::string("adding ") + OBJ_nid2sn(nid) + " = " + value);
    }
}

// A certificate with a random serial and the validity above, not yet signed.
owned<X509> make_certificate(EVP_PKEY* key, const std::string& common_name) {
    owned<X509> cert(X509_new());
    owned<BIGNUM> serial(BN_new());
    if (!cert || !serial || X509_set_version(cert.get(), 2) != 1 ||
        BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
        BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) == nullptr ||
        X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) == nullptr ||
        X509_gmtime_adj(X509_getm_notAfter(cert.get()), validity_seconds) == nullptr ||
        X509_set_pubkey(cert.get(), key) != 1) {
        fail("building the certificate for " + common_name);
    }
    X509_NAME* name = X509_get_subject_name(cert.get());
    if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>("Spindle development"),
                                   -1, -1, 0) != 1 ||
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                                   -1, 0) != 1) {
        fail("naming the certificate " + common_name);
    }
    return cert;
}

// Creates `path` exclusively with `mode`: an existing file is an error, never overwritten.
owned<std::FILE> create_file(const std::string& path, mode_t mode) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) {
        const int error = errno;
        throw std::runtime_error("cannot create " + path + ": " + std::strerror(error) +
                                 (error == EEXIST ? " (remove it or choose another --dir)" : ""));
    }
    owned<std::FILE> file(::fdopen(fd, "w"));
    if (!file) {
        ::close(fd);
        throw std::runtime_error("cannot open " + path);
    }
    return file;
}

bool is_ip_address(const std::string& host) {
    unsigned char buffer[sizeof(in6_addr)];
    return ::inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
           ::inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

}  // namespace

local_certificate_files write_local_certificate(const std::string& dir,
                                                const std::vector<std::string>& hosts) {
    if (hosts.empty()) {
        throw std::runtime_error("cannot make the local certificate: no host name given");
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        throw std::runtime_error("cannot create directory " + dir + ": " + ec.message());
    }
    ::chmod(dir.c_str(), 0700);

    // The authority: self-signed, may sign server certificates and nothing below them.
    owned<EVP_PKEY> ca_key = make_key();
    owned<X509> ca = make_certificate(ca_key.get(), "Spindle local CA for " + hosts.front());
    X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get()));
    add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
    add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
    add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
    if (X509_sign(ca.get(), ca_key.get(), EVP_sha256()) == 0) {
        fail("signing the CA certificate");
    }

    // The server certificate, for every host given.
    owned<EVP_PKEY> key = make_key();
    owned<X509> cert = make_certificate(key.get(), hosts.front());
    X509_set_issuer_name(cert.get(), X509_get_subject_name(ca.get()));
    std::string names;
    for (const std::string& host : hosts) {
        names +=
            (names.empty() ? "" : ",") + std::string(is_ip_address(host) ? "IP:" : "DNS:") + host;
    }
    add_extension(cert.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
    add_extension(cert.get(), ca.get(), NID_key_usage, "critical,digitalSignature");
    add_extension(cert.get(), ca.get(), NID_ext_key_usage, "serverAuth");
    add_extension(cert.get(), ca.get(), NID_subject_alt_name, names);
    add_extension(cert.get(), ca.get(), NID_authority_key_identifier, "keyid:always");
    if (X509_sign(cert.get(), ca_key.get(), EVP_sha256()) == 0) {
        fail("signing the server certificate");
    }

    const std::filesystem::path base(dir);
    local_certificate_files files{(base / "ca.crt").string(), (base / "cert.pem").string(),
                                  (base / "key.pem").string()};
    // The key first: if it cannot be written, no certificate is left without it.
    {
        owned<std::FILE> out = create_file(files.key, 0600);
        if (PEM_write_PrivateKey(out.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
            1) {
            fail("writing " + files.key);
        }
    }
    {
        owned<std::FILE> out = create_file(files.certificate, 0644);
        if (PEM_write_X509(out.get(), cert.get()) != 1 ||
            PEM_write_X509(out.get(), ca.get()) != 1) {
            fail("writing " + files.certificate);
        }
    }
    {
        owned<std::FILE> out = create_file(files.ca_certificate, 0644);
        if (PEM_write_X509(out.get(), ca.get()) != 1) {
            fail("writing " + files.ca_certificate);
        }
    }
    return files;
}

}  // namespace spindle::server
