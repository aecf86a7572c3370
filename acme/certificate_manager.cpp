#include "acme/certificate_manager.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "acme/retry_policy.hpp"

namespace spindle::acme {

namespace {

std::shared_ptr<spdlog::logger> log() {
    return spdlog::get("acme");
}

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

std::string utc_text(std::chrono::system_clock::time_point t) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

// A stored certificate is used when it covers every name and is not past its renewal point
// by much (renewal starts at once anyway).
bool covers(const certificate_info& info, const std::vector<std::string>& names) {
    return std::all_of(names.begin(), names.end(), [&](const std::string& n) {
        return std::find(info.names.begin(), info.names.end(), n) != info.names.end();
    });
}

}  // namespace

certificate_manager::certificate_manager(manager_options options, std::vector<managed_site> sites,
                                         std::function<void(const std::string&)> on_change)
    : options_(std::move(options)),
      storage_(std::filesystem::absolute(options_.storage.empty() ? default_storage_root()
                                                                  : options_.storage)
                   .lexically_normal()
                   .string()),
      on_change_(std::move(on_change)) {
    const std::string ca_issuer = issuer_key(options_.ca);
    for (managed_site& site : sites) {
        auto state = std::make_unique<site_state>();
        state->issuer = site.is_internal ? "local" : ca_issuer;
        if (site.email.empty()) {
            site.email = options_.email;
        }
        state->site = std::move(site);
        sites_.push_back(std::move(state));
    }
    const bool any_internal = std::any_of(sites_.begin(), sites_.end(),
                                          [](const auto& s) { return s->site.is_internal; });
    const bool any_acme = std::any_of(sites_.begin(), sites_.end(),
                                      [](const auto& s) { return !s->site.is_internal; });
    if (any_internal) {
        local_ca_ = std::make_unique<local_ca>(storage_);
    }
    if (any_acme) {
        https_ = std::make_unique<https_client>(options_.trusted_roots);
        // A broken account key stops the start here, naming the file, rather than failing
        // every renewal later.
        for (const auto& s : sites_) {
            if (!s->site.is_internal && !accounts_.contains(s->site.email)) {
                accounts_[s->site.email].key = stored_account_key(s->site.email);
            }
        }
    }
    for (const auto& s : sites_) {
        load_or_fallback(*s);
    }
}

certificate_manager::~certificate_manager() {
    stopping_.store(true);
    work_.reset();
    io_.stop();
    if (thread_.joinable()) {
        thread_.join();
    }
    // What runs on io_ goes before it: the members are destroyed after io_ (declared last),
    // and a timer or client outliving its io_context touches freed services.
    for (auto& s : sites_) {
        s->timer.reset();
    }
    accounts_.clear();
    https_.reset();
}

std::optional<private_key> certificate_manager::stored_account_key(const std::string& email) const {
    const std::string key = account_key(issuer_key(options_.ca), email, "key");
    const std::optional<std::string> pem = storage_.read(key);
    if (!pem) {
        return std::nullopt;
    }
    try {
        return private_key::from_pem(*pem);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error("ACME account key " + storage_.path(key) + ": " + e.what() +
                                 "; fix or remove the file (a new account is then made)");
    }
}

void certificate_manager::load_or_fallback(site_state& s) {
    const std::string& name = s.site.names.front();
    const std::optional<std::string> crt = storage_.read(certificate_key(s.issuer, name, "crt"));
    const std::optional<std::string> key = storage_.read(certificate_key(s.issuer, name, "key"));
    if (crt && key) {
        try {
            const certificate_info info = inspect_certificate(*crt);
            private_key::from_pem(*key);
            if (covers(info, s.site.names) && info.not_after > std::chrono::system_clock::now()) {
                publish(s, {*crt, *key}, false);
                log()->info("{}: using the stored certificate, valid until {}", name,
                            utc_text(info.not_after));
                return;
            }
        } catch (const std::runtime_error& e) {
            log()->warn("{}: the stored certificate {} cannot be used ({}); getting a new one",
                        name, storage_.path(certificate_key(s.issuer, name, "crt")), e.what());
        }
    }
    if (s.site.is_internal) {
        // The local CA signs at once: no fallback needed.
        pem_pair pem = local_ca_->issue(s.site.names);
        storage_.write(certificate_key(s.issuer, name, "key"), pem.key, true);
        storage_.write(certificate_key(s.issuer, name, "crt"), pem.certificate, false);
        publish(s, std::move(pem), false);
        return;
    }
    const private_key fallback_key = private_key::generate();
    certificate_request request;
    request.names = s.site.names;
    request.lifetime = std::chrono::hours(24);
    publish(s, {make_certificate(request, fallback_key, nullptr), fallback_key.to_pem()}, true);
    log()->warn(
        "{}: no certificate from {} yet; serving a self-signed one until it is issued (clients "
        "will not trust it; check that the CA can reach this server on ports 80/443)",
        join(s.site.names), options_.ca);
}

void certificate_manager::publish(site_state& s, pem_pair pem, bool is_fallback) {
    certificate_info info = inspect_certificate(pem.certificate);
    const std::lock_guard lock(s.mutex);
    s.pem = std::move(pem);
    s.info = std::move(info);
    s.is_fallback = is_fallback;
}

pem_pair certificate_manager::current(std::size_t index) const {
    const site_state& s = *sites_.at(index);
    const std::lock_guard lock(s.mutex);
    return s.pem;
}

std::vector<certificate_manager::expiry> certificate_manager::expiries() const {
    std::vector<expiry> out;
    for (const auto& s : sites_) {
        const std::lock_guard lock(s->mutex);
        out.push_back({s->site.names.front(), s->info.not_after, s->is_fallback});
    }
    return out;
}

void certificate_manager::start() {
    work_.emplace(io_.get_executor());
    for (const auto& s : sites_) {
        s->timer = std::make_unique<boost::asio::steady_timer>(io_);
        schedule(*s, until_renewal(*s));
    }
    thread_ = std::thread([this] { io_.run(); });
}

std::chrono::steady_clock::duration certificate_manager::until_renewal(const site_state& s) const {
    const std::lock_guard lock(s.mutex);
    if (s.is_fallback) {
        return std::chrono::seconds(0);
    }
    // A third of the lifetime before the end, as Caddy does.
    const auto lifetime = s.info.not_after - s.info.not_before;
    const auto renew_at = s.info.not_after - lifetime / 3;
    return std::max<std::chrono::steady_clock::duration>(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            renew_at - std::chrono::system_clock::now()),
        std::chrono::seconds(0));
}

