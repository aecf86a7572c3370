#include "config/caddyfile_adapter.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "config/caddyfile_dispenser.hpp"
#include "config/ip_ranges.hpp"
#include "config/watch_pattern.hpp"

namespace spindle::config {

namespace {

using caddyfile::dispenser;
using caddyfile::server_block;
using caddyfile::token;

bool is_whole_number(std::string_view text) {
    return !text.empty() && text.size() <= 9 &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Caddy reads a token starting with '/', '*' or '@' in matcher position as a matcher.
bool is_matcher(std::string_view text) {
    return text.starts_with('/') || text.starts_with('*') || text.starts_with('@');
}

// The one argument of a directive line; anything else is an argument-count error.
std::string one_arg(dispenser& d) {
    if (!d.next_arg()) {
        throw d.arg_error();
    }
    std::string value = d.val();
    if (d.next_arg()) {
        throw d.arg_error();
    }
    return value;
}

// Called on the option's name: `num_threads 8`.
json integer_arg(dispenser& d) {
    const std::string option = d.val();
    const std::string value = one_arg(d);
    if (!is_whole_number(value)) {
        throw d.error(option + ": \"" + value + "\" is not a whole number");
    }
    return std::stoll(value);
}

// `php_server *`, `file_server *`: Spindle's handlers apply to the whole site, so the only
// matcher they accept is the one that means that. Reads the directive's first argument and
// passes over it when it is "*"; returns the argument that follows, if any (the cursor is on
// it): "file_server browse" has no matcher, only an argument.
std::optional<std::string> refuse_matcher(dispenser& d, const std::string& directive) {
    if (!d.next_arg()) {
        return std::nullopt;
    }
    if (is_matcher(d.val())) {
        if (d.val() != "*") {
            throw d.error(directive + ": matcher \"" + d.val() +
                          "\" is not supported (only * or none: it applies to the whole site)");
        }
        if (!d.next_arg()) {
            return std::nullopt;
        }
    }
    return d.val();
}

// A block that must not be there: `file_server { browse }` and the like.
void no_block(dispenser& d, const std::string& directive) {
    for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
        throw d.error(directive + ": unknown option \"" + d.val() + "\"");
    }
}

// Why a global option of Caddy's certificate automation means nothing to Spindle, whose
// automatic HTTPS has only email, acme_ca, acme_ca_root and storage; null for any other
// option.
const char* certificate_option(const std::string& name) {
    static const char* const certificates =
        "Spindle's automatic HTTPS has no such setting (HTTP-01 and TLS-ALPN-01 with the "
        "defaults; see docs/tls.md)";
    if (name == "skip_install_trust") {
        return "Spindle never installs a certificate authority in a trust store";
    }
    if (name == "persist_config") {
        return "Spindle keeps no configuration of its own to persist";
    }
    for (const char* option : {"local_certs", "acme_dns", "acme_eab", "cert_issuer", "key_type",
                               "ocsp_stapling", "ocsp_interval", "on_demand_tls", "storage_check",
                               "storage_clean_interval", "renew_interval", "preferred_chains"}) {
        if (name == option) {
            return certificates;
        }
    }
    return nullptr;
}

// One site address: [http[s]://]host[:port], :port, [ipv6]:port.
struct site_key {
    std::string host;  ///< lower case; "" for ":port"
    std::uint16_t port = 0;
    bool port_given = false;
    bool scheme_given = false;
    bool https = false;  ///< written with https://
};

// Caddy's rule (certmagic's SubjectQualifiesForPublicCert): names a public CA will never
// sign get a certificate from the local CA instead.
bool qualifies_for_public_certificate(const std::string& host) {
    const auto ends_with = [&](std::string_view suffix) { return host.ends_with(suffix); };
    const bool is_ip = host.find_first_not_of("0123456789.") == std::string::npos ||
                       host.find(':') != std::string::npos;
    return !is_ip && host != "localhost" && !ends_with(".localhost") && !ends_with(".local") &&
           !ends_with(".internal") && !ends_with(".home.arpa") &&
           host.find('.') != std::string::npos;
}

site_key parse_site_key(const token& key) {
    const auto fail = [&](const std::string& message) {
        return config_error("site address \"" + key.text + "\": " + message, key.file, key.line);
    };
    std::string text = key.text;
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    site_key result;
    if (text.starts_with("http://") || text.starts_with("https://")) {
        result.https = text.starts_with("https://");
        text.erase(0, text.find("://") + 3);
        result.scheme_given = true;
    } else if (text.find("://") != std::string::npos) {
        throw fail("unknown scheme (use http:// or https://)");
    }
    if (const std::size_t slash = text.find('/'); slash != std::string::npos) {
        if (slash + 1 != text.size()) {
            throw fail("a path in a site address is not supported");
        }
        text.pop_back();
    }
    std::string port;
    if (text.starts_with('[')) {
        const std::size_t close = text.find(']');
        if (close == std::string::npos) {
            throw fail("unclosed '['");
        }
        result.host = text.substr(0, close + 1);
        if (close + 1 < text.size()) {
            if (text[close + 1] != ':') {
                throw fail("expected ':' after ']'");
            }
            port = text.substr(close + 2);
            result.port_given = true;
        }
    } else if (const std::size_t colon = text.rfind(':'); colon != std::string::npos) {
        result.host = text.substr(0, colon);
        port = text.substr(colon + 1);
        result.port_given = true;
    } else {
        result.host = text;
    }
    if (result.port_given) {
        if (!is_whole_number(port) || std::stoul(port) > 65535) {
            throw fail("\"" + port + "\" is not a port");
        }
        result.port = static_cast<std::uint16_t>(std::stoul(port));
    }
    if (result.host.find_first_of("{}*") != std::string::npos && !result.host.starts_with("*.")) {
        throw fail("only *.domain wildcards are supported in host names");
    }
    return result;
}

std::string listen_text(const std::string& bind, std::uint16_t port) {
    if (bind.starts_with("unix/")) {
        return bind;  // a Unix socket has no port: the site's port only names it
    }
    const bool ipv6 = bind.find(':') != std::string::npos && !bind.starts_with('[');
    return (ipv6 ? "[" + bind + "]" : bind) + ":" + std::to_string(port);
}

class adapter {
  public:
    adapted_caddyfile result;

    void run(const std::vector<server_block>& blocks) {
        result.document = json::object();
        std::size_t site_index = 0;
        for (const server_block& block : blocks) {
            if (block.global_options) {
                global_options(block);
            } else {
                site(block, site_index++);
            }
        }
        if (site_index == 0) {
            throw config_error("the Caddyfile has no site block (e.g. \":8080 { php_server }\")",
                               file_, 0);
        }
    }

