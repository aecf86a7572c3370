#include "acme/acme_client.hpp"

#include <spdlog/spdlog.h>

#include <openssl/pem.h>

#include <algorithm>
#include <ctime>
#include <thread>

#include "acme/base64url.hpp"
#include "acme/jws.hpp"
#include "acme/order_state.hpp"
#include "acme/retry_policy.hpp"
#include "acme/x509_tools.hpp"

namespace spindle::acme {

namespace {

constexpr const char* jose_json = "application/jose+json";
constexpr int bad_nonce_retries = 3;
// How long one authorization or order may stay unsettled before the attempt is given up
// (and retried later with backoff). Let's Encrypt validates within seconds.
constexpr int poll_attempts = 60;

acme_error problem(const std::string& step, const https_response& response) {
    std::string type;
    std::string detail;
    try {
        const nlohmann::json body = nlohmann::json::parse(response.body);
        type = body.value("type", "");
        detail = body.value("detail", "");
    } catch (const nlohmann::json::exception&) {
        detail = response.body.substr(0, 200);
    }
    std::string what = step + ": the CA answered " + std::to_string(response.status);
    if (!type.empty()) {
        what += " " + type;
    }
    if (!detail.empty()) {
        what += " (" + detail + ")";
    }
    return acme_error(what, response.status, type,
                      parse_retry_after(response.header("retry-after")));
}

nlohmann::json parse_body(const std::string& step, const https_response& response) {
    try {
        return nlohmann::json::parse(response.body);
    } catch (const nlohmann::json::exception&) {
        throw acme_error(step + ": the CA's answer is not JSON", response.status);
    }
}

}  // namespace

const char* to_string(challenge_type type) noexcept {
    return type == challenge_type::http_01 ? "http-01" : "tls-alpn-01";
}

acme_client::acme_client(std::string directory_url, https_client& http,
                         const private_key& account_key, challenge_store& challenges,
                         std::vector<challenge_type> offered, const std::atomic<bool>& stopping)
    : directory_url_(std::move(directory_url)),
      http_(http),
      account_key_(account_key),
      challenges_(challenges),
      offered_(std::move(offered)),
      stopping_(stopping) {}

const acme_client::directory& acme_client::get_directory() {
    if (!directory_) {
        https_response response;
        try {
            response = http_.send({"GET", directory_url_, "", "", ""});
        } catch (const std::runtime_error& e) {
            throw acme_error(std::string("directory: ") + e.what());
        }
        if (response.status != 200) {
            throw problem("directory " + directory_url_, response);
        }
        const nlohmann::json body = parse_body("directory", response);
        directory d;
        d.new_nonce = body.value("newNonce", "");
        d.new_account = body.value("newAccount", "");
        d.new_order = body.value("newOrder", "");
        if (d.new_nonce.empty() || d.new_account.empty() || d.new_order.empty()) {
            throw acme_error("directory " + directory_url_ +
                             " lacks newNonce, newAccount or newOrder: is acme_ca an ACME "
                             "directory URL?");
        }
        directory_ = std::move(d);
    }
    return *directory_;
}

std::string acme_client::take_nonce() {
    if (nonce_.empty()) {
        https_response response;
        try {
            response = http_.send({"HEAD", get_directory().new_nonce, "", "", ""});
        } catch (const std::runtime_error& e) {
            throw acme_error(std::string("newNonce: ") + e.what());
        }
        nonce_ = response.header("replay-nonce");
        if (nonce_.empty()) {
            throw problem("newNonce (no Replay-Nonce)", response);
        }
    }
    return std::exchange(nonce_, std::string());
}

https_response acme_client::post(const std::string& url, const std::string& payload,
                                 const std::string& accept) {
    for (int attempt = 0;; ++attempt) {
        if (stopping_.load()) {
            throw acme_error("POST " + url + ": Spindle is stopping");
        }
        const jws_signer signer{account_key_, account_url_};
        https_request request{"POST", url, sign_jws(signer, take_nonce(), url, payload), jose_json,
                              accept};
        https_response response;
        try {
            response = http_.send(request);
        } catch (const std::runtime_error& e) {
            throw acme_error(e.what());
        }
        // Every answer, refusals included, carries the nonce for the next request.
        nonce_ = response.header("replay-nonce");
        if (response.status < 400) {
            return response;
        }
        acme_error error = problem("POST " + url, response);
        if (error.type() == "urn:ietf:params:acme:error:badNonce" && attempt < bad_nonce_retries) {
            spdlog::get("acme")->debug("{}: bad nonce, retrying with a fresh one", url);
            continue;
        }
        throw error;
    }
}

nlohmann::json acme_client::post_json(const std::string& url, const std::string& payload,
                                      https_response* raw) {
    https_response response = post(url, payload);
    nlohmann::json body = parse_body("POST " + url, response);
    if (raw != nullptr) {
        *raw = std::move(response);
    }
    return body;
}

std::string acme_client::register_account(const std::string& email) {
    nlohmann::json request = {{"termsOfServiceAgreed", true}};
    if (!email.empty()) {
        request["contact"] = {"mailto:" + email};
    }
    // newAccount is signed with the key itself (jwk): no account URL yet.
    account_url_.clear();
    https_response raw;
    const nlohmann::json account = post_json(get_directory().new_account, request.dump(), &raw);
    if (account.value("status", "") != "valid") {
        throw acme_error("account: the CA says its status is \"" + account.value("status", "") +
                         "\" (deactivated or revoked: use another account key)");
    }
    account_url_ = raw.header("location");
    if (account_url_.empty()) {
        throw acme_error("account: the CA gave no account URL (Location)");
    }
    return account_url_;
}

nlohmann::json acme_client::poll(const std::string& url, const char* what,
                                 const std::function<bool(const nlohmann::json&)>& is_settled) {
    for (int attempt = 0; attempt < poll_attempts; ++attempt) {
        https_response raw;
        nlohmann::json body = post_json(url, "", &raw);
        if (is_settled(body)) {
            return body;
        }
        const std::chrono::seconds wait = std::clamp(
            parse_retry_after(raw.header("retry-after")).value_or(std::chrono::seconds(1)),
            std::chrono::seconds(1), std::chrono::seconds(10));
        // In short steps, so that a shutdown does not wait for the whole delay.
        for (auto slept = std::chrono::milliseconds(0); slept < wait;
             slept += std::chrono::milliseconds(100)) {
            if (stopping_.load()) {
                throw acme_error(std::string(what) + " " + url + ": Spindle is stopping");
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
    throw acme_error(std::string(what) + " " + url + ": still not settled after " +
                     std::to_string(poll_attempts) + " checks");
}

void acme_client::authorize(const std::string& authorization_url) {
    const nlohmann::json authz = post_json(authorization_url, "");
    const std::string status = authz.value("status", "");
    if (status == "valid") {
        return;
    }
    const std::string name = authz.value("identifier", nlohmann::json::object()).value("value", "");
    if (status != "pending") {
        throw acme_error("authorization for " + name + " is " + status);
    }
    // The first type we offer that the CA offers too.
    const nlohmann::json offered_by_ca = authz.value("challenges", nlohmann::json::array());
    const nlohmann::json* chosen = nullptr;
    challenge_type type = challenge_type::http_01;
    for (const challenge_type wanted : offered_) {
        for (const nlohmann::json& c : offered_by_ca) {
            if (c.value("type", "") == to_string(wanted)) {
                chosen = &c;
                type = wanted;
                break;
            }
        }
        if (chosen != nullptr) {
            break;
        }
    }
    if (chosen == nullptr) {
        throw acme_error("authorization for " + name +
                         ": the CA offers no challenge Spindle can answer (http-01 needs the "
                         "http_port listener, tls-alpn-01 the https_port one)");
    }
    const std::string token = chosen->value("token", "");
    const std::string challenge_url = chosen->value("url", "");
    const std::string key_authorization = token + "." + account_key_.thumbprint();
    // Published before the CA is told to look, withdrawn whatever the outcome.
    if (type == challenge_type::http_01) {
        challenges_.put_http(token, key_authorization);
    } else {
        const private_key key = private_key::generate();
        certificate_request request;
        request.names = {name};
        request.lifetime = std::chrono::hours(24);
        request.acme_identifier = sha256(key_authorization);
        const std::string pem = make_certificate(request, key, nullptr);
        BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
        std::shared_ptr<X509> cert(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr), X509_free);
        BIO_free(bio);
        challenges_.put_tls_alpn(name,
                                 std::make_shared<alpn_certificate>(alpn_certificate{cert, key}));
    }
    struct withdraw {
        challenge_store& store;
        challenge_type type;
        std::string key;
        ~withdraw() {
            if (type == challenge_type::http_01) {
                store.remove_http(key);
            } else {
                store.remove_tls_alpn(key);
            }
        }
    } guard{challenges_, type, type == challenge_type::http_01 ? token : name};
    spdlog::get("acme")->info("{}: answering the {} challenge", name, to_string(type));
    post_json(challenge_url, "{}");
    const nlohmann::json settled = poll(authorization_url, "authorization", [](const auto& a) {
        const std::string s = a.value("status", "");
        return s != "pending";
    });
    if (settled.value("status", "") != "valid") {
        std::string why;
        for (const nlohmann::json& c : settled.value("challenges", nlohmann::json::array())) {
            if (c.contains("error")) {
                why = c["error"].value("detail", c["error"].value("type", ""));
            }
        }
        throw acme_error("authorization for " + name + " via " + to_string(type) + " is " +
                         settled.value("status", "") + (why.empty() ? "" : ": " + why));
    }
}

issued_chain acme_client::obtain(const std::vector<std::string>& names,
                                 const private_key& certificate_key) {
    if (account_url_.empty()) {
        throw acme_error("obtain: no account (register_account first)");
    }
    nlohmann::json identifiers = nlohmann::json::array();
    for (const std::string& name : names) {
        identifiers.push_back({{"type", "dns"}, {"value", name}});
    }
    https_response raw;
    nlohmann::json order = post_json(get_directory().new_order,
                                     nlohmann::json{{"identifiers", identifiers}}.dump(), &raw);
    const std::string order_url = raw.header("location");
    order_phase phase = order_phase::authorizing;
    const auto observe = [&](const nlohmann::json& o) {
        const std::optional<order_event> event = order_event_from_status(o.value("status", ""));
        const order_phase next = transition(phase, event.value_or(order_event::invalid));
        if (next == order_phase::failed) {
            throw acme_error("order " + order_url + ": status \"" + o.value("status", "") +
                             "\" while " + to_string(phase) +
                             (o.contains("error") ? ": " + o["error"].dump() : ""));
        }
        phase = next;
    };
    observe(order);
    while (phase != order_phase::done) {
        switch (phase) {
            case order_phase::authorizing:
                for (const nlohmann::json& url :
                     order.value("authorizations", nlohmann::json::array())) {
                    authorize(url.get<std::string>());
                }
                order = post_json(order_url, "");
                observe(order);
                break;
            case order_phase::finalizing: {
                const std::string csr = base64url_encode(make_csr_der(certificate_key, names));
                order = post_json(order.value("finalize", ""), nlohmann::json{{"csr", csr}}.dump());
                observe(order);
                break;
            }
            case order_phase::processing:
                order = poll(order_url, "order", [](const auto& o) {
                    const std::string s = o.value("status", "");
                    return s != "processing" && s != "ready";
                });
                observe(order);
                break;
            case order_phase::downloading: {
                const https_response chain =
                    post(order.value("certificate", ""), "", "application/pem-certificate-chain");
                phase = transition(phase, order_event::downloaded);
                return {chain.body};
            }
            case order_phase::done:
            case order_phase::failed: break;
        }
    }
    throw acme_error("order " + order_url + " ended without a certificate");
}

}  // namespace spindle::acme