void certificate_manager::schedule(site_state& s, std::chrono::steady_clock::duration delay) {
    s.timer->expires_after(delay);
    s.timer->async_wait([this, &s](const boost::system::error_code& ec) {
        if (!ec) {
            renew(s);
        }
    });
}

certificate_manager::account& certificate_manager::account_for(const std::string& email) {
    account& a = accounts_[email];
    if (!a.key) {
        a.key = private_key::generate();
        storage_.write(account_key(issuer_key(options_.ca), email, "key"), a.key->to_pem(), true);
        log()->info("made a new ACME account key for {}", email.empty() ? "(no email)" : email);
    }
    if (!a.client) {
        a.client = std::make_unique<acme_client>(options_.ca, *https_, *a.key, challenges_,
                                                 options_.challenges, stopping_);
    }
    if (a.url.empty()) {
        a.url = a.client->register_account(email);
        storage_.write(account_key(issuer_key(options_.ca), email, "json"),
                       nlohmann::json{{"url", a.url}, {"email", email}}.dump(1), false);
        log()->info("ACME account {} at {}", a.url, options_.ca);
    }
    return a;
}

pem_pair certificate_manager::obtain(site_state& s) {
    if (s.site.is_internal) {
        return local_ca_->issue(s.site.names);
    }
    account& a = account_for(s.site.email);
    const private_key key = private_key::generate();
    try {
        return {a.client->obtain(s.site.names, key).pem, key.to_pem()};
    } catch (const acme_error& e) {
        // An account the CA no longer knows: register again next time.
        if (e.type() == "urn:ietf:params:acme:error:accountDoesNotExist") {
            a.url.clear();
        }
        throw;
    }
}

void certificate_manager::renew(site_state& s) {
    const std::string& name = s.site.names.front();
    try {
        pem_pair pem = obtain(s);
        const certificate_info info = inspect_certificate(pem.certificate);
        storage_.write(certificate_key(s.issuer, name, "key"), pem.key, true);
        storage_.write(certificate_key(s.issuer, name, "crt"), pem.certificate, false);
        storage_.write(
            certificate_key(s.issuer, name, "json"),
            nlohmann::json{{"sans", s.site.names},
                           {"issuer_data", {{"ca", s.site.is_internal ? "local" : options_.ca}}}}
                .dump(1),
            false);
        publish(s, std::move(pem), false);
        s.failures = 0;
        log()->info("{}: new certificate from {}, valid until {}", join(s.site.names),
                    s.site.is_internal ? "the local CA" : options_.ca, utc_text(info.not_after));
        on_change_("new certificate for " + name);
        schedule(s, until_renewal(s));
    } catch (const std::exception& e) {
        if (stopping_.load()) {
            return;
        }
        ++s.failures;
        const auto* refusal = dynamic_cast<const acme_error*>(&e);
        const std::chrono::seconds delay =
            retry_delay(s.failures, options_.first_retry_delay, options_.max_retry_delay,
                        refusal != nullptr ? refusal->retry_after() : std::nullopt);
        bool is_fallback = false;
        std::chrono::system_clock::time_point not_after;
        {
            const std::lock_guard lock(s.mutex);
            is_fallback = s.is_fallback;
            not_after = s.info.not_after;
        }
        log()->warn("{}: cannot obtain a certificate (attempt {}): {}; retrying in {} s; {}",
                    join(s.site.names), s.failures, e.what(), delay.count(),
                    is_fallback
                        ? "serving the self-signed fallback meanwhile"
                        : "the current certificate stays, valid until " + utc_text(not_after));
        schedule(s, delay);
    }
}

}  // namespace spindle::acme