    explicit adapter(std::string file) : file_(std::move(file)) {}

  private:
    void mark(const std::string& pointer, const token& at) {
        result.sources[pointer] = {at.file, at.line, pointer};
    }

    void warn(const dispenser& d, const std::string& message) {
        result.warnings.push_back(d.error(message).what());
    }

    json& section(const char* name) {
        json& node = result.document[name];
        if (node.is_null()) {
            node = json::object();
        }
        return node;
    }

    // --- global options ------------------------------------------------------------------

    void global_options(const server_block& block) {
        for (const caddyfile::segment& segment : block.segments) {
            dispenser d(segment.tokens);
            d.next();
            const std::string name = d.val();
            if (name == "frankenphp") {
                frankenphp(d);
            } else if (name == "servers") {
                servers(d);
            } else if (name == "log") {
                global_log(d);
            } else if (name == "debug") {
                if (d.next_arg()) {
                    throw d.arg_error();
                }
                section("log")["level"] = "debug";
                mark("/log/level", d.current());
            } else if (name == "admin") {
                // "off" or an address; config_from_json checks the address.
                result.document["admin"] = one_arg(d);
                mark("/admin", d.current());
                no_block(d, name);
            } else if (name == "grace_period") {
                result.document["grace_period"] = one_arg(d);
                mark("/grace_period", d.current());
            } else if (name == "http_port" || name == "https_port") {
                const json port = integer_arg(d);
                if (port.get<std::int64_t>() < 1 || port.get<std::int64_t>() > 65535) {
                    throw d.error(name + ": \"" + d.val() + "\" is not a port");
                }
                (name == "http_port" ? http_port_ : https_port_) =
                    static_cast<std::uint16_t>(port.get<std::int64_t>());
            } else if (name == "default_bind") {
                default_bind_ = d.remaining_args();
                if (default_bind_.empty()) {
                    throw d.arg_error();
                }
            } else if (name == "auto_https") {
                // Caddy's modes: "off" (neither certificates nor redirects),
                // "disable_redirects", "disable_certs" (sites with a host name stay plain HTTP
                // unless they have tls).
                const std::string mode = one_arg(d);
                if (mode == "off" || mode == "disable_redirects") {
                    https_redirects_ = false;
                }
                if (mode == "off" || mode == "disable_certs") {
                    automatic_certificates_ = false;
                } else if (mode != "disable_redirects") {
                    throw d.error("auto_https: \"" + mode +
                                  "\" is not supported (use off, disable_redirects or "
                                  "disable_certs)");
                }
            } else if (name == "email" || name == "acme_ca") {
                const std::string value = one_arg(d);
                no_block(d, name);
                result.document["acme"][name == "email" ? "email" : "ca"] = value;
                mark(name == "email" ? "/acme/email" : "/acme/ca", d.current());
            } else if (name == "acme_ca_root") {
                const std::string value = one_arg(d);
                no_block(d, name);
                result.document["acme"]["trusted_roots_pem_files"] = json::array({value});
                mark("/acme/trusted_roots_pem_files", d.current());
            } else if (name == "storage") {
                storage(d);
            } else if (name == "order") {
                order(d);
            } else if (name == "metrics") {
                // Already so: the admin endpoint always serves /metrics.
                if (d.next_arg()) {
                    throw d.arg_error();
                }
                no_block(d, name);
            } else if (const char* why = certificate_option(name)) {
                // Caddy's certificate automation, which FrankenPHP's image and docs set
                // (skip_install_trust in its stock Caddyfile): accepted, so those files start,
                // with a word that nothing happens.
                warn(d, name + " has no effect: " + why);
                d.remaining_args();
                for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
                }
            } else {
                throw d.error("unknown global option \"" + name + "\"");
            }
        }
    }

    // storage file_system PATH, or storage file_system { root PATH } (Caddy's two forms).
    void storage(dispenser& d) {
        if (!d.next_arg()) {
            throw d.arg_error();
        }
        const std::string module = d.val();
        if (module != "file_system") {
            throw d.error("storage " + module + ": only file_system is supported");
        }
        std::string root;
        if (d.next_arg()) {
            root = d.val();
            if (d.next_arg()) {
                throw d.arg_error();
            }
            no_block(d, "storage");
        } else {
            for (std::size_t nesting = d.nesting(); d.next_block(nesting);) {
                if (d.val() != "root") {
                    throw d.error("storage file_system: unknown option \"" + d.val() + "\"");
                }
                root = one_arg(d);
            }
        }
        if (root.empty()) {
            throw d.error("storage file_system needs a directory (storage file_system PATH)");
        }
        result.document["storage"] = {{"module", "file_system"}, {"root", root}};
        mark("/storage", d.current());
    }

    // order DIRECTIVE before|after OTHER. Spindle's handlers run in Caddy's default order with
    // FrankenPHP's directives placed (respond, then php_server/php with its worker matches,
    // then file_server): what agrees with it is accepted as it is; putting php_server or php
    // before respond (FrankenPHP's `order php_server before respond`) makes PHP answer first
    // and respond only see what PHP leaves. Any other order cannot be honoured: a warning.
    void order(dispenser& d) {
        const std::vector<std::string> args = d.remaining_args();
        if (args.size() != 3 && args.size() != 2) {
            throw d.arg_error();
        }
        if (args.size() == 3 && args[1] != "before" && args[1] != "after") {
            throw d.error("order: \"" + args[1] + "\" is not before or after");
        }
        // Spindle's places, in order; a directive not here has no place to move.
        constexpr int respond = 0;
        constexpr int php = 1;
        constexpr std::array<std::pair<std::string_view, int>, 4> places{
            {{"respond", respond}, {"php_server", php}, {"php", php}, {"file_server", 2}}};
        const auto place = [&](const std::string& directive) -> std::optional<int> {
            for (const auto& [name, rank] : places) {
                if (name == directive) {
                    return rank;
                }
            }
            return std::nullopt;
        };
        const std::optional<int> moved = place(args[0]);
        const std::optional<int> anchor = args.size() == 3 ? place(args[2]) : std::nullopt;
        if (moved && anchor) {
            const bool before = args[1] == "before";
            if ((*moved == php && *anchor == respond && before) ||
                (*moved == respond && *anchor == php && !before)) {
                php_before_respond_ = true;
                return;
            }
            if (*moved == *anchor || before == (*moved < *anchor)) {
                return;  // already so
            }
        }
        warn(d, "order " + args[0] + " " + args[1] + (args.size() == 3 ? " " + args[2] : "") +
                    ": not supported, ignored (Spindle runs respond, php_server/php with its "
                    "worker matches, then file_server; only php_server or php before respond "
                    "can be changed)");
    }

