#include "acme/x509_tools.hpp"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>

#include <ctime>
#include <memory>
#include <stdexcept>

namespace spindle::acme {

namespace {

template <typename T, void (*Free)(T*)>
struct deleter {
    void operator()(T* p) const noexcept { Free(p); }
};
using x509_ptr = std::unique_ptr<X509, deleter<X509, X509_free>>;
using bio_ptr = std::unique_ptr<BIO, deleter<BIO, BIO_free_all>>;

[[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error(what + ": " + openssl_error());
}

x509_ptr read_certificate(std::string_view pem) {
    bio_ptr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    x509_ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert) {
        fail("not a PEM certificate");
    }
    return cert;
}

std::chrono::system_clock::time_point to_time_point(const ASN1_TIME* t) {
    std::tm tm{};
    if (ASN1_TIME_to_tm(t, &tm) != 1) {
        fail("bad certificate time");
    }
    return std::chrono::system_clock::from_time_t(timegm(&tm));
}

bool is_ip_literal(const std::string& name) {
    unsigned char buffer[16];
    return inet_pton(AF_INET, name.c_str(), buffer) == 1 ||
           inet_pton(AF_INET6, name.c_str(), buffer) == 1;
}

// "DNS:a,DNS:b,IP:127.0.0.1", the form X509V3_EXT_conf_nid reads.
std::string san_text(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) {
        if (!text.empty()) {
            text.push_back(',');
        }
        text.append(is_ip_literal(name) ? "IP:" : "DNS:").append(name);
    }
    return text;
}

void add_extension(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, ctx, nid, value.c_str());
    if (ext == nullptr || X509_add_ext(cert, ext, -1) != 1) {
        X509_EXTENSION_free(ext);
        fail("cannot add a certificate extension");
    }
    X509_EXTENSION_free(ext);
}

// RFC 8737 section 3: a critical id-pe-acmeIdentifier extension whose value is the DER
// OCTET STRING of the key authorization's SHA-256.
void add_acme_identifier(X509* cert, const std::string& digest) {
    ASN1_OBJECT* oid = OBJ_txt2obj("1.3.6.1.5.5.7.1.31", 1);
    std::string der = {0x04, static_cast<char>(digest.size())};
    der += digest;
    ASN1_OCTET_STRING* value = ASN1_OCTET_STRING_new();
    ASN1_OCTET_STRING_set(value, reinterpret_cast<const unsigned char*>(der.data()),
                          static_cast<int>(der.size()));
    X509_EXTENSION* ext = X509_EXTENSION_create_by_OBJ(nullptr, oid, 1, value);
    const bool ok = ext != nullptr && X509_add_ext(cert, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    ASN1_OCTET_STRING_free(value);
    ASN1_OBJECT_free(oid);
    if (!ok) {
        fail("cannot add the acmeIdentifier extension");
    }
}

}  // namespace

certificate_info inspect_certificate(std::string_view pem) {
    const x509_ptr cert = read_certificate(pem);
    certificate_info info;
    info.not_before = to_time_point(X509_get0_notBefore(cert.get()));
    info.not_after = to_time_point(X509_get0_notAfter(cert.get()));
    char issuer[512] = {};
    X509_NAME_oneline(X509_get_issuer_name(cert.get()), issuer, sizeof issuer);
    info.issuer = issuer;
    auto* names = static_cast<GENERAL_NAMES*>(
        X509_get_ext_d2i(cert.get(), NID_subject_alt_name, nullptr, nullptr));
    for (int i = 0; names != nullptr && i < sk_GENERAL_NAME_num(names); ++i) {
        const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
        if (name->type == GEN_DNS) {
            const ASN1_IA5STRING* s = name->d.dNSName;
            info.names.emplace_back(reinterpret_cast<const char*>(s->data),
                                    static_cast<std::size_t>(s->length));
        } else if (name->type == GEN_IPADD) {
            const ASN1_OCTET_STRING* s = name->d.iPAddress;
            char text[64] = {};
            inet_ntop(s->length == 4 ? AF_INET : AF_INET6, s->data, text, sizeof text);
            info.names.emplace_back(text);
        }
    }
    GENERAL_NAMES_free(names);
    return info;
}

