#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/listen_address.hpp"

namespace spindle::config {

/// Where a setting was written, so a check made after parsing (a missing root, a worker file
/// that does not exist, a port in use) can still name file:line. Empty for command-line flags.
struct source_location {
    std::string file;
    std::size_t line = 0;  ///< 0: not known (a JSON file); `pointer` says where instead
    std::string pointer;   ///< JSON pointer of the setting in the document, e.g. "/sites/0"
};

/// Ordered NAME/VALUE pairs (env, php.ini): later entries win, and order is kept for messages.
using string_pairs = std::vector<std::pair<std::string, std::string>>;

/// Limits and timeouts of the HTTP front end. All of them apply per connection.
struct http_limits {
    std::size_t max_header_size = 64 * 1024;       ///< request line + headers; over it -> 431 (414)
    std::size_t max_body_size = 64 * 1024 * 1024;  ///< request body; over it -> 413
    std::size_t body_memory_size = 64 * 1024;      ///< body bytes kept in memory before spilling
    std::chrono::milliseconds read_header_timeout{10'000};  ///< first byte to end of headers
    std::chrono::milliseconds read_body_timeout{60'000};    ///< whole request body
    /// A response write that makes no progress for this long closes the connection; also the
    /// window over which min_write_rate is measured.
    std::chrono::milliseconds write_timeout{60'000};
    std::chrono::milliseconds idle_timeout{60'000};  ///< keep-alive wait for the next request
    std::size_t max_connections =
        10'000;  ///< accepted connections at once; more wait in the backlog
    /// PHP response bytes one connection holds in memory before the rest goes to a temporary
    /// file, so that a slow client never holds a PHP thread (nginx's fastcgi_buffers).
    std::size_t response_memory_size = 256 * 1024;
    /// Response bytes held in memory by all connections together; past it responses spill.
    std::size_t response_memory_total = 64 * 1024 * 1024;
    /// Bytes of one response waiting on disk at most (nginx's fastcgi_max_temp_file_size);
    /// past it, or at 0, the PHP thread waits for the client.
    std::size_t max_response_file_size = std::size_t{1} << 30;
    /// Bytes per second a client must take while a response waits for it, over each
    /// write_timeout window; a slower one is closed. 0: no minimum.
    std::size_t min_write_rate = 1024;
};

/// The HTTP versions the listeners speak (Caddy's `servers { protocols }`; h3 is not one).
struct http_protocols {
    bool h1 = true;    ///< HTTP/1.0 and 1.1, plain and over TLS
    bool h2 = true;    ///< HTTP/2 over TLS, chosen by the client through ALPN
    bool h2c = false;  ///< HTTP/2 over plain TCP, with prior knowledge (the client starts with
                       ///< the HTTP/2 preface; no Upgrade: h2c, which Caddy and Go dropped too)
};

/// A worker group: a script that boots once per thread and then serves request after request
/// through frankenphp_handle_request(). Requests whose resolved script is `file`, or whose path
/// matches one of `match`, go to it.
struct worker_config {
    std::string file;     ///< the worker script; made absolute by resolve_config()
    std::size_t num = 0;  ///< threads running it; 0 = 2 x CPU cores
    /// Threads it may grow to when its requests wait (FrankenPHP's worker max_threads); 0 = up
    /// to the global max_threads.
    std::size_t max_threads = 0;
    std::string name;  ///< for logs and metrics; defaults to the file
    string_pairs env;  ///< extra $_SERVER/$_ENV entries, over the site's
    /// Request paths sent to this worker whether or not a file exists there, Caddy path
    /// matcher syntax: "/api/*", "*.json", "/exact", "*" (everything).
    std::vector<std::string> match;
    std::uint64_t max_requests = 0;  ///< restart a thread's script after this many; 0 = never
    /// Restart a thread's script (with a fresh PHP context) after a request that leaves its Zend
    /// heap above this many bytes; 0 = never.
    std::size_t max_memory = 0;
    /// Boot failures in a row before start-up gives up (at run time the worker keeps retrying
    /// with backoff); -1 = never give up.
    int max_consecutive_failures = 6;
    /// Files whose change restarts every worker (config/watch_pattern.hpp), relative to the
    /// current directory; empty: none.
    std::vector<std::string> watch;
    source_location origin;
};

/// Where a site's access log goes and how it reads (Caddy's `log { output ... format ... }`).
struct access_log_output {
    enum class destination { standard_error, standard_output, file };
    destination to = destination::standard_error;
    std::string file;  ///< with destination::file
    /// A file is rotated once it would grow past roll_size, and roll_keep rotated files are
    /// kept; Caddy's defaults. roll = false (roll_disabled): one file that only grows.
    std::uint64_t roll_size = 100ULL * 1024 * 1024;
    std::size_t roll_keep = 10;
    bool roll = true;
    std::string format = "console";  ///< or "json": one JSON object per line
};

/// A response header change applied to every response of a site (Caddy's `header`).
struct header_rule {
    enum class op { set, add, remove };
    op operation = op::set;
    std::string name;
    std::string value;  ///< empty for remove
};

/// A fixed response for matching paths (Caddy's `respond`), checked before files and PHP.
struct respond_rule {
    std::string path = "*";  ///< Caddy path matcher syntax
    int status = 200;
    std::string body;
};

/// One compression format of a site's `encode`, with its level.
struct encode_format {
    std::string name;  ///< "zstd", "br" or "gzip"
    int level = 0;     ///< 0: the format's default (gzip 6, zstd 3, br 5)
};

/// Response compression (Caddy's `encode`): which formats a site offers, in its order of
/// preference, and which responses are worth compressing.
struct encode_config {
    std::vector<encode_format> formats;  ///< never empty; ties in client q-values go to the first
    std::size_t minimum_length = 512;    ///< smaller bodies (when their size is known) stay as is
    /// Content-Type patterns ("text/*", "application/json", "*+json"); empty: the defaults
    /// (encode/compressible_types.cpp).
    std::vector<std::string> types;
};

/// The formats `php-server` offers unless --no-compress is given, as FrankenPHP's does.
inline encode_config default_php_server_encode() {
    return {{{"zstd", 0}, {"br", 0}, {"gzip", 0}}, 512, {}};
}

/// A site's certificate for HTTPS: files it is given (Caddy's `tls CERT KEY`), or one Spindle
/// obtains from the ACME CA and renews (a domain-name address, `tls EMAIL`), or one signed by
/// its local CA (`tls internal`). The managed ones live under automation_config::storage.
struct tls_config {
    enum class source { files, acme, internal };
    source from = source::files;
    std::string certificate;  ///< files: PEM file, the certificate then its intermediates
    std::string key;          ///< files: PEM file, its private key
    std::string email;        ///< acme: the account's contact, over automation_config::email
    source_location origin;   ///< where `tls` (or the site address) was written
};

/// Automatic HTTPS (Caddy's global `email`, `acme_ca`, `acme_ca_root`, `storage`): which ACME
/// CA certificates come from and where they, the account keys and the local CA are kept.
struct automation_config {
    std::string ca = "https://acme-v02.api.letsencrypt.org/directory";  ///< directory URL
    std::string email;                       ///< account contact; empty: an account without
    std::vector<std::string> trusted_roots;  ///< PEM files trusted for the CA's HTTPS, over
                                             ///< the system's (acme_ca_root)
    /// Caddy's file_system storage root; empty: $XDG_DATA_HOME/spindle, else
    /// $HOME/.local/share/spindle (acme/storage_paths.hpp).
    std::string storage;
    source_location origin;
};

/// Another document root for the requests whose path matches (Caddy's `root /path/* DIR`). The
/// request path is looked up under it unchanged, so `/wp-content/*` with root /var/lib/wordpress
/// serves /var/lib/wordpress/wp-content/..., as Apache's `Alias /wp-content
/// /var/lib/wordpress/wp-content` does.
struct path_root {
    std::string match;  ///< Caddy path matcher syntax: "/wp-content/*", "*.css", "/exact"
    std::string root;   ///< made absolute and canonical by resolve_config()
    source_location origin;
};

/// One `accel_redirect PREFIX DIR` of x_sendfile: `X-Accel-Redirect: PREFIX/a/b` sends DIR/a/b.
struct accel_mapping {
    std::string prefix;  ///< URL path, starts and ends with '/': "/private-files/"
    std::string root;    ///< made absolute and canonical by resolve_config()
};

/// X-Sendfile / X-Accel-Redirect (Apache's mod_xsendfile, nginx's internal locations): a PHP
/// response that names a file in one of these headers is answered with that file by the
/// server, and the PHP thread is free as soon as the script ends.
struct x_sendfile_config {
    /// `X-Sendfile: /abs/path` may name files under these directories (canonical).
    std::vector<std::string> roots;
    /// `X-Accel-Redirect: /prefix/path` maps to a directory.
    std::vector<accel_mapping> accel_redirect;
    source_location origin;
};

/// One site: where it listens, which Host names it answers, and how its requests are served.
struct site_config {
    std::vector<listen_address> listen{{"", 8080}};
    /// Host header values (without port, lower case) this site answers; empty: any host.
    std::vector<std::string> hosts;
    std::string root = ".";  ///< document root, made canonical by resolve_config()
    /// false (`resolve_root_symlink false`): PHP sees the root as written (made absolute), not
    /// the directory a symlink in it leads to, in DOCUMENT_ROOT and SCRIPT_FILENAME.
    bool resolve_root_symlink = true;
    /// DOCUMENT_ROOT as PHP sees it: `root`, or the root as written when resolve_root_symlink
    /// is false. Filled by resolve_config().
    std::string document_root;
    /// Roots for some request paths, over `root`; the longest matching pattern wins.
    std::vector<path_root> path_roots;
    std::string index = "index.php";  ///< empty: `index off`
    bool php = true;                  ///< run .php files (php_server, php)
    bool file_server = true;          ///< serve the other files under root
    /// try_files candidates ({path} placeholders, a trailing "/" for directories, "=404");
    /// empty: php_server's own {path} {path}/{index} {index}.
    std::vector<std::string> try_files;
    std::vector<std::string> split{".php"};  ///< where a path splits into script + PATH_INFO
    /// serve files and scripts whose symlinks lead outside root (see router_options)
    bool follow_symlinks = false;
    string_pairs env;                    ///< over the server's env, under a worker's
    std::vector<worker_config> workers;  ///< this site's worker groups
    std::vector<header_rule> headers;
    std::vector<respond_rule> responds;
    /// `order php_server before respond`: PHP (worker `match` included) answers first and the
    /// respond rules only see what it leaves unanswered; false: respond rules first.
    bool respond_after_php = false;
    bool access_log = false;              ///< log every request of this site (Caddy's `log`)
    access_log_output access_log_to;      ///< where, when access_log
    std::optional<encode_config> encode;  ///< response compression; nullopt: off
    std::optional<x_sendfile_config> x_sendfile;  ///< nullopt: the headers pass through as set
    /// Needed by, and only by, a site with https:// addresses in `listen`.
    std::optional<tls_config> tls;
    /// Plain-HTTP addresses where requests for this site's hosts get a 308 to its HTTPS address
    /// (Caddy's automatic HTTP->HTTPS redirect).
    std::vector<listen_address> redirect_to_https;
    source_location origin;
};

/// Which peers may tell the client's address, scheme and host through forwarding headers
/// (Caddy's global `servers { trusted_proxies ... }` and its companions). With no range and
/// no trust_unix every forwarding header is left as the client sent it.
struct trusted_proxies_config {
    std::vector<std::string> ranges;  ///< CIDR ranges; `private_ranges` expanded
    bool strict = false;              ///< trusted_proxies_strict: right-most untrusted address
    bool trust_unix = false;          ///< trusted_proxies_unix: Unix-socket peers are trusted
    /// trusted_proxies_host (Spindle's own): HTTP_HOST and SERVER_NAME from X-Forwarded-Host
    /// or Forwarded host=; Caddy has no such switch, and a wrong Host breaks virtual hosts.
    bool use_host = false;
    /// Where the client address is read, the first present wins (client_ip_headers); a
    /// header named Forwarded is read as RFC 7239.
    std::vector<std::string> client_ip_headers{"X-Forwarded-For", "Forwarded"};

    friend bool operator==(const trusted_proxies_config&, const trusted_proxies_config&) = default;
};

/// The PROXY protocol on every listener (Caddy's `listener_wrappers { proxy_protocol }`).
struct proxy_protocol_config {
    /// How long a new connection may take to send its header.
    std::chrono::milliseconds timeout{5'000};
    std::vector<std::string> allow;  ///< peers whose header is used (their address replaced)
    std::vector<std::string> deny;   ///< peers whose connection is refused if they send one
    /// For the other peers: ignore, use, reject, require or skip (go-proxyproto's policies).
    std::string fallback_policy = "ignore";

    friend bool operator==(const proxy_protocol_config&, const proxy_protocol_config&) = default;
};

/// server_config::max_threads for `max_threads auto`.
inline constexpr std::size_t max_threads_auto = std::numeric_limits<std::size_t>::max();

/// Everything a running server needs, from the command line (config/command_line.hpp), a
/// Caddyfile or a JSON document (config/json_config.hpp). Read-only once the server starts.
struct server_config {
    std::vector<site_config> sites{site_config{}};
    std::size_t num_threads = 0;  ///< PHP slot threads; 0 = 2 x CPU cores
    /// PHP threads the pool may grow to when requests wait (FrankenPHP's max_threads);
    /// 0 = num_threads (no autoscaling), max_threads_auto = as many as the memory holds at
    /// memory_limit each (resolved at start, where the PHP settings are known).
    std::size_t max_threads = 0;
    /// How long a thread added under load may wait for a request before it ends.
    std::chrono::milliseconds max_idle_time{5'000};
    source_location max_threads_origin;  ///< where max_threads was written
    std::size_t io_threads = 0;          ///< I/O threads; 0 = half the CPU cores, at least 1
    std::chrono::milliseconds max_wait_time{30'000};  ///< queued request deadline -> 503
    /// A PHP request running longer gets one slow-log line with its PHP backtrace (php-fpm's
    /// request_slowlog_timeout); 0 = off. Read at start.
    std::chrono::milliseconds slowlog_timeout{0};
    std::size_t max_queue = 4096;  ///< queued requests; more -> 503 at once
    /// After this many requests a PHP thread's whole PHP state is freed and made afresh (the
    /// global `frankenphp { max_requests }`): classic threads, and every worker that sets no
    /// max_requests of its own. 0 = never.
    std::uint64_t max_requests = 0;
    /// A PHP thread whose Zend heap is above this many bytes after a request gets a fresh PHP
    /// context (RoadRunner's max_worker_memory): classic threads, and every worker that sets no
    /// max_memory of its own. 0 = never.
    std::size_t max_memory = 0;
    std::optional<std::string> php_ini_file;  ///< replaces php.ini lookup
    string_pairs php_ini;                     ///< extra ini settings
    /// Worker groups shared by every site (the global `frankenphp { worker }`).
    std::vector<worker_config> workers;
    /// Environment entries every script sees ($_SERVER, $_ENV, getenv()), over the process's.
    string_pairs env;
    /// How long a worker restart (SIGUSR1) waits for running requests before interrupting them.
    std::chrono::milliseconds worker_restart_grace{30'000};
    /// How long a graceful stop (SIGTERM) waits for in-flight requests.
    std::chrono::milliseconds grace_period{30'000};
    /// Server processes, each with its own PHP threads (num_threads each), under a supervisor
    /// that restarts one that dies (server/process/supervisor.hpp); 1 = one process, no supervisor.
    std::size_t processes = 1;
    /// With processes > 1: this many process deaths within emergency_restart_interval stop
    /// the restarts (php-fpm's emergency_restart_threshold); 0 = restart forever.
    std::size_t emergency_restart_threshold = 10;
    /// The window emergency_restart_threshold counts deaths in.
    std::chrono::milliseconds emergency_restart_interval{60'000};
    http_limits limits;
    http_protocols protocols;
    trusted_proxies_config trusted_proxies;
    std::optional<proxy_protocol_config> proxy_protocol;  ///< nullopt: no PROXY header read
    /// Where the admin endpoint (metrics, /threads, health, status page, worker restarts)
    /// listens; nullopt: off. Plain HTTP without authentication: keep it on loopback or a
    /// private network.
    std::optional<listen_address> admin = listen_address{"127.0.0.1", 2019};
    source_location admin_origin;  ///< where `admin` was written, for a port in use
    std::string log_level = "info";
    std::string log_format = "console";  ///< or "json": one JSON object per line
    automation_config automation;        ///< for sites whose tls is acme or internal
};

}  // namespace spindle::config
