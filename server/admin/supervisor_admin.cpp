#include "server/admin/supervisor_admin.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <system_error>

#include <spdlog/spdlog.h>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <nlohmann/json.hpp>

#include "server/http1/listener.hpp"

namespace spindle::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using json = nlohmann::json;

namespace {

// How long the supervisor waits for a process's answer: a GET is served by its I/O threads at
// once; a POST /load may boot a new generation of every worker first (the server allows 60 s).
constexpr std::chrono::milliseconds get_timeout{5'000};
constexpr std::chrono::milliseconds post_timeout{90'000};
// A client of the supervisor's endpoint gets this long to send its request.
constexpr std::chrono::seconds read_timeout{10};

// "name{a="b"} 1" -> "name{process="2",a="b"} 1"; "name 1" -> "name{process="2"} 1".
std::string with_process_label(const std::string& sample, std::size_t process) {
    const std::string label = "process=\"" + std::to_string(process) + "\"";
    const std::size_t cut = sample.find_first_of("{ ");
    if (cut == std::string::npos) {
        return sample;
    }
    if (sample[cut] == ' ') {
        return sample.substr(0, cut) + "{" + label + "}" + sample.substr(cut);
    }
    const bool empty = cut + 1 < sample.size() && sample[cut + 1] == '}';
    return sample.substr(0, cut + 1) + label + (empty ? "" : ",") + sample.substr(cut + 1);
}

// The metric family a "# HELP name ..." or "# TYPE name ..." line names.
std::string family_of(const std::string& line) {
    const std::size_t start = line.find(' ', 2) + 1;
    return line.substr(start, line.find(' ', start) - start);
}

// Answers one request from the supervisor's view and its processes' answers. Admin thread.
process_answer answer(const process_query& request, const std::vector<process_view>& processes) {
    const std::string path = request.target.substr(0, request.target.find('?'));
    std::vector<const process_view*> live;
    for (const process_view& p : processes) {
        if (p.pid != 0) {
            live.push_back(&p);
        }
    }
    if (path == "/healthz") {
        return {200, "text/plain; charset=utf-8", "ok\n"};
    }
    if (path == "/readyz") {
        for (const process_view& p : processes) {
            if (p.pid == 0 || !p.ready) {
                return {503, "text/plain; charset=utf-8",
                        "not ready: process " + std::to_string(p.index) +
                            (p.pid == 0 ? " is not running\n" : " is starting\n")};
            }
        }
        return {200, "text/plain; charset=utf-8", "ready\n"};
    }
    const bool is_post = request.method == "POST";
    const bool merges = !is_post && (path == "/metrics" || path == "/threads");
    std::vector<std::pair<std::size_t, std::string>> bodies;
    std::optional<process_answer> chosen;
    // A GET that is not merged (the status page, /config) is the same in every process: the
    // first answers it. A POST acts on every process.
    for (const process_view* p : live) {
        std::optional<process_answer> got =
            query_process(p->admin_path, request, is_post ? post_timeout : get_timeout);
        if (!got) {
            continue;  // it died meanwhile: the others still answer
        }
        if (merges) {
            if (got->status == 200) {
                bodies.emplace_back(p->index, std::move(got->body));
            }
            continue;
        }
        if (!chosen || (chosen->status < 300 && got->status >= 300)) {
            chosen = std::move(got);
        }
        if (!is_post) {
            break;
        }
    }
    if (path == "/metrics" && merges) {
        std::string text = merge_metrics(bodies);
        text +=
            "# HELP spindle_process_deaths_total Server processes that died in this place "
            "(restarted unless emergency_restart_threshold was reached).\n"
            "# TYPE spindle_process_deaths_total counter\n";
        for (const process_view& p : processes) {
            text += "spindle_process_deaths_total{process=\"" + std::to_string(p.index) + "\"} " +
                    std::to_string(p.deaths) + "\n";
        }
        text +=
            "# HELP spindle_processes Server processes running.\n"
            "# TYPE spindle_processes gauge\n"
            "spindle_processes " +
            std::to_string(live.size()) + "\n";
        return {200, "text/plain; version=0.0.4; charset=utf-8", std::move(text)};
    }
    if (path == "/threads" && merges) {
        return {200, "application/json", merge_threads(bodies, processes)};
    }
    if (!chosen) {
        return {503, "text/plain; charset=utf-8", "no server process answered\n"};
    }
    return *chosen;
}

// One connection of the supervisor's endpoint: one request, one answer, closed. Admin thread.
class supervisor_session : public std::enable_shared_from_this<supervisor_session> {
  public:
    supervisor_session(tcp::socket socket, supervisor_admin::process_list processes)
        : stream_(std::move(socket)), processes_(std::move(processes)) {}

    void start() {
        stream_.expires_after(read_timeout);
        parser_.body_limit(1 << 20);
        http::async_read(
            stream_, buffer_, parser_,
            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }

  private:
    void on_read(beast::error_code ec) {
        if (ec) {
            return;
        }
        const http::request<http::string_body>& req = parser_.get();
        process_query request{
            std::string(req.method_string()), std::string(req.target()), {}, req.body()};
        for (const http::field name :
             {http::field::host, http::field::origin, http::field::content_type}) {
            if (const auto value = req.find(name); value != req.end()) {
                request.fields.emplace_back(std::string(value->name_string()),
                                            std::string(value->value()));
            }
        }
        if (const auto file = req.find("X-Spindle-Config-File"); file != req.end()) {
            request.fields.emplace_back("X-Spindle-Config-File", std::string(file->value()));
        }
        const process_answer got = answer(request, processes_());
        response_.version(11);
        response_.result(static_cast<unsigned>(got.status));
        response_.set(http::field::content_type, got.content_type);
        response_.set(http::field::connection, "close");
        response_.body() = req.method() == http::verb::head ? std::string() : got.body;
        response_.prepare_payload();
        http::async_write(stream_, response_,
                          [self = shared_from_this()](beast::error_code, std::size_t) {
                              beast::error_code ignored;
                              self->stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
                          });
    }

    beast::tcp_stream stream_;
    supervisor_admin::process_list processes_;
    beast::flat_buffer buffer_;
    http::request_parser<http::string_body> parser_;
    http::response<http::string_body> response_;
};

}  // namespace

std::optional<process_answer> query_process(const std::string& path, const process_query& query,
                                            std::chrono::milliseconds timeout) {
    net::io_context ioc;
    beast::basic_stream<net::local::stream_protocol> stream(ioc);
    http::request<http::string_body> req;
    req.method_string(query.method);
    req.target(query.target);
    req.version(11);
    req.set(http::field::host, "localhost");
    for (const auto& [name, value] : query.fields) {
        req.set(name, value);
    }
    req.set(http::field::connection, "close");
    req.body() = query.body;
    req.prepare_payload();
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    beast::error_code result = net::error::timed_out;
    stream.expires_after(timeout);
    stream.async_connect(net::local::stream_protocol::endpoint(path), [&](beast::error_code ec) {
        if (ec) {
            result = ec;
            return;
        }
        http::async_write(stream, req, [&](beast::error_code wec, std::size_t) {
            if (wec) {
                result = wec;
                return;
            }
            http::async_read(stream, buffer, res,
                             [&](beast::error_code rec, std::size_t) { result = rec; });
        });
    });
    ioc.run();
    if (result) {
        return std::nullopt;
    }
    return process_answer{static_cast<int>(res.result_int()),
                          std::string(res[http::field::content_type]), std::move(res.body())};
}

std::string merge_metrics(const std::vector<std::pair<std::size_t, std::string>>& texts) {
    struct family {
        std::string help;
        std::string type;
        std::string samples;
    };
    std::vector<std::string> order;
    std::map<std::string, family> families;
    const auto find = [&](const std::string& name) -> family& {
        auto [at, added] = families.try_emplace(name);
        if (added) {
            order.push_back(name);
        }
        return at->second;
    };
    for (const auto& [process, text] : texts) {
        std::istringstream lines(text);
        std::string current;
        for (std::string line; std::getline(lines, line);) {
            if (line.empty()) {
                continue;
            }
            if (line.starts_with("# HELP ") || line.starts_with("# TYPE ")) {
                current = family_of(line);
                family& f = find(current);
                (line[2] == 'H' ? f.help : f.type) = line;
                continue;
            }
            if (line.starts_with('#')) {
                continue;
            }
            if (current.empty()) {
                current = line.substr(0, line.find_first_of("{ "));
            }
            find(current).samples += with_process_label(line, process) + "\n";
        }
    }
    std::string out;
    for (const std::string& name : order) {
        const family& f = families[name];
        for (const std::string* line : {&f.help, &f.type}) {
            if (!line->empty()) {
                out += *line + "\n";
            }
        }
        out += f.samples;
    }
    return out;
}

std::string merge_threads(const std::vector<std::pair<std::size_t, std::string>>& documents,
                          const std::vector<process_view>& processes) {
    json merged = json::object();
    json threads = json::array();
    json groups = json::array();
    bool ready = !documents.empty();
    for (const auto& [process, text] : documents) {
        json document = json::parse(text, nullptr, false);
        if (document.is_discarded() || !document.is_object()) {
            continue;
        }
        if (merged.empty()) {
            merged = document;
            for (const char* count :
                 {"total", "busy", "max_threads", "threads_added", "threads_removed"}) {
                merged[count] = 0;
            }
            merged["draining"] = false;
        }
        for (const char* count :
             {"total", "busy", "max_threads", "threads_added", "threads_removed"}) {
            merged[count] =
                merged[count].get<std::uint64_t>() + document.value(count, std::uint64_t{0});
        }
        ready = ready && document.value("ready", false);
        merged["draining"] = merged["draining"].get<bool>() || document.value("draining", false);
        for (const char* list : {"threads", "groups"}) {
            json& into = std::string_view(list) == "threads" ? threads : groups;
            for (json entry : document.value(list, json::array())) {
                entry["process"] = process;
                into.push_back(std::move(entry));
            }
        }
    }
    merged["ready"] = ready;
    merged["threads"] = std::move(threads);
    merged["groups"] = std::move(groups);
    json list = json::array();
    for (const process_view& p : processes) {
        list.push_back(
            {{"process", p.index}, {"pid", p.pid}, {"ready", p.ready}, {"deaths", p.deaths}});
    }
    merged["processes"] = std::move(list);
    return merged.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

supervisor_admin::supervisor_admin(const tcp::endpoint& endpoint, process_list processes)
    : acceptor_(ioc_), processes_(std::move(processes)) {
    open_acceptor(acceptor_, endpoint, "cannot listen for the admin endpoint on ");
}

supervisor_admin::~supervisor_admin() {
    ioc_.stop();
    if (thread_.joinable()) {
        thread_.join();
    }
}

tcp::endpoint supervisor_admin::local_endpoint() const {
    return acceptor_.local_endpoint();
}

void supervisor_admin::start() {
    do_accept();
    thread_ = std::thread([this] { ioc_.run(); });
}

void supervisor_admin::do_accept() {
    acceptor_.async_accept([this](beast::error_code ec, tcp::socket socket) {
        if (ec == net::error::operation_aborted) {
            return;
        }
        if (!ec) {
            std::make_shared<supervisor_session>(std::move(socket), processes_)->start();
        }
        do_accept();
    });
}

}  // namespace spindle::server
