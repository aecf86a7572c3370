#include "config/caddyfile_adapter.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "config/config_error.hpp"
#include "config/json_config.hpp"
#include "config/resolve_config.hpp"

// Every Caddyfile mistake must stop the start with one message that names the file and the
// line to fix. These tests pin the whole message: a change of wording is a change users see.

namespace spindle::config {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> test_env(const std::string& name) {
    if (name == "APP_ENV") {
        return "prod";
    }
    return std::nullopt;
}

std::string no_imports(const std::string& path) {
    throw config_error("cannot read", path, 0);
}

/// Adapts `text` as the file "Caddyfile" and checks the document the way `spindle validate`
/// does, without the filesystem checks.
server_config load(const std::string& text) {
    const adapted_caddyfile adapted = adapt_caddyfile(text, "Caddyfile", test_env, no_imports);
    return config_from_json(adapted.document, "Caddyfile", adapted.sources);
}

/// The what() of the config_error that loading `text` throws; fails the test if none.
std::string error_of(const std::string& text) {
    try {
        load(text);
    } catch (const config_error& error) {
        return error.what();
    }
    ADD_FAILURE() << "no config_error for:\n" << text;
    return {};
}

/// `directives` inside a site block on :8080, from line 2 on.
std::string site(const std::string& directives) {
    return ":8080 {\n" + directives + "}\n";
}

/// A global options block holding `options` (from line 2 on), then a site that serves PHP.
std::string global(const std::string& options) {
    return "{\n" + options + "}\n:8080 {\n\tphp_server\n}\n";
}

// --- unknown names ---------------------------------------------------------------------------

TEST(CaddyfileErrors, UnknownGlobalOption) {
    EXPECT_EQ(error_of(global("\tservers_for_all 1\n")),
              "Caddyfile:2: unknown global option \"servers_for_all\"");
}

TEST(CaddyfileErrors, CertificateOptionsAreAcceptedWithAWarningAtTheirLine) {
    // email, acme_ca, storage and auto_https are automatic HTTPS's own options (docs/tls.md);
    // the rest of Caddy's certificate automation is accepted with a warning.
    const adapted_caddyfile adapted = adapt_caddyfile(
        global("\tskip_install_trust\n\temail ops@example.test\n\tacme_ca https://acme.example\n"
               "\tstorage file_system {\n\t\troot /var/lib/caddy\n\t}\n\tauto_https disable_certs\n"
               "\tpersist_config off\n\tocsp_stapling off\n"),
        "Caddyfile", test_env, no_imports);
    EXPECT_THAT(
        adapted.warnings,
        ::testing::ElementsAre(
            "Caddyfile:2: skip_install_trust has no effect: Spindle never installs a certificate "
            "authority in a trust store",
            "Caddyfile:9: persist_config has no effect: Spindle keeps no configuration of its own "
            "to persist",
            "Caddyfile:10: ocsp_stapling has no effect: Spindle's automatic HTTPS has no such "
            "setting (HTTP-01 and TLS-ALPN-01 with the defaults; see docs/tls.md)"));
    EXPECT_EQ(adapted.document["acme"]["email"], "ops@example.test");
    EXPECT_EQ(adapted.document["acme"]["ca"], "https://acme.example");
    EXPECT_EQ(adapted.document["storage"]["root"], "/var/lib/caddy");
}

TEST(CaddyfileErrors, BadXSendfile) {
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tx_sendfile\n\t}\n")),
              "Caddyfile:3: x_sendfile: give the directories it may send from");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tx_sendfile {\n\t\t\taccel_redirect /p/\n"
                            "\t\t}\n\t}\n")),
              "Caddyfile:4: accel_redirect: use accel_redirect /PREFIX/ DIRECTORY");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tx_sendfile {\n\t\t\tsendfile_root /a\n"
                            "\t\t}\n\t}\n")),
              "Caddyfile:4: unknown x_sendfile option \"sendfile_root\"");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tx_sendfile {\n\t\t\taccel_redirect p/ /a\n"
                            "\t\t}\n\t}\n")),
              "Caddyfile:4: prefix: \"p/\" must be a URL path starting with '/'");
}

TEST(CaddyfileErrors, UnknownFrankenphpOption) {
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tnum_thread 4\n\t}\n")),
              "Caddyfile:3: unknown frankenphp option \"num_thread\"");
}

TEST(CaddyfileErrors, UnknownServersOptionAndTimeout) {
    EXPECT_EQ(error_of(global("\tservers {\n\t\tstrict_sni_host\n\t}\n")),
              "Caddyfile:3: unknown servers option \"strict_sni_host\"");
    EXPECT_EQ(error_of(global("\tservers {\n\t\tprotocols h1 h3\n\t}\n")),
              "Caddyfile:3: unknown protocol \"h3\" (Spindle speaks h1, h2 and h2c; not h3)");
    EXPECT_EQ(error_of(global("\tservers {\n\t\ttimeouts {\n\t\t\tread 5s\n\t\t}\n\t}\n")),
              "Caddyfile:4: unknown timeout \"read\" (use read_header, read_body, write or idle)");
}

TEST(CaddyfileErrors, UnknownLogOption) {
    EXPECT_EQ(error_of(global("\tlog {\n\t\tinclude http.log.access\n\t}\n")),
              "Caddyfile:3: unknown log option \"include\"");
}

TEST(CaddyfileErrors, UnknownDirectiveInSite) {
    EXPECT_EQ(error_of(site("\tphp_server\n\treverse_proxy localhost:9000\n")),
              "Caddyfile:3: unknown directive \"reverse_proxy\"");
}

TEST(CaddyfileErrors, UnknownPhpServerOption) {
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tfastcgi 127.0.0.1:9000\n\t}\n")),
              "Caddyfile:3: unknown php_server option \"fastcgi\"");
    // file_server is a php_server option only.
    EXPECT_EQ(error_of(site("\tphp {\n\t\tfile_server off\n\t}\n")),
              "Caddyfile:3: unknown php option \"file_server\"");
}

