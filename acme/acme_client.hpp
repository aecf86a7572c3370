#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "acme/challenge_store.hpp"
#include "acme/https_client.hpp"
#include "acme/private_key.hpp"

namespace spindle::acme {

/// A refusal from the CA (an RFC 7807 problem document) or a failed exchange with it.
class acme_error : public std::runtime_error {
  public:
    acme_error(const std::string& what, unsigned status = 0, std::string type = {},
               std::optional<std::chrono::seconds> retry_after = std::nullopt)
        : std::runtime_error(what),
          status_(status),
          type_(std::move(type)),
          retry_after_(retry_after) {}

    unsigned status() const noexcept { return status_; }
    /// "urn:ietf:params:acme:error:rateLimited" and the like; empty when not from the CA.
    const std::string& type() const noexcept { return type_; }
    /// The CA's Retry-After (429 rate limits, 503): do not ask again before it.
    std::optional<std::chrono::seconds> retry_after() const noexcept { return retry_after_; }

  private:
    unsigned status_;
    std::string type_;
    std::optional<std::chrono::seconds> retry_after_;
};

/// Challenge types Spindle can answer.
enum class challenge_type { http_01, tls_alpn_01 };
const char* to_string(challenge_type type) noexcept;

/// The certificate chain the CA issued, PEM, leaf first.
struct issued_chain {
    std::string pem;
};

/// An RFC 8555 client for one CA directory and one account key. Blocking; used only by the
/// ACME thread (certificate_manager), one conversation at a time.
class acme_client {
  public:
    /// `directory_url`: the CA's directory (acme_ca). `challenges` is where solved challenges
    /// are published for the listeners; `offered` the types this server can answer, in order
    /// of preference.
    /// `stopping`, once true, ends a conversation at its next step or wait (shutdown).
    acme_client(std::string directory_url, https_client& http, const private_key& account_key,
                challenge_store& challenges, std::vector<challenge_type> offered,
                const std::atomic<bool>& stopping);

    /// Registers the key's account, or finds the one it already has (RFC 8555 section 7.3:
    /// newAccount answers 200 with the existing account). Agrees to the CA's terms. Returns
    /// the account URL.
    std::string register_account(const std::string& email);

    /// Orders, authorizes, finalizes and downloads a certificate for `names` with the public
    /// half of `certificate_key`. Throws acme_error saying which step failed and why.
    issued_chain obtain(const std::vector<std::string>& names, const private_key& certificate_key);

  private:
    struct directory {
        std::string new_nonce;
        std::string new_account;
        std::string new_order;
    };

    const directory& get_directory();
    /// A signed POST; retries a badNonce refusal with the fresh nonce it carries (RFC 8555
    /// section 6.5). Throws acme_error for any other 4xx/5xx.
    https_response post(const std::string& url, const std::string& payload,
                        const std::string& accept = {});
    nlohmann::json post_json(const std::string& url, const std::string& payload,
                             https_response* raw = nullptr);
    std::string take_nonce();
    void authorize(const std::string& authorization_url);
    nlohmann::json poll(const std::string& url, const char* what,
                        const std::function<bool(const nlohmann::json&)>& is_settled);

    const std::string directory_url_;
    https_client& http_;
    const private_key& account_key_;
    challenge_store& challenges_;
    const std::vector<challenge_type> offered_;
    const std::atomic<bool>& stopping_;
    std::optional<directory> directory_;
    std::string nonce_;
    std::string account_url_;
};

}  // namespace spindle::acme
