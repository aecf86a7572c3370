#include "acme/x509_tools.hpp"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <filesystem>

#include "acme/file_storage.hpp"
#include "acme/local_ca.hpp"

namespace spindle::acme {
namespace {

X509* read(const std::string& pem) {
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    return cert;
}

TEST(Csr, CarriesTheNamesAndVerifiesWithTheKey) {
    const private_key key = private_key::generate();
    const std::string der = make_csr_der(key, {"a.test", "www.a.test"});
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    X509_REQ* req = d2i_X509_REQ(nullptr, &p, static_cast<long>(der.size()));
    ASSERT_NE(req, nullptr);
    EXPECT_EQ(X509_REQ_verify(req, key.native()), 1);
    STACK_OF(X509_EXTENSION)* extensions = X509_REQ_get_extensions(req);
    ASSERT_NE(extensions, nullptr);
    std::vector<std::string> names;
    for (int i = 0; i < sk_X509_EXTENSION_num(extensions); ++i) {
        X509_EXTENSION* ext = sk_X509_EXTENSION_value(extensions, i);
        if (OBJ_obj2nid(X509_EXTENSION_get_object(ext)) != NID_subject_alt_name) {
            continue;
        }
        auto* sans = static_cast<GENERAL_NAMES*>(X509V3_EXT_d2i(ext));
        for (int j = 0; j < sk_GENERAL_NAME_num(sans); ++j) {
            const ASN1_IA5STRING* s = sk_GENERAL_NAME_value(sans, j)->d.dNSName;
            names.emplace_back(reinterpret_cast<const char*>(s->data), s->length);
        }
        GENERAL_NAMES_free(sans);
    }
    sk_X509_EXTENSION_pop_free(extensions, X509_EXTENSION_free);
    X509_REQ_free(req);
    EXPECT_EQ(names, (std::vector<std::string>{"a.test", "www.a.test"}));
}

TEST(Certificate, SelfSignedHasNamesLifetimeAndIpEntries) {
    const private_key key = private_key::generate();
    certificate_request request;
    request.names = {"a.test", "127.0.0.1"};
    request.lifetime = std::chrono::hours(24);
    const certificate_info info = inspect_certificate(make_certificate(request, key, nullptr));
    EXPECT_EQ(info.names, (std::vector<std::string>{"a.test", "127.0.0.1"}));
    // Backdated an hour for clock skew.
    EXPECT_EQ(
        std::chrono::duration_cast<std::chrono::hours>(info.not_after - info.not_before).count(),
        25);
    EXPECT_EQ(info.issuer, "/CN=a.test");
}

TEST(Certificate, TlsAlpnChallengeCertificateHasCriticalAcmeIdentifier) {
    const private_key key = private_key::generate();
    certificate_request request;
    request.names = {"a.test"};
    request.acme_identifier = sha256("token.thumbprint");
    X509* cert = read(make_certificate(request, key, nullptr));
    ASSERT_NE(cert, nullptr);
    ASN1_OBJECT* oid = OBJ_txt2obj("1.3.6.1.5.5.7.1.31", 1);
    const int at = X509_get_ext_by_OBJ(cert, oid, -1);
    ASN1_OBJECT_free(oid);
    ASSERT_GE(at, 0);
    X509_EXTENSION* ext = X509_get_ext(cert, at);
    EXPECT_EQ(X509_EXTENSION_get_critical(ext), 1);
    // RFC 8737: the extension value is the DER OCTET STRING of the 32-byte digest.
    const ASN1_OCTET_STRING* value = X509_EXTENSION_get_data(ext);
    const std::string expected = std::string("\x04\x20", 2) + sha256("token.thumbprint");
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(value->data), value->length), expected);
    X509_free(cert);
}

TEST(LocalCa, SignsLeavesThatVerifyAgainstItsStoredRoot) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("spindle-local-ca-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    const file_storage storage(dir.string());
    const pem_pair leaf = local_ca(storage).issue({"app.localhost"});
    // A second start reuses the stored root: its leaves verify against the same file.
    const pem_pair again = local_ca(storage).issue({"b.localhost"});
    const std::string root_pem = *storage.read("pki/authorities/local/root.crt");
    X509* root = read(root_pem);
    for (const pem_pair* pair : {&leaf, &again}) {
        X509* cert = read(pair->certificate);
        X509_STORE* store = X509_STORE_new();
        X509_STORE_add_cert(store, root);
        X509_STORE_CTX* ctx = X509_STORE_CTX_new();
        X509_STORE_CTX_init(ctx, store, cert, nullptr);
        EXPECT_EQ(X509_verify_cert(ctx), 1)
            << X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
        X509_STORE_CTX_free(ctx);
        X509_STORE_free(store);
        X509_free(cert);
    }
    X509_free(root);
    EXPECT_EQ(std::filesystem::status(dir / "pki/authorities/local/root.key").permissions() &
                  std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    std::filesystem::remove_all(dir);
}

TEST(FileStorage, UsesCaddysLayoutNames) {
    EXPECT_EQ(issuer_key("https://acme-v02.api.letsencrypt.org/directory"),
              "acme-v02.api.letsencrypt.org-directory");
    EXPECT_EQ(issuer_key("https://127.0.0.1:14000/dir"), "127.0.0.1-14000-dir");
    EXPECT_EQ(certificate_key("local", "*.Example.test", "crt"),
              "certificates/local/wildcard_.example.test/wildcard_.example.test.crt");
    EXPECT_EQ(account_key("ca", "ops@example.test", "key"),
              "acme/ca/users/ops@example.test/ops.key");
    EXPECT_EQ(account_key("ca", "", "json"), "acme/ca/users/default/default.json");
    // A name cannot climb out of the storage root.
    EXPECT_EQ(certificate_key("ca", "..", "crt"), "certificates/ca/_/_.crt");
}

}  // namespace
}  // namespace spindle::acme