TEST(CaddyfileErrors, UnknownWorkerOption) {
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tworker {\n\t\t\tfile a.php\n\t\t\tthreads "
                              "4\n\t\t}\n\t}\n")),
              "Caddyfile:5: unknown worker option \"threads\"");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tworker {\n\t\t\tfile a.php\n\t\t\tcount "
                            "2\n\t\t}\n\t}\n")),
              "Caddyfile:5: unknown worker option \"count\"");
}

TEST(CaddyfileErrors, FileServerBrowseIsRefused) {
    EXPECT_EQ(error_of(site("\tfile_server browse\n")),
              "Caddyfile:2: file_server browse: not supported (directory listings are never "
              "served)");
    EXPECT_EQ(error_of(site("\tfile_server {\n\t\thide .git\n\t}\n")),
              "Caddyfile:3: file_server: unknown option \"hide\"");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tfollow_symlinks off\n\t}\n")),
              "Caddyfile:3: follow_symlinks takes no argument");
}

// --- argument counts -------------------------------------------------------------------------

TEST(CaddyfileErrors, WrongArgumentCounts) {
    EXPECT_EQ(error_of(site("\troot\n\tphp_server\n")),
              "Caddyfile:2: wrong argument count or unexpected line ending after 'root'");
    EXPECT_EQ(error_of(site("\troot * /srv extra\n\tphp_server\n")),
              "Caddyfile:2: wrong argument count or unexpected line ending after 'extra'");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tnum_threads 4 8\n\t}\n")),
              "Caddyfile:3: wrong argument count or unexpected line ending after '8'");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tworker a.php 2 3\n\t}\n")),
              "Caddyfile:3: wrong argument count or unexpected line ending after '3'");
    EXPECT_EQ(error_of(global("\tgrace_period\n")),
              "Caddyfile:2: wrong argument count or unexpected line ending after "
              "'grace_period'");
    EXPECT_EQ(error_of(global("\tdebug on\n")),
              "Caddyfile:2: wrong argument count or unexpected line ending after 'on'");
    EXPECT_EQ(error_of(site("\tphp_server\n\theader X-A b c\n")),
              "Caddyfile:3: wrong argument count or unexpected line ending after 'c'");
    EXPECT_EQ(error_of(site("\tphp_server\n\theader\n")),
              "Caddyfile:3: wrong argument count or unexpected line ending after 'header'");
    EXPECT_EQ(error_of(site("\trespond /a \"body\" 200 extra\n")),
              "Caddyfile:2: wrong argument count or unexpected line ending after 'extra'");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tenv\n\t}\n")),
              "Caddyfile:3: wrong argument count or unexpected line ending after 'env'");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tenv A b c\n\t}\n")),
              "Caddyfile:3: wrong argument count or unexpected line ending after 'c'");
    EXPECT_EQ(error_of(site("\ttry_files\n\tphp_server\n")),
              "Caddyfile:2: wrong argument count or unexpected line ending after 'try_files'");
    EXPECT_EQ(error_of(site("\tbind\n\tphp_server\n")),
              "Caddyfile:2: wrong argument count or unexpected line ending after 'bind'");
    EXPECT_EQ(error_of(site("\tphp_server extra\n")),
              "Caddyfile:2: wrong argument count or unexpected line ending after 'extra'");
}

TEST(CaddyfileErrors, EnvWithoutValue) {
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tenv APP_ENV\n\t}\n")),
              "Caddyfile:3: env APP_ENV: missing value (write \"\" for an empty one)");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tworker {\n\t\t\tfile a.php\n\t\t\tenv "
                              "QUEUE\n\t\t}\n\t}\n")),
              "Caddyfile:5: env QUEUE: missing value (write \"\" for an empty one)");
    // An unset placeholder leaves no token behind, so the value is missing too.
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tenv SECRET {$UNSET_SECRET}\n\t}\n")),
              "Caddyfile:3: env SECRET: missing value (write \"\" for an empty one)");
}

TEST(CaddyfileErrors, PhpIniWithoutValue) {
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tphp_ini memory_limit\n\t}\n")),
              "Caddyfile:3: php_ini memory_limit: missing value");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tphp_ini {\n\t\t\tmemory_limit\n\t\t}\n\t}\n")),
              "Caddyfile:4: php_ini memory_limit: missing value");
}

TEST(CaddyfileErrors, WorkerWithoutFile) {
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tworker {\n\t\t\tnum 2\n\t\t}\n\t}\n")),
              "Caddyfile:3: worker: no file given");
}

// --- values ----------------------------------------------------------------------------------

TEST(CaddyfileErrors, BadDurationNamesTheCaddyfileLine) {
    // Checked by config_from_json, located through the source map.
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tmax_wait_time 5x\n\t}\n")),
              "Caddyfile:3: max_wait_time: invalid duration \"5x\": unknown unit \"x\" (use "
              "ns, us, ms, s, m, h or d)");
    EXPECT_EQ(error_of(global("\tservers {\n\t\ttimeouts {\n\t\t\tidle 30\n\t\t}\n\t}\n")),
              "Caddyfile:4: idle: invalid duration \"30\": missing unit (use ns, us, ms, s, m, "
              "h or d, e.g. \"30s\")");
    EXPECT_EQ(error_of(global("\tgrace_period soon\n")),
              "Caddyfile:2: grace_period: invalid duration \"soon\": expected a number");
}

TEST(CaddyfileErrors, BadSize) {
    EXPECT_EQ(error_of(global("\tservers {\n\t\tmax_header_size 16QB\n\t}\n")),
              "Caddyfile:3: max_header_size: invalid size \"16QB\": unknown unit \"QB\" (use B, "
              "KB, KiB, MB, MiB, GB, GiB, TB or TiB)");
    EXPECT_EQ(error_of(global("\tservers {\n\t\tmax_header_size 0\n\t}\n")),
              "Caddyfile:3: max_header_size: size must be above 0");
}