    void frankenphp(dispenser& d) {
        if (d.next_arg()) {
            throw d.arg_error();
        }
        json& php = section("php");
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string option = d.val();
            const token at = d.current();
            if (option == "num_threads" || option == "max_queue" || option == "max_requests" ||
                option == "processes" || option == "emergency_restart_threshold") {
                php[option] = integer_arg(d);
                mark("/php/" + option, at);
            } else if (option == "max_wait_time" || option == "max_memory" ||
                       option == "max_idle_time" || option == "slowlog_timeout" ||
                       option == "emergency_restart_interval") {
                php[option] = one_arg(d);
                mark("/php/" + option, at);
            } else if (option == "max_threads") {
                // A thread count, or auto: as many as the memory holds at memory_limit each.
                const std::string value = one_arg(d);
                if (value != "auto" && !is_whole_number(value)) {
                    throw d.error("max_threads: \"" + value + "\" is not a thread count or auto");
                }
                php[option] = value == "auto" ? json("auto") : json(std::stoll(value));
                mark("/php/" + option, at);
            } else if (option == "php_ini") {
                php_ini(d, php);
            } else if (option == "worker") {
                json& workers = php["workers"];
                const std::string pointer = "/php/workers/" + std::to_string(workers.size());
                workers.push_back(worker(d, pointer));
            } else {
                throw d.error("unknown frankenphp option \"" + option + "\"");
            }
        }
    }

