#include "config/json_config.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "config/config_error.hpp"

// config_from_json is the only way into server_config: every field of a document must land in
// the model, and every mistake must name the setting by its JSON pointer (a JSON file has no
// source map) with the exact message a user reads.

namespace spindle::config {
namespace {

using namespace std::chrono_literals;

/// The what() of the config_error that reading `text` as the file "c.json" throws; fails the
/// test if none.
std::string error_of(const std::string& text) {
    try {
        config_from_json(read_json_file(text, "c.json"), "c.json");
    } catch (const config_error& error) {
        return error.what();
    }
    ADD_FAILURE() << "no config_error for: " << text;
    return {};
}

/// A document whose one site is `site_fields` (an object's members, without braces) and whose
/// other top-level members are `top_fields` (with a trailing comma when not empty).
std::string with_site(const std::string& site_fields, const std::string& top_fields = "") {
    return "{" + top_fields + "\"sites\": [{" + site_fields + "}]}";
}

/// A document with `top_fields` and a site that serves PHP with every default.
std::string with_top(const std::string& top_fields) {
    return "{" + top_fields + ", \"sites\": [{}]}";
}

TEST(JsonConfig, FullDocumentFillsEveryField) {
    const std::string text = R"({
  "log": {"level": "debug", "format": "json"},
  "grace_period": "45s",
  "http": {
    "io_threads": 3,
    "max_connections": 500,
    "max_header_size": "16KiB",
    "max_body_size": 1048576,
    "body_memory_size": "128KiB",
    "response_memory_size": "32KiB",
    "response_memory_total": "8MiB",
    "max_response_file_size": 0,
    "min_write_rate": "2KiB",
    "timeouts": {"read_header": "2s", "read_body": "1m", "write": "30s", "idle": "1m30s"}
  },
  "php": {
    "num_threads": 12,
    "max_wait_time": "1500ms",
    "slowlog_timeout": "3s",
    "max_queue": 100,
    "max_memory": "256MiB",
    "ini_file": "/etc/spindle/php.ini",
    "ini": {"memory_limit": "1G", "opcache.enable": "0"},
    "workers": [
      {"file": "bin/worker.php", "num": 2, "name": "global", "env": {"QUEUE": "mail"},
       "match": ["/queue/*", "*.job"], "max_requests": 50, "max_memory": 67108864, "max_consecutive_failures": -1,
       "watch": ["./**/*.{php,env}", "config/"]}
    ],
    "worker_restart_grace": "5s"
  },
  "env": {"APP_ENV": "prod", "EMPTY": ""},
  "sites": [
    {
      "listen": ["127.0.0.1:8080", "http://[::1]:8080/", "127.0.0.1:8080"],
      "hosts": ["Example.TEST", "www.example.test"],
      "root": "/srv/app",
      "index": "app.php",
      "php": true,
      "file_server": false,
      "try_files": ["{path}", "/app.php", "=404"],
      "split": [".php", ".phar"],
      "follow_symlinks": true,
      "env": {"SITE": "app"},
      "workers": [{"file": "app.php", "max_consecutive_failures": 3}],
      "headers": [
        {"op": "add", "name": "Vary", "value": "Accept"},
        {"name": "X-Frame-Options", "value": "DENY"},
        {"op": "remove", "name": "Server"}
      ],
      "respond": [{"path": "/healthz"}, {"status": 503, "body": "down"}],
      "access_log": true
    },
    {"listen": [":9000"], "php": false, "file_server": false,
     "respond": [{"path": "*", "status": 404, "body": "no such site"}]}
  ]
})";
    const server_config c = config_from_json(read_json_file(text, "c.json"), "c.json");

    EXPECT_EQ(c.log_level, "debug");
    EXPECT_EQ(c.log_format, "json");
    EXPECT_EQ(c.grace_period, 45s);
    EXPECT_EQ(c.io_threads, 3u);
    EXPECT_EQ(c.limits.max_connections, 500u);
    EXPECT_EQ(c.limits.max_header_size, 16u * 1024);
    EXPECT_EQ(c.limits.max_body_size, 1048576u);
    EXPECT_EQ(c.limits.body_memory_size, 128u * 1024);
    EXPECT_EQ(c.limits.response_memory_size, 32u * 1024);
    EXPECT_EQ(c.limits.response_memory_total, 8u * 1024 * 1024);
    EXPECT_EQ(c.limits.max_response_file_size, 0u);
    EXPECT_EQ(c.limits.min_write_rate, 2048u);
    EXPECT_EQ(c.limits.read_header_timeout, 2s);
    EXPECT_EQ(c.limits.read_body_timeout, 60s);
    EXPECT_EQ(c.limits.write_timeout, 30s);
    EXPECT_EQ(c.limits.idle_timeout, 90s);

    EXPECT_EQ(c.num_threads, 12u);
    EXPECT_EQ(c.max_wait_time, 1500ms);
    EXPECT_EQ(c.slowlog_timeout, 3s);
    EXPECT_EQ(c.max_queue, 100u);
    EXPECT_EQ(c.max_memory, 256u * 1024 * 1024);
    EXPECT_EQ(c.php_ini_file, "/etc/spindle/php.ini");
    EXPECT_EQ(c.php_ini, (string_pairs{{"memory_limit", "1G"}, {"opcache.enable", "0"}}));
    EXPECT_EQ(c.worker_restart_grace, 5s);
    ASSERT_EQ(c.workers.size(), 1u);
    const worker_config& global_worker = c.workers[0];
    EXPECT_EQ(global_worker.file, "bin/worker.php");
    EXPECT_EQ(global_worker.num, 2u);
    EXPECT_EQ(global_worker.name, "global");
    EXPECT_EQ(global_worker.env, (string_pairs{{"QUEUE", "mail"}}));
    EXPECT_EQ(global_worker.match, (std::vector<std::string>{"/queue/*", "*.job"}));
    EXPECT_EQ(global_worker.max_requests, 50u);
    EXPECT_EQ(global_worker.max_memory, 64u * 1024 * 1024);
    EXPECT_EQ(global_worker.max_consecutive_failures, -1);
    EXPECT_EQ(global_worker.watch, (std::vector<std::string>{"./**/*.{php,env}", "config/"}));
    EXPECT_EQ(global_worker.origin.file, "c.json");
    EXPECT_EQ(global_worker.origin.line, 0u);
    EXPECT_EQ(global_worker.origin.pointer, "/php/workers/0");
    EXPECT_EQ(c.env, (string_pairs{{"APP_ENV", "prod"}, {"EMPTY", ""}}));