TEST(CaddyfileErrors, BadNumbers) {
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tnum_threads many\n\t}\n")),
              "Caddyfile:3: num_threads: \"many\" is not a whole number");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tnum_threads 0\n\t}\n")),
              "Caddyfile:3: num_threads: must be an integer from 1 to 4096");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tnum_threads -2\n\t}\n")),
              "Caddyfile:3: num_threads: \"-2\" is not a whole number");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tworker a.php two\n\t}\n")),
              "Caddyfile:3: worker: \"two\" is not a thread count");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tworker a.php 0\n\t}\n")),
              "Caddyfile:3: num: must be an integer from 1 to 4096");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tworker {\n\t\t\tfile a.php\n\t\t\tmax_requests "
                            "-1\n\t\t}\n\t}\n")),
              "Caddyfile:5: max_requests: \"-1\" is not a whole number");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tworker {\n\t\t\tfile "
                            "a.php\n\t\t\tmax_consecutive_failures never\n\t\t}\n\t}\n")),
              "Caddyfile:5: max_consecutive_failures: \"never\" is not a whole number or -1");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tworker {\n\t\t\tfile "
                            "a.php\n\t\t\tmax_consecutive_failures 0\n\t\t}\n\t}\n")),
              "Caddyfile:5: max_consecutive_failures: must be -1 (never give up) or an integer "
              "from 1 to 1000");
    EXPECT_EQ(error_of(global("\tservers {\n\t\tmax_connections 0\n\t}\n")),
              "Caddyfile:3: max_connections: must be an integer from 1 to 10000000");
}

TEST(CaddyfileErrors, BadLogLevelAndFormat) {
    EXPECT_EQ(error_of(global("\tlog {\n\t\tlevel verbose\n\t}\n")),
              "Caddyfile:3: level: unknown log level \"verbose\" (use trace, debug, info, warn or "
              "error)");
    EXPECT_EQ(error_of(global("\tlog {\n\t\tformat logfmt\n\t}\n")),
              "Caddyfile:3: format: unknown log format \"logfmt\" (use console or json)");
    EXPECT_EQ(error_of(global("\tlog {\n\t\toutput file /var/log/spindle.log\n\t}\n")),
              "Caddyfile:3: log output: only stderr is supported");
    EXPECT_EQ(error_of(global("\tlog {\n\t\toutput stdout\n\t}\n")),
              "Caddyfile:3: log output: only stderr is supported");
    EXPECT_EQ(error_of(global("\tlog access {\n\t\tlevel info\n\t}\n")),
              "Caddyfile:2: log: named loggers are not supported; use one log block");
}

TEST(CaddyfileErrors, BadPathsAndNames) {
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tworker {\n\t\t\tfile a.php\n\t\t\tmatch "
                            "api\n\t\t}\n\t}\n")),
              "Caddyfile:5: path pattern \"api\" must start with '/' or '*'");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\ttry_files {path} index.php\n\t}\n")),
              "Caddyfile:3: try_files: \"index.php\" must start with '/', '{path}' or '='");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tindex public/index.php\n\t}\n")),
              "Caddyfile:3: index: index \"public/index.php\" must be a file name, e.g. "
              "index.php");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tsplit php\n\t}\n")),
              "Caddyfile:3: split: \"php\" is not an extension");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tenv A=B c\n\t}\n")),
              "Caddyfile:3: A=B: an environment name cannot contain NUL or '='");
    EXPECT_EQ(error_of(site("\tphp_server\n\theader \"Bad Name\" x\n")),
              "Caddyfile:3: name: \"Bad Name\" is not a header name");
}

// --- site addresses --------------------------------------------------------------------------

TEST(CaddyfileErrors, BadPortInSiteAddress) {
    EXPECT_EQ(error_of(":99999 {\n\tphp_server\n}\n"),
              "Caddyfile:1: site address \":99999\": \"99999\" is not a port");
    EXPECT_EQ(error_of("example.test:http {\n\tphp_server\n}\n"),
              "Caddyfile:1: site address \"example.test:http\": \"http\" is not a port");
    EXPECT_EQ(error_of("{\n\thttp_port 0\n}\nexample.test {\n\tphp_server\n}\n"),
              "Caddyfile:2: http_port: \"0\" is not a port");
}

TEST(CaddyfileErrors, HttpsNeedsACertificateAndOtherSchemesAreRefused) {
    EXPECT_EQ(error_of("{\n\tauto_https off\n}\nhttps://example.test {\n\tphp_server\n}\n"),
              "Caddyfile:4: site address \"https://example.test\": auto_https is off; add \"tls "
              "CERT KEY\", \"tls internal\" or \"tls EMAIL\"");
    EXPECT_EQ(error_of("http://a.test, a.test {\n\ttls c.pem k.pem\n\tphp_server\n}\n"),
              "Caddyfile:1: site address \"http://a.test\": an http:// address cannot share a "
              "block with tls or https://; give it its own block");
    EXPECT_EQ(error_of("ws://example.test {\n\tphp_server\n}\n"),
              "Caddyfile:1: site address \"ws://example.test\": unknown scheme (use http:// or "
              "https://)");
    EXPECT_EQ(error_of("example.test:8080/app {\n\tphp_server\n}\n"),
              "Caddyfile:1: site address \"example.test:8080/app\": a path in a site address is "
              "not supported");
}

TEST(CaddyfileErrors, AddressesThatCannotShareABlock) {
    // One site answers every host on every port of its block; Caddy answers only the pairs
    // written, so these would answer more than asked.
    EXPECT_EQ(error_of("a.test:8080, b.test:9090 {\n\tphp_server\n}\n"),
              "Caddyfile:1: site addresses \"a.test:8080\" and \"b.test:9090\" cannot share a "
              "block: a block answers each of its hosts on each of its ports; give them separate "
              "blocks");
    EXPECT_EQ(error_of("a.test:8080,\n:9090 {\n\tphp_server\n}\n"),
              "Caddyfile:2: site addresses \"a.test:8080\" and \":9090\" cannot share a block: one "
              "answers any host, the other only its own; give them separate blocks");
}