std::string make_csr_der(const private_key& key, const std::vector<std::string>& names) {
    X509_REQ* req = X509_REQ_new();
    X509_NAME* subject = X509_REQ_get_subject_name(req);
    X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(names.front().c_str()), -1,
                               -1, 0);
    X509_REQ_set_pubkey(req, key.native());
    STACK_OF(X509_EXTENSION)* extensions = sk_X509_EXTENSION_new_null();
    X509_EXTENSION* san =
        X509V3_EXT_conf_nid(nullptr, nullptr, NID_subject_alt_name, san_text(names).c_str());
    sk_X509_EXTENSION_push(extensions, san);
    const bool ok = san != nullptr && X509_REQ_add_extensions(req, extensions) == 1 &&
                    X509_REQ_sign(req, key.native(), EVP_sha256()) > 0;
    sk_X509_EXTENSION_pop_free(extensions, X509_EXTENSION_free);
    if (!ok) {
        X509_REQ_free(req);
        fail("cannot make the certificate signing request");
    }
    unsigned char* der = nullptr;
    const int length = i2d_X509_REQ(req, &der);
    X509_REQ_free(req);
    if (length <= 0) {
        fail("cannot encode the certificate signing request");
    }
    std::string out(reinterpret_cast<char*>(der), static_cast<std::size_t>(length));
    OPENSSL_free(der);
    return out;
}

std::string make_certificate(const certificate_request& request, const private_key& subject_key,
                             const signing_ca* ca) {
    x509_ptr cert(X509_new());
    X509_set_version(cert.get(), X509_VERSION_3);
    // A random 127-bit serial, as CAs use (RFC 5280 allows 20 bytes, positive).
    unsigned char serial_bytes[16];
    RAND_bytes(serial_bytes, sizeof serial_bytes);
    serial_bytes[0] &= 0x7f;
    BIGNUM* serial = BN_bin2bn(serial_bytes, sizeof serial_bytes, nullptr);
    BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(cert.get()));
    BN_free(serial);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(request.lifetime.count()));
    const std::string& cn =
        !request.common_name.empty() ? request.common_name : request.names.front();
    X509_NAME* subject = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
    X509_set_pubkey(cert.get(), subject_key.native());
    x509_ptr issuer = ca != nullptr ? read_certificate(ca->certificate) : nullptr;
    X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer.get()) : subject);
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, issuer ? issuer.get() : cert.get(), cert.get(), nullptr, nullptr, 0);
    if (request.is_ca) {
        add_extension(cert.get(), &ctx, NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
        add_extension(cert.get(), &ctx, NID_key_usage, "critical,keyCertSign,cRLSign");
    } else {
        add_extension(cert.get(), &ctx, NID_basic_constraints, "critical,CA:FALSE");
        add_extension(cert.get(), &ctx, NID_key_usage, "critical,digitalSignature");
        add_extension(cert.get(), &ctx, NID_ext_key_usage, "serverAuth");
    }
    add_extension(cert.get(), &ctx, NID_subject_key_identifier, "hash");
    if (issuer) {
        add_extension(cert.get(), &ctx, NID_authority_key_identifier, "keyid:always");
    }
    if (!request.names.empty() && !request.is_ca) {
        add_extension(cert.get(), &ctx, NID_subject_alt_name, san_text(request.names));
    }
    if (!request.acme_identifier.empty()) {
        add_acme_identifier(cert.get(), request.acme_identifier);
    }
    const private_key& signer = ca != nullptr ? ca->key : subject_key;
    if (X509_sign(cert.get(), signer.native(), EVP_sha256()) <= 0) {
        fail("cannot sign the certificate");
    }
    bio_ptr bio(BIO_new(BIO_s_mem()));
    PEM_write_bio_X509(bio.get(), cert.get());
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace spindle::acme