    ASSERT_EQ(c.sites.size(), 2u);
    const site_config& app = c.sites[0];
    // Duplicates are dropped; "http://" and a trailing "/" are accepted.
    EXPECT_EQ(app.listen, (std::vector<listen_address>{{"127.0.0.1", 8080}, {"::1", 8080}}));
    EXPECT_EQ(app.hosts, (std::vector<std::string>{"example.test", "www.example.test"}));
    EXPECT_EQ(app.root, "/srv/app");
    EXPECT_EQ(app.index, "app.php");
    EXPECT_TRUE(app.php);
    EXPECT_FALSE(app.file_server);
    EXPECT_EQ(app.try_files, (std::vector<std::string>{"{path}", "/app.php", "=404"}));
    EXPECT_EQ(app.split, (std::vector<std::string>{".php", ".phar"}));
    EXPECT_TRUE(app.follow_symlinks);
    EXPECT_EQ(app.env, (string_pairs{{"SITE", "app"}}));
    ASSERT_EQ(app.workers.size(), 1u);
    EXPECT_EQ(app.workers[0].file, "app.php");
    EXPECT_EQ(app.workers[0].num, 0u);
    EXPECT_EQ(app.workers[0].max_consecutive_failures, 3);
    EXPECT_EQ(app.workers[0].origin.pointer, "/sites/0/workers/0");
    ASSERT_EQ(app.headers.size(), 3u);
    EXPECT_EQ(app.headers[0].operation, header_rule::op::add);
    EXPECT_EQ(app.headers[0].name, "Vary");
    EXPECT_EQ(app.headers[0].value, "Accept");
    EXPECT_EQ(app.headers[1].operation, header_rule::op::set);
    EXPECT_EQ(app.headers[1].name, "X-Frame-Options");
    EXPECT_EQ(app.headers[2].operation, header_rule::op::remove);
    EXPECT_EQ(app.headers[2].value, "");
    ASSERT_EQ(app.responds.size(), 2u);
    EXPECT_EQ(app.responds[0].path, "/healthz");
    EXPECT_EQ(app.responds[0].status, 200);
    EXPECT_EQ(app.responds[0].body, "");
    EXPECT_EQ(app.responds[1].path, "*");
    EXPECT_EQ(app.responds[1].status, 503);
    EXPECT_EQ(app.responds[1].body, "down");
    EXPECT_TRUE(app.access_log);
    EXPECT_EQ(app.origin.pointer, "/sites/0");

    const site_config& fallback = c.sites[1];
    EXPECT_EQ(fallback.listen, (std::vector<listen_address>{{"", 9000}}));
    EXPECT_TRUE(fallback.hosts.empty());
    EXPECT_FALSE(fallback.php);
    EXPECT_FALSE(fallback.file_server);
    EXPECT_FALSE(fallback.follow_symlinks);
    ASSERT_EQ(fallback.responds.size(), 1u);
    EXPECT_EQ(fallback.responds[0].status, 404);
    EXPECT_EQ(fallback.responds[0].body, "no such site");
}