// --- refused directives ----------------------------------------------------------------------

TEST(CaddyfileErrors, BadEncode) {
    EXPECT_EQ(error_of(site("\tphp_server\n\tencode zstd deflate\n")),
              "Caddyfile:3: encode: unknown format \"deflate\" (use zstd, br or gzip)");
    EXPECT_EQ(error_of(site("\tphp_server\n\tencode gzip gzip\n")),
              "Caddyfile:3: encode: format gzip is given twice");
    EXPECT_EQ(error_of(site("\tencode /api/* gzip\n\tphp_server\n")),
              "Caddyfile:2: encode: matcher \"/api/*\" is not supported (only * or none: it "
              "applies to the whole site)");
    EXPECT_EQ(error_of(site("\tphp_server\n\tencode {\n\t\tgzip 10\n\t}\n")),
              "Caddyfile:4: gzip: level \"10\" is not from 1 to 9");
    EXPECT_EQ(error_of(site("\tphp_server\n\tencode {\n\t\tzstd fast\n\t}\n")),
              "Caddyfile:4: zstd: level \"fast\" is not from 1 to 19 (or fastest, default, "
              "better, best)");
    EXPECT_EQ(error_of(site("\tphp_server\n\tencode {\n\t\tminimum_length 1k\n\t}\n")),
              "Caddyfile:4: minimum_length: \"1k\" is not a number of bytes");
    EXPECT_EQ(error_of(site("\tphp_server\n\tencode {\n\t\tprefer gzip\n\t}\n")),
              "Caddyfile:4: unknown encode option \"prefer\" (use gzip, zstd, br, "
              "minimum_length or match)");
    EXPECT_EQ(error_of(site("\tphp_server\n\tencode {\n\t\tmatch {\n\t\t\tstatus 200\n"
                            "\t\t}\n\t}\n")),
              "Caddyfile:5: encode match: matcher \"status\" is not supported (only header "
              "Content-Type)");
    EXPECT_EQ(error_of(site("\tphp_server\n\tencode {\n\t\tmatch {\n\t\t\theader Accept *\n"
                            "\t\t}\n\t}\n")),
              "Caddyfile:5: encode match: header Accept is not supported (only Content-Type)");
    EXPECT_EQ(error_of(site("\tphp_server\n\tencode gzip\n\tencode zstd\n")),
              "Caddyfile:4: encode: given twice in this site");
}

TEST(CaddyfileErrors, EncodeValuesAreReadIntoTheModel) {
    const server_config config =
        load(site("\tphp_server\n\tencode br gzip {\n\t\tgzip 9\n\t\tzstd best\n"
                  "\t\tminimum_length 1024\n\t\tmatch {\n\t\t\theader Content-Type text/* "
                  "*+json\n\t\t}\n\t}\n"));
    ASSERT_TRUE(config.sites.front().encode);
    const encode_config& e = *config.sites.front().encode;
    ASSERT_EQ(e.formats.size(), 3u);
    EXPECT_EQ(e.formats[0].name, "br");
    EXPECT_EQ(e.formats[0].level, 0);
    EXPECT_EQ(e.formats[1].name, "gzip");
    EXPECT_EQ(e.formats[1].level, 9);
    EXPECT_EQ(e.formats[2].name, "zstd");
    EXPECT_EQ(e.formats[2].level, 11);
    EXPECT_EQ(e.minimum_length, 1024u);
    EXPECT_EQ(e.types, (std::vector<std::string>{"text/*", "*+json"}));
    // Without formats, Caddy's: zstd then gzip. Without `encode`, none.
    const server_config plain = load(site("\tphp_server\n\tencode\n"));
    ASSERT_TRUE(plain.sites.front().encode);
    ASSERT_EQ(plain.sites.front().encode->formats.size(), 2u);
    EXPECT_EQ(plain.sites.front().encode->formats[0].name, "zstd");
    EXPECT_EQ(plain.sites.front().encode->formats[1].name, "gzip");
    EXPECT_FALSE(load(site("\tphp_server\n")).sites.front().encode);
}

TEST(CaddyfileErrors, TlsTakesACertificateAndKey) {
    EXPECT_EQ(error_of(site("\ttls ops\n\tphp_server\n")),
              "Caddyfile:2: tls ops: give tls CERT KEY, tls internal or tls EMAIL");
    // A managed certificate is for the names of the site address.
    EXPECT_EQ(error_of(site("\ttls internal\n\tphp_server\n")),
              "Caddyfile:1: site address \":8080\": a managed certificate (tls internal or "
              "EMAIL) needs host names in the site address");
    EXPECT_EQ(error_of("{\n\tstorage redis\n}\na.test {\n\tphp_server\n}\n"),
              "Caddyfile:2: storage redis: only file_system is supported");
    EXPECT_EQ(error_of(site("\ttls a b c\n\tphp_server\n")),
              "Caddyfile:2: wrong argument count or unexpected line ending after 'c'");
    EXPECT_EQ(error_of(site("\ttls c.pem k.pem {\n\t\tprotocols tls1.3\n\t}\n\tphp_server\n")),
              "Caddyfile:3: tls: unknown option \"protocols\"");
    EXPECT_EQ(error_of(global("\tauto_https on\n")),
              "Caddyfile:2: auto_https: \"on\" is not supported (use off, disable_redirects or "
              "disable_certs)");
    EXPECT_EQ(error_of(global("\thttps_port 70000\n")),
              "Caddyfile:2: https_port: \"70000\" is not a port");
}

