#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "acme/acme_client.hpp"
#include "acme/challenge_store.hpp"
#include "acme/file_storage.hpp"
#include "acme/https_client.hpp"
#include "acme/local_ca.hpp"
#include "acme/x509_tools.hpp"

namespace spindle::acme {

/// One site whose certificate Spindle manages.
struct managed_site {
    std::vector<std::string> names;  ///< the site's host names, lower case
    bool is_internal = false;        ///< `tls internal`: the local CA, else the ACME CA
    std::string email;               ///< the ACME account's contact; empty: the global one
};

/// Where certificates come from and how the CA is reached.
struct manager_options {
    std::string ca;  ///< ACME directory URL
    std::string email;
    std::vector<std::string> trusted_roots;  ///< extra roots for the CA's HTTPS (acme_ca_root)
    std::string storage;                     ///< storage root; empty: default_storage_root()
    /// Challenge types this server answers, in order of preference: http-01 needs a plain
    /// HTTP listener the CA reaches on port 80, tls-alpn-01 an HTTPS one on 443.
    std::vector<challenge_type> challenges;
    /// The first wait after a failed attempt; doubled per failure up to max_retry_delay.
    std::chrono::seconds first_retry_delay{5};
    std::chrono::seconds max_retry_delay{3600};
};

/// Obtains, stores and renews the certificates of managed sites, and hands the current one to
/// the TLS listeners.
///
/// Threads: the constructor runs on the control thread before any listener is built and
/// leaves every site with a certificate: the stored one when it is still valid, a new one
/// from the local CA, or a self-signed fallback (with a warning) until the ACME CA issues
/// one. start() then runs one "ACME thread" with its own io_context: a timer per site fires
/// at renewal time (a third of the lifetime before the end) and runs the whole ACME
/// conversation there, blocking only that thread. A failure is logged with its reason and
/// retried after a doubling delay (first_retry_delay up to max_retry_delay) or the CA's
/// Retry-After if longer; the site keeps the certificate it has. A new certificate is stored,
/// published (current()) and announced through `on_change` (which reloads the listeners'
/// certificate sets: new handshakes use it, open connections keep theirs). I/O threads read
/// challenges() during validation; the control thread reads current() and expiries().
class certificate_manager {
  public:
    /// Throws std::runtime_error naming the file when a stored account key, the local CA or
    /// an acme_ca_root file cannot be used.
    certificate_manager(manager_options options, std::vector<managed_site> sites,
                        std::function<void(const std::string& why)> on_change);
    ~certificate_manager();
    certificate_manager(const certificate_manager&) = delete;
    certificate_manager& operator=(const certificate_manager&) = delete;

    /// Starts the ACME thread (control thread, once the listeners are bound).
    void start();

    /// The certificate site `index` serves now (any thread).
    pem_pair current(std::size_t index) const;

    /// Where TLS-ALPN-01 and HTTP-01 answers are published.
    challenge_store& challenges() noexcept { return challenges_; }

    /// One managed certificate's end of validity, for /metrics.
    struct expiry {
        std::string name;  ///< the site's first name
        std::chrono::system_clock::time_point not_after;
        bool is_fallback;  ///< the self-signed stand-in, not yet the CA's
    };
    std::vector<expiry> expiries() const;

  private:
    struct site_state {
        managed_site site;
        std::string issuer;  ///< storage issuer key: the CA's, or "local"
        mutable std::mutex mutex;
        pem_pair pem;              ///< mutex
        certificate_info info;     ///< mutex
        bool is_fallback = false;  ///< mutex
        unsigned failures = 0;     ///< ACME thread
        std::unique_ptr<boost::asio::steady_timer> timer;
    };
    struct account {
        std::optional<private_key> key;
        std::unique_ptr<acme_client> client;
        std::string url;
    };

    void load_or_fallback(site_state& s);
    void publish(site_state& s, pem_pair pem, bool is_fallback);
    void schedule(site_state& s, std::chrono::steady_clock::duration delay);
    std::chrono::steady_clock::duration until_renewal(const site_state& s) const;
    void renew(site_state& s);
    pem_pair obtain(site_state& s);
    account& account_for(const std::string& email);
    std::optional<private_key> stored_account_key(const std::string& email) const;

    manager_options options_;
    file_storage storage_;
    std::function<void(const std::string&)> on_change_;
    challenge_store challenges_;
    std::vector<std::unique_ptr<site_state>> sites_;
    std::unique_ptr<local_ca> local_ca_;       ///< when a site is internal
    std::unique_ptr<https_client> https_;      ///< when a site uses ACME
    std::map<std::string, account> accounts_;  ///< by email; ACME thread after start()
    std::atomic<bool> stopping_{false};        ///< set by the destructor, read by the ACME thread
    boost::asio::io_context io_;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
    std::thread thread_;
};

}  // namespace spindle::acme