TEST(JsonConfig, MinimalDocumentKeepsTheDefaults) {
    const server_config c =
        config_from_json(read_json_file(R"({"sites": [{}]})", "c.json"), "c.json");
    const server_config defaults;
    EXPECT_EQ(c.num_threads, 0u);
    EXPECT_EQ(c.io_threads, 0u);
    EXPECT_EQ(c.max_wait_time, 30s);
    EXPECT_EQ(c.slowlog_timeout, 0ms);
    EXPECT_EQ(c.max_queue, 4096u);
    EXPECT_FALSE(c.php_ini_file.has_value());
    EXPECT_TRUE(c.php_ini.empty());
    EXPECT_TRUE(c.workers.empty());
    EXPECT_TRUE(c.env.empty());
    EXPECT_EQ(c.worker_restart_grace, 30s);
    EXPECT_EQ(c.grace_period, 30s);
    EXPECT_EQ(c.limits.max_header_size, defaults.limits.max_header_size);
    EXPECT_EQ(c.limits.max_body_size, 64u * 1024 * 1024);
    EXPECT_EQ(c.limits.read_header_timeout, 10s);
    EXPECT_EQ(c.limits.idle_timeout, 60s);
    EXPECT_EQ(c.limits.max_connections, 10'000u);
    EXPECT_EQ(c.limits.response_memory_size, 256u * 1024);
    EXPECT_EQ(c.limits.response_memory_total, 64u * 1024 * 1024);
    EXPECT_EQ(c.limits.max_response_file_size, std::size_t{1} << 30);
    EXPECT_EQ(c.limits.min_write_rate, 1024u);
    EXPECT_EQ(c.log_level, "info");
    EXPECT_EQ(c.log_format, "console");
    ASSERT_EQ(c.sites.size(), 1u);
    const site_config& s = c.sites[0];
    EXPECT_EQ(s.listen, (std::vector<listen_address>{{"", 8080}}));
    EXPECT_TRUE(s.hosts.empty());
    EXPECT_EQ(s.root, ".");
    EXPECT_EQ(s.index, "index.php");
    EXPECT_TRUE(s.php);
    EXPECT_TRUE(s.file_server);
    EXPECT_TRUE(s.try_files.empty());
    EXPECT_EQ(s.split, (std::vector<std::string>{".php"}));
    EXPECT_FALSE(s.access_log);
}

TEST(JsonConfig, AdminIsAnAddressOrOff) {
    auto admin_of = [](const std::string& top) {
        return config_from_json(read_json_file(with_top(top), "c.json"), "c.json").admin;
    };
    const server_config defaults;
    EXPECT_EQ(defaults.admin, (listen_address{"127.0.0.1", 2019}));
    EXPECT_EQ(config_from_json(read_json_file(R"({"sites": [{}]})", "c.json"), "c.json").admin,
              defaults.admin);
    EXPECT_EQ(admin_of(R"("admin": "off")"), std::nullopt);
    EXPECT_EQ(admin_of(R"("admin": ":9019")"), (listen_address{"", 9019}));
    EXPECT_EQ(admin_of(R"("admin": "http://[::1]:0")"), (listen_address{"::1", 0}));
}

TEST(JsonConfigErrors, BadAdmin) {
    EXPECT_EQ(error_of(with_top(R"("admin": false)")), "c.json: /admin: must be a string");
    EXPECT_EQ(error_of(with_top(R"("admin": "on")")),
              "c.json: /admin: invalid listen address \"on\": missing port (e.g. \":8080\" or "
              "\"127.0.0.1:8080\") (or \"off\")");
}

TEST(JsonConfig, WorkerDefaults) {
    const server_config c = config_from_json(
        read_json_file(R"({"sites": [{"workers": [{"file": "w.php"}]}]})", "c.json"), "c.json");
    const worker_config& w = c.sites.at(0).workers.at(0);
    EXPECT_EQ(w.num, 0u);
    EXPECT_EQ(w.name, "");
    EXPECT_TRUE(w.env.empty());
    EXPECT_TRUE(w.match.empty());
    EXPECT_EQ(w.max_requests, 0u);
    EXPECT_EQ(w.max_memory, 0u);
    EXPECT_EQ(w.max_consecutive_failures, 6);
}

TEST(JsonConfigErrors, BadMaxMemory) {
    EXPECT_EQ(error_of(with_top(R"("php": {"max_memory": -1})")),
              "c.json: /php/max_memory: must be a number of bytes or a size string such as "
              "\"64KiB\"");
    EXPECT_EQ(error_of(with_site(R"("workers": [{"file": "w.php", "max_memory": true}])")),
              "c.json: /sites/0/workers/0/max_memory: must be a number of bytes or a size "
              "string such as \"64KiB\"");
}

TEST(JsonConfig, SizesAsNumbersOrStrings) {
    const server_config c = config_from_json(
        read_json_file(with_top(R"("http": {"max_body_size": "1.5MB", "max_header_size": 8192})"),
                       "c.json"),
        "c.json");
    EXPECT_EQ(c.limits.max_body_size, 1'500'000u);
    EXPECT_EQ(c.limits.max_header_size, 8192u);
}

TEST(JsonConfig, SourceMapLocatesErrorsAtTheirLine) {
    const json document = read_json_file(R"({"php": {"num_threads": 0}, "sites": [{}]})", "x");
    source_map sources;
    sources["/php/num_threads"] = {"Caddyfile", 7, "/php/num_threads"};
    try {
        config_from_json(document, "Caddyfile", sources);
        FAIL() << "no error";
    } catch (const config_error& e) {
        EXPECT_STREQ(e.what(), "Caddyfile:7: num_threads: must be an integer from 1 to 4096");
        EXPECT_EQ(e.line(), 7u);
    }
}

TEST(JsonConfig, PointerChildEscapesKeys) {
    EXPECT_EQ(pointer_child("/php/ini", "a/b~c"), "/php/ini/a~1b~0c");
    EXPECT_EQ(pointer_child("", "sites"), "/sites");
}

// --- unknown keys, at every level --------------------------------------------------------------

TEST(JsonConfigErrors, UnknownKeyAtEveryLevel) {
    EXPECT_EQ(error_of(with_top(R"("listen": ":80")")),
              "c.json: /listen: unknown setting \"listen\"");
    EXPECT_EQ(error_of(with_top(R"("log": {"colour": true})")),
              "c.json: /log/colour: unknown setting \"colour\"");
    EXPECT_EQ(error_of(with_top(R"("http": {"max_requests": 5})")),
              "c.json: /http/max_requests: unknown setting \"max_requests\"");
    EXPECT_EQ(error_of(with_top(R"("http": {"timeouts": {"read": "5s"}})")),
              "c.json: /http/timeouts/read: unknown setting \"read\"");
    EXPECT_EQ(error_of(with_top(R"("php": {"max_thread": 8})")),
              "c.json: /php/max_thread: unknown setting \"max_thread\"");
    EXPECT_EQ(error_of(with_top(R"("php": {"max_threads": "many"})")),
              "c.json: /php/max_threads: must be an integer from 1 to 4096");
    EXPECT_EQ(error_of(with_top(R"("php": {"workers": [{"file": "w.php", "max_threads": 0}]})")),
              "c.json: /php/workers/0/max_threads: must be an integer from 1 to 4096");
    EXPECT_EQ(error_of(with_top(R"("php": {"workers": [{"file": "w.php", "watchs": ["*.php"]}]})")),
              "c.json: /php/workers/0/watchs: unknown setting \"watchs\"");
    EXPECT_EQ(error_of(with_top(R"("php": {"workers": [{"file": "w.php", "watch": ["a/*/b"]}]})")),
              "c.json: /php/workers/0/watch/0: watch pattern \"a/*/b\": wildcards go in the file "
              "name only, as DIR/NAME, DIR/**/NAME or DIR/**");
    EXPECT_EQ(error_of(with_top(R"("php": {"workers": [{"file": "w.php", "watch": []}]})")),
              "c.json: /php/workers/0/watch: must be a non-empty array of file patterns");
    EXPECT_EQ(error_of(with_site(R"("address": ":80")")),
              "c.json: /sites/0/address: unknown setting \"address\"");
    EXPECT_EQ(error_of(with_site(R"("workers": [{"file": "w.php", "threads": 2}])")),
              "c.json: /sites/0/workers/0/threads: unknown setting \"threads\"");
    EXPECT_EQ(error_of(with_site(R"("headers": [{"name": "X", "value": "1", "when": "always"}])")),
              "c.json: /sites/0/headers/0/when: unknown setting \"when\"");
    EXPECT_EQ(error_of(with_site(R"("respond": [{"code": 200}])")),
              "c.json: /sites/0/respond/0/code: unknown setting \"code\"");
    // Keys are escaped as JSON pointers.
    EXPECT_EQ(error_of(with_top(R"("a/b": 1)")), "c.json: /a~1b: unknown setting \"a/b\"");
}

// --- wrong types -------------------------------------------------------------------------------

TEST(JsonConfigErrors, WrongTypes) {
    EXPECT_EQ(error_of("[]"), "c.json: must be an object");
    EXPECT_EQ(error_of(with_top(R"("log": "debug")")), "c.json: /log: must be an object");
    EXPECT_EQ(error_of(with_top(R"("log": {"level": 1})")), "c.json: /log/level: must be a string");
    EXPECT_EQ(error_of(with_top(R"("php": {"num_threads": "4"})")),
              "c.json: /php/num_threads: must be an integer from 1 to 4096");
    EXPECT_EQ(error_of(with_top(R"("php": {"num_threads": 4.5})")),
              "c.json: /php/num_threads: must be an integer from 1 to 4096");
    EXPECT_EQ(error_of(with_top(R"("php": {"ini": {"memory_limit": 256}})")),
              "c.json: /php/ini/memory_limit: must be a string");
    EXPECT_EQ(error_of(with_top(R"("php": {"ini": ["memory_limit=1G"]})")),
              "c.json: /php/ini: must be an object of strings");
    EXPECT_EQ(error_of(with_top(R"("php": {"workers": {"file": "w.php"}})")),
              "c.json: /php/workers: must be an array of workers");
    EXPECT_EQ(error_of(with_top(R"("php": {"workers": ["w.php"]})")),
              "c.json: /php/workers/0: must be an object");
    EXPECT_EQ(error_of(with_top(R"("env": ["A=1"])")),
              "c.json: /env: must be an object of strings");
    EXPECT_EQ(error_of(with_top(R"("env": {"PORT": 8080})")),
              "c.json: /env/PORT: must be a string");
    EXPECT_EQ(error_of(R"({"sites": [":8080"]})"), "c.json: /sites/0: must be an object");
    EXPECT_EQ(error_of(with_site(R"("php": "yes")")),
              "c.json: /sites/0/php: must be true or false");
    EXPECT_EQ(error_of(with_site(R"("access_log": 1)")),
              "c.json: /sites/0/access_log: must be true or false");
    EXPECT_EQ(error_of(with_site(R"("listen": ":8080")")),
              "c.json: /sites/0/listen: must be an array of strings");
    EXPECT_EQ(error_of(with_site(R"("listen": [8080])")),
              "c.json: /sites/0/listen/0: must be a string");
    EXPECT_EQ(error_of(with_site(R"("hosts": "example.test")")),
              "c.json: /sites/0/hosts: must be an array of strings");
    EXPECT_EQ(error_of(with_site(R"("root": ["/srv"])")),
              "c.json: /sites/0/root: must be a string");
    EXPECT_EQ(error_of(with_site(R"("headers": {"X": "1"})")),
              "c.json: /sites/0/headers: must be an array");
    EXPECT_EQ(error_of(with_site(R"("respond": {"status": 200})")),
              "c.json: /sites/0/respond: must be an array");
    EXPECT_EQ(error_of(with_site(R"("workers": [{"file": "w.php", "match": "/api/*"}])")),
              "c.json: /sites/0/workers/0/match: must be an array of path patterns");
    EXPECT_EQ(error_of(with_site(R"("workers": [{"file": 1}])")),
              "c.json: /sites/0/workers/0/file: must be a string");
}

// --- values ------------------------------------------------------------------------------------

TEST(JsonConfigErrors, BadDurations) {
    EXPECT_EQ(error_of(with_top(R"("php": {"max_wait_time": "5x"})")),
              "c.json: /php/max_wait_time: invalid duration \"5x\": unknown unit \"x\" (use ns, "
              "us, ms, s, m, h or d)");
    EXPECT_EQ(error_of(with_top(R"("grace_period": 30)")),
              "c.json: /grace_period: must be a duration string such as \"30s\"");
    EXPECT_EQ(error_of(with_top(R"("grace_period": "-1s")")),
              "c.json: /grace_period: invalid duration \"-1s\": negative durations are not "
              "allowed");
    EXPECT_EQ(error_of(with_top(R"("http": {"timeouts": {"idle": "10"}})")),
              "c.json: /http/timeouts/idle: invalid duration \"10\": missing unit (use ns, us, "
              "ms, s, m, h or d, e.g. \"30s\")");
    EXPECT_EQ(error_of(with_top(R"("php": {"worker_restart_grace": ""})")),
              "c.json: /php/worker_restart_grace: invalid duration \"\": empty value");
}

TEST(JsonConfigErrors, BadSizes) {
    EXPECT_EQ(error_of(with_top(R"("http": {"max_body_size": "big"})")),
              "c.json: /http/max_body_size: invalid size \"big\": expected a number");
    EXPECT_EQ(error_of(with_top(R"("http": {"max_body_size": "10 parsecs"})")),
              "c.json: /http/max_body_size: invalid size \"10 parsecs\": unknown unit "
              "\"parsecs\" (use B, KB, KiB, MB, MiB, GB, GiB, TB or TiB)");
    EXPECT_EQ(error_of(with_top(R"("http": {"max_body_size": -1})")),
              "c.json: /http/max_body_size: must be a number of bytes or a size string such as "
              "\"64KiB\"");
    EXPECT_EQ(error_of(with_top(R"("http": {"body_memory_size": true})")),
              "c.json: /http/body_memory_size: must be a number of bytes or a size string such "
              "as \"64KiB\"");
    EXPECT_EQ(error_of(with_top(R"("http": {"max_header_size": 0})")),
              "c.json: /http/max_header_size: size must be above 0");
}

TEST(JsonConfig, TlsSite) {
    const server_config c = config_from_json(
        read_json_file(with_site(R"("listen": ["https://:8443"], "hosts": ["a.test"],
            "tls": {"certificate": "c.pem", "key": "k.pem"},
            "redirect_to_https": [":8080", "http://:8080"])"),
                       "c.json"),
        "c.json");
    const site_config& s = c.sites.front();
    EXPECT_EQ(s.listen, (std::vector<listen_address>{{"", 8443, true}}));
    ASSERT_TRUE(s.tls.has_value());
    EXPECT_EQ(s.tls->certificate, "c.pem");
    EXPECT_EQ(s.tls->key, "k.pem");
    EXPECT_EQ(s.tls->origin.pointer, "/sites/0/tls");
    EXPECT_EQ(s.redirect_to_https, (std::vector<listen_address>{{"", 8080, false}}));
}

TEST(JsonConfigErrors, TlsAndHttpsAddressesComeTogether) {
    EXPECT_EQ(error_of(with_site(R"("listen": ["https://:8443"])")),
              "c.json: /sites/0/listen: https:// addresses need the site's certificate: add "
              "\"tls\": {\"certificate\": FILE, \"key\": FILE} or {\"issuer\": \"acme\"}");
    EXPECT_EQ(error_of(with_site(R"("tls": {"certificate": "c", "key": "k"})")),
              "c.json: /sites/0/tls: the site has a certificate but no https:// address in "
              "\"listen\"");
    EXPECT_EQ(error_of(with_site(R"("listen": ["https://:1"], "tls": {"certificate": "c"})")),
              "c.json: /sites/0/tls: tls needs \"key\" (a PEM file), or \"issuer\": \"acme\"");
    EXPECT_EQ(error_of(with_site(R"("listen": ["https://:1"], "tls": {"issuer": "acme"})")),
              "c.json: /sites/0/tls: a managed certificate needs the site's \"hosts\" (its "
              "names)");
    EXPECT_EQ(error_of(with_site(R"("listen": ["https://:1"], "hosts": ["a.test"],
              "tls": {"issuer": "zerossl"})")),
              "c.json: /sites/0/tls/issuer: \"zerossl\": use \"acme\" or \"internal\"");
    EXPECT_EQ(error_of(R"({"acme": {"ca": "http://ca.test/dir"}, "sites": [{}]})"),
              "c.json: /acme/ca: \"http://ca.test/dir\": the CA's directory is an https:// URL");
    EXPECT_EQ(error_of(with_site(R"("listen": ["https://:1"], "tls": {"cert": "c"})")),
              "c.json: /sites/0/tls/cert: unknown setting \"cert\"");
    EXPECT_EQ(error_of(with_site(R"("redirect_to_https": [":80"])")),
              "c.json: /sites/0/redirect_to_https: only a site with \"tls\" can redirect to "
              "HTTPS");
    EXPECT_EQ(error_of(with_site(R"("listen": ["https://:1"], "tls": {"certificate": "c",
              "key": "k"}, "redirect_to_https": ["https://:2"])")),
              "c.json: /sites/0/redirect_to_https: \"https://:2\": redirects are answered on "
              "plain http:// addresses");
    EXPECT_EQ(error_of(with_top(R"("admin": "https://127.0.0.1:2019")")),
              "c.json: /admin: the admin endpoint speaks plain HTTP only; keep it on loopback");
    EXPECT_EQ(error_of(with_top(R"("admin": "unix//run/admin.sock")")),
              "c.json: /admin: the admin endpoint listens on TCP (e.g. \"127.0.0.1:2019\")");
}

TEST(JsonConfigErrors, BadAddresses) {
    EXPECT_EQ(error_of(with_site(R"("listen": ["localhost"])")),
              "c.json: /sites/0/listen: invalid listen address \"localhost\": missing port (e.g. "
              "\":8080\" or \"127.0.0.1:8080\")");
    EXPECT_EQ(error_of(with_site(R"("listen": [":65536"])")),
              "c.json: /sites/0/listen: invalid listen address \":65536\": port \"65536\" is "
              "above 65535");
    EXPECT_EQ(error_of(with_site(R"("listen": ["ftp://example.test:21"])")),
              "c.json: /sites/0/listen: invalid listen address \"ftp://example.test:21\": only "
              "the http:// and https:// schemes are supported");
    EXPECT_EQ(error_of(with_site(R"("listen": ["::1:8080"])")),
              "c.json: /sites/0/listen: invalid listen address \"::1:8080\": IPv6 addresses need "
              "brackets, e.g. \"[::1]:8080\"");
    EXPECT_EQ(error_of(with_site(R"("listen": [])")),
              "c.json: /sites/0/listen: a site needs at least one address");
    EXPECT_EQ(error_of(with_site(R"("hosts": ["shop example"])")),
              "c.json: /sites/0/hosts: \"shop example\" is not a host name");
    EXPECT_EQ(error_of(with_site(R"("hosts": [""])")),
              "c.json: /sites/0/hosts: \"\" is not a host name");
}

TEST(JsonConfigErrors, BadLogSettings) {
    EXPECT_EQ(error_of(with_top(R"("log": {"level": "verbose"})")),
              "c.json: /log/level: unknown log level \"verbose\" (use trace, debug, info, warn or "
              "error)");
    // The Caddyfile adapter lowers and maps "WARNING"; a JSON document says exactly what it means.
    EXPECT_EQ(error_of(with_top(R"("log": {"level": "WARN"})")),
              "c.json: /log/level: unknown log level \"WARN\" (use trace, debug, info, warn or "
              "error)");
    EXPECT_EQ(error_of(with_top(R"("log": {"format": "logfmt"})")),
              "c.json: /log/format: unknown log format \"logfmt\" (use console or json)");
}

TEST(JsonConfigErrors, ZeroAndNegativeCounts) {
    EXPECT_EQ(error_of(with_top(R"("php": {"num_threads": 0})")),
              "c.json: /php/num_threads: must be an integer from 1 to 4096");
    EXPECT_EQ(error_of(with_top(R"("php": {"num_threads": -4})")),
              "c.json: /php/num_threads: must be an integer from 1 to 4096");
    EXPECT_EQ(error_of(with_top(R"("php": {"max_queue": 0})")),
              "c.json: /php/max_queue: must be an integer from 1 to 1000000");
    EXPECT_EQ(error_of(with_top(R"("http": {"io_threads": 0})")),
              "c.json: /http/io_threads: must be an integer from 1 to 1024");
    EXPECT_EQ(error_of(with_top(R"("http": {"max_connections": -1})")),
              "c.json: /http/max_connections: must be an integer from 1 to 10000000");
    EXPECT_EQ(error_of(with_site(R"("workers": [{"file": "w.php", "num": 0}])")),
              "c.json: /sites/0/workers/0/num: must be an integer from 1 to 4096");
    EXPECT_EQ(error_of(with_site(R"("workers": [{"file": "w.php", "max_requests": -5}])")),
              "c.json: /sites/0/workers/0/max_requests: must be an integer from 0 to 4294967295");
    for (const char* failures : {"0", "-2", "1.5", "1001", "\"3\"", "18446744073709551615"}) {
        EXPECT_EQ(error_of(with_site(std::string(R"("workers": [{"file": "w.php", )") +
                                     R"("max_consecutive_failures": )" + failures + "}]")),
                  "c.json: /sites/0/workers/0/max_consecutive_failures: must be -1 (never give "
                  "up) or an integer from 1 to 1000")
            << failures;
    }
    EXPECT_EQ(error_of(with_site(R"("respond": [{"status": 99}])")),
              "c.json: /sites/0/respond/0/status: must be an integer from 100 to 999");
}

TEST(JsonConfigErrors, EnvironmentNames) {
    EXPECT_EQ(error_of(with_top(R"("env": {"A=B": "c"})")),
              "c.json: /env/A=B: an environment name cannot contain NUL or '='");
    EXPECT_EQ(error_of(with_site(R"("env": {"=X": "c"})")),
              "c.json: /sites/0/env/=X: an environment name cannot contain NUL or '='");
    EXPECT_EQ(error_of(with_site(R"("workers": [{"file": "w.php", "env": {"A\u0000B": "c"}}])")),
              "c.json: /sites/0/workers/0/env: an environment name cannot contain NUL or '='");
    EXPECT_EQ(error_of(with_top(R"("env": {"": "c"})")), "c.json: /env: a name is empty");
}

TEST(JsonConfigErrors, HeaderRules) {
    EXPECT_EQ(error_of(with_site(R"("headers": [{"name": "X-A\r\nSet-Cookie", "value": "1"}])")),
              "c.json: /sites/0/headers/0/name: \"X-A\\r\\nSet-Cookie\" is not a header name");
    EXPECT_EQ(error_of(with_site(R"("headers": [{"name": "X-A\n", "value": "1"}])")),
              "c.json: /sites/0/headers/0/name: \"X-A\\n\" is not a header name");
    EXPECT_EQ(error_of(with_site(R"("headers": [{"name": "X\u0000A", "value": "1"}])")),
              "c.json: /sites/0/headers/0/name: \"X\\x00A\" is not a header name");
    EXPECT_EQ(error_of(with_site(R"("headers": [{"name": "X-A:", "value": "1"}])")),
              "c.json: /sites/0/headers/0/name: \"X-A:\" is not a header name");
    EXPECT_EQ(error_of(with_site(R"("headers": [{"name": "X[A]", "value": "1"}])")),
              "c.json: /sites/0/headers/0/name: \"X[A]\" is not a header name");
    EXPECT_EQ(error_of(with_site(R"("headers": [{"name": "X-A", "value": "1\r\nX-B: 2"}])")),
              "c.json: /sites/0/headers/0/value: a header value cannot contain CR, LF or NUL");
    EXPECT_EQ(error_of(with_site(R"("headers": [{"name": "", "value": "1"}])")),
              "c.json: /sites/0/headers/0/name: \"\" is not a header name");
    EXPECT_EQ(error_of(with_site(R"("headers": [{"value": "1"}])")),
              "c.json: /sites/0/headers/0: a header rule needs a \"name\"");
    EXPECT_EQ(error_of(with_site(R"("headers": [{"name": "X-A"}])")),
              "c.json: /sites/0/headers/0: header X-A needs a \"value\"");
    EXPECT_EQ(error_of(with_site(R"("headers": [{"op": "append", "name": "X-A", "value": "1"}])")),
              "c.json: /sites/0/headers/0/op: unknown header operation \"append\" (use set, add "
              "or remove)");
    EXPECT_EQ(error_of(with_site(R"("headers": [{"op": "remove", "name": "connection"}])")),
              "c.json: /sites/0/headers/0/name: connection frames the response and cannot be "
              "changed");
}

TEST(JsonConfig, EncodeFormatsLevelsAndTypes) {
    const server_config config = config_from_json(
        read_json_file(with_site(R"("encode": {"formats": ["br", {"name": "gzip", "level": 9}],
                                   "minimum_length": "1KiB", "types": ["text/*"]})"),
                       "c.json"),
        "c.json");
    ASSERT_TRUE(config.sites.front().encode);
    const encode_config& e = *config.sites.front().encode;
    ASSERT_EQ(e.formats.size(), 2u);
    EXPECT_EQ(e.formats[0].name, "br");
    EXPECT_EQ(e.formats[0].level, 0);
    EXPECT_EQ(e.formats[1].name, "gzip");
    EXPECT_EQ(e.formats[1].level, 9);
    EXPECT_EQ(e.minimum_length, 1024u);
    EXPECT_EQ(e.types, std::vector<std::string>{"text/*"});
    const server_config defaults =
        config_from_json(read_json_file(with_site(R"("encode": {})"), "c.json"), "c.json");
    ASSERT_TRUE(defaults.sites.front().encode);
    EXPECT_EQ(defaults.sites.front().encode->formats.size(), 2u);
    EXPECT_EQ(defaults.sites.front().encode->minimum_length, 512u);
    EXPECT_FALSE(
        config_from_json(read_json_file(with_site(""), "c.json"), "c.json").sites.front().encode);
}

TEST(JsonConfigErrors, EncodeSettings) {
    EXPECT_EQ(error_of(with_site(R"("encode": {"formats": ["deflate"]})")),
              "c.json: /sites/0/encode/formats/0: unknown format \"deflate\" (use zstd, br or "
              "gzip)");
    EXPECT_EQ(error_of(with_site(R"("encode": {"formats": []})")),
              "c.json: /sites/0/encode/formats: must be a non-empty array of formats (zstd, br, "
              "gzip)");
    EXPECT_EQ(error_of(with_site(R"("encode": {"formats": ["gzip", {"name": "gzip"}]})")),
              "c.json: /sites/0/encode/formats/1: format gzip is given twice");
    EXPECT_EQ(error_of(with_site(R"("encode": {"formats": [{"name": "br", "level": 12}]})")),
              "c.json: /sites/0/encode/formats/0/level: must be an integer from 1 to 11");
    EXPECT_EQ(error_of(with_site(R"("encode": {"formats": [{"level": 1}]})")),
              "c.json: /sites/0/encode/formats/0: a format needs a \"name\"");
    EXPECT_EQ(error_of(with_site(R"("encode": {"formats": [3]})")),
              "c.json: /sites/0/encode/formats/0: must be a format name or {\"name\": ..., "
              "\"level\": ...}");
    EXPECT_EQ(error_of(with_site(R"("encode": {"types": ["text/html; charset=utf-8"]})")),
              "c.json: /sites/0/encode/types: \"text/html; charset=utf-8\" is not a "
              "Content-Type pattern (e.g. text/*, application/json, *+json)");
    EXPECT_EQ(error_of(with_site(R"("encode": {"level": 5})")),
              "c.json: /sites/0/encode/level: unknown setting \"level\"");
}

TEST(JsonConfigErrors, SiteSettings) {
    EXPECT_EQ(error_of(with_site(R"("index": "../index.php")")),
              "c.json: /sites/0/index: index \"../index.php\" must be a file name, e.g. "
              "index.php");
    EXPECT_EQ(error_of(with_site(R"("index": ".htaccess")")),
              "c.json: /sites/0/index: index \".htaccess\" must be a file name, e.g. index.php");
    EXPECT_EQ(error_of(with_site(R"("try_files": ["{path}", "index.php"])")),
              "c.json: /sites/0/try_files: \"index.php\" must start with '/', '{path}' or '='");
    EXPECT_EQ(error_of(with_site(R"("split": [".php", "phar"])")),
              "c.json: /sites/0/split: \"phar\" is not an extension");
    EXPECT_EQ(error_of(with_site(R"("respond": [{"path": "healthz"}])")),
              "c.json: /sites/0/respond/0/path: path pattern \"healthz\" must start with '/' or "
              "'*'");
    EXPECT_EQ(error_of(with_site(R"("workers": [{"file": "w.php", "match": ["api/*"]}])")),
              "c.json: /sites/0/workers/0/match/0: path pattern \"api/*\" must start with '/' or "
              "'*'");
    EXPECT_EQ(error_of(with_site(R"("path_roots": {"match": "/a/*"})")),
              "c.json: /sites/0/path_roots: must be an array");
    EXPECT_EQ(error_of(with_site(R"("path_roots": [{"match": "/a/*"}])")),
              "c.json: /sites/0/path_roots/0: a path root needs \"match\" and \"root\"");
    EXPECT_EQ(error_of(with_site(R"("path_roots": [{"match": "a/*", "root": "/srv"}])")),
              "c.json: /sites/0/path_roots/0/match: path pattern \"a/*\" must start with '/' or "
              "'*'");
    EXPECT_EQ(error_of(with_site(R"("path_roots": [{"match": "/a/*", "root": ""}])")),
              "c.json: /sites/0/path_roots/0/root: must name a directory");
    EXPECT_EQ(error_of(with_site(R"("path_roots": [{"match": "/a/*", "root": "/s", "x": 1}])")),
              "c.json: /sites/0/path_roots/0/x: unknown setting \"x\"");
    EXPECT_EQ(error_of(with_site(R"("workers": [{"num": 2}])")),
              "c.json: /sites/0/workers/0: a worker needs a \"file\"");
    EXPECT_EQ(error_of(with_site(R"("workers": [{"file": ""}])")),
              "c.json: /sites/0/workers/0/file: the worker file is empty");
    EXPECT_EQ(error_of(with_site(R"("php": false, "file_server": false)")),
              "c.json: /sites/0: the site serves nothing: enable php or file_server, or add "
              "respond");
}

TEST(JsonConfigErrors, NoSites) {
    const std::string no_site =
        "c.json: /sites: the configuration has no site (\"sites\": [{...}])";
    EXPECT_EQ(error_of(R"({})"), no_site);
    EXPECT_EQ(error_of(R"({"sites": []})"), no_site);
    EXPECT_EQ(error_of(R"({"sites": {}})"), no_site);
    EXPECT_EQ(error_of(R"({"php": {"num_threads": 4}})"), no_site);
}

// --- JSON syntax -------------------------------------------------------------------------------

TEST(JsonConfigErrors, SyntaxErrorsNameTheLine) {
    EXPECT_EQ(error_of("{\n  \"sites\": [\n    {\"php\": true,}\n  ]\n}\n"),
              "c.json:3: syntax error while parsing object key - unexpected '}'; expected string "
              "literal");
    EXPECT_EQ(error_of("{\n  \"sites\": [\n    {\"php\": tru}\n  ]\n}\n"),
              "c.json:3: syntax error while parsing value - invalid literal; last read: '\"php\": "
              "tru}'");
    EXPECT_EQ(error_of("{\"sites\": [{}]}\n}\n"),
              "c.json:2: syntax error while parsing value - unexpected '}'; expected end of "
              "input");
    EXPECT_EQ(error_of("{\n  // comments are not JSON\n  \"sites\": [{}]\n}\n"),
              "c.json:2: syntax error while parsing object key - invalid literal; last read: "
              "'{<U+000A>  /'; expected string literal");
    EXPECT_EQ(error_of(""),
              "c.json:1: syntax error while parsing value - unexpected end of input; expected "
              "'[', '{', or a literal");
}

TEST(JsonConfigErrors, SyntaxErrorKeepsFileAndLine) {
    try {
        read_json_file("{\n\n  \"a\" 1\n}", "/etc/spindle.json");
        FAIL() << "no error";
    } catch (const config_error& e) {
        EXPECT_EQ(e.file(), "/etc/spindle.json");
        EXPECT_EQ(e.line(), 3u);
        EXPECT_EQ(e.message(),
                  "syntax error while parsing object separator - unexpected number literal; "
                  "expected ':'");
    }
}

}  // namespace
}  // namespace spindle::config

namespace spindle::config {
namespace {

TEST(JsonConfig, TrustedProxiesAndProxyProtocolAreRead) {
    const server_config c = config_from_json(read_json_file(with_top(R"("http": {
      "trusted_proxies": {"source": "static", "ranges": ["10.0.0.0/8", "fd00::/8"]},
      "trusted_proxies_strict": 1, "trusted_proxies_unix": true, "trusted_proxies_host": true,
      "client_ip_headers": ["X-Real-IP"],
      "listener_wrappers": [{"wrapper": "proxy_protocol", "timeout": "2s",
                             "allow": ["10.0.0.0/8"], "deny": ["10.9.0.0/16"],
                             "fallback_policy": "require"}, {"wrapper": "tls"}]})"),
                                                            "c.json"),
                                             "c.json");
    EXPECT_EQ(c.trusted_proxies.ranges, (std::vector<std::string>{"10.0.0.0/8", "fd00::/8"}));
    EXPECT_TRUE(c.trusted_proxies.strict);
    EXPECT_TRUE(c.trusted_proxies.trust_unix);
    EXPECT_TRUE(c.trusted_proxies.use_host);
    EXPECT_EQ(c.trusted_proxies.client_ip_headers, std::vector<std::string>{"X-Real-IP"});
    ASSERT_TRUE(c.proxy_protocol);
    EXPECT_EQ(c.proxy_protocol->timeout, 2s);
    EXPECT_EQ(c.proxy_protocol->allow, std::vector<std::string>{"10.0.0.0/8"});
    EXPECT_EQ(c.proxy_protocol->deny, std::vector<std::string>{"10.9.0.0/16"});
    EXPECT_EQ(c.proxy_protocol->fallback_policy, "require");

    const server_config defaults =
        config_from_json(read_json_file(with_top(R"("http": {})"), "c.json"), "c.json");
    EXPECT_TRUE(defaults.trusted_proxies.ranges.empty());
    EXPECT_FALSE(defaults.trusted_proxies.strict);
    EXPECT_EQ(defaults.trusted_proxies.client_ip_headers,
              (std::vector<std::string>{"X-Forwarded-For", "Forwarded"}));
    EXPECT_FALSE(defaults.proxy_protocol);
}

TEST(JsonConfig, ProtocolsAreRead) {
    const server_config c = config_from_json(
        read_json_file(with_top(R"("http": {"protocols": ["h2c", "h1"]})"), "c.json"), "c.json");
    EXPECT_TRUE(c.protocols.h1);
    EXPECT_FALSE(c.protocols.h2);
    EXPECT_TRUE(c.protocols.h2c);
    // Caddy's default: HTTP/1.1, and HTTP/2 where TLS can negotiate it.
    const server_config defaults =
        config_from_json(read_json_file(with_top(R"("http": {})"), "c.json"), "c.json");
    EXPECT_TRUE(defaults.protocols.h1);
    EXPECT_TRUE(defaults.protocols.h2);
    EXPECT_FALSE(defaults.protocols.h2c);
    EXPECT_EQ(error_of(with_top(R"("http": {"protocols": ["h1", "h3"]})")),
              "c.json: /http/protocols/1: unknown protocol \"h3\" (Spindle speaks h1, h2 and h2c; "
              "not h3)");
    EXPECT_EQ(error_of(with_top(R"("http": {"protocols": []})")),
              "c.json: /http/protocols: name at least one protocol (h1, h2, h2c)");
}

TEST(JsonConfig, TrustedProxiesAndProxyProtocolErrors) {
    EXPECT_EQ(error_of(with_top(R"("http": {"trusted_proxies": {"source": "cloudflare"}})")),
              "c.json: /http/trusted_proxies/source: must be \"static\" (the only source "
              "Spindle has)");
    EXPECT_EQ(
        error_of(with_top(
            R"("http": {"trusted_proxies": {"source": "static", "ranges": ["1.2.3.4/40"]}})")),
        "c.json: /http/trusted_proxies/ranges/0: \"1.2.3.4/40\" is not an IP range: the "
        "prefix length is above 32");
    EXPECT_EQ(error_of(with_top(R"("http": {"client_ip_headers": ["X Real"]})")),
              "c.json: /http/client_ip_headers/0: \"X Real\" is not a header name");
    EXPECT_EQ(
        error_of(with_top(R"("http": {"listener_wrappers": [{"wrapper": "http_redirect"}]})")),
        "c.json: /http/listener_wrappers/0/wrapper: unknown listener wrapper "
        "\"http_redirect\" (use proxy_protocol or tls)");
    EXPECT_EQ(
        error_of(with_top(
            R"("http": {"listener_wrappers": [{"wrapper": "proxy_protocol", "timeout": "0s"}]})")),
        "c.json: /http/listener_wrappers/0/timeout: must be above 0");
    EXPECT_EQ(
        error_of(with_top(
            R"("http": {"listener_wrappers": [{"wrapper": "proxy_protocol", "allow": "10.0.0.0/8"}]})")),
        "c.json: /http/listener_wrappers/0/allow: must be an array of strings");
}

TEST(JsonConfig, ProcessesAndTheirRestartThreshold) {
    const server_config defaults =
        config_from_json(read_json_file(with_top(R"("admin": "off")"), "c.json"), "c.json");
    EXPECT_EQ(defaults.processes, 1u);
    EXPECT_EQ(defaults.emergency_restart_threshold, 10u);
    EXPECT_EQ(defaults.emergency_restart_interval, 60s);
    const server_config c = config_from_json(
        read_json_file(with_top(R"("php": {"processes": 4, "emergency_restart_threshold": 0,
                                           "emergency_restart_interval": "30s"})"),
                       "c.json"),
        "c.json");
    EXPECT_EQ(c.processes, 4u);
    EXPECT_EQ(c.emergency_restart_threshold, 0u);
    EXPECT_EQ(c.emergency_restart_interval, 30s);
}

TEST(JsonConfigErrors, BadProcesses) {
    EXPECT_EQ(error_of(with_top(R"("php": {"processes": 0})")),
              "c.json: /php/processes: must be an integer from 1 to 256");
    EXPECT_EQ(error_of(with_top(R"("php": {"emergency_restart_interval": 5})")),
              "c.json: /php/emergency_restart_interval: must be a duration string such as "
              "\"30s\"");
}

}  // namespace
}  // namespace spindle::config