TEST(CaddyfileAdapter, TlsSiteListensOnHttpsPortAndRedirectsFromHttpPort) {
    const server_config c = load(
        "{\n\thttp_port 8080\n\thttps_port 8443\n}\n"
        "a.test, b.test {\n\ttls c.pem k.pem\n\tphp_server\n}\n");
    ASSERT_EQ(c.sites.size(), 1u);
    const site_config& s = c.sites.front();
    EXPECT_EQ(s.listen, (std::vector<listen_address>{{"", 8443, true}}));
    EXPECT_EQ(s.hosts, (std::vector<std::string>{"a.test", "b.test"}));
    ASSERT_TRUE(s.tls.has_value());
    EXPECT_EQ(s.tls->certificate, "c.pem");
    EXPECT_EQ(s.tls->key, "k.pem");
    EXPECT_EQ(s.tls->origin.line, 6u);
    EXPECT_EQ(s.redirect_to_https, (std::vector<listen_address>{{"", 8080, false}}));
}

TEST(CaddyfileAdapter, ExplicitPortsAndDisabledRedirects) {
    const server_config c = load(
        "{\n\tauto_https disable_redirects\n}\n"
        "https://a.test:9443 {\n\tbind 127.0.0.1\n\ttls c k\n"
        "\tphp_server\n}\n");
    EXPECT_EQ(c.sites.front().listen, (std::vector<listen_address>{{"127.0.0.1", 9443, true}}));
    EXPECT_TRUE(c.sites.front().redirect_to_https.empty());
}

TEST(CaddyfileAdapter, NoRedirectForASiteAnsweringAnyHost) {
    const server_config c = load(":8443 {\n\ttls c k\n\tphp_server\n}\n");
    EXPECT_EQ(c.sites.front().listen, (std::vector<listen_address>{{"", 8443, true}}));
    EXPECT_TRUE(c.sites.front().redirect_to_https.empty());
}

TEST(CaddyfileErrors, AdminTakesAnAddressOrOff) {
    EXPECT_EQ(load(global("\tadmin 127.0.0.1:9019\n")).admin, (listen_address{"127.0.0.1", 9019}));
    EXPECT_EQ(load(global("\tadmin localhost:2019\n")).admin, (listen_address{"localhost", 2019}));
    EXPECT_EQ(load(global("\tadmin off\n")).admin, std::nullopt);
    EXPECT_EQ(load(global("\tadmin off\n")).admin_origin.line, 2u);
    EXPECT_EQ(error_of(global("\tadmin 2019\n")),
              "Caddyfile:2: admin: invalid listen address \"2019\": missing port (e.g. \":8080\" "
              "or \"127.0.0.1:8080\") (or \"off\")");
    EXPECT_EQ(error_of(global("\tadmin\n")),
              "Caddyfile:2: wrong argument count or unexpected line ending after 'admin'");
    EXPECT_EQ(error_of(global("\tadmin :2019 {\n\t\torigins localhost\n\t}\n")),
              "Caddyfile:3: admin: unknown option \"origins\"");
}

TEST(CaddyfileErrors, NamedMatchersAreRefused) {
    EXPECT_EQ(error_of(site("\t@api path /api/*\n\tphp_server\n")),
              "Caddyfile:2: named matchers (@api) are not supported");
    EXPECT_EQ(error_of(site("\trespond @api 404\n")),
              "Caddyfile:2: named matchers (@api) are not supported");
    EXPECT_EQ(error_of(site("\tphp_server /api/*\n")),
              "Caddyfile:2: php_server: matcher \"/api/*\" is not supported (only * or none: it "
              "applies to the whole site)");
    EXPECT_EQ(error_of(site("\troot @api /srv\n\tphp_server\n")),
              "Caddyfile:2: root: named matchers (@api) are not supported; write a path: root "
              "/path/* DIR");
    EXPECT_EQ(error_of(site("\troot /api/* /srv extra\n\tphp_server\n")),
              "Caddyfile:2: wrong argument count or unexpected line ending after 'extra'");
    EXPECT_EQ(error_of(site("\tphp_server\n\theader /api/* X-A b\n")),
              "Caddyfile:3: header: matcher \"/api/*\" is not supported (only * or none)");
}

TEST(CaddyfileErrors, UnsupportedFeaturesSayWhatToDoInstead) {
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tworker {\n\t\t\tfile a.php\n\t\t\twatch "
                            "src/*/x.php\n\t\t}\n\t}\n")),
              "Caddyfile:5: watch pattern \"src/*/x.php\": wildcards go in the file name only, as "
              "DIR/NAME, DIR/**/NAME or DIR/**");
    EXPECT_EQ(error_of(global("\tservers :443 {\n\t\tmax_header_size 1MB\n\t}\n")),
              "Caddyfile:2: servers: options per listener address are not supported; give them "
              "without an address");
    EXPECT_EQ(error_of(site("\tphp_server\n\theader ?Cache-Control no-cache\n")),
              "Caddyfile:3: header ?Cache-Control: the ? and > forms are not supported");
    EXPECT_EQ(error_of(site("\tphp_server\n\tlog access\n")),
              "Caddyfile:3: log: named loggers are not supported");
    EXPECT_EQ(error_of(site("\tphp_server\n\tlog {\n\t\toutput net localhost:514\n\t}\n")),
              "Caddyfile:4: log output \"net\": not supported (use stderr, stdout or file PATH)");
    EXPECT_EQ(error_of(site("\tphp_server\n\tlog {\n\t\toutput file a.log {\n\t\t\troll_keep_for "
                            "48h\n\t\t}\n\t}\n")),
              "Caddyfile:5: log output file: unknown option \"roll_keep_for\" (use roll_size, "
              "roll_keep or roll_disabled)");
    EXPECT_EQ(error_of(site("\tphp_server\n\tlog {\n\t\tformat logfmt\n\t}\n")),
              "Caddyfile:4: log format \"logfmt\": not supported (use console or json)");
    EXPECT_EQ(error_of(global("\tmetrics {\n\t\tper_host\n\t}\n")),
              "Caddyfile:3: metrics: unknown option \"per_host\"");
    EXPECT_EQ(error_of(site("\troute /api/* {\n\t\tphp_server\n\t}\n")),
              "Caddyfile:2: route: matchers are not supported (a route applies to the whole "
              "site)");
    EXPECT_EQ(error_of(site("\troute {\n\t\troute {\n\t\t\tphp\n\t\t}\n\t}\n")),
              "Caddyfile:3: route: a route inside a route is not supported");
    EXPECT_EQ(error_of(site("\troute {\n\t\tphp_server\n\t\tredir /a /b\n\t}\n")),
              "Caddyfile:4: unknown directive \"redir\"");
    EXPECT_EQ(error_of(site("\tphp_server {\n\t\tresolve_root_symlink maybe\n\t}\n")),
              "Caddyfile:3: resolve_root_symlink: use true or false");
    EXPECT_EQ(error_of(global("\torder php_server\n")),
              "Caddyfile:2: wrong argument count or "
              "unexpected line ending after 'php_server'");
}