    // php_ini KEY VALUE, or a block of KEY VALUE lines.
    void php_ini(dispenser& d, json& php) {
        json& ini = php["ini"];
        if (ini.is_null()) {
            ini = json::object();
        }
        auto add = [&] {
            const std::string key = d.val();
            const token at = d.current();
            if (!d.next_arg()) {
                throw d.error("php_ini " + key + ": missing value");
            }
            ini[key] = d.val();
            mark(pointer_child("/php/ini", key), at);
            if (d.next_arg()) {
                throw d.arg_error();
            }
        };
        if (d.next_arg()) {
            add();
            return;
        }
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            add();
        }
    }

    // worker FILE [NUM] | worker [FILE [NUM]] { file; num; max_threads; env; name; match;
    // max_requests;
    // max_memory; max_consecutive_failures; watch [PATTERN...] }
    json worker(dispenser& d, const std::string& pointer) {
        json w = json::object();
        const token worker_at = d.current();
        mark(pointer, worker_at);
        if (d.next_arg()) {
            w["file"] = d.val();
            if (d.next_arg()) {
                if (!is_whole_number(d.val())) {
                    throw d.error("worker: \"" + d.val() + "\" is not a thread count");
                }
                w["num"] = std::stoll(d.val());
            }
            if (d.next_arg()) {
                throw d.arg_error();
            }
        }
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string option = d.val();
            const token at = d.current();
            if (option == "file" || option == "name" || option == "max_memory") {
                w[option] = one_arg(d);
            } else if (option == "num" || option == "max_requests" || option == "max_threads") {
                w[option] = integer_arg(d);
            } else if (option == "max_consecutive_failures") {
                const std::string value = one_arg(d);
                if (value != "-1" && !is_whole_number(value)) {
                    throw d.error(option + ": \"" + value + "\" is not a whole number or -1");
                }
                w[option] = std::stoll(value);
            } else if (option == "env") {
                env_line(d, w["env"], pointer + "/env");
                continue;
            } else if (option == "match") {
                for (std::string pattern : d.remaining_args()) {
                    w["match"].push_back(std::move(pattern));
                }
                if (w["match"].empty()) {
                    throw d.arg_error();
                }
            } else if (option == "watch") {
                // Without patterns, FrankenPHP's default: the app's code and configuration.
                std::vector<std::string> patterns = d.remaining_args();
                if (patterns.empty()) {
                    patterns.emplace_back(default_watch_pattern);
                }
                for (std::string& pattern : patterns) {
                    w["watch"].push_back(std::move(pattern));
                }
            } else {
                throw d.error("unknown worker option \"" + option + "\"");
            }
            mark(pointer + "/" + option, at);
        }
        if (!w.contains("file")) {
            // At the worker line: the cursor is on the block's closing brace by now.
            throw config_error("worker: no file given", worker_at.file, worker_at.line);
        }
        return w;
    }

    // env NAME VALUE (an empty value must be written "").
    void env_line(dispenser& d, json& env, const std::string& pointer) {
        if (env.is_null()) {
            env = json::object();
        }
        const token at = d.current();
        if (!d.next_arg()) {
            throw d.arg_error();
        }
        const std::string name = d.val();
        if (!d.next_arg()) {
            throw d.error("env " + name + ": missing value (write \"\" for an empty one)");
        }
        env[name] = d.val();
        mark(pointer_child(pointer, name), at);
        if (d.next_arg()) {
            throw d.arg_error();
        }
    }

    void servers(dispenser& d) {
        if (d.next_arg()) {
            throw d.error(
                "servers: options per listener address are not supported; give them "
                "without an address");
        }
        json& http = section("http");
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string option = d.val();
            const token at = d.current();
            if (option == "timeouts") {
                if (d.next_arg()) {
                    throw d.arg_error();
                }
                json& timeouts = http["timeouts"];
                for (const std::size_t inner = d.nesting(); d.next_block(inner);) {
                    const std::string kind = d.val();
                    const token kind_at = d.current();
                    if (kind != "read_header" && kind != "read_body" && kind != "write" &&
                        kind != "idle") {
                        throw d.error("unknown timeout \"" + kind +
                                      "\" (use read_header, read_body, write or idle)");
                    }
                    timeouts[kind] = one_arg(d);
                    mark("/http/timeouts/" + kind, kind_at);
                }
            } else if (option == "max_header_size" || option == "max_body_size" ||
                       option == "response_memory_size" || option == "response_memory_total" ||
                       option == "max_response_file_size" || option == "min_write_rate") {
                http[option] = one_arg(d);
                mark("/http/" + option, at);
            } else if (option == "max_connections" || option == "io_threads") {
                http[option] = integer_arg(d);
                mark("/http/" + option, at);
            } else if (option == "trusted_proxies") {
                http["trusted_proxies"] = trusted_proxies(d);
                mark("/http/trusted_proxies", at);
            } else if (option == "trusted_proxies_strict" || option == "trusted_proxies_unix" ||
                       option == "trusted_proxies_host") {
                if (d.next_arg()) {
                    throw d.arg_error();
                }
                // Caddy's JSON has the strict switch as an integer.
                http[option] = option == "trusted_proxies_strict" ? json(1) : json(true);
                mark("/http/" + option, at);
            } else if (option == "client_ip_headers") {
                const std::vector<std::string> names = d.remaining_args();
                if (names.empty()) {
                    throw d.arg_error();
                }
                http["client_ip_headers"] = names;
                mark("/http/client_ip_headers", at);
            } else if (option == "protocols") {
                const std::vector<std::string> names = d.remaining_args();
                if (names.empty()) {
                    throw d.arg_error();
                }
                http["protocols"] = names;
                mark("/http/protocols", at);
            } else if (option == "listener_wrappers") {
                http["listener_wrappers"] = listener_wrappers(d);
                mark("/http/listener_wrappers", at);
            } else {
                throw d.error("unknown servers option \"" + option + "\"");
            }
        }
    }

    // trusted_proxies static RANGE... | private_ranges (Caddy's static IP source).
    json trusted_proxies(dispenser& d) {
        if (!d.next_arg()) {
            throw d.arg_error();
        }
        if (d.val() != "static") {
            throw d.error("trusted_proxies: source \"" + d.val() +
                          "\" is not supported (use static)");
        }
        json ranges = json::array();
        while (d.next_arg()) {
            if (d.val() == "private_ranges") {
                for (const std::string& range : private_ip_ranges()) {
                    ranges.push_back(range);
                }
            } else {
                ranges.push_back(d.val());
            }
        }
        if (ranges.empty()) {
            throw d.error("trusted_proxies static: give CIDR ranges or private_ranges");
        }
        no_block(d, "trusted_proxies");
        return {{"source", "static"}, {"ranges", std::move(ranges)}};
    }

    // listener_wrappers { proxy_protocol { timeout D  allow CIDR...  deny CIDR...
    // fallback_policy P }  tls }, Caddy's names.
    json listener_wrappers(dispenser& d) {
        if (d.next_arg()) {
            throw d.arg_error();
        }
        json wrappers = json::array();
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string name = d.val();
            if (name == "tls") {
                if (d.next_arg()) {
                    throw d.arg_error();
                }
                wrappers.push_back({{"wrapper", "tls"}});
                continue;
            }
            if (name != "proxy_protocol") {
                throw d.error("unknown listener wrapper \"" + name +
                              "\" (use proxy_protocol or tls)");
            }
            if (d.next_arg()) {
                throw d.arg_error();
            }
            json wrapper = {{"wrapper", "proxy_protocol"}};
            const std::string pointer =
                "/http/listener_wrappers/" + std::to_string(wrappers.size());
            for (const std::size_t inner = d.nesting(); d.next_block(inner);) {
                const std::string option = d.val();
                mark(pointer + "/" + option, d.current());
                if (option == "timeout" || option == "fallback_policy") {
                    wrapper[option] = one_arg(d);
                } else if (option == "allow" || option == "deny") {
                    json& ranges = wrapper[option];
                    if (ranges.is_null()) {
                        ranges = json::array();
                    }
                    std::size_t count = 0;
                    while (d.next_arg()) {
                        ranges.push_back(d.val());
                        ++count;
                    }
                    if (count == 0) {
                        throw d.arg_error();
                    }
                } else {
                    throw d.error("unknown proxy_protocol option \"" + option +
                                  "\" (use timeout, allow, deny or fallback_policy)");
                }
            }
            wrappers.push_back(std::move(wrapper));
        }
        return wrappers;
    }

    void global_log(dispenser& d) {
        if (d.next_arg()) {
            throw d.error("log: named loggers are not supported; use one log block");
        }
        json& log = section("log");
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string option = d.val();
            const token at = d.current();
            if (option == "level" || option == "format") {
                std::string value = one_arg(d);
                std::transform(value.begin(), value.end(), value.begin(),
                               [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
                log[option] = value == "warning" ? "warn" : value;
                mark("/log/" + option, at);
            } else if (option == "output") {
                // All arguments first: "output file /var/log/x.log" is the likely mistake.
                if (d.remaining_args() != std::vector<std::string>{"stderr"}) {
                    throw d.error("log output: only stderr is supported");
                }
            } else {
                throw d.error("unknown log option \"" + option + "\"");
            }
        }
    }

    // --- sites ---------------------------------------------------------------------------

    struct site_state {
        json root;
        json path_roots = json::array();  ///< `root /path/* DIR` lines, in order
        json index;
        bool php = false;
        bool file_server = false;
        bool file_server_off = false;  ///< php_server { file_server off }
        json try_files;
        json split;
        bool follow_symlinks = false;
        bool resolve_root_symlink = true;
        bool respond_after_php = false;  ///< a `route` wrote respond after php_server/php
        json env = json::object();
        json workers = json::array();
        json headers = json::array();
        json respond = json::array();
        bool access_log = false;
        json access_log_options = json::object();  ///< `log { output ... format ... }`
        json encode;
        json x_sendfile;  ///< php_server/php { x_sendfile ... }
        std::vector<std::string> bind;
        json tls;  ///< {"certificate", "key"} from `tls CERT KEY`
    };

    void site(const server_block& block, std::size_t index) {
        const std::string pointer = "/sites/" + std::to_string(index);
        mark(pointer, block.keys.front());
        site_state state;
        for (const caddyfile::segment& segment : block.segments) {
            dispenser d(segment.tokens);
            d.next();
            site_directive(d, pointer, state);
        }

        json site = json::object();
        json listen = json::array();
        json hosts = json::array();
        const std::vector<std::string> binds =
            !state.bind.empty()
                ? state.bind
                : (!default_bind_.empty() ? default_bind_ : std::vector<std::string>{""});
        std::vector<std::pair<const token*, site_key>> keys;
        for (const token& key_token : block.keys) {
            keys.emplace_back(&key_token, parse_site_key(key_token));
        }
        // Caddy's automatic HTTPS: an address with a host name, no scheme and no port (or
        // https_port) gets a managed certificate: from the ACME CA, or from the local CA for
        // names no public CA signs (localhost, IP addresses, .local, .internal). Addresses
        // with another port stay plain HTTP unless the block has `tls`, so that existing
        // `host:port` sites keep working.
        // A site bound to a Unix socket sits behind a proxy that terminates TLS.
        const bool is_automatic =
            automatic_certificates_ && state.tls.is_null() &&
            std::none_of(binds.begin(), binds.end(),
                         [](const std::string& bind) { return bind.starts_with("unix/"); }) &&
            std::all_of(keys.begin(), keys.end(), [&](const auto& key) {
                const site_key& k = key.second;
                return !k.host.empty() && (!k.scheme_given || k.https) &&
                       (!k.port_given || k.port == https_port_);
            });
        if (is_automatic) {
            const bool is_public = std::all_of(keys.begin(), keys.end(), [](const auto& key) {
                return qualifies_for_public_certificate(key.second.host);
            });
            state.tls = {{"issuer", is_public ? "acme" : "internal"}};
            mark(pointer + "/tls", *keys.front().first);
        }
        // HTTPS when the block has `tls` or an https:// address; then every address is.
        const bool is_https =
            !state.tls.is_null() ||
            std::any_of(keys.begin(), keys.end(), [](const auto& key) { return key.second.https; });
        for (const auto& [key_at, key] : keys) {
            if (is_https && key.scheme_given && !key.https) {
                throw config_error("site address \"" + key_at->text +
                                       "\": an http:// address cannot share a block with tls "
                                       "or https://; give it its own block",
                                   key_at->file, key_at->line);
            }
            if (key.https && state.tls.is_null()) {
                throw config_error("site address \"" + key_at->text +
                                       "\": auto_https is off; add \"tls CERT KEY\", "
                                       "\"tls internal\" or \"tls EMAIL\"",
                                   key_at->file, key_at->line);
            }
            if (key.host.empty() && !state.tls.is_null() && state.tls.contains("issuer")) {
                throw config_error("site address \"" + key_at->text +
                                       "\": a managed certificate (tls internal or EMAIL) needs "
                                       "host names in the site address",
                                   key_at->file, key_at->line);
            }
        }
        const std::uint16_t default_port = is_https ? https_port_ : http_port_;
        check_keys_combine(keys, default_port);
        for (const auto& [key_at, key] : keys) {
            const token& key_token = *key_at;
            if (!key.host.empty() &&
                std::find(hosts.begin(), hosts.end(), key.host) == hosts.end()) {
                hosts.push_back(key.host);
            }
            if (!key.port_given && !key.scheme_given && !is_https) {
                result.warnings.push_back(
                    config_error("site " + key_token.text + " is served over plain HTTP on port " +
                                     std::to_string(http_port_) +
                                     ": auto_https is off; add tls to serve it over HTTPS",
                                 key_token.file, key_token.line)
                        .what());
            }
            for (const std::string& bind : binds) {
                const std::string address =
                    (is_https ? "https://" : "") +
                    listen_text(bind, key.port_given ? key.port : default_port);
                if (std::find(listen.begin(), listen.end(), address) == listen.end()) {
                    listen.push_back(address);
                }
            }
        }
        site["listen"] = listen;
        if (is_https) {
            site["tls"] = state.tls;
            // Caddy redirects plain HTTP for the hosts of an HTTPS site; a site answering
            // any host gets no redirect (it would take every host on the HTTP port).
            if (https_redirects_ && !hosts.empty()) {
                json redirect = json::array();
                for (const std::string& bind : binds) {
                    redirect.push_back(listen_text(bind, http_port_));
                }
                site["redirect_to_https"] = redirect;
            }
        }
        if (!hosts.empty()) {
            site["hosts"] = hosts;
        }
        if (!state.root.is_null()) {
            site["root"] = state.root;
        }
        if (!state.path_roots.empty()) {
            site["path_roots"] = state.path_roots;
        }
        if ((php_before_respond_ || state.respond_after_php) && !state.respond.empty()) {
            site["respond_after_php"] = true;
        }
        if (!state.index.is_null()) {
            site["index"] = state.index;
        }
        site["php"] = state.php;
        site["file_server"] = state.file_server && !state.file_server_off;
        for (auto& [key, value] : {std::pair<const char*, json*>{"try_files", &state.try_files},
                                   {"split", &state.split}}) {
            if (!value->is_null()) {
                site[key] = *value;
            }
        }
        if (state.follow_symlinks) {
            site["follow_symlinks"] = true;
        }
        if (!state.resolve_root_symlink) {
            site["resolve_root_symlink"] = false;
        }
        if (!state.env.empty()) {
            site["env"] = state.env;
        }
        for (auto& [key, value] : {std::pair<const char*, json*>{"workers", &state.workers},
                                   {"headers", &state.headers},
                                   {"respond", &state.respond}}) {
            if (!value->empty()) {
                site[key] = *value;
            }
        }
        if (state.access_log) {
            site["access_log"] =
                state.access_log_options.empty() ? json(true) : state.access_log_options;
        }
        if (!state.encode.is_null()) {
            site["encode"] = state.encode;
        }
        if (!state.x_sendfile.is_null()) {
            site["x_sendfile"] = state.x_sendfile;
        }
        result.document["sites"].push_back(std::move(site));
    }

    // A site is one list of hosts and one of ports, and answers every pair of them; Caddy
    // answers exactly the addresses written. Refuse a block where the two differ
    // ("a.test:8080, b.test:9090", or ":9000" beside "a.test:8080") rather than answer more.
    void check_keys_combine(const std::vector<std::pair<const token*, site_key>>& keys,
                            std::uint16_t default_port) const {
        const auto port_of = [&](const site_key& key) {
            return key.port_given ? key.port : default_port;
        };
        for (const auto& [first_at, first] : keys) {
            for (const auto& [second_at, second] : keys) {
                const std::string both = "site addresses \"" + first_at->text + "\" and \"" +
                                         second_at->text + "\" cannot share a block: ";
                if (first.host.empty() != second.host.empty()) {
                    throw config_error(both +
                                           "one answers any host, the other only its own; give "
                                           "them separate blocks",
                                       second_at->file, second_at->line);
                }
                // Named copies: clang 14 cannot capture structured bindings in a lambda.
                const std::string& host = first.host;
                const std::uint16_t port = port_of(second);
                const bool covered = std::any_of(keys.begin(), keys.end(), [&](const auto& key) {
                    return key.second.host == host && port_of(key.second) == port;
                });
                if (!covered) {
                    throw config_error(both +
                                           "a block answers each of its hosts on each of its "
                                           "ports; give them separate blocks",
                                       second_at->file, second_at->line);
                }
            }
        }
    }

    void site_directive(dispenser& d, const std::string& pointer, site_state& state) {
        const std::string name = d.val();
        const token at = d.current();
        if (name == "root") {
            std::vector<std::string> args = d.remaining_args();
            if (args.size() == 2 && args.front() == "*") {
                args.erase(args.begin());
            }
            if (args.size() == 2 && args.front().starts_with('@')) {
                throw d.error("root: named matchers (" + args.front() +
                              ") are not supported; write a path: root /path/* DIR");
            }
            if (args.size() == 2 && is_matcher(args.front())) {
                // A root for some paths only, as Caddy's `root /wp-content/* /var/lib/wordpress`.
                const std::string entry_pointer =
                    pointer + "/path_roots/" + std::to_string(state.path_roots.size());
                state.path_roots.push_back({{"match", args.front()}, {"root", args.back()}});
                mark(entry_pointer, at);
                return;
            }
            if (args.size() != 1) {
                throw d.arg_error();
            }
            state.root = args.front();
            mark(pointer + "/root", at);
        } else if (name == "php_server" || name == "php") {
            if (refuse_matcher(d, name)) {
                throw d.arg_error();
            }
            state.php = true;
            state.file_server = state.file_server || name == "php_server";
            mark(pointer + "/php", at);
            php_options(d, pointer, state, name == "php_server");
        } else if (name == "file_server") {
            if (const std::optional<std::string> argument = refuse_matcher(d, name)) {
                throw d.error("file_server " + *argument +
                              ": not supported (directory listings are never served)");
            }
            state.file_server = true;
            mark(pointer + "/file_server", at);
            for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
                if (d.val() == "root") {
                    state.root = one_arg(d);
                    mark(pointer + "/root", d.current());
                } else if (d.val() == "follow_symlinks") {
                    follow_symlinks(d, pointer, state);
                } else {
                    throw d.error("file_server: unknown option \"" + d.val() + "\"");
                }
            }
        } else if (name == "try_files") {
            state.try_files = d.remaining_args();
            if (state.try_files.empty()) {
                throw d.arg_error();
            }
            mark(pointer + "/try_files", at);
        } else if (name == "header") {
            header(d, pointer, state);
        } else if (name == "respond") {
            respond(d, pointer, state);
        } else if (name == "bind") {
            state.bind = d.remaining_args();
            if (state.bind.empty()) {
                throw d.arg_error();
            }
        } else if (name == "log") {
            site_log(d, pointer, state);
        } else if (name == "route") {
            route(d, pointer, state);
        } else if (name == "encode") {
            encode(d, pointer, state);
        } else if (name == "tls") {
            const std::vector<std::string> args = d.remaining_args();
            if (args.size() == 1) {
                // tls internal: the local CA; tls EMAIL: the ACME CA with that account.
                no_block(d, "tls");
                if (args.front() == "internal") {
                    state.tls = {{"issuer", "internal"}};
                } else if (args.front().find('@') != std::string::npos) {
                    state.tls = {{"issuer", "acme"}, {"email", args.front()}};
                } else {
                    throw d.error("tls " + args.front() +
                                  ": give tls CERT KEY, tls internal or tls EMAIL");
                }
                mark(pointer + "/tls", at);
                return;
            }
            if (args.size() != 2) {
                throw d.arg_error();
            }
            no_block(d, "tls");
            state.tls = {{"certificate", args[0]}, {"key", args[1]}};
            mark(pointer + "/tls", at);
        } else if (name.starts_with('@')) {
            throw d.error("named matchers (" + name + ") are not supported");
        } else {
            throw d.error("unknown directive \"" + name + "\"");
        }
    }

    // route { DIRECTIVE... }: Caddy runs the directives of a route in the order written.
    // Spindle's order is fixed but for one choice (see order()): a respond written after
    // php_server or php answers only what PHP leaves. Anything else the order cannot express
    // is refused: a respond before PHP is already the default.
    void route(dispenser& d, const std::string& pointer, site_state& state) {
        if (d.next_arg()) {
            throw d.error("route: matchers are not supported (a route applies to the whole site)");
        }
        bool php_written = false;
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string inner = d.val();
            if (inner == "route") {
                throw d.error("route: a route inside a route is not supported");
            }
            if (inner == "respond" && php_written) {
                state.respond_after_php = true;
            }
            php_written = php_written || inner == "php_server" || inner == "php";
            site_directive(d, pointer, state);
        }
    }

    // log { output stderr | stdout | file PATH { roll_size SIZE; roll_keep N; roll_disabled }
    //       format console | json }: the site's access log, as Caddy's `log` directive.
    void site_log(dispenser& d, const std::string& pointer, site_state& state) {
        if (d.next_arg()) {
            throw d.error("log: named loggers are not supported");
        }
        json& options = state.access_log_options;
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string option = d.val();
            const token at = d.current();
            if (option == "output") {
                if (!d.next_arg()) {
                    throw d.arg_error();
                }
                const std::string output = d.val();
                if (output == "stderr" || output == "stdout") {
                    if (d.next_arg()) {
                        throw d.arg_error();
                    }
                    // stderr is the default: `access_log` stays plain true.
                    if (output == "stdout") {
                        options["output"] = output;
                    }
                } else if (output == "file") {
                    options["output"] = "file";
                    options["file"] = one_arg(d);
                    log_file_options(d, options);
                } else {
                    throw d.error("log output \"" + output +
                                  "\": not supported (use stderr, stdout or file PATH)");
                }
                no_block(d, "log output " + output);
                mark(pointer + "/access_log/output", at);
            } else if (option == "format") {
                const std::string format = one_arg(d);
                if (format != "console" && format != "json") {
                    throw d.error("log format \"" + format +
                                  "\": not supported (use console or json)");
                }
                options["format"] = format;
                mark(pointer + "/access_log/format", at);
            } else {
                throw d.error("log: unknown option \"" + option + "\" (use output or format)");
            }
        }
        state.access_log = true;
    }

    // The block of `output file PATH { ... }`, Caddy's file writer options that Spindle keeps.
    void log_file_options(dispenser& d, json& options) {
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string option = d.val();
            if (option == "roll_size") {
                options["roll_size"] = one_arg(d);
            } else if (option == "roll_keep") {
                options["roll_keep"] = integer_arg(d);
            } else if (option == "roll_disabled") {
                if (d.next_arg()) {
                    throw d.arg_error();
                }
                options["roll_disabled"] = true;
            } else if (option == "roll_uncompressed" || option == "roll_local_time") {
                // Rotated files are never compressed, and carry a number, not a time.
                d.remaining_args();
                warn(d, option +
                            " has no effect: rotated files are kept uncompressed and "
                            "numbered (FILE.1.log is the newest)");
            } else {
                throw d.error("log output file: unknown option \"" + option +
                              "\" (use roll_size, roll_keep or roll_disabled)");
            }
        }
    }

    void php_options(dispenser& d, const std::string& pointer, site_state& state,
                     bool is_php_server) {
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string option = d.val();
            const token at = d.current();
            if (option == "root") {
                state.root = one_arg(d);
                mark(pointer + "/root", at);
            } else if (option == "index") {
                const std::string index = one_arg(d);
                // off: no directory index and no front controller, as FrankenPHP's php_server
                // then adds no try_files rewrite.
                state.index = index == "off" ? json(false) : json(index);
                mark(pointer + "/index", at);
            } else if (option == "split" || option == "split_path") {
                state.split = d.remaining_args();
                if (state.split.empty()) {
                    throw d.arg_error();
                }
                mark(pointer + "/split", at);
            } else if (option == "try_files") {
                state.try_files = d.remaining_args();
                if (state.try_files.empty()) {
                    throw d.arg_error();
                }
                mark(pointer + "/try_files", at);
            } else if (option == "env") {
                env_line(d, state.env, pointer + "/env");
            } else if (option == "worker") {
                const std::string worker_pointer =
                    pointer + "/workers/" + std::to_string(state.workers.size());
                state.workers.push_back(worker(d, worker_pointer));
            } else if (option == "file_server" && is_php_server) {
                const std::string value = one_arg(d);
                if (value != "off" && value != "on") {
                    throw d.error("file_server: use off or on");
                }
                state.file_server_off = value == "off";
                mark(pointer + "/file_server", at);
            } else if (option == "follow_symlinks") {
                follow_symlinks(d, pointer, state);
            } else if (option == "x_sendfile") {
                x_sendfile(d, pointer + "/x_sendfile", state);
            } else if (option == "resolve_root_symlink") {
                // Without an argument: true, as in FrankenPHP.
                bool resolve = true;
                if (d.next_arg()) {
                    if (d.val() != "true" && d.val() != "false") {
                        throw d.error("resolve_root_symlink: use true or false");
                    }
                    resolve = d.val() == "true";
                    if (d.next_arg()) {
                        throw d.arg_error();
                    }
                }
                state.resolve_root_symlink = resolve;
                mark(pointer + "/resolve_root_symlink", at);
            } else {
                throw d.error("unknown " + std::string(is_php_server ? "php_server" : "php") +
                              " option \"" + option + "\"");
            }
        }
    }

    // x_sendfile [DIR...] | x_sendfile { root DIR...; accel_redirect PREFIX DIR }: the
    // directories X-Sendfile may name, and the X-Accel-Redirect prefixes (nginx's internal
    // locations) with the directory each maps to.
    void x_sendfile(dispenser& d, const std::string& pointer, site_state& state) {
        json out = state.x_sendfile.is_null() ? json::object() : state.x_sendfile;
        mark(pointer, d.current());
        auto add_roots = [&](std::vector<std::string> dirs) {
            for (std::string& dir : dirs) {
                out["root"].push_back(std::move(dir));
            }
        };
        add_roots(d.remaining_args());
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string option = d.val();
            const token at = d.current();
            if (option == "root") {
                std::vector<std::string> dirs = d.remaining_args();
                if (dirs.empty()) {
                    throw d.arg_error();
                }
                add_roots(std::move(dirs));
                mark(pointer + "/root", at);
            } else if (option == "accel_redirect") {
                const std::vector<std::string> args = d.remaining_args();
                if (args.size() != 2) {
                    throw d.error("accel_redirect: use accel_redirect /PREFIX/ DIRECTORY");
                }
                mark(pointer + "/accel_redirect/" + std::to_string(out["accel_redirect"].size()),
                     at);
                out["accel_redirect"].push_back({{"prefix", args[0]}, {"root", args[1]}});
            } else {
                throw d.error("unknown x_sendfile option \"" + option + "\"");
            }
        }
        if (out.empty()) {
            throw d.error("x_sendfile: give the directories it may send from");
        }
        state.x_sendfile = std::move(out);
    }

    // follow_symlinks, in php_server, php or file_server: a Spindle option (Caddy always follows
    // links), for the whole site as every handler option is.
    void follow_symlinks(dispenser& d, const std::string& pointer, site_state& state) {
        if (d.next_arg()) {
            throw d.error("follow_symlinks takes no argument");
        }
        state.follow_symlinks = true;
        mark(pointer + "/follow_symlinks", d.current());
    }

    // header [*] [+|-]Name [value] | header [*] { [+|-]Name [value] ... }
    void header(dispenser& d, const std::string& pointer, site_state& state) {
        auto add_rule = [&](std::string field, std::optional<std::string> value) {
            json rule = json::object();
            std::string op = "set";
            if (field.starts_with('+')) {
                op = "add";
                field.erase(0, 1);
            } else if (field.starts_with('-')) {
                op = "remove";
                field.erase(0, 1);
            } else if (field.starts_with('?') || field.starts_with('>')) {
                throw d.error("header " + field + ": the ? and > forms are not supported");
            }
            if (op == "remove" && value) {
                throw d.error("header -" + field + ": a removal takes no value");
            }
            if (op != "remove" && !value) {
                throw d.error("header " + field + ": missing value");
            }
            rule["op"] = op;
            rule["name"] = field;
            if (value) {
                rule["value"] = *value;
            }
            mark(pointer + "/headers/" + std::to_string(state.headers.size()), d.current());
            state.headers.push_back(std::move(rule));
        };
        std::vector<std::string> args = d.remaining_args();
        if (!args.empty() && is_matcher(args.front())) {
            if (args.front() != "*") {
                throw d.error("header: matcher \"" + args.front() +
                              "\" is not supported (only * or none)");
            }
            args.erase(args.begin());
        }
        if (!args.empty()) {
            if (args.size() > 2) {
                throw d.arg_error();
            }
            add_rule(args[0], args.size() == 2 ? std::optional(args[1]) : std::nullopt);
        }
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string field = d.val();
            std::vector<std::string> rest = d.remaining_args();
            if (rest.size() > 1) {
                throw d.arg_error();
            }
            add_rule(field, rest.empty() ? std::nullopt : std::optional(rest[0]));
        }
        if (args.empty() && state.headers.empty()) {
            throw d.arg_error();
        }
    }

    // encode [*] [<formats...>] { gzip|zstd|br [<level>]; minimum_length <n>;
    //     match { header Content-Type <patterns...> } }
    void encode(dispenser& d, const std::string& pointer, site_state& state) {
        if (!state.encode.is_null()) {
            throw d.error("encode: given twice in this site");
        }
        const token at = d.current();
        json e = json::object();
        json formats = json::array();
        const auto add_format = [&](const std::string& name, std::optional<int> level) {
            for (const json& earlier : formats) {
                if ((earlier.is_string() ? earlier : earlier["name"]) == name) {
                    throw d.error("encode: format " + name + " is given twice");
                }
            }
            if (level) {
                formats.push_back({{"name", name}, {"level", *level}});
            } else {
                formats.push_back(name);
            }
        };
        const auto check_name = [&](const std::string& name) {
            if (name != "gzip" && name != "zstd" && name != "br") {
                throw d.error("encode: unknown format \"" + name + "\" (use zstd, br or gzip)");
            }
        };
        for (std::optional<std::string> arg = refuse_matcher(d, "encode"); arg;
             arg = d.next_arg() ? std::optional(d.val()) : std::nullopt) {
            check_name(*arg);
            add_format(*arg, std::nullopt);
        }
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            const std::string option = d.val();
            if (option == "gzip" || option == "zstd" || option == "br") {
                std::optional<int> level;
                if (d.next_arg()) {
                    level = encode_level(d, option);
                    if (d.next_arg()) {
                        throw d.arg_error();
                    }
                }
                // A format named both on the line and in the block: the block gives its level.
                for (auto it = formats.begin(); it != formats.end(); ++it) {
                    if ((it->is_string() ? *it : (*it)["name"]) == option) {
                        formats.erase(it);
                        break;
                    }
                }
                add_format(option, level);
            } else if (option == "minimum_length") {
                const std::string value = one_arg(d);
                if (!is_whole_number(value)) {
                    throw d.error("minimum_length: \"" + value + "\" is not a number of bytes");
                }
                e["minimum_length"] = static_cast<std::uint64_t>(std::stoull(value));
            } else if (option == "match") {
                encode_match(d, e);
            } else {
                throw d.error("unknown encode option \"" + option +
                              "\" (use gzip, zstd, br, minimum_length or match)");
            }
        }
        // Formats first, as the JSON documentation lists the keys.
        json document = json::object();
        if (!formats.empty()) {
            document["formats"] = formats;
        }
        document.update(e);
        mark(pointer + "/encode", at);
        state.encode = std::move(document);
    }

    // `gzip 6`, `br 5`, `zstd 3` or Caddy's zstd names (fastest, default, better, best).
    int encode_level(dispenser& d, const std::string& format) {
        const std::string value = d.val();
        if (format == "zstd") {
            const std::pair<const char*, int> names[] = {
                {"fastest", 1}, {"default", 3}, {"better", 7}, {"best", 11}};
            for (const auto& [level_name, level] : names) {
                if (value == level_name) {
                    return level;
                }
            }
        }
        const int max_level = format == "gzip" ? 9 : format == "zstd" ? 19 : 11;
        if (!is_whole_number(value) || std::stoi(value) < 1 || std::stoi(value) > max_level) {
            throw d.error(format + ": level \"" + value + "\" is not from 1 to " +
                          std::to_string(max_level) +
                          (format == "zstd" ? " (or fastest, default, better, best)" : ""));
        }
        return std::stoi(value);
    }

    // match { header Content-Type <patterns...> }: the only matcher `encode` takes here.
    void encode_match(dispenser& d, json& e) {
        if (d.next_arg()) {
            throw d.error(
                "encode match: only a block is supported (match { header Content-Type ... })");
        }
        json& types = e["types"];
        for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
            if (d.val() != "header") {
                throw d.error("encode match: matcher \"" + d.val() +
                              "\" is not supported (only header Content-Type)");
            }
            if (!d.next_arg()) {
                throw d.arg_error();
            }
            std::string field = d.val();
            std::transform(field.begin(), field.end(), field.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            if (field != "content-type") {
                throw d.error("encode match: header " + d.val() +
                              " is not supported (only Content-Type)");
            }
            std::vector<std::string> patterns = d.remaining_args();
            if (patterns.empty()) {
                throw d.arg_error();
            }
            for (std::string& pattern : patterns) {
                types.push_back(std::move(pattern));
            }
        }
        if (types.is_null()) {
            throw d.error("encode match: empty block (write header Content-Type <types...>)");
        }
    }

    // respond [matcher] <status>|<body> [<status>]
    void respond(dispenser& d, const std::string& pointer, site_state& state) {
        json rule = json::object();
        std::vector<std::string> args = d.remaining_args();
        if (!args.empty() && is_matcher(args.front()) && args.front().size() > 0) {
            if (args.front().starts_with('@')) {
                throw d.error("named matchers (" + args.front() + ") are not supported");
            }
            rule["path"] = args.front();
            args.erase(args.begin());
        }
        auto status = [&](const std::string& text) {
            if (text.size() != 3 || !is_whole_number(text)) {
                throw d.error("respond: \"" + text + "\" is not a status code");
            }
            rule["status"] = std::stoi(text);
        };
        if (args.size() == 1 && args[0].size() == 3 && is_whole_number(args[0])) {
            status(args[0]);
        } else if (args.size() == 1) {
            rule["body"] = args[0];
        } else if (args.size() == 2) {
            rule["body"] = args[0];
            status(args[1]);
        } else if (!args.empty()) {
            throw d.arg_error();
        }
        no_block(d, "respond");
        mark(pointer + "/respond/" + std::to_string(state.respond.size()), d.current());
        state.respond.push_back(std::move(rule));
    }

    std::string file_;
    std::uint16_t http_port_ = 80;
    std::uint16_t https_port_ = 443;
    bool https_redirects_ = true;         ///< auto_https neither off nor disable_redirects
    bool automatic_certificates_ = true;  ///< auto_https neither off nor disable_certs
    bool php_before_respond_ = false;     ///< `order php_server before respond`
    std::vector<std::string> default_bind_;
};

}  // namespace

adapted_caddyfile adapt_caddyfile(std::string_view text, const std::string& file,
                                  const caddyfile::env_lookup& env,
                                  const std::function<std::string(const std::string&)>& read_file,
                                  const caddyfile::list_function& list_folder) {
    adapter a(file);
    std::vector<std::string> parse_warnings;
    a.run(caddyfile::parse(text, file, env, read_file, list_folder, &parse_warnings));
    a.result.warnings.insert(a.result.warnings.begin(), parse_warnings.begin(),
                             parse_warnings.end());
    return std::move(a.result);
}

}  // namespace spindle::config
