#include "acme/private_key.hpp"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include <stdexcept>

#include "acme/base64url.hpp"

namespace spindle::acme {

namespace {

// OpenSSL would otherwise prompt on the terminal for an encrypted key's passphrase.
int refuse_passphrase(char*, int, int, void*) {
    return -1;
}

std::string big_endian(const BIGNUM* n, int width) {
    std::string out(static_cast<std::size_t>(width), '\0');
    BN_bn2binpad(n, reinterpret_cast<unsigned char*>(out.data()), width);
    return out;
}

std::string coordinate(EVP_PKEY* key, const char* which) {
    BIGNUM* n = nullptr;
    if (EVP_PKEY_get_bn_param(key, which, &n) != 1) {
        throw std::runtime_error("cannot read the EC public key: " + openssl_error());
    }
    std::string out = big_endian(n, 32);
    BN_free(n);
    return out;
}

}  // namespace

std::string openssl_error() {
    const unsigned long code = ERR_peek_last_error();
    ERR_clear_error();
    if (code == 0) {
        return "unknown OpenSSL error";
    }
    const char* reason = ERR_reason_error_string(code);
    return reason != nullptr ? reason : "OpenSSL error " + std::to_string(code);
}

std::string sha256(std::string_view bytes) {
    std::string out(SHA256_DIGEST_LENGTH, '\0');
    SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
           reinterpret_cast<unsigned char*>(out.data()));
    return out;
}

private_key private_key::generate() {
    EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
    if (key == nullptr) {
        throw std::runtime_error("cannot generate a P-256 key: " + openssl_error());
    }
    return private_key(key);
}

private_key private_key::from_pem(std::string_view pem) {
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, refuse_passphrase, nullptr);
    BIO_free(bio);
    if (key == nullptr) {
        throw std::runtime_error("not a PEM private key without passphrase (" + openssl_error() +
                                 ")");
    }
    private_key result(key);
    char group[64] = {};
    std::size_t length = 0;
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC ||
        EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                       &length) != 1 ||
        std::string_view(group, length) != "prime256v1") {
        ERR_clear_error();
        throw std::runtime_error("not an ECDSA P-256 key (the only kind Spindle uses)");
    }
    return result;
}

std::string private_key::to_pem() const {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, key_.get(), nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<std::size_t>(size));
    BIO_free(bio);
    return out;
}

nlohmann::json private_key::jwk() const {
    // nlohmann::json's object keeps its keys sorted, which is RFC 7638's canonical order.
    return {{"crv", "P-256"},
            {"kty", "EC"},
            {"x", base64url_encode(coordinate(key_.get(), OSSL_PKEY_PARAM_EC_PUB_X))},
            {"y", base64url_encode(coordinate(key_.get(), OSSL_PKEY_PARAM_EC_PUB_Y))}};
}

std::string private_key::thumbprint() const {
    return base64url_encode(sha256(jwk().dump()));
}

std::string private_key::sign_es256(std::string_view data) const {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    std::size_t length = 0;
    std::string der;
    bool ok = EVP_DigestSignInit(md, nullptr, EVP_sha256(), nullptr, key_.get()) == 1 &&
              EVP_DigestSign(md, nullptr, &length,
                             reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
    if (ok) {
        der.resize(length);
        ok = EVP_DigestSign(md, reinterpret_cast<unsigned char*>(der.data()), &length,
                            reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
        der.resize(length);
    }
    EVP_MD_CTX_free(md);
    if (!ok) {
        throw std::runtime_error("cannot sign: " + openssl_error());
    }
    // OpenSSL gives a DER SEQUENCE of r and s; JWS wants them as two fixed-width integers.
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()));
    if (sig == nullptr) {
        throw std::runtime_error("cannot decode the ECDSA signature: " + openssl_error());
    }
    std::string raw = big_endian(ECDSA_SIG_get0_r(sig), 32) + big_endian(ECDSA_SIG_get0_s(sig), 32);
    ECDSA_SIG_free(sig);
    return raw;
}

}  // namespace spindle::acme