TEST(CaddyfileErrors, HeaderThatFramesTheResponse) {
    EXPECT_EQ(error_of(site("\tphp_server\n\theader Content-Length 0\n")),
              "Caddyfile:3: name: Content-Length frames the response and cannot be changed");
    EXPECT_EQ(error_of(site("\tphp_server\n\theader {\n\t\t-Transfer-Encoding\n\t}\n")),
              "Caddyfile:4: name: Transfer-Encoding frames the response and cannot be changed");
    EXPECT_EQ(error_of(site("\tphp_server\n\theader -X-A b\n")),
              "Caddyfile:3: header -X-A: a removal takes no value");
    EXPECT_EQ(error_of(site("\tphp_server\n\theader X-A\n")),
              "Caddyfile:3: header X-A: missing value");
}

TEST(CaddyfileErrors, RespondWithBadStatus) {
    EXPECT_EQ(error_of(site("\trespond \"gone\" 4100\n")),
              "Caddyfile:2: respond: \"4100\" is not a status code");
    EXPECT_EQ(error_of(site("\trespond /old \"moved\" abc\n")),
              "Caddyfile:2: respond: \"abc\" is not a status code");
    EXPECT_EQ(error_of(site("\trespond \"early\" 099\n")),
              "Caddyfile:2: status: must be an integer from 100 to 999");
    EXPECT_EQ(error_of(site("\trespond 200 {\n\t\tclose\n\t}\n")),
              "Caddyfile:3: respond: unknown option \"close\"");
}

TEST(CaddyfileErrors, SiteWithNoHandler) {
    EXPECT_EQ(error_of("example.test:8080 {\n\troot * /srv/app\n}\n"),
              "Caddyfile:1: the site serves nothing: enable php or file_server, or add respond");
}

TEST(CaddyfileErrors, NoSiteAtAll) {
    EXPECT_EQ(error_of("{\n\tfrankenphp {\n\t\tnum_threads 4\n\t}\n}\n"),
              "Caddyfile: the Caddyfile has no site block (e.g. \":8080 { php_server }\")");
    EXPECT_EQ(error_of("# only a comment\n"),
              "Caddyfile: the Caddyfile has no site block (e.g. \":8080 { php_server }\")");
    EXPECT_EQ(error_of(""),
              "Caddyfile: the Caddyfile has no site block (e.g. \":8080 { php_server }\")");
}

TEST(CaddyfileErrors, SyntaxErrorsReachTheCaller) {
    EXPECT_EQ(error_of(":8080 {\n\tphp_server\n"), "Caddyfile:1: unclosed '{': missing '}'");
}

// --- checks against the machine (resolve_config) ---------------------------------------------

/// A fresh directory with an app in it: public/index.php and worker.php.
class CaddyfileResolveErrors : public ::testing::Test {
  protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        dir_ = fs::temp_directory_path() / ("spindle-config-test-" + std::to_string(getpid()) +
                                            "-" + std::to_string(counter++));
        fs::create_directories(dir_ / "public");
        dir_ = fs::canonical(dir_);
        std::ofstream(dir_ / "public/index.php") << "<?php echo 'hi';\n";
        std::ofstream(dir_ / "worker.php") << "<?php\n";
    }
    void TearDown() override { fs::remove_all(dir_); }

    /// what() of the error that loading and resolving `text` throws; "" when none.
    std::string resolve_error(const std::string& text, std::size_t cores = 4) {
        try {
            server_config config = load(text);
            resolve_config(config, cores);
        } catch (const config_error& error) {
            return error.what();
        }
        ADD_FAILURE() << "no config_error for:\n" << text;
        return {};
    }

    std::string path(const std::string& relative) const { return (dir_ / relative).string(); }

    fs::path dir_;
};

TEST_F(CaddyfileResolveErrors, MissingRootNamesTheSite) {
    EXPECT_EQ(resolve_error("\n:8080 {\n\troot * " + path("missing") + "\n\tphp_server\n}\n"),
              "Caddyfile:2: document root " + path("missing") + " is not a readable directory");
    // A file is no root either.
    EXPECT_EQ(resolve_error(":8080 {\n\troot * " + path("worker.php") + "\n\tphp_server\n}\n"),
              "Caddyfile:1: document root " + path("worker.php") + " is not a readable directory");
}

TEST_F(CaddyfileResolveErrors, MissingWorkerFileNamesTheWorkerLine) {
    EXPECT_EQ(resolve_error(":8080 {\n\troot * " + path("public") +
                            "\n\tphp_server {\n\t\tworker " + path("nope.php") + " 2\n\t}\n}\n"),
              "Caddyfile:4: worker file " + path("nope.php") + " does not exist");
    EXPECT_EQ(resolve_error("{\n\tfrankenphp {\n\t\tworker {\n\t\t\tfile gone.php\n\t\t}\n\t}\n}"
                            "\n:8080 {\n\troot * " +
                            path("public") + "\n\tphp_server\n}\n"),
              "Caddyfile:3: worker file gone.php does not exist");
}

