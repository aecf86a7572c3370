#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace spindle::server {

/// One server process as the supervisor sees it, for its admin endpoint.
struct process_view {
    std::size_t index = 0;   ///< 1 .. processes
    pid_t pid = 0;           ///< 0 while none runs in this place
    bool ready = false;      ///< its /readyz answered 200 since it started
    std::size_t deaths = 0;  ///< processes that died in this place
    std::string admin_path;  ///< its private admin endpoint (Unix socket)
};

/// What a server process's private admin endpoint answered.
struct process_answer {
    int status = 0;
    std::string content_type;
    std::string body;
};

/// A request for a server process's private admin endpoint.
struct process_query {
    std::string method = "GET";
    std::string target;
    /// Fields passed on as the supervisor's client sent them (Host, Origin, Content-Type,
    /// X-Spindle-Config-File): the process makes its POST checks against that client.
    std::vector<std::pair<std::string, std::string>> fields;
    std::string body;
};

/// Sends `query` to the private admin endpoint at `path` (a Unix socket) and waits for the
/// answer at most `timeout`; nullopt when it cannot be reached or does not answer in time (a
/// process that just died). Any thread; each call runs its own io_context.
std::optional<process_answer> query_process(const std::string& path, const process_query& query,
                                            std::chrono::milliseconds timeout);

/// The Prometheus texts of several processes as one: every sample gets a `process` label, and
/// each metric family is written once, its HELP and TYPE first, with the samples of every
/// process together (the text format allows a family in one group only).
std::string merge_metrics(const std::vector<std::pair<std::size_t, std::string>>& texts);

/// The /threads documents of several processes as one: the first answer's fields, summed
/// counts, every thread and group with the `process` it runs in, and the `processes` list.
std::string merge_threads(const std::vector<std::pair<std::size_t, std::string>>& documents,
                          const std::vector<process_view>& processes);

/// The supervisor's admin endpoint, on the configured admin address: it shows every server
/// process as one server by asking each one's private endpoint and merging the answers
/// (/metrics and /threads labelled by process), forwards POSTs to every process, and answers
/// /healthz and /readyz for all of them. Its own thread runs an io_context that serves one
/// connection at a time (it is for operators and scrapers, not traffic).
class supervisor_admin {
  public:
    /// The supervisor's view of its processes, taken under its lock. Any thread.
    using process_list = std::function<std::vector<process_view>()>;

    /// Binds and listens at once; throws std::system_error naming the address.
    supervisor_admin(const boost::asio::ip::tcp::endpoint& endpoint, process_list processes);
    ~supervisor_admin();
    supervisor_admin(const supervisor_admin&) = delete;
    supervisor_admin& operator=(const supervisor_admin&) = delete;

    boost::asio::ip::tcp::endpoint local_endpoint() const;

    /// Starts its thread (control thread).
    void start();

  private:
    void do_accept();

    boost::asio::io_context ioc_;
    boost::asio::ip::tcp::acceptor acceptor_;
    process_list processes_;
    std::thread thread_;
};

}  // namespace spindle::server
