#include "acme/jws.hpp"

#include <gtest/gtest.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include "acme/base64url.hpp"

namespace spindle::acme {
namespace {

// Verifies an ES256 signature (raw r||s) with OpenSSL's own verifier.
bool verify_es256(const private_key& key, const std::string& data, const std::string& raw) {
    if (raw.size() != 64) {
        return false;
    }
    ECDSA_SIG* sig = ECDSA_SIG_new();
    ECDSA_SIG_set0(sig, BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data()), 32, nullptr),
                   BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data()) + 32, 32, nullptr));
    unsigned char* der = nullptr;
    const int der_length = i2d_ECDSA_SIG(sig, &der);
    ECDSA_SIG_free(sig);
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    const bool ok =
        EVP_DigestVerifyInit(md, nullptr, EVP_sha256(), nullptr, key.native()) == 1 &&
        EVP_DigestVerify(md, der, static_cast<std::size_t>(der_length),
                         reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
    EVP_MD_CTX_free(md);
    OPENSSL_free(der);
    return ok;
}

TEST(PrivateKey, JwkHasRfc7638MembersAnd32ByteCoordinates) {
    const private_key key = private_key::generate();
    const nlohmann::json jwk = key.jwk();
    EXPECT_EQ(jwk["kty"], "EC");
    EXPECT_EQ(jwk["crv"], "P-256");
    EXPECT_EQ(base64url_decode(jwk["x"].get<std::string>())->size(), 32u);
    EXPECT_EQ(base64url_decode(jwk["y"].get<std::string>())->size(), 32u);
    EXPECT_EQ(jwk.size(), 4u);
}

TEST(PrivateKey, ThumbprintIsSha256OfTheCanonicalJwk) {
    const private_key key = private_key::generate();
    const nlohmann::json jwk = key.jwk();
    // RFC 7638 section 3: required members only, sorted, no whitespace.
    const std::string canonical = R"({"crv":"P-256","kty":"EC","x":")" +
                                  jwk["x"].get<std::string>() + R"(","y":")" +
                                  jwk["y"].get<std::string>() + R"("})";
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(canonical.data()), canonical.size(), digest);
    EXPECT_EQ(key.thumbprint(),
              base64url_encode(std::string(reinterpret_cast<char*>(digest), sizeof digest)));
    EXPECT_EQ(key.thumbprint().size(), 43u);
}

TEST(PrivateKey, PemRoundTripKeepsTheKey) {
    const private_key key = private_key::generate();
    EXPECT_EQ(private_key::from_pem(key.to_pem()).thumbprint(), key.thumbprint());
}

TEST(PrivateKey, RefusesTextThatIsNoKeyAndOtherKeyTypes) {
    EXPECT_THROW(
        private_key::from_pem("-----BEGIN PRIVATE KEY-----\nxx\n-----END PRIVATE KEY-----\n"),
        std::runtime_error);
    EVP_PKEY* rsa = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(1024));
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, rsa, nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    const std::string pem(data, static_cast<std::size_t>(size));
    BIO_free(bio);
    EVP_PKEY_free(rsa);
    try {
        private_key::from_pem(pem);
        FAIL() << "an RSA key was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "not an ECDSA P-256 key (the only kind Spindle uses)");
    }
}

TEST(Jws, NewAccountRequestCarriesTheJwkAndVerifies) {
    const private_key key = private_key::generate();
    const nlohmann::json jws = nlohmann::json::parse(
        sign_jws({key, ""}, "nonce-1", "https://ca.test/new-acct", R"({"a":1})"));
    const nlohmann::json header =
        nlohmann::json::parse(*base64url_decode(jws["protected"].get<std::string>()));
    EXPECT_EQ(header["alg"], "ES256");
    EXPECT_EQ(header["nonce"], "nonce-1");
    EXPECT_EQ(header["url"], "https://ca.test/new-acct");
    EXPECT_EQ(header["jwk"], key.jwk());
    EXPECT_FALSE(header.contains("kid"));
    EXPECT_EQ(*base64url_decode(jws["payload"].get<std::string>()), R"({"a":1})");
    EXPECT_TRUE(verify_es256(
        key, jws["protected"].get<std::string>() + "." + jws["payload"].get<std::string>(),
        *base64url_decode(jws["signature"].get<std::string>())));
}

TEST(Jws, LaterRequestsNameTheAccountAndPostAsGetHasAnEmptyPayload) {
    const private_key key = private_key::generate();
    const nlohmann::json jws = nlohmann::json::parse(
        sign_jws({key, "https://ca.test/acct/7"}, "n2", "https://ca.test/order/1", ""));
    const nlohmann::json header =
        nlohmann::json::parse(*base64url_decode(jws["protected"].get<std::string>()));
    EXPECT_EQ(header["kid"], "https://ca.test/acct/7");
    EXPECT_FALSE(header.contains("jwk"));
    EXPECT_EQ(jws["payload"], "");
    EXPECT_TRUE(verify_es256(key, jws["protected"].get<std::string>() + ".",
                             *base64url_decode(jws["signature"].get<std::string>())));
}

TEST(Jws, SignatureDoesNotVerifyForOtherData) {
    const private_key key = private_key::generate();
    const std::string raw = key.sign_es256("one");
    EXPECT_TRUE(verify_es256(key, "one", raw));
    EXPECT_FALSE(verify_es256(key, "two", raw));
}

}  // namespace
}  // namespace spindle::acme