TEST_F(CaddyfileResolveErrors, MissingXSendfileDirectoryNamesTheLine) {
    EXPECT_EQ(
        resolve_error(":8080 {\n\troot * " + path("public") +
                      "\n\tphp_server {\n\t\tx_sendfile {\n\t\t\taccel_redirect /p/ " +
                      path("missing") + "\n\t\t}\n\t}\n}\n"),
        "Caddyfile:4: x_sendfile directory " + path("missing") + " is not a readable directory");
}

TEST_F(CaddyfileResolveErrors, XSendfileDirectoriesAreMadeCanonical) {
    server_config config =
        load(":8080 {\n\troot * " + path("public") + "\n\tphp_server {\n\t\tx_sendfile " +
             path("public/../public") + "\n\t}\n}\n");
    resolve_config(config, 4);
    ASSERT_TRUE(config.sites[0].x_sendfile);
    EXPECT_EQ(config.sites[0].x_sendfile->roots,
              std::vector<std::string>{fs::canonical(path("public")).string()});
}

TEST_F(CaddyfileResolveErrors, TwoSitesForTheSameHostAndPort) {
    const std::string root = path("public");
    EXPECT_EQ(resolve_error("a.test:8080 {\n\troot * " + root + "\n\tphp_server\n}\n" +
                            "http://a.test:8080 {\n\troot * " + root + "\n\tfile_server\n}\n"),
              "Caddyfile:5: another site already answers host a.test on :8080");
    EXPECT_EQ(resolve_error(":8080 {\n\troot * " + root + "\n\tphp_server\n}\n" +
                            ":8080 {\n\troot * " + root + "\n\trespond 404\n}\n"),
              "Caddyfile:5: another site already answers any host on :8080");
}

TEST_F(CaddyfileResolveErrors, OneUnixSocketWithTwoModes) {
    const std::string root = path("public");
    EXPECT_EQ(resolve_error("a.test {\n\tbind unix//run/s.sock|0660\n\troot * " + root +
                            "\n\tfile_server\n}\nb.test {\n\tbind unix//run/s.sock\n\troot * " +
                            root + "\n\tfile_server\n}\n"),
              "Caddyfile:6: unix//run/s.sock and unix//run/s.sock|0660 are one socket file: give "
              "it one mode");
}

TEST_F(CaddyfileResolveErrors, WorkerDeclaredTwice) {
    EXPECT_EQ(
        resolve_error(":8080 {\n\troot * " + path("public") + "\n\tphp_server {\n\t\tworker " +
                      path("worker.php") + " 1\n\t\tworker " + path("worker.php") + " 1\n\t}\n}\n"),
        "Caddyfile:5: worker " + path("worker.php") + " is declared twice");
}

TEST_F(CaddyfileResolveErrors, OneWorkerFilePerSiteIsNamedAsFrankenPHPNamesIt) {
    // The same file in two sites: one worker each, named by the file's absolute path, the
    // second qualified with its site's name, then numbered (FrankenPHP's caddy/app.go).
    const std::string site = "\troot * " + path("public") + "\n\tphp_server {\n\t\tworker " +
                             path("worker.php") + " 1\n\t}\n}\n";
    server_config config = load("a.test:8080 {\n" + site + "b.test:8080 {\n" + site + ":8081 {\n" +
                                site + "b.test:8082 {\n" + site);
    resolve_config(config, 8);
    ASSERT_EQ(config.sites.size(), 4u);
    EXPECT_EQ(config.sites[0].workers.at(0).name, path("worker.php"));
    EXPECT_EQ(config.sites[1].workers.at(0).name, "b.test:" + path("worker.php"));
    EXPECT_EQ(config.sites[2].workers.at(0).name, ":8081:" + path("worker.php"));
    EXPECT_EQ(config.sites[3].workers.at(0).name, path("worker.php") + "_1");
    // Explicit names are qualified the same way instead of refused.
    server_config named = load("{\n\tfrankenphp {\n\t\tworker {\n\t\t\tfile " + path("worker.php") +
                               "\n\t\t\tname app\n\t\t}\n\t}\n}\n" + ":8080 {\n\troot * " +
                               path("public") + "\n\tphp_server {\n\t\tworker {\n\t\t\tfile " +
                               path("worker.php") + "\n\t\t\tname app\n\t\t}\n\t}\n}\n");
    resolve_config(named, 4);
    EXPECT_EQ(named.workers.at(0).name, "app");
    EXPECT_EQ(named.sites[0].workers.at(0).name, ":8080:app");
}

TEST_F(CaddyfileResolveErrors, TooFewThreadsForTheWorkers) {
    EXPECT_EQ(resolve_error("{\n\tfrankenphp {\n\t\tnum_threads 4\n\t}\n}\n:8080 {\n\troot * " +
                            path("public") + "\n\tphp_server {\n\t\tworker " + path("worker.php") +
                            " 4\n\t}\n}\n"),
              "num_threads 4 leaves no thread for classic scripts: the workers take 4; give at "
              "least 5");
}

TEST(CaddyfileErrors, MaxThreadsTakesACountOrAuto) {
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tmax_threads lots\n\t}\n")),
              "Caddyfile:3: max_threads: \"lots\" is not a thread count or auto");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tmax_threads 0\n\t}\n")),
              "Caddyfile:3: max_threads: must be an integer from 1 to 4096");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tmax_idle_time 5x\n\t}\n")),
              "Caddyfile:3: max_idle_time: invalid duration \"5x\": unknown unit \"x\" (use "
              "ns, us, ms, s, m, h or d)");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tworker {\n\t\t\tfile w.php\n\t\t\t"
                              "max_threads x\n\t\t}\n\t}\n")),
              "Caddyfile:5: max_threads: \"x\" is not a whole number");
}

