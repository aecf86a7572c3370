#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/ssl/context.hpp>

namespace spindle::acme {

/// One HTTPS request to the CA.
struct https_request {
    std::string method = "GET";  ///< GET, HEAD or POST
    std::string url;             ///< https://host[:port]/path
    std::string body;
    std::string content_type;  ///< with a body
    std::string accept;        ///< empty: none
};

/// Its answer. Header names lower case; the last of repeated headers wins, except Link
/// headers, which are joined with ", ".
struct https_response {
    unsigned status = 0;
    std::map<std::string, std::string> headers;
    std::string body;

    /// The header's value, or "".
    std::string header(const std::string& lower_name) const;
};

/// A blocking HTTPS/1.1 client for the ACME thread: one connection per request (an ACME
/// conversation is a dozen requests a day), each step bounded by a timeout. The CA's
/// certificate is verified against the system's roots plus `trusted_roots` (acme_ca_root), and
/// its name against the URL's host.
class https_client {
  public:
    /// Throws std::runtime_error naming a root file that cannot be read.
    explicit https_client(const std::vector<std::string>& trusted_roots,
                          std::chrono::seconds timeout = std::chrono::seconds(30));
    ~https_client();

    /// Sends `request`; throws std::runtime_error saying what failed (DNS, connect, TLS,
    /// timeout) when no answer came. Any HTTP status is an answer.
    https_response send(const https_request& request);

  private:
    std::unique_ptr<boost::asio::ssl::context> tls_;
    std::chrono::seconds timeout_;
};

}  // namespace spindle::acme
