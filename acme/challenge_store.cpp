#include "acme/challenge_store.hpp"

namespace spindle::acme {

void challenge_store::put_http(const std::string& token, const std::string& key_authorization) {
    const std::lock_guard lock(mutex_);
    http_[token] = key_authorization;
}

void challenge_store::remove_http(const std::string& token) {
    const std::lock_guard lock(mutex_);
    http_.erase(token);
}

std::optional<std::string> challenge_store::http_answer(std::string_view token) const {
    const std::lock_guard lock(mutex_);
    const auto it = http_.find(token);
    if (it == http_.end()) {
        return std::nullopt;
    }
    return it->second;
}

void challenge_store::put_tls_alpn(const std::string& name,
                                   std::shared_ptr<const alpn_certificate> cert) {
    const std::lock_guard lock(mutex_);
    alpn_[name] = std::move(cert);
}

void challenge_store::remove_tls_alpn(const std::string& name) {
    const std::lock_guard lock(mutex_);
    alpn_.erase(name);
}

std::shared_ptr<const alpn_certificate> challenge_store::tls_alpn(std::string_view name) const {
    const std::lock_guard lock(mutex_);
    const auto it = alpn_.find(name);
    return it == alpn_.end() ? nullptr : it->second;
}

}  // namespace spindle::acme