TEST_F(CaddyfileResolveErrors, MaxThreadsAsFrankenPHPSizesIt) {
    const std::string site = ":8080 {\n\troot * " + path("public") + "\n\tphp_server {\n\t\t" +
                             "worker {\n\t\t\tfile " + path("worker.php") + "\n\t\t\tnum 2\n";
    // Below num_threads, or a worker's above the global one or below its num: refused where
    // written.
    EXPECT_EQ(resolve_error("{\n\tfrankenphp {\n\t\tnum_threads 8\n\t\tmax_threads 4\n\t}\n}\n" +
                            site + "\t\t}\n\t}\n}\n"),
              "Caddyfile:4: max_threads 4 is below num_threads 8 (the workers' threads and one "
              "for classic scripts)");
    EXPECT_EQ(resolve_error("{\n\tfrankenphp {\n\t\tmax_threads 8\n\t}\n}\n" + site +
                            "\t\t\tmax_threads 16\n\t\t}\n\t}\n}\n"),
              "Caddyfile:9: worker max_threads 16 is above the global max_threads 8");
    EXPECT_EQ(resolve_error(site + "\t\t\tmax_threads 1\n\t\t}\n\t}\n}\n"),
              "Caddyfile:4: worker max_threads 1 is below its num 2");

    // max_threads alone: the workers' threads and one classic thread to start with.
    server_config alone =
        load("{\n\tfrankenphp {\n\t\tmax_threads 32\n\t}\n}\n" + site + "\t\t}\n\t}\n}\n");
    resolve_config(alone, 4);
    EXPECT_EQ(alone.num_threads, 3u);
    EXPECT_EQ(alone.max_threads, 32u);
    // Only on a worker: the pool may grow by what the worker adds.
    server_config on_worker = load("{\n\tfrankenphp {\n\t\tnum_threads 4\n\t}\n}\n" + site +
                                   "\t\t\tmax_threads 10\n\t\t}\n\t}\n}\n");
    resolve_config(on_worker, 4);
    EXPECT_EQ(on_worker.num_threads, 4u);
    EXPECT_EQ(on_worker.max_threads, 12u);
    EXPECT_EQ(on_worker.sites[0].workers.at(0).max_threads, 10u);
    // auto stays auto until PHP's memory_limit is known; max_idle_time is read as a duration.
    server_config automatic = load(
        "{\n\tfrankenphp {\n\t\tnum_threads 4\n\t\tmax_threads auto\n\t\tmax_idle_time 2s\n\t}"
        "\n}\n:8080 {\n\troot * " +
        path("public") + "\n\tphp_server\n}\n");
    resolve_config(automatic, 4);
    EXPECT_EQ(automatic.max_threads, max_threads_auto);
    EXPECT_EQ(automatic.max_idle_time, std::chrono::milliseconds(2000));
    // None: no autoscaling.
    server_config fixed = load(":8080 {\n\troot * " + path("public") + "\n\tphp_server\n}\n");
    resolve_config(fixed, 4);
    EXPECT_EQ(fixed.max_threads, 0u);
}

TEST_F(CaddyfileResolveErrors, AValidFileResolves) {
    server_config config = load(":8080 {\n\troot * " + path("public") +
                                "\n\tphp_server {\n\t\tworker ../worker.php 2\n\t}\n}\n");
    resolve_config(config, 4);
    ASSERT_EQ(config.sites.size(), 1u);
    EXPECT_EQ(config.sites[0].root, path("public"));
    // A relative worker file not found from the current directory is looked up under the root.
    EXPECT_EQ(config.sites[0].workers.at(0).file, path("worker.php"));
    EXPECT_EQ(config.num_threads, 8u);
}

}  // namespace
}  // namespace spindle::config

namespace spindle::config {
namespace {

TEST(CaddyfileErrors, TrustedProxiesAndProxyProtocol) {
    EXPECT_EQ(error_of(global("\tservers {\n\t\ttrusted_proxies static 10.0.0.0/8 nope\n\t}\n")),
              "Caddyfile:3: \"nope\" is not an IP range: expected an address such as "
              "10.0.0.0/8 or fd00::/8");
    EXPECT_EQ(error_of(global("\tservers {\n\t\ttrusted_proxies cloudflare\n\t}\n")),
              "Caddyfile:3: trusted_proxies: source \"cloudflare\" is not supported (use static)");
    EXPECT_EQ(error_of(global("\tservers {\n\t\ttrusted_proxies static\n\t}\n")),
              "Caddyfile:3: trusted_proxies static: give CIDR ranges or private_ranges");
    EXPECT_EQ(error_of(global("\tservers {\n\t\ttrusted_proxies_strict on\n\t}\n")),
              "Caddyfile:3: wrong argument count or unexpected line ending after 'on'");
    EXPECT_EQ(error_of(global("\tservers {\n\t\tlistener_wrappers {\n\t\t\thttp_redirect\n"
                              "\t\t}\n\t}\n")),
              "Caddyfile:4: unknown listener wrapper \"http_redirect\" (use proxy_protocol or "
              "tls)");
    EXPECT_EQ(error_of(global("\tservers {\n\t\tlistener_wrappers {\n\t\t\tproxy_protocol {\n"
                              "\t\t\t\tfallback_policy maybe\n\t\t\t}\n\t\t}\n\t}\n")),
              "Caddyfile:5: fallback_policy: unknown policy \"maybe\" (use ignore, use, reject, "
              "require or skip)");
    EXPECT_EQ(error_of(global("\tservers {\n\t\tlistener_wrappers {\n\t\t\tproxy_protocol {\n"
                              "\t\t\t\tallow 10.0.0.0/99\n\t\t\t}\n\t\t}\n\t}\n")),
              "Caddyfile:5: \"10.0.0.0/99\" is not an IP range: the prefix length is above 32");
}

TEST(CaddyfileErrors, BadProcesses) {
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tprocesses none\n\t}\n")),
              "Caddyfile:3: processes: \"none\" is not a whole number");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\tprocesses 0\n\t}\n")),
              "Caddyfile:3: processes: must be an integer from 1 to 256");
    EXPECT_EQ(error_of(global("\tfrankenphp {\n\t\temergency_restart_threshold -1\n\t}\n")),
              "Caddyfile:3: emergency_restart_threshold: \"-1\" is not a whole number");
}

}  // namespace
}  // namespace spindle::config
